"""The eleventh held-out kernel set (``--set heldout11``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text, and the check inputs are shown to take every clamp, arm,
sector and parity the kernels have (so that a kernel missing one fails its check).
Nothing here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import numpy as np
import pytest
from heldout_checks import check_inputs, expected_outputs, total_of
from test_catalog import nonzero_counts

from workbench.kernels.defs.heldout11 import CE_CLASSES, MAP_STEPS, PAY_STEPS
from workbench.kernels.defs.heldout11_grid import unsharp_unclamped

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_row_and_elementwise_kernels_count_their_text():
    nr = 500
    # the row read for its max and for its exponentials, the label's logit gathered
    got = nonzero_counts("cross_entropy_rows", "hard", (128,), {"nr": nr})
    assert total_of(got, "float32_load") == (2 * CE_CLASSES + 1) * nr
    assert got["f_op_float32_special"] == (CE_CLASSES + 1) * nr
    assert total_of(got, "int32_load") == nr
    got = nonzero_counts("cross_entropy_rows", "smoothed", (128,), {"nr": nr})
    assert total_of(got, "float32_load") == (3 * CE_CLASSES + 1) * nr
    got = nonzero_counts("option_payoff_paths", "european", (128,), {"npaths": nr})
    assert total_of(got, "float32_load") == nr == total_of(got, "float32_store")
    got = nonzero_counts("option_payoff_paths", "asian", (128,), {"npaths": nr})
    assert total_of(got, "float32_load") == PAY_STEPS * nr
    n = 2000
    got = nonzero_counts("chaotic_map_iterate", "logistic", (256,), {"n": n})
    assert got["f_op_float32_mul"] == 2 * MAP_STEPS * n
    assert total_of(got, "float32_load") == 2 * n and total_of(got, "float32_store") == n
    got = nonzero_counts("bce_with_logits", "plain", (256,), {"n": n})
    assert total_of(got, "float32_load") == 2 * n and got["f_op_float32_special"] == 3 * n
    got = nonzero_counts("axis_angle_rotate", "matrix", (256,), {"n": n})
    assert total_of(got, "float32_store") == 9 * n and got["f_op_float32_special"] == 2 * n
    got = nonzero_counts("hsv_to_rgb", "interleaved", (256,), {"n": n})
    assert total_of(got, "float32_load") == 3 * n == total_of(got, "float32_store")


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    got = nonzero_counts("morph_erode_dilate", "erode", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 9 * m * n and total_of(got, "float32_store") == m * n
    # the centre, four neighbours and the source term
    got = nonzero_counts("red_black_relax", "red", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 6 * m * n
    got = nonzero_counts("unsharp_mask", "cross5", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == (1 + 5) * m * n
    got = nonzero_counts("unsharp_mask", "box3", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == (1 + 9) * m * n


def test_inputs_take_every_clamp_and_arm():
    z = check_inputs("bce_with_logits", "plain")["logit"]
    assert (z < 0).sum() > 500 and (z > 0).sum() > 500
    for variant in ("european", "asian"):
        pay = expected_outputs("option_payoff_paths", variant)["payoff"]
        assert (pay == 0).sum() > 100 and (pay > 0.1).sum() > 100
    x0 = check_inputs("chaotic_map_iterate", "tent")["x_init"]
    assert (x0 < 0.5).sum() > 500 and (x0 > 0.5).sum() > 500
    hue = check_inputs("hsv_to_rgb", "planar")["hue"]
    assert all((np.floor(hue) == sector).sum() > 100 for sector in range(6))
    img = check_inputs("unsharp_mask", "box3")["img"].astype(np.float64)
    for variant in ("box3", "cross5"):
        raw = unsharp_unclamped(img, variant)
        assert (raw < 0).sum() > 50 and (raw > 1).sum() > 50
        assert ((raw > 0.05) & (raw < 0.95)).sum() > 500


def test_variants_and_parities_differ_where_they_should():
    labels = check_inputs("cross_entropy_rows", "hard")["label"]
    assert len(set(labels)) > CE_CLASSES // 2
    hard = expected_outputs("cross_entropy_rows", "hard")["loss"]
    smooth = expected_outputs("cross_entropy_rows", "smoothed")["loss"]
    assert (np.abs(hard - smooth) > 1e-2 * hard).sum() > 100
    erode = expected_outputs("morph_erode_dilate", "erode")["out"]
    dilate = expected_outputs("morph_erode_dilate", "dilate")["out"]
    assert (erode < dilate).all()
    centre = check_inputs("red_black_relax", "red")["u"].astype(np.float64)[1:-1, 1:-1]
    red = expected_outputs("red_black_relax", "red")["u_new"]
    black = expected_outputs("red_black_relax", "black")["u_new"]
    # each sweep moves its own colour (by more than the tolerance) and copies the other
    moved_red, moved_black = np.abs(red - centre) > 1e-3, np.abs(black - centre) > 1e-3
    parity = np.add.outer(np.arange(centre.shape[0]), np.arange(centre.shape[1])) % 2
    assert moved_red[parity == 0].mean() > 0.9 and not moved_red[parity == 1].any()
    assert moved_black[parity == 1].mean() > 0.9 and not moved_black[parity == 0].any()
