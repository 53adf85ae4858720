"""The section-4 time model: formulas on hand-computed points, feasibility, registers,
the calibration from microbenchmark rows, the family and its ranking."""

from __future__ import annotations

import time

import numpy as np
import pytest

from workbench.errors import ModelError
from workbench.models.tiling import (
    H100,
    Problem,
    Scheme,
    TilingCalibration,
    TilingTimeModel,
    calibration,
    evaluate_grid,
    feasible_grid,
    near_minimum,
    parse_registers,
    point_labels,
    quantities,
    registers_of,
    tables,
)
from workbench.models.tiling.calibrate import MicroRow

#: Parameters for the arithmetic only (not a device's: those are measured).
CAL = TilingCalibration("test", L=1e-10, tau_sync=5e-8, T_sync=3e-6,
                        C_iter={"heat2d": 2e-9, "jacobi1d": 2e-9, "heat3d": 3e-9})


def test_overlapped_tiles_by_hand():
    q = quantities(Scheme.OVERLAPPED, Problem((100, 64), 8), [2], [[10], [32]], [64],
                   H100, CAL, "heat2d")
    # boxes of 14 x 36, 10 x 2 tiles, 4 bands
    assert (q.N_w[0], q.w[0], q.m_i[0], q.m_o[0]) == (4, 20, 504, 320)
    assert q.m_prime[0] == pytest.approx(824e-10 + 1e-7)
    # 12 x 34 inner points on 128 lanes: 4 rounds per step, 2 steps
    assert q.c[0] == pytest.approx(2 * (4 * 2e-9 + 5e-8))
    assert q.M_tile_bytes[0] == 4032
    assert q.k[0] == 32          # MTB_SM and 2048 / 64 threads, before local memory (57)
    T_tile = q.m_prime[0] + q.c[0] + 31 * max(q.m_prime[0], q.c[0])
    assert q.T_tile[0] == pytest.approx(T_tile)
    assert q.T_alg[0] == pytest.approx(4 * (3e-6 + T_tile))
    with_regs = quantities(Scheme.OVERLAPPED, Problem((100, 64), 8), [2], [[10], [32]],
                           [64], H100, CAL, "heat2d", registers=64)
    assert with_regs.k[0] == 65536 // (64 * 64)


def test_hexagonal_and_hybrid_tiles_follow_the_generated_scheme():
    q = quantities(Scheme.HEXAGONAL, Problem((1000,), 16), [4], [[20]], [32], H100, CAL,
                   "jacobi1d")
    # eq. 3 with epsilon = 1; pitch 2*20 + 4 - 2 = 42: ceil(1001 / 42) A and
    # ceil(980 / 42) B hexagons; eq. 7's m_i, m_o two fewer
    assert (q.N_w[0], q.w[0], q.m_i[0], q.m_o[0]) == (9, 24, 28, 26)
    assert q.c[0] == pytest.approx(2 * 2e-9 * 2 + 8 * 5e-8)      # eq. 9: x = 20, 22
    assert q.M_tile_bytes[0] == 2 * 24 * 4
    q2 = quantities(Scheme.HYBRID, Problem((1000, 64), 16), [4], [[20], [32]], [128],
                    H100, CAL, "heat2d")
    assert q2.m_i[0] == 28 * 34 and q2.m_o[0] == 26 * 32        # eq. 13 and the x2 halo
    # eq. 15: sum over x = 20, 22 of ceil(32 x / 128) = 5 + 6; two barriers per row
    assert q2.c[0] == pytest.approx(2 * 2e-9 * 11 + 8 * 5e-8)
    assert q2.M_tile_bytes[0] == 2 * 24 * 37 * 4
    odd = quantities(Scheme.HYBRID, Problem((1000, 64), 16), [3], [[20], [32]], [128],
                     H100, CAL, "heat2d")
    assert not odd.feasible[0] and odd.T_alg[0] == np.inf      # t_T must be even
    with pytest.raises(ModelError, match="1-D"):
        quantities(Scheme.HEXAGONAL, Problem((10, 10), 4), [2], [[4], [4]], [32], H100,
                   CAL, "heat2d")
    with pytest.raises(ModelError, match="2-D"):
        quantities(Scheme.HYBRID, Problem((10, 10, 10), 4), [2], [[4], [4], [4]], [32],
                   H100, CAL, "heat3d")


def test_feasibility_of_eq_31():
    q = quantities(Scheme.OVERLAPPED, Problem((512, 512), 8), [2, 2, 2],
                   [[64, 60, 8], [64, 64, 32]], [64, 64, 2048], H100, CAL, "heat2d")
    # 68 x 68 x 2 x 4 B = 36992 B fits; 64 x 68 fits; 2048 lanes do not
    assert list(q.feasible) == [True, True, False]
    big = quantities(Scheme.OVERLAPPED, Problem((512, 512), 8), [8], [[64], [128]], [64],
                     H100, CAL, "heat2d")
    assert not big.feasible[0]       # 80 x 144 x 8 B > 48 KiB


def test_the_whole_feasible_space_in_milliseconds():
    model = TilingTimeModel(H100, CAL)
    grid = feasible_grid(2, 48)
    began = time.perf_counter()
    frame = evaluate_grid(model, "heat2d", {"S1": 4096, "S2": 4096, "T": 48}, grid)
    seconds = time.perf_counter() - began
    assert len(grid["tT"]) > 50_000 and len(frame) > 1000
    assert seconds < 5.0   # vectorized: a loop over 50,000 points takes far longer
    assert frame["T_alg_s"].is_monotonic_increasing and frame["feasible"].all()
    near = near_minimum(frame, 0.10)
    assert 1 <= len(near) < len(frame)
    assert (near["T_alg_s"] <= frame["T_alg_s"].iloc[0] * 1.1).all()
    label = point_labels(near.head(1), 2)[0]
    assert label.startswith("tT=") and "bx=" in label


def test_registers_from_the_shipped_h100_build_logs():
    from workbench.measure.samples import sample_data_root
    from workbench.measure.store import MeasurementStore, resolve_store_path

    root = sample_data_root()
    if root is None or resolve_store_path(root / "h100" / "tuning.sqlite") is None:
        pytest.skip("no shipped H100 tuning store")
    with MeasurementStore.open(root / "h100" / "tuning.sqlite", create=False,
                               readonly=True) as store:
        rows = [m for m in store.measurements(kernel="tune.stencil2d")
                if m.extra.get("build_log")][:50]
    assert rows
    counts = [registers_of(m.extra["build_log"], "jacobi2d") for m in rows]
    assert all(isinstance(c, int) and 8 <= c <= 255 for c in counts)


def test_register_log_parsing():
    log = ("ptxas info    : Compiling entry function 'a' for 'sm_90a'\n"
           "ptxas info    : Function properties for a\n"
           "ptxas         .     8 bytes stack frame, 4 bytes spill stores, "
           "4 bytes spill loads\n"
           "ptxas info    : Used 40 registers, used 1 barriers\n"
           "ptxas info    : Compiling entry function 'b' for 'sm_90a'\n"
           "ptxas info    : Used 22 registers\n")
    found = parse_registers(log)
    assert found["a"].registers == 40 and found["a"].spills
    assert found["b"].registers == 22 and not found["b"].spills
    assert registers_of(log) is None and registers_of(log, "b") == 22
    assert parse_registers("pocl: no report") == {}


def _rows(n_SM=4):
    return [
        MicroRow("transfer", "t", 2e-3, {"words_moved": 8e6}, n_SM),
        MicroRow("barrier", "b", 3e-3, {"rounds": 1000}, n_SM),
        MicroRow("nobarrier", "b", 1e-3, {"rounds": 1000}, n_SM),
        MicroRow("launches", "l", 2e-6, {"launches": 500}, n_SM),
        MicroRow("band", "heat2d:x", 5e-3, {"groups": 400, "t_T": 4, "inner_points": 256},
                 n_SM),
        MicroRow("band_wr", "heat2d:x", 1e-3, {"groups": 400, "t_T": 4, "inner_points": 256},
                 n_SM),
        MicroRow("band_compute", "heat2d:x", 3e-3,
                 {"groups": 400, "t_T": 4, "inner_points": 256}, n_SM),
    ]


def test_the_calibration_formulas():
    cal = calibration(_rows(), H100, device="dev")
    assert cal.L == pytest.approx(2e-3 * 4 / 8e6)
    assert cal.tau_sync == pytest.approx(2e-6)
    assert cal.T_sync == pytest.approx(2e-6)
    # (4 ms * 4 SMs / 400 tiles - 4 steps * 2 us) / (4 steps * ceil(256 / 128))
    assert cal.C_iter["heat2d"] == pytest.approx((4e-3 * 4 / 400 - 4 * 2e-6) / 8)
    # the paper's way, the band without global transfers, kept beside
    assert cal.provenance["C_iter_compute_only"]["heat2d"] == pytest.approx(
        (3e-3 * 4 / 400 - 4 * 2e-6) / 8)
    t = tables(cal, H100)
    assert set(t) == {"table2", "table3", "table4"}
    assert list(t["table4"]["stencil"]) == ["heat2d"]
    rows = _rows()
    rows[1] = MicroRow("barrier", "b", 0.5e-3, {"rounds": 1000}, 4)
    with pytest.raises(ModelError, match="tau_sync"):
        calibration(rows, H100)
    with pytest.raises(ModelError, match="transfer"):
        calibration(_rows()[1:], H100)


def test_the_family_is_registered_and_round_trips(tmp_path):
    from workbench.kernels.candidate import Candidate
    from workbench.models.registry import get_family, load_model, save_model

    family = get_family("tiling")
    model = family.ready(device_model="h100", calibration=CAL, registers={"heat2d": 32})
    path = tmp_path / "tiling.json"
    save_model(model, path)
    again = load_model(path)
    assert again == model
    sizes = (("S1", 100), ("S2", 64), ("T", 8))
    c = Candidate("tt_heat2d", "tT=2,tS1=10,tS2=32,bx=32,by=2", (32, 2), sizes)
    expected = quantities(Scheme.OVERLAPPED, Problem((100, 64), 8), [2], [[10], [32]],
                          [64], H100, CAL, "heat2d", registers=32).T_alg[0]
    assert model.predict_candidates([c]).seconds[0] == pytest.approx(expected)
    with pytest.raises(ModelError, match="C_iter"):
        model.predict_candidates([Candidate("tt_gradient2d", c.variant, (32, 2), sizes)])
    with pytest.raises(ModelError, match="tt_<stencil>"):
        model.predict_candidates([Candidate("matmul", c.variant, (32, 2), sizes)])
    assert family.ready(device_model="h100", calibration=CAL,
                        scheme="hybrid").scheme is Scheme.HYBRID
    with pytest.raises(ModelError):
        family.ready(device_model="h100", calibration=tmp_path / "missing.json")


def test_a_space_is_ranked_without_building_a_kernel(monkeypatch):
    import loopy as lp

    from workbench.kernels.timetiled import timetiled_space

    model = TilingTimeModel(H100, CAL)
    space = timetiled_space("heat2d", baseline=1)
    from workbench.tuning.ranking import rank_space

    def no_kernels(*args, **kwargs):
        raise AssertionError("the tiling model built a kernel to rank a space")

    monkeypatch.setattr(lp, "make_kernel", no_kernels)
    ranking = rank_space(model, space)
    predicted = ranking.predicted_s[ranking.order]
    assert np.all(np.diff(predicted) >= 0) and np.isfinite(predicted).all()
    assert ranking.best.kernel_name == "tt_heat2d"


def test_validation_rmse_over_all_points_and_near_the_best():
    from workbench.measure.provenance import DeviceIdentity
    from workbench.measure.store import ConfigKey, Measurement
    from workbench.models.tiling import compare, measured_frame, near_best, rmse, summary

    device = DeviceIdentity("p", "d", "1")
    sizes = {"S1": 100, "S2": 64, "T": 8}
    log = ("ptxas info    : Compiling entry function 'heat2d_band' for 'sm_90a'\n"
           "ptxas info    : Used 64 registers, used 1 barriers\n")
    labels = ["tT=2,tS1=10,tS2=32,bx=32,by=2", "tT=4,tS1=10,tS2=32,bx=32,by=2",
              "tT=8,tS1=10,tS2=32,bx=32,by=2"]
    rows = [Measurement.ok(ConfigKey.make("tune.tt_heat2d", label, "float32", sizes, (32, 2),
                                          device), [t], device=device, discard_first=0,
                           extra={"build_log": log if i == 0 else ""})
            for i, (label, t) in enumerate(zip(labels, (1e-4, 1.1e-4, 3e-4)))]
    frame = measured_frame(rows)
    assert list(frame["registers"].fillna(0)) == [64, 0, 0]
    compared = compare(TilingTimeModel(H100, CAL), frame)
    first = quantities(Scheme.OVERLAPPED, Problem((100, 64), 8), [2], [[10], [32]], [64],
                       H100, CAL, "heat2d", registers=64).T_alg[0]
    assert compared["predicted_s"].iloc[0] == pytest.approx(first)
    assert compared["rel_error"].iloc[0] == pytest.approx((first - 1e-4) / 1e-4)
    near = near_best(compared, 0.20)          # 1.1e-4 <= 1e-4 / 0.8, 3e-4 is not
    assert list(near["label"]) == labels[:2]
    assert rmse(near) == pytest.approx(np.sqrt(np.mean(near["rel_error"] ** 2)))
    table = summary(compared)
    assert table.loc[0, "points"] == 3 and table.loc[0, "near_best"] == 2


def test_a_heatmap_over_two_tile_sizes_like_figure_4():
    from workbench.models.tiling import heatmap

    model = TilingTimeModel(H100, CAL)
    sizes = {"S1": 4096, "S2": 4096, "T": 48}
    h = heatmap(model, "heat2d", sizes, "tT", "tS2", {"tS1": 8, "bx": 64, "by": 2})
    assert h.index.name == "tS2" and h.columns.name == "tT" and h.shape == (16, 32)
    one = quantities(Scheme.OVERLAPPED, Problem((4096, 4096), 48), [4], [[8], [64]], [128],
                     H100, CAL, "heat2d").T_alg[0]
    assert h.loc[64, 4] == pytest.approx(one)
    assert np.isnan(h.loc[512, 32])          # 72 x 576 cells do not fit 48 KiB
    with pytest.raises(ModelError, match="fix by"):
        heatmap(model, "heat2d", sizes, "tT", "tS2", {"tS1": 8, "bx": 64})
