"""Device-feature values of factory-space points kept on disk (issue #33 item 2):
what is read back is what was computed, for every family, and a second session
ranking the same space builds none of its kernels and ranks as the first did."""

from __future__ import annotations

import runpy
import textwrap
from pathlib import Path

import numpy as np
import pytest

import workbench.models  # noqa: F401 - registers every device-feature family
from workbench.kernels.candidate import Candidate
from workbench.models import count_cache
from workbench.models.defaults import default_model
from workbench.models.device_features import device_families, device_feature_sources
from workbench.models.expressions.features import LOCAL_FEATURES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", str(tmp_path / "counts.sqlite"))
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")
    return tmp_path / "counts.sqlite"


def _device() -> str:
    return dict(default_model().model.device)["device"]


def _transpose_points():
    """A factory space whose points stage a tile in local memory (and one that does not)."""
    space = runpy.run_path(str(ROOT / "examples/spaces/transpose.py"))["space"](n=256)
    points = [p for p in space.points() if p["bx"] == 32 and p["wpi"] in (1, 2)
              and p["by"] in (4, 8)]
    return space, points


def _my_space_points():
    space = runpy.run_path(str(ROOT / "examples/kernels/my_space.py"))["space"]
    return space, [p for p in space.points() if p["group"] in (64, 256)][:4]


@pytest.mark.parametrize("which", ["local tile", "no local memory"])
def test_every_family_reads_back_what_it_computed(own_cache, which):
    space, points = _transpose_points() if which == "local tile" else _my_space_points()
    assert count_cache.space_fingerprint(space) is not None
    device = _device()
    candidates = [Candidate.of_point(space, p) for p in points]
    families = device_families()
    assert len(families) >= 13
    local_seen = 0.0
    for family in families:
        computed = family.values(candidates, device)
        first = family.cached(candidates, device)         # computed and stored
        assert not _source(space, family.name).from_cache
        back = family.cached(candidates, device)          # read from the disk
        assert _source(space, family.name).from_cache, family.name
        assert set(back) == set(family.features)
        for name in family.features:
            np.testing.assert_array_equal(back[name], computed[name], err_msg=name)
            np.testing.assert_array_equal(first[name], computed[name], err_msg=name)
            if name in LOCAL_FEATURES:
                local_seen += float(np.nansum(np.abs(computed[name])))
    # the local tile shows in the local features (else this checks nothing of them)
    assert (local_seen > 0) == (which == "local tile")


def _source(space, family):
    return {s.family: s for s in device_feature_sources(space.name)}[family]


def _stored_rows(path) -> int:
    import sqlite3

    if not path.exists():
        return 0
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT COUNT(*) FROM device_values").fetchone()[0]
    finally:
        con.close()


def test_no_cache_for_a_mix_or_with_the_cache_off(own_cache, monkeypatch):
    space, points = _my_space_points()
    other, other_points = _transpose_points()
    family = next(f for f in device_families() if f.name.endswith("fma_pair_values"))
    device = _device()
    mine = [Candidate.of_point(space, p) for p in points]
    mixed = [mine[0], Candidate.of_point(other, other_points[0])]
    # points of two spaces: not cached (nor read back), computed as before
    family.cached(mixed, device)
    assert _stored_rows(own_cache) == 0
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    family.cached(mine, device)
    assert _stored_rows(own_cache) == 0
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", str(own_cache))
    family.cached(mine, device)
    assert _stored_rows(own_cache) == len(mine) * len(family.features)


SPACE = textwrap.dedent('''
    import loopy as lp
    import numpy as np
    from workbench.tuning import TuningSpace

    CALLS = []

    def kernel(point):
        CALLS.append(point.label)
        knl = lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = 3*x[i]",
                             [lp.GlobalArg("x, y", np.float32, shape="n"), ...],
                             lang_version=(2018, 2), name="counted_copy")
        knl = lp.fix_parameters(knl, n=1 << 14)
        knl = lp.split_iname(knl, "i", point["group"] * point["per_item"], outer_tag="g.0")
        return lp.split_iname(knl, "i_inner", point["group"], inner_tag="l.0")

    space = TuningSpace(
        name="counted_copy", description="y = 3x, factory calls counted",
        tune_params={"group": (32, 64, 128, 256), "per_item": (1, 2, 4)},
        group_size=lambda p: (p["group"],), kernel=kernel)
''')


def test_a_warm_session_builds_no_kernel_and_ranks_the_same(own_cache, tmp_path):
    from workbench.tuning.ranking import CountSources, rank_space

    path = tmp_path / "counted_space.py"
    path.write_text(SPACE)
    model = default_model().model
    sessions, lines = [], []
    for _ in range(2):
        # a fresh namespace: a new space, factory and call list, as a new process has
        namespace = runpy.run_path(str(path))
        ranking = rank_space(model, namespace["space"])
        from workbench.models.candidate_features import flush_saves

        flush_saves()
        sessions.append((namespace["CALLS"], ranking))
        lines.append(CountSources.of(ranking).describe())
    (cold_calls, cold), (warm_calls, warm) = sessions
    assert cold_calls, "the first session builds its points"
    assert warm_calls == []
    np.testing.assert_array_equal(warm.predicted_s, cold.predicted_s)
    np.testing.assert_array_equal(warm.order, cold.order)
    sources = CountSources.of(warm)
    assert sources.cached == sources.points == 12 and sources.built == 0
    n = sources.feature_families
    assert n >= 10 and sources.feature_families_cached == n
    # what `workbench tune` prints as its "counts:" line
    assert lines[0].startswith("0 of 12 points from the count cache, ")
    assert lines[0].endswith(f"; device features ({n} families) worked out now")
    assert lines[1] == ("12 of 12 points from the count cache; "
                        f"their device features too ({n} families)")
