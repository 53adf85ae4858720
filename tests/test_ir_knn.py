"""The Lift IR-feature kNN model: pipeline, leave-one-benchmark-out, feature
information, and its errors (workbench.models.ir_features.knn / .lobo / .samples)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ModelError
from workbench.models.ir_features import (
    KNNConfig,
    expected_runs,
    feature_information,
    fit_ir_knn,
    ir_samples,
    leave_one_benchmark_out,
    lobo_frame,
    space_samples,
)
from workbench.models.ir_features.samples import FEATURES, TARGET
from workbench.tuning.catalog import get_space
from workbench.tuning.metrics import random_reach
from workbench.tuning.replay import load_space_evaluations

SHIPPED = "sample_data/h100/tuning.sqlite"


def _features(x: np.ndarray) -> pd.DataFrame:
    """A feature frame driven by one number: cache lines follow x, two more features
    are functions of it, the rest constant (so PCA keeps one direction, x)."""
    frame = pd.DataFrame(1.0, index=[f"p{i}" for i in range(len(x))], columns=FEATURES)
    frame["cache_lines_per_warp_access"] = x
    frame["global_loads"] = 3 * x + 2
    frame["local_size_0"] = np.sqrt(x)
    return frame


def _synthetic(scales=(1.0, 1.0, 1.0)) -> pd.DataFrame:
    """Three benchmarks on the same grid of x; time = scale * (20 + x), so the
    normalized throughput (20 + min x) / (20 + x) is the same in all three."""
    x = np.arange(40.0)
    rng = np.random.default_rng(0)
    frames = []
    for b, scale in enumerate(scales):
        order = rng.permutation(len(x))      # the row order must not matter
        frames.append(ir_samples(_features(x[order]), scale * (20 + x[order]), f"b{b}",
                                 "n=1"))
    return pd.concat(frames, ignore_index=True)


def test_normalized_throughput_is_best_time_over_time_and_zero_when_failed():
    s = ir_samples(_features(np.array([1.0, 2.0, 3.0])), [2.0, 1.0, None], "b")
    assert s[TARGET].tolist() == [0.5, 1.0, 0.0]
    assert np.isnan(s["time_s"].iloc[2])


def test_feature_determining_throughput_gives_near_perfect_lobo():
    samples = _synthetic(scales=(1.0, 1e3, 1e-3))
    records = leave_one_benchmark_out(samples)
    assert [r.benchmark for r in records] == ["b0", "b1", "b2"]
    for r in records:
        assert r.points == 40 and r.training_points == 80
        assert r.trained_on == tuple(b for b in ("b0", "b1", "b2") if b != r.benchmark)
        assert r.components == 1
        assert r.correlation > 0.99
        # the top predictions are all within 95 % of the best
        assert r.runs_to[0.90] == r.runs_to[0.95] == 1
        # x = 0, 1 reach 95 % (20/22 < 0.95 <= 20/21), x = 0..2 reach 90 %: random
        # search expects (40 + 1) / (m + 1) runs
        assert r.random_runs_to[0.95] == pytest.approx(41 / 3)
        assert r.random_runs_to[0.90] == pytest.approx(41 / 4)
        assert r.speedup(0.95) == pytest.approx(41 / 3)
    # with one neighbour each held-out variant finds its own twin: the best in 1 run
    exact = leave_one_benchmark_out(samples, KNNConfig(neighbors=1), targets=(1.0,))
    assert all(r.correlation == pytest.approx(1.0) and r.runs_to[1.0] == 1 for r in exact)
    frame = lobo_frame(records)
    assert {"correlation", "runs_to_95", "random_runs_to_95", "speedup_90"} <= set(frame)


def test_expected_runs_averages_over_ties():
    measured = np.array([1.0, 0.5, 0.96, 0.2])
    # three tied at the top holding two hits: (3 + 1) / (2 + 1)
    assert expected_runs(np.array([1, 1, 1, 0.0]), measured, 0.95) == pytest.approx(4 / 3)
    # the hit predicted worst: measured after the three others
    assert expected_runs(np.array([0.0, 1, 1, 1]), measured, 1.0) == 4
    assert expected_runs(np.array([0.0, 1, 1, 1]), measured, 1.01) is None   # unreachable


def test_feature_information_ranks_the_determining_feature_first():
    samples = _synthetic()
    samples["global_stores"] = np.random.default_rng(1).integers(0, 10, len(samples))
    (info, *_) = feature_information(samples, bins=10)
    assert info.benchmark == "b0" and info.points == 40
    assert info.nmi["cache_lines_per_warp_access"] == pytest.approx(1.0)
    assert info.nmi["barriers"] == 0.0               # constant: no information
    assert info.nmi["global_stores"] < 0.5
    assert list(info.nmi) == list(FEATURES)


def test_training_sets_that_cannot_work_raise_one_model_error():
    samples = _synthetic()
    with pytest.raises(ModelError, match="at least two benchmarks; .* only 'b0'"):
        leave_one_benchmark_out(samples[samples["benchmark"] == "b0"])
    with pytest.raises(ModelError, match="training set has no rows"):
        fit_ir_knn(samples.iloc[:0])
    with pytest.raises(ModelError, match="fewer than the 5 neighbours"):
        fit_ir_knn(samples.iloc[:4])
    broken = samples.copy()
    broken.loc[3, "barriers"] = np.nan
    with pytest.raises(ModelError, match="1 missing or infinite feature value.*barriers"):
        leave_one_benchmark_out(broken)
    with pytest.raises(ModelError, match="lacks feature column.*global_loads"):
        fit_ir_knn(samples).predict(samples.drop(columns=["global_loads"]))
    with pytest.raises(ModelError, match="no successfully measured variant"):
        ir_samples(_features(np.array([1.0])), [None], "b")
    with pytest.raises(ModelError, match="neighbors must be a positive integer"):
        KNNConfig(neighbors=0)
    with pytest.raises(ModelError, match="strictly between 0 and 1"):
        KNNConfig(variance=1.0)


def test_lobo_on_the_shipped_tuning_store():
    # two spaces keep it cheap; transpose's store load and features are the costliest
    frames = []
    for name in ("stencil2d", "matmul"):
        space = get_space(name)
        evaluations = load_space_evaluations(SHIPPED, space)
        frames.append(space_samples(space, evaluations))
        # random search's expectation agrees with the tuning metrics' own
        expected = expected_runs(np.zeros(len(frames[-1])), frames[-1][TARGET], 0.95)
        assert expected == pytest.approx(random_reach(list(evaluations.values()), 0.95)[0])
    samples = pd.concat(frames, ignore_index=True)
    assert len(samples) == 523 + 506 and samples[TARGET].max() == 1.0
    records = leave_one_benchmark_out(samples)
    assert [(r.benchmark, r.input, r.points) for r in records] == [
        ("stencil2d", "n=8192", 523), ("matmul", "n=2048", 506)]
    for r in records:
        assert 1 <= r.components <= len(FEATURES)
        assert -1 <= r.correlation <= 1
        assert 1 <= r.runs_to[0.95] <= r.points
    info = feature_information(samples)
    assert all(0 <= v <= 1 for i in info for v in i.nmi.values())


def test_knn_ties_at_the_kth_distance_are_averaged_whatever_the_row_order():
    """Training variants at the same distance (shared IR features) with different
    throughputs: the prediction is the expectation over tie breaks, so it does not
    depend on the rows' order (a k-d tree's choice did, and so did the machine)."""
    from workbench.models.ir_features.knn import TieAveragedKNN

    x = np.array([[0.0], [1.0], [1.0], [1.0], [1.0], [3.0]])
    y = np.array([1.0, 0.0, 0.2, 0.4, 0.6, 9.0])
    query = np.array([[0.1]])
    # k = 3: the point at 0 counts fully, the four at 1 share the other two places
    expected = (1.0 + 2 * np.mean([0.0, 0.2, 0.4, 0.6])) / 3
    rng = np.random.default_rng(0)
    for _ in range(5):
        order = rng.permutation(len(x))
        model = TieAveragedKNN(n_neighbors=3).fit(x[order], y[order])
        assert model.predict(query)[0] == pytest.approx(expected, rel=1e-12)
    # without ties it is the plain k-nearest mean
    plain = TieAveragedKNN(n_neighbors=2).fit(np.array([[0.0], [2.0], [5.0]]),
                                              np.array([1.0, 3.0, 7.0]))
    assert plain.predict(np.array([[0.4]]))[0] == pytest.approx(2.0)
