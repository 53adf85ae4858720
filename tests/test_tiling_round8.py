"""Round 8 of the resident-latency extension (issue 34): a launch's last, partial round
of groups priced at the groups per SM it leaves (``partial_rounds``), and the 2-D fit
with the sweep fixed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from workbench.models.tiling import H100, Problem, Scheme, TilingCalibration, quantities
from workbench.models.tiling.calibrate import with_scheme_constants
from workbench.models.tiling.machine import SchemeConstants
from workbench.models.tiling.problem_fit import lane_rows_constants
from workbench.models.tiling.schemes import Form, round_costs

#: Parameters for the arithmetic only (not a device's: those are measured).
BASE = TilingCalibration("test", L=2e-10, tau_sync=3e-8, T_sync=1e-6,
                         C_iter={"jacobi1d": 2e-8, "jacobi2d": 3e-8})
ROWS = Form.RESIDENT_LANE_ROWS


def _consts(partial=False):
    return SchemeConstants(2e-10, {"jacobi2d": 3e-8}, row_latency=3e-7,
                           pass_latency=8e-8, lane_pass=8e-8, lane_rows=0.1,
                           step_global=2e-12, step_launch=4e-5, partial_rounds=partial)


def _T(consts, S1, tile=(8, 4, 352, 2, 128), registers=63.0):
    t_T, t1, t2, by, bx = tile
    cal = with_scheme_constants(BASE, {ROWS.constants_key(Scheme.HYBRID): consts})
    q = quantities(Scheme.HYBRID, Problem((S1, 8192), 48), [t_T], [[t1], [t2]], [by * bx],
                   H100, cal, "jacobi2d", form=ROWS, lanes=[[by], [bx]],
                   registers=np.array([registers]))
    return float(q.T_alg[0])


def test_round_costs_price_the_last_round_at_the_groups_it_leaves():
    def tile_at(k):
        return 10.0 * np.asarray(k, dtype=float)     # a tile's time grows with its groups

    # 4 groups per SM on 132 SMs: 528 a round; 586 groups leave 58, one per SM
    assert float(round_costs(586, 4, 132, tile_at)) == pytest.approx(40.0 + 10.0)
    assert float(round_costs(528, 4, 132, tile_at)) == pytest.approx(40.0)
    assert float(round_costs(1056, 4, 132, tile_at)) == pytest.approx(80.0)
    # fewer groups than a round: the groups per SM they fill, as ``resident`` says
    assert float(round_costs(200, 4, 132, tile_at)) == pytest.approx(20.0)
    assert float(round_costs(0, 4, 132, tile_at)) == 0.0


def test_a_partial_last_round_is_cheaper_and_full_rounds_are_unchanged():
    # tT 8, tS1 4: pitch 14, an A row of ceil((S1 + 3) / 14) hexagons; 63 registers and
    # 256 lanes give 4 groups per SM (528 a round)
    partial, full = _consts(partial=True), _consts()
    edge = 8192                  # 586 hexagons: one full round and 58 more
    assert _T(partial, edge) < 0.9 * _T(full, edge)
    exact = 528 * 14 - 3         # 528 hexagons in the A row, 527 in the B row
    assert _T(partial, exact) == pytest.approx(_T(full, exact), rel=0.02)


def test_the_flag_survives_a_calibration_file_and_older_files_load_without_it():
    key = ROWS.constants_key(Scheme.HYBRID)
    cal = with_scheme_constants(BASE, {key: _consts(partial=True)})
    assert TilingCalibration.from_json(cal.to_json()).schemes[key].partial_rounds is True
    doc = with_scheme_constants(BASE, {key: _consts()}).to_json()
    assert "partial_rounds" not in str(doc)
    assert TilingCalibration.from_json(doc).schemes[key].partial_rounds is False


def test_the_2d_fit_with_a_fixed_sweep_keeps_it_and_finds_gamma_and_the_scale():
    """Points priced with known constants are fitted back to them (the fit's
    arithmetic; the constants on a device are measured)."""
    from workbench.models.tiling import TilingModel, compare

    lane = replace(_consts(), lane_rows=0.0, step_global=0.0, step_launch=0.0)
    start = with_scheme_constants(BASE, {
        Form.RESIDENT_LANE_PASSES.constants_key(s): lane for s in
        (Scheme.HEXAGONAL, Scheme.HYBRID)})
    truth = with_scheme_constants(start, {ROWS.constants_key(Scheme.HYBRID): replace(
        lane, lane_rows=0.2, step_global=2e-12, step_launch=3e-5, partial_rounds=True,
        C_iter={k: 0.8 * v for k, v in lane.C_iter.items()})})
    labels = [f"tT={t},tS1={a},tS2={b},bx=128,by={by}" for t in (4, 8) for a in (2, 4)
              for b in (256, 384) for by in (1, 2, 4)]
    frame = pd.DataFrame({"stencil": "jacobi2d", "label": labels,
                          "sizes": "S1=4096,S2=4096,T=48", "measured_s": 1.0,
                          "registers": 48.0, "scheme": Scheme.HYBRID.value})
    model = TilingModel().ready(device_model="h100", calibration=truth, form=ROWS,
                                scheme="hybrid")
    frame["measured_s"] = compare(model, frame)["predicted_s"]
    found = lane_rows_constants(start, frame, sweep=(3e-5, 2e-12), partial_rounds=True,
                                where="test").schemes[ROWS.constants_key(Scheme.HYBRID)]
    assert found.partial_rounds and found.step_launch == 3e-5
    assert found.step_global == 2e-12
    assert found.lane_rows == pytest.approx(0.2, rel=0.02)
    assert found.provenance["C_iter_scale"] == pytest.approx(0.8, rel=0.02)
