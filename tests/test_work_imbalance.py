"""The longest work item against the average one (the serial floors' share)."""

import pytest

from workbench.kernels.candidate import Candidate
from workbench.models.work_imbalance import longest_item_ratio


def test_a_triangular_loop_has_its_longest_row_twice_the_average():
    # row i of a lower-triangular product sums i + 1 products: longest n, average (n+1)/2
    n = 1024
    c = Candidate("tril_matvec", "by_rows", (128,), (("n", n),), "float32")
    assert longest_item_ratio(c) == pytest.approx(2 * n / (n + 1))


def test_items_that_run_alike_have_ratio_one():
    c = Candidate("nearest_center_dist", "k16", (128,), (("n", 4096),), "float32")
    assert longest_item_ratio(c) == 1.0


def test_the_busiest_group_of_a_row_per_lane_load_costs_a_line_per_lane_and_trip():
    # by rows, each lane's load of tri is a line of its own (lanes a row apart); the
    # last group of 128 rows (896..1023) is the busiest: sum(r + 1) lane-trips, and
    # x[j] is one line a warp (a broadcast)
    from workbench.models.work_imbalance import busiest_sm_wavefronts

    trips = sum(r + 1 for r in range(896, 1024))
    rows = Candidate("tril_matvec", "by_rows", (128,), (("n", 1024),), "float32")
    assert busiest_sm_wavefronts(rows, 132) == pytest.approx(trips * 33 / 32, rel=0.01)
    # by columns the lanes share lines: a line a warp for tri and for x (a warp runs
    # as long as its longest lane, hence a little more than the lanes' average)
    columns = Candidate("tril_matvec", "by_columns", (128,), (("n", 1024),), "float32")
    assert trips * 2 / 32 < busiest_sm_wavefronts(columns, 132) < trips * 2 / 32 * 1.08
