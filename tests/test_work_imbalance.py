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
