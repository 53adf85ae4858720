"""The sixth held-out kernel set (``--set heldout6``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text. Nothing here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import pytest
from test_catalog import nonzero_counts

from workbench.kernels.defs.heldout6_grid import MARCH_LEVELS

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_triangle_newton_pooling_and_march_count_their_text():
    n = 300
    got = nonzero_counts("tril_matvec", "by_columns", (128,), {"n": n})
    # row i sums i + 1 products: the triangle, not the square
    assert got["f_op_float32_mul"] == n * (n + 1) // 2
    n = 1000
    got = nonzero_counts("newton_cbrt", "steps16", (128,), {"n": n}, "float64")
    assert got["f_op_float64_div"] == 16 * n
    got = nonzero_counts("particle_push", "soa", (256,), {"n": n})
    stores = sum(v for k, v in got.items() if "float32_store" in k)
    assert stores == 2 * 3 * n
    m, n = 45, 70
    got = nonzero_counts("max_pool2d", "w3_s2", (16, 12), {"m": m, "n": n})
    loads = sum(v for k, v in got.items() if "float32_load" in k)
    assert loads == 9 * m * n
    got = nonzero_counts("column_march3d", "vertical3", (16, 16), {"m": m, "n": n})
    loads = sum(v for k, v in got.items() if "float32_load" in k)
    assert loads == 3 * MARCH_LEVELS * m * n
