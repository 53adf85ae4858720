"""Round 8 of issue #34: a work item's second pass over data beyond L2 reaches DRAM."""

import pytest

from workbench.kernels.candidate import Candidate

DEVICE = "NVIDIA H100 80GB HBM3"
MISS_BEYOND_L2 = 0.8641   # the H100 description's L2 reuse miss function, saturated


def _rms(nr: int, dtype: str = "float32", variant: str = "interleaved") -> Candidate:
    return Candidate("rms_norm_rows", variant, (256,), (("nr", nr),), dtype)


def test_a_second_pass_over_the_row_is_a_reread_and_one_pass_is_not():
    from workbench.models.reread_features import reread_accesses

    # 64 entries a row, read for the sum of squares and again for the scaled copy
    assert reread_accesses(_rms(1024)) == ((1024 * 64, 1024 * 64, 1024, 4),)
    assert reread_accesses(_rms(1024, "float64", "row_major"))[0][3] == 8
    # a maximum and a minimum over the same row in one loop: one read
    peak = Candidate("row_peak_to_peak", "interleaved", (256,), (("nr", 1024),))
    assert reread_accesses(peak) == ()
    stream = Candidate("vector_scale_add", "stride1", (128,), (("n", 2 ** 14),))
    assert reread_accesses(stream) == ()


def test_rereads_reach_dram_only_where_the_resident_rows_exceed_l2():
    from workbench.models.reread_features import reread_values

    small, large = _rms(2 ** 14), _rms(2 ** 20)
    wide = _rms(2 ** 20, "float64")
    values = reread_values([small, large, wide], DEVICE)
    f32, f64 = values["f_dram_reread_float32_sectors"], values["f_dram_reread_float64_sectors"]
    assert f32[0] == pytest.approx(0.0, abs=1.0)          # 4 MB of rows: L2 keeps them
    assert f32[1] == pytest.approx(2 ** 26 * 4 / 32 * MISS_BEYOND_L2, rel=1e-3)
    assert f64[2] == pytest.approx(2 * f32[1], rel=1e-3) and f32[2] == f64[1] == 0.0


def test_the_dram_stream_time_counts_the_footprint_beyond_l2_and_the_rereads():
    from workbench.models.floors import floors_of_device
    from workbench.models.reread_features import dram_stream_values, reread_values

    large, small = _rms(2 ** 20), _rms(2 ** 12)
    floors = floors_of_device(DEVICE)
    values = dram_stream_values([large, small], DEVICE)
    reread = 32 * reread_values([large], DEVICE)["f_dram_reread_float32_sectors"][0]
    footprint = 2 * 2 ** 26 * 4 + 64 * 4            # x and y, and the gains g
    beyond = footprint - floors.l2_bytes + reread
    assert values["f_dram_peak_stream_s"][0] == pytest.approx(beyond / floors.dram_peak_Bps)
    # the measured copy's bandwidth is below the peak
    assert values["f_dram_stream_s"][0] > values["f_dram_peak_stream_s"][0]
    assert values["f_dram_stream_s"][1] == values["f_dram_peak_stream_s"][1] == 0.0


def test_an_installation_without_sample_data_streams_at_the_same_bandwidth(monkeypatch):
    import workbench.measure.samples as samples
    from workbench.models.reread_features import _measured_dram_Bps

    in_checkout = _measured_dram_Bps(DEVICE)
    monkeypatch.setattr(samples, "sample_data_root", lambda: None)
    assert _measured_dram_Bps(DEVICE) == in_checkout == pytest.approx(3.015e12, rel=1e-3)
