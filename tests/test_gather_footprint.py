"""Round 21 of issue #34: a DRAM bound for kernels with a gather, from the footprint of
their affine subscripts."""

import pytest

from workbench.kernels.candidate import Candidate

DEVICE = "NVIDIA H100 80GB HBM3"
SIDE = 8192


def _nms():
    # heldout18's nonmax_suppress: gx, gy, mag and edges read/written at the pixel itself,
    # mag gathered at the two clamped neighbours across the edge
    return Candidate("nonmax_suppress", "four_directions", (16, 16),
                     (("m", SIDE), ("n", SIDE)), "float32")


def test_the_affine_subscripts_footprint_leaves_the_gathers_out():
    from workbench.models.gather_footprint import affine_footprint_bytes

    assert affine_footprint_bytes(_nms()) == 4 * SIDE * SIDE * 4


def test_a_gather_gets_the_in_flight_bound_of_its_affine_footprint():
    from workbench.models.floors import floors_of_device
    from workbench.models.inflight import CALIBRATION_GBPS, stream_share
    from workbench.models.reread_features import dram_stream_values

    life = Candidate("game_of_life", "life", (16, 16), (("m", 4096), ("n", 4096)), "float32")
    values = dram_stream_values([_nms(), life], DEVICE)
    # the footprint of a kernel with a gather is not countable: the older bounds read 0
    assert values["f_dram_stencil_stream_s"][0] == 0.0
    assert values["f_dram_inflight_s"][0] == 0.0
    # 16 bytes a work item in 16 x 16 groups: 0.924 of the calibration's rate
    l2 = floors_of_device(DEVICE).l2_bytes
    expected = (16 * SIDE * SIDE - l2) / (CALIBRATION_GBPS * 1e9 * stream_share(16.0, True))
    for name in ("f_dram_gather_stream_s", "f_dram_neighbour_gather_stream_s"):
        assert values[name][0] == pytest.approx(expected, rel=1e-3)  # bandwidth.json: 3,015.0x GB/s
        assert 3.5e-4 < values[name][0] < 3.8e-4
    # a countable footprint keeps the feature it replaces
    assert values["f_dram_gather_stream_s"][1] == values["f_dram_stencil_stream_s"][1] > 0
    assert values["f_dram_neighbour_gather_stream_s"][1] == \
        values["f_dram_neighbour_stream_s"][1]
