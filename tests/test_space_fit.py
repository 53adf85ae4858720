"""The cheap model's weights fitted on measured tuning spaces (workbench.models.unified.space_fit)."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.errors import ModelError
from workbench.models.unified.linear import FittedLinearModel
from workbench.models.unified.space_fit import (
    MeasuredSpace,
    fit_on_spaces,
    predicted_seconds,
    runs_to_share,
    weighted_properties,
)

PROPERTIES = ("f_op_float32_add", "f_mem_access_global_float32_load_stride1",
              "f_thread_groups", "f_sync_kernel_launch")


def base_model(zero: str | None = "f_sync_barrier_local") -> FittedLinearModel:
    weights = {name: 1e-12 for name in PROPERTIES}
    if zero:
        weights[zero] = 0.0
    return FittedLinearModel(weights=weights, confidence_intervals={}, unexercised=[],
                             fit_stats={"n_measurements": 3}, device={"device": "GPU"},
                             granularity="workitem", subgroup_size=None, provenance={},
                             non_negative=True)


def synthetic_spaces(truth: dict, n_spaces: int = 4, points: int = 40, seed: int = 1):
    rng = np.random.default_rng(seed)
    spaces = []
    for s in range(n_spaces):
        counts = {"f_op_float32_add": rng.uniform(1e6, 1e8, points),
                  "f_mem_access_global_float32_load_stride1": rng.uniform(1e5, 1e7, points),
                  "f_thread_groups": rng.integers(64, 4096, points).astype(float),
                  "f_sync_kernel_launch": np.ones(points),
                  # counted by nobody's ranking: the base weighs it at zero
                  "f_sync_barrier_local": rng.uniform(0, 1e6, points)}
        factors = rng.uniform(1.0, 1.5, points)
        seconds = sum(truth[k] * counts[k] for k in truth) * factors
        spaces.append(MeasuredSpace(f"space{s}", counts, seconds, factors))
    return spaces


def test_the_fit_recovers_the_weights_the_spaces_were_made_with():
    truth = {"f_op_float32_add": 4e-14, "f_mem_access_global_float32_load_stride1": 3e-12,
             "f_thread_groups": 5e-10, "f_sync_kernel_launch": 5e-6}
    fitted = fit_on_spaces(synthetic_spaces(truth), base_model())
    for name, weight in truth.items():
        assert fitted.weights[name] == pytest.approx(weight, rel=1e-6)
    # the property the base weighs at zero stays zero (a ranking does not count it)
    assert fitted.weights["f_sync_barrier_local"] == 0.0
    assert set(fitted.weights) == set(base_model().weights)
    assert fitted.fit_stats["spaces"] == ["space0", "space1", "space2", "space3"]
    assert fitted.fit_stats["n_measurements"] == 160


def test_the_residency_factor_is_divided_out_not_fitted_into_the_weights():
    truth = {"f_op_float32_add": 4e-14, "f_mem_access_global_float32_load_stride1": 3e-12,
             "f_thread_groups": 5e-10, "f_sync_kernel_launch": 5e-6}
    spaces = synthetic_spaces(truth)
    unfactored = [MeasuredSpace(s.name, s.counts, s.seconds) for s in spaces]
    with_factors = fit_on_spaces(spaces, base_model()).weights
    without = fit_on_spaces(unfactored, base_model()).weights
    assert with_factors["f_thread_groups"] == pytest.approx(5e-10, rel=1e-6)
    assert without["f_thread_groups"] != pytest.approx(5e-10, rel=1e-3)


def test_failed_points_are_left_out_and_an_empty_fit_is_refused():
    truth = {"f_op_float32_add": 4e-14, "f_mem_access_global_float32_load_stride1": 3e-12,
             "f_thread_groups": 5e-10, "f_sync_kernel_launch": 5e-6}
    space = synthetic_spaces(truth, n_spaces=1)[0]
    seconds = space.seconds.copy()
    seconds[:5] = np.inf
    seconds[5] = np.nan
    damaged = MeasuredSpace(space.name, space.counts, seconds, space.factors)
    assert int(damaged.usable(weighted_properties(base_model())).sum()) == 34
    fitted = fit_on_spaces([damaged], base_model())
    assert fitted.weights["f_op_float32_add"] == pytest.approx(4e-14, rel=1e-6)
    nothing = MeasuredSpace("dead", space.counts, np.full(40, np.inf))
    with pytest.raises(ModelError, match="no measured point"):
        fit_on_spaces([nothing], base_model())
    with pytest.raises(ModelError, match="different lengths"):
        MeasuredSpace("short", space.counts, space.seconds[:3])


def test_the_fitted_file_loads_as_a_model_and_ranks_like_its_weights(tmp_path):
    import json

    from workbench.models import load_model

    truth = {"f_op_float32_add": 4e-14, "f_mem_access_global_float32_load_stride1": 3e-12,
             "f_thread_groups": 5e-10, "f_sync_kernel_launch": 5e-6}
    spaces = synthetic_spaces(truth)
    fitted = fit_on_spaces(spaces, base_model(), provenance={"stores": ["x.sqlite"]})
    path = tmp_path / "weights.json"
    path.write_text(json.dumps(fitted.to_json()))
    loaded = load_model(path)
    assert loaded.weights == fitted.weights
    assert loaded.provenance["stores"] == ["x.sqlite"]
    # in the true weights' order the best point comes first
    space = spaces[0]
    predicted = sum(w * space.counts[k] for k, w in loaded.weights.items()) * space.factors
    assert runs_to_share(space, predicted) == 1
    assert runs_to_share(space, -predicted) > 1


def test_the_log_within_fit_asks_for_ratios_within_a_space_not_its_level():
    # each space's times carry a level of their own (x1, x10, ...): the relative fit
    # must price it into the weights, the log-within fit's free offset takes it
    truth = {"f_op_float32_add": 4e-14, "f_mem_access_global_float32_load_stride1": 3e-12,
             "f_thread_groups": 5e-10, "f_sync_kernel_launch": 5e-6}
    spaces = []
    for level, space in zip((1.0, 10.0, 0.1, 3.0), synthetic_spaces(truth)):
        spaces.append(MeasuredSpace(space.name, space.counts, space.seconds * level,
                                    space.factors))
    fitted = fit_on_spaces(spaces, base_model(), objective="log-within")
    shape = np.array([fitted.weights[k] for k in truth]) / np.array(list(truth.values()))
    # the weights' ratios are the truth's, up to one overall scale
    assert shape == pytest.approx(np.full(len(truth), shape[0]), rel=1e-4)
    # that scale puts the median predicted/measured ratio at 1 over all points (the
    # middle two of an even count met geometrically)
    ratios = np.concatenate([predicted_seconds(fitted.weights, s) / s.seconds for s in spaces])
    assert np.exp(np.median(np.log(ratios))) == pytest.approx(1.0, rel=1e-6)
    assert fitted.fit_stats["objective"] == "log-within"
    assert fitted.weights["f_sync_barrier_local"] == 0.0
    relative = fit_on_spaces(spaces, base_model())
    rel_shape = np.array([relative.weights[k] for k in truth]) / np.array(list(truth.values()))
    assert np.ptp(np.log(rel_shape)) > 0.1    # the levels bent the relative fit's shape


def test_the_log_within_fit_has_its_offsets_already():
    truth = {"f_op_float32_add": 4e-14, "f_sync_kernel_launch": 5e-6}
    with pytest.raises(ModelError, match="rounds must be 0"):
        fit_on_spaces(synthetic_spaces(truth), base_model(), objective="log-within", rounds=2)
