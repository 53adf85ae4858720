"""Round 9 of the resident-latency extension (issue 34): a load pass along the inner
axis counted by the share of its warps that have a word to load (``warp_loads``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from workbench.models.tiling import H100, Problem, Scheme, TilingCalibration, quantities
from workbench.models.tiling.calibrate import with_scheme_constants
from workbench.models.tiling.machine import SchemeConstants
from workbench.models.tiling.schemes import Form, load_passes

#: Parameters for the arithmetic only (not a device's: those are measured).
BASE = TilingCalibration("test", L=2e-10, tau_sync=3e-8, T_sync=1e-6,
                         C_iter={"jacobi2d": 3e-8})
ROWS = Form.RESIDENT_LANE_ROWS
KEY = ROWS.constants_key(Scheme.HYBRID)


def _consts(warps=False):
    return SchemeConstants(2e-10, {"jacobi2d": 3e-8}, row_latency=3e-7,
                           pass_latency=8e-8, lane_pass=8e-8, lane_rows=0.1,
                           step_global=2e-12, step_launch=4e-5, partial_rounds=True,
                           warp_loads=warps)


def _passes(t2, bx, warps):
    # one row of lanes, tT 2, tS1 1: one row of (1 + 2) cells each way, twice
    return float(load_passes(np.array([2]), np.array([1]), [np.array([1]), np.array([bx])],
                             np.array([t2]), warps)[0]) / (2 * 3)


def test_the_halo_past_a_full_pass_costs_a_warps_share():
    # 256 wide, 128 lanes: 258 words, 2 passes and 2 words, one warp of the four
    assert _passes(256, 128, False) == 3
    assert _passes(256, 128, True) == pytest.approx(2.25)
    # 224 wide: 226 words in 8 warps, two passes either way
    assert _passes(224, 128, False) == _passes(224, 128, True) == 2
    # 64 lanes: 258 words in 9 warps of the two a pass has
    assert _passes(256, 64, True) == pytest.approx(4.5)
    # fewer lanes than a warp: the warp spans rows, passes stay whole
    assert _passes(256, 16, True) == _passes(256, 16, False) == 17


def test_warp_loads_make_a_lanes_wide_sub_tile_cheaper_and_leave_the_others():
    def price(consts, t2):
        cal = with_scheme_constants(BASE, {KEY: consts})
        q = quantities(Scheme.HYBRID, Problem((10240, 10240), 48), [8], [[4], [t2]],
                       [256], H100, cal, "jacobi2d", form=ROWS, lanes=[[2], [128]],
                       registers=np.array([40.0]))
        return float(q.T_alg[0])

    assert price(_consts(True), 256) < 0.97 * price(_consts(), 256)
    assert price(_consts(True), 224) == pytest.approx(price(_consts(), 224))


def test_the_flag_survives_a_calibration_file_and_older_files_load_without_it():
    cal = with_scheme_constants(BASE, {KEY: _consts(warps=True)})
    assert TilingCalibration.from_json(cal.to_json()).schemes[KEY].warp_loads is True
    doc = with_scheme_constants(BASE, {KEY: replace(_consts(), warp_loads=False)}).to_json()
    assert "warp_loads" not in str(doc)
    assert TilingCalibration.from_json(doc).schemes[KEY].warp_loads is False


def test_the_2d_fit_with_warp_loads_keeps_the_flag_and_finds_its_constants():
    """Points priced with known constants (loads counted in warps) are fitted back to
    them (the fit's arithmetic; the constants on a device are measured)."""
    import pandas as pd

    from workbench.models.tiling import TilingModel, compare
    from workbench.models.tiling.problem_fit import lane_rows_constants

    lane = replace(_consts(), lane_rows=0.0, step_global=0.0, step_launch=0.0,
                   partial_rounds=False)
    start = with_scheme_constants(BASE, {
        Form.RESIDENT_LANE_PASSES.constants_key(s): lane for s in
        (Scheme.HEXAGONAL, Scheme.HYBRID)})
    truth = with_scheme_constants(start, {KEY: replace(
        lane, lane_rows=0.2, step_global=2e-12, step_launch=3e-5, partial_rounds=True,
        warp_loads=True, C_iter={k: 0.8 * v for k, v in lane.C_iter.items()})})
    labels = [f"tT={t},tS1={a},tS2={b},bx=128,by={by}" for t in (4, 8) for a in (2, 4)
              for b in (224, 256) for by in (1, 2)]
    frame = pd.DataFrame({"stencil": "jacobi2d", "label": labels,
                          "sizes": "S1=4096,S2=4096,T=48", "measured_s": 1.0,
                          "registers": 48.0, "scheme": Scheme.HYBRID.value})
    model = TilingModel().ready(device_model="h100", calibration=truth, form=ROWS,
                                scheme="hybrid")
    frame["measured_s"] = compare(model, frame)["predicted_s"]
    found = lane_rows_constants(start, frame, sweep=(3e-5, 2e-12), partial_rounds=True,
                                warp_loads=True, where="test").schemes[KEY]
    assert found.warp_loads and found.partial_rounds
    assert found.lane_rows == pytest.approx(0.2, rel=0.02)
    assert found.provenance["C_iter_scale"] == pytest.approx(0.8, rel=0.02)
    assert "warps" in found.provenance["from"]
