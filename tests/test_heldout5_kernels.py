"""The fifth held-out kernel set (``--set heldout5``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text. Nothing here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import pytest
from test_catalog import nonzero_counts

from workbench.kernels.defs.heldout5 import RANGE_COLS, RMS_COLS

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_polynomial_rows_inverses_and_resize_count_their_text():
    n = 1000
    got = nonzero_counts("horner_poly", "degree32", (128,), {"n": n})
    # one multiply and one add per degree; the coefficients are broadcast loads
    assert got["f_op_float32_mul"] == got["f_op_float32_add"] == 32 * n
    assert got["f_mem_access_global_float32_load_stride0"] == 33 * n
    nr = 300
    got = nonzero_counts("rms_norm_rows", "interleaved", (128,), {"nr": nr}, "float64")
    # the row is read twice (squares, then scaling); x*x is one load (the compiler
    # loads an element once per expression: round 9 of #34)
    assert got["f_mem_access_global_float64_load_stride1"] == 2 * RMS_COLS * nr
    assert got["f_mem_access_global_float64_store_stride1"] == RMS_COLS * nr
    got = nonzero_counts("row_peak_to_peak", "interleaved", (128,), {"nr": nr})
    assert got["f_mem_access_global_float32_load_stride1"] == 2 * RANGE_COLS * nr
    nb = 1000
    got = nonzero_counts("batched_inverse3", "entry_arrays", (256,), {"nb": nb})
    # nine 2 x 2 cofactors, the determinant's three products, nine scalings
    assert got["f_op_float32_mul"] == (9 * 2 + 3 + 9) * nb
    assert got["f_op_float32_div"] == nb
    m, n = 45, 70
    got = nonzero_counts("resize_bilinear", "shrink", (16, 12), {"m": m, "n": n})
    loads = sum(v for k, v in got.items() if "float32_load" in k)
    assert loads == 4 * m * n
    got = nonzero_counts("hash_dropout", "fmix4", (256,), {"n": n})
    assert got["f_op_float32_mul"] == 2 * n        # the mask is arithmetic, no branch
