"""The cuts of a first session's ranking cost leave every result as it was: distinct
integers by sorting are np.unique's, range unions from separately sorted starts and
ends are the argsort ones, and features read while a model is fitted (or given up)
are those read before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.models.roofline.distinct import distinct, distinct_count, distinct_with_counts
from workbench.models.roofline.intervals import union_size
from workbench.models.roofline.reuse import merge_ranges


def _argsort_merge(ranges: np.ndarray) -> np.ndarray:
    """The union as it was computed before (sorted by start, running maximum of ends)."""
    order = np.argsort(ranges[:, 0], kind="stable")
    first, last = ranges[order, 0], ranges[order, 1]
    reach = np.maximum.accumulate(last)
    new = np.concatenate([[True], first[1:] > reach[:-1] + 1])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:] - 1, len(first) - 1)
    return np.stack([first[starts], reach[ends]], axis=1)


def test_distinct_integers_by_sorting_are_np_uniques():
    rng = np.random.default_rng(3)
    for size, span in [(0, 5), (1, 5), (500, 40), (20_000, 10**9)]:
        values = rng.integers(-span, span, size)
        assert np.array_equal(distinct(values), np.unique(values))
        assert distinct_count(values) == np.unique(values).size
        keys, counts = distinct_with_counts(values)
        want_keys, want_counts = np.unique(values, return_counts=True)
        assert np.array_equal(keys, want_keys) and np.array_equal(counts, want_counts)


def test_range_unions_are_those_of_the_argsort_merge():
    rng = np.random.default_rng(4)
    for _ in range(2000):
        n = int(rng.integers(1, 30))
        first = rng.integers(0, 120, n)
        ranges = np.stack([first, first + rng.integers(0, 15, n)], axis=1).astype(np.int64)
        merged = merge_ranges(ranges)
        assert np.array_equal(merged, _argsort_merge(ranges))
        assert union_size([ranges]) == int((merged[:, 1] - merged[:, 0] + 1).sum())
    # nested and touching ranges: [0, 9] holds [2, 3]; [10, 12] touches it
    assert merge_ranges(np.array([[2, 3], [0, 9], [10, 12], [20, 20]])).tolist() == \
        [[0, 12], [20, 20]]


def test_features_read_while_fitting_or_given_up(tmp_path, monkeypatch):
    from workbench.models.ir_features import space_ir_features, space_ir_features_started
    from workbench.tuning.catalog import get_space

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("WORKBENCH_RANKING_CACHE", "0")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    space = get_space("lift_rewrites_jacobi5", n=2048)
    small = {}
    for p in space.points():
        small.setdefault(space.structure_of(p), []).append(p)
    points = [p for ps in small.values() if len(ps) <= 2 for p in ps]   # 1-D structures
    started = space_ir_features_started(space, points)
    assert started._reading is not None and started._reading.pool is not None
    np.linalg.svd(np.random.default_rng(0).random((200, 200)))          # the caller's work
    frame = started.frame()
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")
    assert frame.equals(space_ir_features(get_space("lift_rewrites_jacobi5", n=2048),
                                          points))
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    given_up = space_ir_features_started(get_space("lift_rewrites_jacobi5", n=2048), points)
    given_up.cancel()
    assert given_up._reading.pool is None


def test_a_failing_fit_stops_the_feature_workers(tmp_path, monkeypatch):
    import workbench.models.ir_features as features
    from workbench.errors import TuningError
    from workbench.models.ir_features import load_samples, save_samples
    from workbench.tuning.catalog import get_space
    from workbench.tuning.ir_strategies import IRFeatureKNN

    shipped = Path(__file__).resolve().parents[1] / "sample_data" / "h100" / \
        "lift-rewrites-samples.csv.xz"
    if not shipped.is_file():
        pytest.skip("no shipped samples")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    rows = load_samples(shipped)
    only_itself = tmp_path / "only-jacobi5.csv"       # nothing else to learn from
    save_samples(rows[rows["benchmark"] == "lift_rewrites_jacobi5"].head(20), only_itself,
                 {"command": "test"})
    space = get_space("lift_rewrites_jacobi5", n=2048)
    one_each: dict = {}
    for p in space.points():
        one_each.setdefault(space.structure_of(p), p)
    started = []
    original = features.space_ir_features_started

    def spy(*args, **kwargs):
        started.append(original(*args, **kwargs))
        return started[-1]
    monkeypatch.setattr(features, "space_ir_features_started", spy)
    with pytest.raises(TuningError, match="holds none besides"):
        IRFeatureKNN(training=[only_itself]).order(space, list(one_each.values())[:4])
    (reading,) = [s._reading for s in started]
    assert reading is not None and reading.pool is None     # started, then stopped
