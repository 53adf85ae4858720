"""The tiling selection with builds (issue 34, round 4): the model's first points,
their registers from a build (no run), and the picks priced again with them."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.models.tiling import TilingCalibration, TilingModel
from workbench.models.tiling.calibrate import with_scheme_constants
from workbench.models.tiling.machine import SchemeConstants
from workbench.models.tiling.schemes import Form, Scheme
from workbench.models.tiling.selection import reprice_with_registers, top_candidates

#: Parameters for the arithmetic only (not a device's: those are measured).
BASE = TilingCalibration("test", L=2e-10, tau_sync=3e-8, T_sync=1e-6,
                         C_iter={"jacobi2d": 3e-8})
SIZES = {"S1": 4096, "S2": 4096, "T": 48}


def _model():
    scheme = Scheme.paper(2)
    consts = SchemeConstants(4e-10, {"jacobi2d": 5e-8}, row_latency=3e-7,
                             pass_latency=1e-7, lane_pass=1e-7,
                             register_fit=(-7.4, 11.0, 17.7, 31.0, 79.0))
    cal = with_scheme_constants(BASE, {Form.RESIDENT_LANE_PASSES.constants_key(scheme):
                                       consts})
    return TilingModel().ready(device_model="h100", calibration=cal,
                               form="resident-lane-passes", scheme=scheme.value)


def test_the_first_candidates_are_the_models_fastest_and_keep_filters_them():
    model = _model()
    top = top_candidates(model, "jacobi2d", SIZES, 12)
    assert len(top) == 12 and top["T_alg_s"].is_monotonic_increasing
    kept = top_candidates(model, "jacobi2d", SIZES, 5, keep=lambda lb: "bx=64" in lb)
    assert len(kept) == 5 and all("bx=64" in lb for lb in kept["label"])
    assert kept["T_alg_s"].min() >= top["T_alg_s"].min()


def test_own_registers_reprice_the_candidates_and_reorder_them():
    model = _model()
    top = top_candidates(model, "jacobi2d", SIZES, 6)
    same = reprice_with_registers(model, "jacobi2d", SIZES, top, {})
    np.testing.assert_allclose(same["T_alg_s"], same["estimated_s"])
    assert same["registers"].isna().all()
    first = top["label"].iloc[0]
    # the most a work item can hold: one group per SM at most, the candidate falls behind
    heavy = 255
    priced = reprice_with_registers(model, "jacobi2d", SIZES, top, {first: heavy})
    row = priced.set_index("label").loc[first]
    assert row["registers"] == heavy
    assert row["T_alg_s"] > row["estimated_s"] * 1.2
    assert priced["label"].iloc[0] != first
    assert priced["T_alg_s"].is_monotonic_increasing


def test_a_point_is_built_without_a_run_and_pocl_names_no_registers():
    from workbench.measure import find_device
    from workbench.tuning.tiling_builds import built_registers

    dev = find_device("Portable")
    good, bad = built_registers(dev.index, "jacobi1d", {"S1": 4096, "T": 16},
                                ["tT=4,tS1=256,bx=64", "tT=4,tS1=64,bx=16"])
    assert good.failure is None and good.codegen_s > 0 and good.build_s > 0
    assert good.registers is None            # pocl's log has no ptxas report
    assert bad.registers is None and "generator" in bad.failure


if __name__ == "__main__":
    pytest.main([__file__])
