"""The ninth held-out kernel set (``--set heldout9``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text, and the check inputs are shown to take every clamp, mask
and piece the kernels have (so that a kernel missing one fails its check). Nothing
here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import numpy as np
import pytest
from heldout_checks import check_inputs, total_of
from test_catalog import nonzero_counts

from workbench.kernels.catalog import get_kernel
from workbench.kernels.defs.heldout9 import SRGB_THRESHOLD, WINDOW
from workbench.kernels.defs.heldout9_grid import MASK_WINDOW

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_activations_curves_windows_and_vectors_count_their_text():
    n = 2000
    got = nonzero_counts("silu_gate", "swiglu", (256,), {"n": n})
    assert got["f_op_float32_special"] == n and got["f_op_float32_div"] == n
    assert total_of(got, "float32_load") == 2 * n
    got = nonzero_counts("gamma_correct", "srgb", (256,), {"n": n}, "float64")
    assert got["f_op_float64_pow"] == n                  # both pieces computed, one pow
    assert total_of(got, "float64_store") == n
    n = 1000
    got = nonzero_counts("strided_copy", "stride8", (256,), {"n": n})
    assert total_of(got, "float32_load") == n and not total_of(got, "f_op_")
    got = nonzero_counts("moving_average8", "weighted", (128,), {"n": n})
    assert total_of(got, "float32_load") == 2 * WINDOW * n
    assert got["f_op_float32_mul"] == WINDOW * n
    got = nonzero_counts("cross_product_aos", "unit_normal", (128,), {"n": n})
    assert got["f_op_float32_mul"] == 12 * n and got["f_op_float32_special"] == n
    assert total_of(got, "float32_load") == 6 * n and total_of(got, "float32_store") == 3 * n
    got = nonzero_counts("haar_step", "inverse", (128,), {"n": n})
    assert total_of(got, "float32_load") == 2 * n and total_of(got, "float32_store") == 2 * n
    m, n = 45, 70
    got = nonzero_counts("rgba_premultiply", "unpremultiply", (16, 12), {"m": m, "n": n})
    assert got["f_op_float32_div"] == 3 * m * n
    assert total_of(got, "float32_load") == 4 * m * n == total_of(got, "float32_store")
    got = nonzero_counts("diag_scale_matrix", "two_sided", (16, 16), {"m": m, "n": n})
    assert got["f_op_float32_mul"] == 2 * m * n and total_of(got, "float32_load") == 3 * m * n
    got = nonzero_counts("causal_mask", "causal", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == m * n == total_of(got, "float32_store")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_inputs_take_both_clamps_and_both_srgb_pieces(dtype):
    x = check_inputs("gamma_correct", "srgb", dtype)["x"]
    pieces = [x < 0, (x >= 0) & (x <= SRGB_THRESHOLD), (x > SRGB_THRESHOLD) & (x <= 1), x > 1]
    assert all(p.sum() >= len(x) // 5 for p in pieces)


def test_mask_alpha_and_window_inputs_take_both_sides():
    spec = get_kernel("causal_mask")
    m, n = spec.check_params["m"], spec.check_params["n"]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    # kept, above the diagonal, and below the sliding window: all three occur
    assert (j <= i).any() and (j > i).any() and (j <= i - MASK_WINDOW).any()
    out = spec.expected(check_inputs("causal_mask", "sliding_window"), spec.check_params,
                        "sliding_window")["out"]
    assert 0 < (out > 0).sum() < (out < 0).sum()
    alpha = check_inputs("rgba_premultiply", "unpremultiply")["img"][..., 3]
    assert (alpha == 0).sum() > 100 and (alpha > 0).sum() > 100


def test_silu_inputs_have_both_signs():
    x = check_inputs("silu_gate", "silu")["x"]
    assert (x < -1).sum() > 100 and (x > 1).sum() > 100
