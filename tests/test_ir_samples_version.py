"""The shipped sample files hold other programs' IR features precomputed (what the
knn and xgb strategies learn from, the same for every user): they carry the version
of the features' definition, and a sample of their rows is what this code computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.errors import ModelError
from workbench.models.ir_features import load_samples, save_samples, space_ir_features
from workbench.models.ir_features.samples import (
    BENCHMARK,
    FEATURES,
    FEATURES_VERSION,
    INPUT,
)
from workbench.tuning.catalog import get_space

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"


def _rows(path: Path, benchmark: str, n: int):
    if not path.is_file():
        pytest.skip(f"no {path.name}")
    samples = load_samples(path)
    part = samples[(samples[BENCHMARK] == benchmark) & (samples[INPUT] == f"n={n}")]
    return part.loc[:, list(FEATURES)].to_numpy()


@pytest.mark.parametrize("file, benchmark, n, structures", [
    # a space's rows are its points in order; the structures with the fewest points
    # (1-D launches, a vector width) keep the recomputation short
    ("lift-rewrites-samples.csv.xz", "lift_rewrites_jacobi5", 2048,
     [("global", "1d", False, "blocked", 4), ("global", "1d", True, "strided", 1),
      ("global", "2d", False, "blocked", 4)]),
    ("ir-samples.csv.xz", "lift_gradient", 512, None),
])
def test_shipped_training_features_are_what_the_code_computes(file, benchmark, n,
                                                                structures, tmp_path,
                                                                monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))     # nothing read from a cache
    shipped = _rows(H100 / file, benchmark, n)
    space = get_space(benchmark, n=n)
    points = space.points()
    assert len(points) == len(shipped)
    if structures is None:                                  # the smallest structure
        sizes: dict = {}
        for p in points:
            sizes[space.structure_of(p)] = sizes.get(space.structure_of(p), 0) + 1
        structures = [min(sizes, key=sizes.get)]
    chosen = [i for i, p in enumerate(points) if space.structure_of(p) in structures]
    assert chosen
    computed = space_ir_features(space, [points[i] for i in chosen]).to_numpy()
    assert np.array_equal(computed, shipped[chosen])


def test_a_sample_file_of_another_features_version_is_refused(tmp_path):
    path = H100 / "ir-samples.csv.xz"
    if not path.is_file():
        pytest.skip("no shipped samples")
    samples = load_samples(path).head(30)
    save_samples(samples, tmp_path / "s.csv", {"command": "test"})
    header = (tmp_path / "s.csv").read_text().splitlines()[0]
    assert f'"features_version": {FEATURES_VERSION}' in header
    assert load_samples(tmp_path / "s.csv").equals(samples.reset_index(drop=True))
    old = header.replace(f'"features_version": {FEATURES_VERSION}',
                         f'"features_version": {FEATURES_VERSION + 1}')
    body = (tmp_path / "s.csv").read_text().split("\n", 1)[1]
    (tmp_path / "other.csv").write_text(old + "\n" + body)
    with pytest.raises(ModelError, match="rebuild it with workbench ir-samples"):
        load_samples(tmp_path / "other.csv")
    # a file written before versions were recorded holds version 1
    unversioned = header.replace(f'"features_version": {FEATURES_VERSION}, ', "")
    (tmp_path / "unversioned.csv").write_text(unversioned + "\n" + body)
    if FEATURES_VERSION == 1:
        assert len(load_samples(tmp_path / "unversioned.csv")) == 30
    else:
        with pytest.raises(ModelError, match="holds IR features of version 1"):
            load_samples(tmp_path / "unversioned.csv")


def test_a_sample_file_reads_the_same_plain_or_xz_compressed_and_is_recognised_as_one(tmp_path):
    import pandas as pd

    from workbench.models.ir_features.samples import is_sample_file
    from workbench.tuning.ir_training import training_frame

    shipped = H100 / "ir-samples.csv.xz"
    if not shipped.is_file():
        pytest.skip("no shipped sample file")
    rows = load_samples(shipped).head(40)
    plain, packed = tmp_path / "s.csv", tmp_path / "s.csv.xz"
    save_samples(rows, plain, {"test": "plain"})
    save_samples(rows, packed, {"test": "xz"})
    assert packed.read_bytes()[:6] == b"\xfd7zXZ\x00"       # really compressed
    pd.testing.assert_frame_equal(load_samples(plain), load_samples(packed))
    assert is_sample_file(packed) and is_sample_file(plain)
    assert not is_sample_file(tmp_path / "store.sqlite.xz")
    # a compressed sample file given as training data is read as samples, not a store
    assert len(training_frame([packed], exclude="no_such_program")) == len(rows)


def test_a_sample_file_named_xz_that_is_not_xz_is_a_clear_error(tmp_path):
    fake = tmp_path / "samples.csv.xz"
    fake.write_text('# {"schema_version": 1}\na,b\n1,2\n', encoding="utf-8")
    with pytest.raises(ModelError, match="cannot read the sample file"):
        load_samples(fake)
