"""Round 13's candidates (issue #34): a streaming kernel's arithmetic overlapped with its
global accesses instead of added to them (models/linear-fp64-sectors-chains18.json and
chains20.json), checked on the shipped fits with made-up counts."""

from pathlib import Path

import numpy as np
import pytest

from workbench.models.registry import load_model

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"
WARPS = 2.0 ** 18
# a warp's additions and its load sectors: each alone, then both in one kernel
ADDS = 150.0
SECTORS = 12.0


def _time(model, adds: float, sectors: float) -> float:
    features = {name: np.zeros(1) for name in model.features}
    features["f_sync_kernel_launch"] = np.ones(1)
    features["f_op_float32_add"] = np.array([adds * WARPS])
    features["f_mem_access_global_float32_load_afr:<=1_dramsectors"] = np.array(
        [sectors * WARPS])
    features["f_mem_access_global_float32_load_sectors"] = np.array([sectors * WARPS])
    return float(model.evaluate(features)[0])


@pytest.mark.parametrize("name", ["chains18", "chains20"])
def test_arithmetic_hides_behind_the_accesses(name):
    model = load_model(H100 / f"weights-linear-fp64-sectors-{name}.json")
    launch = _time(model, 0.0, 0.0)
    alone = _time(model, ADDS, 0.0) - launch, _time(model, 0.0, SECTORS) - launch
    both = _time(model, ADDS, SECTORS) - launch
    assert min(alone) > 0.3 * max(alone), "the two parts should be comparable here"
    # the larger of the two (the smooth maximum is within a few percent of it), not the sum
    assert max(alone) <= both < 1.1 * max(alone)
    assert both < 0.8 * sum(alone)


def test_the_default_still_adds_them():
    model = load_model(H100 / "weights-linear-fp64-sectors-chains15.json")
    launch = _time(model, 0.0, 0.0)
    alone = _time(model, ADDS, 0.0) - launch, _time(model, 0.0, SECTORS) - launch
    assert _time(model, ADDS, SECTORS) - launch == pytest.approx(sum(alone), rel=1e-6)
