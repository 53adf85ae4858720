"""The lane-pass form of the resident-latency extension (issue 34, round 3): a compute
latency per lane pass of a group, registers per point, and their constants."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from workbench.errors import ModelError
from workbench.kernels.timetiled.hexagonal import HexConfig
from workbench.kernels.timetiled.microbench import HEX_LANE_LADDERS, hex_ladder
from workbench.models.tiling import H100, Problem, Scheme, TilingCalibration, quantities
from workbench.models.tiling.calibrate import MicroRow, lane_constants, with_scheme_constants
from workbench.models.tiling.machine import SchemeConstants
from workbench.models.tiling.schemes import (
    Form,
    compute_passes,
    estimated_registers,
    register_features,
)

#: Parameters for the arithmetic only (not a device's: those are measured).
BASE = TilingCalibration("test", L=2e-10, tau_sync=3e-8, T_sync=1e-6,
                         C_iter={"jacobi2d": 3e-8})
LANE, BOTH = Form.RESIDENT_LANE_PASSES, Form.RESIDENT_ROWS_PASSES
PROBLEM = Problem((4096, 4096), 48)


def _T_alg(form, lane=0.0, fit=(), registers=None, tile=(8, 2, 256), lanes=(4, 64)):
    consts = SchemeConstants(4e-10, {"jacobi2d": 5e-8}, row_latency=3e-7,
                             pass_latency=1e-7, lane_pass=lane, register_fit=fit)
    cal = with_scheme_constants(BASE, {form.constants_key(Scheme.HYBRID): consts})
    t_T, t1, t2 = tile
    return quantities(Scheme.HYBRID, PROBLEM, [t_T], [[t1], [t2]], [lanes[0] * lanes[1]],
                      H100, cal, "jacobi2d", form=form, lanes=[[lanes[0]], [lanes[1]]],
                      registers=registers)


def test_the_compute_passes_are_those_the_generator_makes():
    for shape, t_T, tiles, threads in (((5000,), 8, (256,), (128,)),
                                       ((5000,), 16, (1000,), (256,)),
                                       ((300, 300), 8, (2, 256), (2, 128)),
                                       ((300, 300), 12, (5, 96), (4, 64))):
        cfg = HexConfig("jacobi2d" if len(shape) == 2 else "jacobi1d", shape, 48, t_T,
                        tiles, threads)
        found = compute_passes([t_T], [tiles[0]], [np.array([t]) for t in threads],
                               [tiles[1]] if len(tiles) == 2 else None)
        assert int(found[0]) == cfg.per_tile()["passes"], cfg.label


def test_the_lane_latency_binds_only_where_it_is_longer_than_the_sms_share():
    two_term = float(_T_alg(BOTH).T_alg[0])
    assert float(_T_alg(LANE, lane=1e-12).T_alg[0]) == pytest.approx(two_term)
    long = _T_alg(LANE, lane=1e-6)
    passes = HexConfig("jacobi2d", (4096, 4096), 48, 8, (2, 256), (4, 64)).per_tile()[
        "passes"]
    # one launch's A-row tile: m' + N_s (c_lane + chain) once the lane latency binds
    N_s = -(-(4096 + 7) // 256)
    short = _T_alg(BOTH)
    chain_and_share = float(short.T_tile[0]) - float(short.m_prime[0])
    k_res_share = chain_and_share / N_s - (8 * (3e-7 + 2 * 3e-8) + 1e-7 * HexConfig(
        "jacobi2d", (4096, 4096), 48, 8, (2, 256), (4, 64)).per_tile()["load_passes"])
    assert passes * 1e-6 > k_res_share
    assert float(long.T_tile[0]) - float(short.T_tile[0]) == pytest.approx(
        N_s * (passes * 1e-6 - k_res_share))


def test_a_points_own_registers_win_over_the_fit_and_the_fit_stays_in_its_range():
    fit = (-100.0, 0.0, 200.0, 31.0, 79.0)         # far outside: clipped to 79
    guess = estimated_registers(fit, np.array([8]), np.array([2]),
                                [np.array([2]), np.array([128])], np.array([256]))
    assert float(guess[0]) == 79.0
    # 256 lanes at 79 registers: 3 groups per SM; at 40 (the build's own count): 6
    assert int(_T_alg(LANE, fit=fit, lanes=(2, 128)).k[0]) == 65536 // (79 * 256)
    own = _T_alg(LANE, fit=fit, lanes=(2, 128), registers=np.array([40.0]))
    assert int(own.k[0]) == 65536 // (40 * 256)
    unknown = _T_alg(LANE, fit=fit, lanes=(2, 128), registers=np.array([np.nan]))
    assert int(unknown.k[0]) == 3
    # the widest row, 2 + 6 cells, in 4 passes of 2 lanes; 510 + 2 cells in 8 of 64
    assert register_features(np.array([6]), np.array([2]), [np.array([2]), np.array([64])],
                             np.array([510])).tolist() == [[1.0, 2.0, 3.0]]


def test_the_lane_constants_come_back_from_rungs_timed_with_them():
    lam, fit = 1.3e-7, (20.0, 4.0, 6.0)
    rows = []
    for b in hex_ladder(132, HEX_LANE_LADDERS):
        if int(b.facts["stencil_dims"]) != 2:
            continue
        thr = next(p for p in b.variant.replace(",", " ").split() if p.startswith("thr="))
        by, bx = (int(x) for x in thr[4:].split("x"))
        f = b.facts
        cfg = HexConfig("jacobi2d", tuple(int(x) for x in f["shape"]), int(f["T"]),
                        int(f["t_T"]), (int(f["t_S1"]), int(f["inner"])), (by, bx))
        regs = int(round(float(register_features(
            np.array([cfg.t_T]), np.array([cfg.tiles[0]]), [np.array([by]), np.array([bx])],
            np.array([cfg.tiles[1]]))[0] @ np.array(fit))))
        twin = b.what.value.endswith("_wr")
        time = 1e-5 + (0.0 if twin else lam * cfg.per_tile()["passes"]
                       * int(f["sub_tiles"]))
        rows.append(MicroRow(b.what.value, b.variant, time, dict(f), 132,
                             None if twin else regs))
    found_lam, found_fit = lane_constants(rows, Scheme.HYBRID, H100)
    assert found_lam == pytest.approx(lam)
    assert np.allclose(found_fit[:3], fit, atol=0.6)        # registers are rounded
    assert lane_constants([], Scheme.HYBRID, H100) == (0.0, ())


def test_the_lane_constants_are_saved_and_a_negative_one_refused(tmp_path):
    from workbench.models.tiling import load_calibration, save_calibration

    consts = SchemeConstants(3e-10, {"jacobi2d": 5e-8}, row_latency=4e-7,
                             pass_latency=1.2e-7, lane_pass=1.3e-7,
                             register_fit=(1.0, 2.0, 3.0, 31.0, 79.0))
    key = LANE.constants_key(Scheme.HYBRID)
    save_calibration(with_scheme_constants(BASE, {key: consts}), tmp_path / "cal.json")
    again = load_calibration(tmp_path / "cal.json").schemes[key]
    assert (again.lane_pass, again.register_fit) == (1.3e-7, (1.0, 2.0, 3.0, 31.0, 79.0))
    with pytest.raises(ModelError, match="lane pass latency must be >= 0"):
        with_scheme_constants(BASE, {key: replace(consts, lane_pass=-1e-9)})
