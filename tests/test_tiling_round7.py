"""Round 7 of the resident-latency extension (issue 34): in 1-D the groups one SM holds
hide each other's waits and stream their words at the overlapped tiles' ``L``, and one
constant, a scale of the 1-D ``C_iter``, is fitted on measured 1-D points."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ModelError
from workbench.models.tiling import H100, Problem, Scheme, TilingCalibration, quantities
from workbench.models.tiling.calibrate import with_scheme_constants
from workbench.models.tiling.machine import SchemeConstants
from workbench.models.tiling.problem_fit import hexagonal_constants
from workbench.models.tiling.schemes import Form, compute_passes, row_chain

#: Parameters for the arithmetic only (not a device's: those are measured).
BASE = TilingCalibration("test", L=2e-10, tau_sync=3e-8, T_sync=1e-6,
                         C_iter={"jacobi1d": 2e-8, "jacobi2d": 3e-8})
ROWS = Form.RESIDENT_LANE_ROWS


def _consts(hidden=False, C=3e-8):
    return SchemeConstants(2e-9, {"jacobi1d": C, "jacobi2d": C}, row_latency=3e-7,
                           pass_latency=8e-8, lane_pass=8e-8, latency_hidden=hidden)


def _q(consts, S1, tile=(32, 1024, 128)):
    t_T, t1, bx = tile
    cal = with_scheme_constants(BASE, {ROWS.constants_key(Scheme.HEXAGONAL): consts})
    return quantities(Scheme.HEXAGONAL, Problem((S1,), 256), [t_T], [[t1]], [bx], H100,
                      cal, "jacobi1d", form=ROWS, lanes=[[bx]],
                      registers=np.array([32.0]))


def _tile_by_hand(q, consts, tile, k_res):
    t_T, t1, bx = tile
    chain = row_chain(ROWS, (consts.row_latency, consts.pass_latency), np.array([t_T]),
                      np.array([t1]), [np.array([bx])], None, BASE.tau_sync)[0]
    lane = consts.lane_pass * compute_passes(np.array([t_T]), np.array([t1]),
                                             [np.array([bx])])[0]
    m, c = float(q.m_prime[0]), float(q.c[0])
    streamed = float(q.m_i[0] + q.m_o[0]) * BASE.L
    return max(k_res * max(streamed, c), m + max(c, lane) + chain)


def test_many_groups_per_sm_stream_and_hide_each_others_waits():
    tile = (32, 1024, 128)
    hidden = _consts(hidden=True)
    for S1, k_res in ((1 << 20, 4), (1 << 22, 16)):     # w_A = 506, 2024 hexagons
        q = _q(hidden, S1, tile)
        assert float(q.T_tile[0]) == pytest.approx(_tile_by_hand(q, hidden, tile, k_res))
        # the same constants without the hiding charge every group's wait in turn
        assert float(_q(_consts(), S1, tile).T_tile[0]) > 1.1 * float(q.T_tile[0])


def test_one_group_per_sm_has_nothing_to_hide_behind():
    tile = (32, 1024, 128)
    S1 = 64 * 2080                      # 64 hexagons a row: one per SM
    hidden, plain = _q(_consts(hidden=True), S1, tile), _q(_consts(), S1, tile)
    assert float(hidden.T_tile[0]) == pytest.approx(float(plain.T_tile[0]))


def test_the_hiding_is_a_1d_term():
    cal = with_scheme_constants(BASE, {ROWS.constants_key(Scheme.HYBRID):
                                       _consts(hidden=True)})
    with pytest.raises(ModelError, match="1-D"):
        quantities(Scheme.HYBRID, Problem((4096, 4096), 48), [8], [[2], [256]], [256],
                   H100, cal, "jacobi2d", form=ROWS, lanes=[[2], [128]])


def test_the_flag_survives_a_calibration_file_and_older_files_load_without_it():
    cal = with_scheme_constants(BASE, {ROWS.constants_key(Scheme.HEXAGONAL):
                                       _consts(hidden=True)})
    again = TilingCalibration.from_json(cal.to_json())
    assert again.schemes[ROWS.constants_key(Scheme.HEXAGONAL)].latency_hidden is True
    doc = with_scheme_constants(BASE, {ROWS.constants_key(Scheme.HEXAGONAL):
                                       _consts()}).to_json()
    assert "latency_hidden" not in str(doc)
    assert TilingCalibration.from_json(doc).schemes[
        ROWS.constants_key(Scheme.HEXAGONAL)].latency_hidden is False


def test_the_1d_fit_finds_the_scale_that_priced_the_points():
    """Points priced with a known scale of ``C_iter`` over two sizes are fitted back to
    it (the fit's arithmetic; the scale on a device is measured)."""
    from workbench.models.tiling import TilingModel, compare

    lane = _consts()
    start = with_scheme_constants(BASE, {
        Form.RESIDENT_LANE_PASSES.constants_key(s): lane for s in
        (Scheme.HEXAGONAL, Scheme.HYBRID)})
    truth = with_scheme_constants(start, {ROWS.constants_key(Scheme.HEXAGONAL): replace(
        lane, latency_hidden=True, C_iter={k: 1.4 * v for k, v in lane.C_iter.items()})})
    labels = [f"tT={t},tS1={a},bx={bx}" for t in (8, 32, 64) for a in (512, 1024, 2048)
              for bx in (128, 256, 512)]
    frame = pd.DataFrame({"stencil": "jacobi1d", "label": labels * 2,
                          "sizes": ["S1=1048576,T=256"] * len(labels)
                          + ["S1=4194304,T=256"] * len(labels),
                          "measured_s": 1.0, "registers": 32.0,
                          "scheme": Scheme.HEXAGONAL.value})
    model = TilingModel().ready(device_model="h100", calibration=truth, form=ROWS,
                                scheme="hexagonal")
    frame["measured_s"] = compare(model, frame)["predicted_s"]
    found = hexagonal_constants(start, frame, where="test").schemes[
        ROWS.constants_key(Scheme.HEXAGONAL)]
    assert found.latency_hidden
    assert found.provenance["C_iter_scale"] == pytest.approx(1.4, rel=1e-3)
    assert found.C_iter["jacobi1d"] == pytest.approx(1.4 * 3e-8, rel=1e-3)
    assert found.provenance["rms_log_error"] < 1e-6
    with pytest.raises(ModelError, match="1-D points"):
        hexagonal_constants(start, frame.assign(scheme="hybrid"))
