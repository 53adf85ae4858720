"""The lane-rows form of the resident-latency extension (issue 34, round 5): every lane
slot of a compute pass charged, dearer per further row of lanes, a global sweep per
launch, and its constants fitted on measured problem points."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.kernels.timetiled.hexagonal import HexConfig
from workbench.models.tiling import H100, Problem, Scheme, TilingCalibration, quantities
from workbench.models.tiling.calibrate import with_scheme_constants
from workbench.models.tiling.machine import SchemeConstants
from workbench.models.tiling.problem_fit import lane_rows_constants
from workbench.models.tiling.schemes import Form

#: Parameters for the arithmetic only (not a device's: those are measured).
BASE = TilingCalibration("test", L=2e-10, tau_sync=3e-8, T_sync=1e-6,
                         C_iter={"jacobi2d": 3e-8, "jacobi1d": 2e-8})
ROWS, LANE = Form.RESIDENT_LANE_ROWS, Form.RESIDENT_LANE_PASSES
PROBLEM = Problem((4096, 4096), 48)


def _consts(gamma=0.0, g=0.0, C=5e-8, g0=0.0):
    return SchemeConstants(4e-10, {"jacobi2d": C, "jacobi1d": C}, row_latency=3e-7,
                           pass_latency=1e-7, lane_pass=1e-7, lane_rows=gamma,
                           step_global=g, step_launch=g0)


def _cal(form, consts, scheme=Scheme.HYBRID):
    return with_scheme_constants(BASE, {form.constants_key(scheme): consts})


def _q(form, consts, tile=(8, 2, 256), lanes=(4, 64), problem=PROBLEM):
    t_T, t1, t2 = tile
    return quantities(Scheme.HYBRID, problem, [t_T], [[t1], [t2]], [lanes[0] * lanes[1]],
                      H100, _cal(form, consts), "jacobi2d", form=form,
                      lanes=[[lanes[0]], [lanes[1]]], registers=np.array([40.0]))


def test_the_compute_charges_every_lane_slot_of_the_groups_passes():
    # rows of 2, 4, 6, 8 cells on 4 rows of lanes: 1, 1, 2, 2 passes along axis 0, 4
    # along axis 1 (256 / 64), each row twice: 48 passes of 256 lanes
    passes = HexConfig("jacobi2d", (4096, 4096), 48, 8, (2, 256), (4, 64)).per_tile()[
        "passes"]
    assert passes == 48
    q = _q(ROWS, _consts())
    assert float(q.c[0]) == pytest.approx(5e-8 * passes * 256 / H100.n_V)
    # the lane-pass form charges the cells alone: (2+4+6+8) * 2 * 256 / 128 lane passes
    assert float(_q(LANE, _consts()).c[0]) == pytest.approx(5e-8 * 80)


def test_further_rows_of_lanes_make_a_pass_dearer_and_one_row_does_not():
    for lanes in ((4, 64), (2, 128), (1, 128)):
        plain = float(_q(ROWS, _consts(), lanes=lanes).c[0])
        dear = float(_q(ROWS, _consts(gamma=0.5), lanes=lanes).c[0])
        assert dear == pytest.approx(plain * (1 + 0.5 * (lanes[0] - 1)))


def test_the_global_sweep_is_the_grid_once_per_launch_of_a_row_of_hexagons():
    for t_T in (2, 8):
        without = float(_q(ROWS, _consts(), tile=(t_T, 2, 256)).T_alg[0])
        with_g = float(_q(ROWS, _consts(g=1e-12), tile=(t_T, 2, 256)).T_alg[0])
        K = 48 // t_T
        assert with_g - without == pytest.approx(2 * K * 1e-12 * 4096 * 4096)


def test_a_fixed_cost_per_launch_adds_to_the_sweep_whatever_the_grid():
    """Round 6: ``sweep = 2 K (g_0 + g S1 S2)``."""
    for problem in (PROBLEM, Problem((8192, 8192), 48)):
        for t_T in (2, 8):
            tile = (t_T, 2, 256)
            cells = float(np.prod(problem.S))
            only_g = float(_q(ROWS, _consts(g=1e-12), tile=tile, problem=problem).T_alg[0])
            both = float(_q(ROWS, _consts(g=1e-12, g0=3e-5), tile=tile,
                            problem=problem).T_alg[0])
            assert cells > 0 and both - only_g == pytest.approx(2 * (48 // t_T) * 3e-5)


def test_the_new_constants_survive_a_calibration_file():
    cal = _cal(ROWS, _consts(gamma=0.25, g=3e-12, g0=4e-5))
    again = TilingCalibration.from_json(cal.to_json())
    own = again.schemes[ROWS.constants_key(Scheme.HYBRID)]
    assert (own.lane_rows, own.step_global, own.step_launch) == (0.25, 3e-12, 4e-5)
    # a file of round 5 (no step_launch) loads with none
    doc = _cal(ROWS, _consts(gamma=0.25, g=3e-12)).to_json()
    assert "step_launch" not in str(doc)
    assert TilingCalibration.from_json(doc).schemes[
        ROWS.constants_key(Scheme.HYBRID)].step_launch == 0.0


def test_the_fit_finds_the_constants_that_priced_the_points():
    """Points priced by known constants are fitted back to them (the fit's arithmetic;
    what the constants are on a device is measured)."""
    from workbench.models.tiling import TilingModel, compare

    lane = {Form.RESIDENT_LANE_PASSES.constants_key(s): _consts() for s in
            (Scheme.HEXAGONAL, Scheme.HYBRID)}
    start = with_scheme_constants(BASE, lane)
    truth = with_scheme_constants(start, {
        ROWS.constants_key(Scheme.HYBRID): _consts(gamma=0.3, g=2e-12, C=5e-8 * 0.8)})
    labels = [f"tT={t},tS1={a},tS2={b},bx={bx},by={by}" for t in (2, 4, 8, 12)
              for a in (2, 4) for b in (128, 256) for bx, by in ((64, 4), (128, 2),
                                                                  (128, 1))]
    frame = pd.DataFrame({"stencil": "jacobi2d", "sizes": "S1=4096,S2=4096,T=48",
                          "label": labels, "measured_s": 1.0, "registers": 40.0,
                          "scheme": Scheme.HYBRID.value})
    model = TilingModel().ready(device_model="h100", calibration=truth, form=ROWS,
                                scheme="hybrid")
    frame["measured_s"] = compare(model, frame)["predicted_s"]
    found = lane_rows_constants(start, frame, where="test").schemes[
        ROWS.constants_key(Scheme.HYBRID)]
    assert found.lane_rows == pytest.approx(0.3, rel=1e-3)
    assert found.step_global == pytest.approx(2e-12, rel=1e-3)
    assert found.C_iter["jacobi2d"] == pytest.approx(4e-8, rel=1e-3)
    assert found.provenance["rms_log_error"] < 1e-6
    assert found.step_launch == 0.0


def test_the_fit_with_a_cost_per_launch_separates_it_from_the_sweep_over_two_grids():
    """Two grid sizes tell the fixed cost per launch from the cost per cell (round 6)."""
    from workbench.models.tiling import TilingModel, compare

    lane = {Form.RESIDENT_LANE_PASSES.constants_key(s): _consts() for s in
            (Scheme.HEXAGONAL, Scheme.HYBRID)}
    start = with_scheme_constants(BASE, lane)
    truth = with_scheme_constants(start, {
        ROWS.constants_key(Scheme.HYBRID): _consts(gamma=0.2, g=2e-12, C=4e-8, g0=3e-5)})
    labels = [f"tT={t},tS1={a},tS2=256,bx={bx},by={by}" for t in (2, 4, 8)
              for a in (2, 4) for bx, by in ((64, 4), (128, 1))]
    frame = pd.DataFrame({"stencil": "jacobi2d", "label": labels * 2,
                          "sizes": ["S1=2048,S2=2048,T=48"] * len(labels)
                          + ["S1=8192,S2=8192,T=48"] * len(labels),
                          "measured_s": 1.0, "registers": 40.0,
                          "scheme": Scheme.HYBRID.value})
    model = TilingModel().ready(device_model="h100", calibration=truth, form=ROWS,
                                scheme="hybrid")
    frame["measured_s"] = compare(model, frame)["predicted_s"]
    found = lane_rows_constants(start, frame, per_launch=True).schemes[
        ROWS.constants_key(Scheme.HYBRID)]
    assert found.step_launch == pytest.approx(3e-5, rel=1e-2)
    assert found.step_global == pytest.approx(2e-12, rel=1e-2)
    assert found.lane_rows == pytest.approx(0.2, rel=1e-2)
