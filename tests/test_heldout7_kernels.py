"""The seventh held-out kernel set (``--set heldout7``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text. Nothing here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import pytest
from test_catalog import nonzero_counts

from workbench.kernels.defs.heldout7 import SCAN_COLUMNS
from workbench.kernels.defs.heldout7_grid import DENSE_INPUTS

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_pairs_scans_layers_and_options_count_their_text():
    n = 1024
    got = nonzero_counts("bitonic_step", "dist256", (256,), {"n": n})
    stores = sum(v for k, v in got.items() if "float32_store" in k)
    assert stores == 2 * n
    n = 300
    got = nonzero_counts("running_max_rows", "by_columns", (128,), {"n": n}, "float64")
    stores = sum(v for k, v in got.items() if "float64_store" in k)
    assert stores == SCAN_COLUMNS * n
    m, n = 45, 70
    got = nonzero_counts("dense_layer", "in_major", (16, 12), {"m": m, "n": n})
    assert got["f_op_float32_mul"] == DENSE_INPUTS * m * n
    n = 1000
    got = nonzero_counts("black_scholes", "call_put", (128,), {"n": n})
    stores = sum(v for k, v in got.items() if "float32_store" in k)
    assert stores == 2 * n
    got = nonzero_counts("optimizer_step", "adam", (256,), {"n": n})
    assert got["f_op_float32_div"] == n
