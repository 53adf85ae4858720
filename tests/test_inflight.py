"""Round 18 of issue #34: the DRAM stream's rate by the bytes a work item has in flight."""

import lzma
from pathlib import Path

import pytest

from workbench.kernels.candidate import Candidate

DEVICE = "NVIDIA H100 80GB HBM3"
PROBE = Path(__file__).resolve().parents[1] / "sample_data" / "h100" / "round18-probe.txt.xz"


def _probe_shares() -> dict[tuple[str, float], float]:
    """(layout, bytes an item) -> the 512 MiB points' mean rate over the calibration's."""
    from workbench.models.inflight import CALIBRATION_GBPS

    rates: dict[tuple[str, float], list[float]] = {}
    for line in lzma.open(PROBE, "rt"):
        if not line.startswith("inflight_"):
            continue
        _, dtype, layout, k, _, items, _, gbs = line.split()
        size = 4 if dtype == "float32" else 8
        if int(items) * int(k) * size == 1 << 29:
            rates.setdefault((layout, (int(k) + 1) * size), []).append(float(gbs))
    return {key: sum(v) / len(v) / CALIBRATION_GBPS for key, v in rates.items()}


def test_the_shares_are_the_probes_and_the_calibration_is_bandwidth_json():
    from workbench.models.inflight import (
        CALIBRATION_GBPS,
        FLAT_SHARE,
        GRID_SHARE,
        ITEM_BYTES,
    )
    from workbench.models.reread_features import _measured_dram_Bps

    assert _measured_dram_Bps(DEVICE) == pytest.approx(CALIBRATION_GBPS * 1e9, rel=1e-3)
    measured = _probe_shares()
    for b, flat, grid in zip(ITEM_BYTES[:-1], FLAT_SHARE, GRID_SHARE):
        assert measured["flat", b] == pytest.approx(flat, abs=0.002)
        assert measured["grid", b] == pytest.approx(grid, abs=0.002)
    # from 20 bytes an item on, every 1-D stream is within 2 % of the calibration
    assert all(abs(s - 1) < 0.02 for (layout, b), s in measured.items()
               if layout == "flat" and b >= 20)


def test_the_stencil_shares_are_round_15s_stencils():
    from workbench.models.inflight import CALIBRATION_GBPS, STENCIL_SHARE

    rates = {"float32": [], "float64": []}
    for line in (PROBE.parent / "round15-probe.txt").read_text().splitlines():
        if line.startswith("stencil") and "_n8192_" in line:
            _, dtype, ms = line.split()
            rates[dtype].append(2 * 8192 ** 2 * (4 if dtype == "float32" else 8)
                                / (float(ms) * 1e-3) / 1e9)
    assert len(rates["float32"]) == len(rates["float64"]) == 6
    assert sum(rates["float32"]) / 6 / CALIBRATION_GBPS == pytest.approx(STENCIL_SHARE[0], abs=0.001)
    assert sum(rates["float64"]) / 6 / CALIBRATION_GBPS == pytest.approx(STENCIL_SHARE[2], abs=0.001)


def test_the_share_rises_with_the_bytes_and_is_lower_in_two_d_groups():
    from workbench.models.inflight import is_two_d, stream_share

    assert stream_share(4.0, False) == stream_share(8.0, False) == 0.785
    assert stream_share(10.0, True) == pytest.approx((0.716 + 0.859) / 2)
    assert stream_share(24.0, True) == stream_share(4096.0, False) == 1.0
    assert stream_share(float("nan"), True) == 1.0
    assert is_two_d((16, 16)) and not is_two_d((256,)) and not is_two_d((256, 1))


def test_a_one_value_copy_streams_slower_than_a_loop_over_a_row():
    from workbench.models.reread_features import dram_stream_values

    copy = Candidate("vector_scale_add", "stride1", (128,), (("n", 2 ** 26),))
    rows = Candidate("rms_norm_rows", "interleaved", (256,), (("nr", 2 ** 20),))
    values = dram_stream_values([copy, rows], DEVICE)
    ratio = values["f_dram_inflight_s"] / values["f_dram_stream_s"]
    # out = alpha x + beta y: two float32 values in and one out, 12 bytes a work item
    assert ratio[0] == pytest.approx(1 / 0.901, rel=1e-3)
    assert ratio[1] == pytest.approx(1.0)      # 64 entries a row, twice: the calibration's
    stencil = values["f_dram_stencil_stream_s"] / values["f_dram_stream_s"]
    assert stencil[0] == ratio[0] and stencil[1] == 1.0     # neither re-reads in 2-D groups


def test_a_two_d_stencil_streams_at_the_stencils_rate():
    from workbench.models.inflight import stencil_share
    from workbench.models.reread_features import dram_stream_values

    # nine loads of u a work item from global memory, one store: 8 bytes an item; the
    # prefetching variant reads its neighbours from local memory and streams as a copy
    direct, tiled = (Candidate("stencil9_prefetch", v, (16, 16), (("n", 8192),))
                     for v in ("direct", "prefetch"))
    values = dram_stream_values([direct, tiled], DEVICE)
    inflight = values["f_dram_inflight_s"] / values["f_dram_stream_s"]
    stencil = values["f_dram_stencil_stream_s"] / values["f_dram_stream_s"]
    assert inflight == pytest.approx([1 / 0.716] * 2, rel=1e-2)
    assert stencil == pytest.approx([1 / stencil_share(8.0), 1 / 0.716], rel=1e-2)


def test_a_window_walked_by_a_loop_is_no_stencil():
    """Round 19: autocorr_lags (heldout16) re-reads its 64-sample window from L1 over a
    sequential loop; a neighbour stencil without a loop, or with a loop of a few
    unrolled taps, keeps the stencil's rate."""
    from workbench.models.reread_features import dram_stream_values

    window = Candidate("autocorr_lags", "normalized", (16, 16), (("m", 2048), ("n", 2048)),
                       "float32")
    life = Candidate("game_of_life", "life", (16, 16), (("m", 4096), ("n", 4096)), "float32")
    # four taps in a loop (heldout13): unrolled into neighbour loads, a stencil
    taps = Candidate("depthwise_causal_conv", "plain", (16, 16),
                     (("nchannels", 2048), ("nsteps", 4096)), "float32")
    values = dram_stream_values([window, life, taps], DEVICE)
    assert values["f_dram_inflight_s"][0] > 0
    assert values["f_dram_neighbour_stream_s"][0] == values["f_dram_inflight_s"][0]
    # round 18's rule took the window for a stencil; its feature keeps that
    assert values["f_dram_stencil_stream_s"][0] > 1.1 * values["f_dram_inflight_s"][0]
    for name in ("f_dram_stencil_stream_s", "f_dram_neighbour_stream_s"):
        assert values[name][1] > 1.1 * values["f_dram_inflight_s"][1]
        assert values[name][2] > 1.1 * values["f_dram_inflight_s"][2]
