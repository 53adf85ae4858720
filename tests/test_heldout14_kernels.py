"""The fourteenth held-out kernel set (``--set heldout14``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text, and the check inputs are shown to take every clamp, sign,
mask and arm the kernels have (so that a kernel missing one fails its check).
Nothing here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import numpy as np
import pytest
from heldout_checks import check_inputs, expected_outputs, total_of
from test_catalog import nonzero_counts

from workbench.kernels.defs.heldout14 import ACES, ROW_SAMPLES, SHRINK_LAMBDA
from workbench.kernels.defs.heldout14_geometry import box_entry_exit, segment_params
from workbench.kernels.defs.heldout14_grid import PAD, SHUFFLE_CHANNELS

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 2000
    # soft: two subtractions and the sum of a max and a min; hard: a fabs, a product
    got = nonzero_counts("shrink_threshold", "soft", (256,), {"n": n})
    assert got["f_op_float32_add"] == 5 * n and "f_op_float32_special" not in got
    got = nonzero_counts("shrink_threshold", "hard", (256,), {"n": n})
    assert got["f_op_float32_special"] == n and got["f_op_float32_mul"] == n
    # three planes in and out; one division per pixel, or one per channel
    got = nonzero_counts("tonemap_pixels", "reinhard", (256,), {"n": n})
    assert total_of(got, "float32_load") == 3 * n and got["f_op_float32_div"] == n
    got = nonzero_counts("tonemap_pixels", "aces", (256,), {"n": n})
    assert got["f_op_float32_div"] == 3 * n and total_of(got, "float32_store") == 3 * n
    # every sample of a row read once, along the row (one work item per row)
    got = nonzero_counts("trapezoid_rows", "simpson", (256,), {"nrows": n})
    assert got["f_mem_access_global_float32_load_frac4ofgt4"] == ROW_SAMPLES * n
    # six planes, each origin plane read twice (for both slabs)
    got = nonzero_counts("ray_box_slab", "distance", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride1"] == 12 * n
    got = nonzero_counts("segment_intersect", "both_params", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_frac4of4"] == 8 * n
    assert got["f_op_float32_div"] == n and total_of(got, "float32_store") == 2 * n


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    got = nonzero_counts("curl_div2d", "curl", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 4 * m * n
    got = nonzero_counts("pad_reflect", "reflect", (16, 16), {"m": m, "n": n})
    padded = (m + 2 * PAD) * (n + 2 * PAD)
    # the source index is held in temporaries (comparisons at the border): since round 17
    # read at its interior's stride 1, as a plain copy (index_temporaries), where loopy
    # alone took it as uniform (stride 0, one sector a warp)
    assert got["f_mem_access_global_float32_load_stride1"] == padded
    assert got["f_mem_access_global_float32_store_stride1"] == padded
    # nine planes written; zero_pad's twelve mask products (four edges, four corners x 2)
    got = nonzero_counts("im2col3x3", "zero_pad", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_store") == 9 * m * n and got["f_op_float32_mul"] == 12 * m * n
    got = nonzero_counts("im2col3x3", "edge_pad", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 9 * m * n and "f_op_float32_mul" not in got
    got = nonzero_counts("pixel_shuffle", "space_to_depth", (16, 16), {"m": m, "n": n})
    assert got["f_mem_access_global_float32_load_frac2of2"] == 4 * SHUFFLE_CHANNELS * m * n


def test_inputs_take_every_clamp_sign_and_arm():
    x = check_inputs("shrink_threshold", "soft")["coef"]
    assert min((x < -SHRINK_LAMBDA).sum(), (x > SHRINK_LAMBDA).sum(),
               (np.abs(x) < SHRINK_LAMBDA).sum()) > 500
    rgb = check_inputs("tonemap_pixels", "aces")
    a, b, c, d, e = ACES
    for plane in ("r_in", "g_in", "b_in"):
        v = rgb[plane].astype(np.float64)
        curve = v * (a * v + b) / (v * (c * v + d) + e)
        # the curve is negative only for -0.012 < v < 0 (below, both factors are)
        assert (curve < 0).sum() > 15 and (curve > 1).sum() > 100
        assert ((curve > 0) & (curve < 1)).sum() > 1000
    rays = check_inputs("ray_box_slab", "distance")
    origin = np.stack([rays[f"o{a}"] for a in "xyz"], axis=1).astype(np.float64)
    inv = np.stack([rays[f"inv_d{a}"] for a in "xyz"], axis=1).astype(np.float64)
    t_in, t_out = box_entry_exit(origin, inv)
    hit = t_out >= np.maximum(t_in, 0)
    # origins inside the box (a seventieth of the cube around it): distance 0
    assert (hit & (t_in < 0)).sum() > 15 and min((hit & (t_in > 0)).sum(), (~hit).sum()) > 500
    assert ((~hit) & (t_out > 0)).sum() > 100     # the box beside the ray's line ahead
    dist = expected_outputs("ray_box_slab", "distance")["dist"]
    assert (dist == -1).sum() == (~hit).sum() and (dist == 0).sum() == (hit & (t_in < 0)).sum()
    seg = check_inputs("segment_intersect", "first_param")
    t, s = segment_params(seg["seg_a"], seg["seg_b"])
    crosses = (np.minimum(t, s) >= 0) & (np.maximum(t, s) <= 1)
    assert crosses.sum() > 200 and (~crosses).sum() > 200
    for p, q in ((t, s), (s, t)):   # each parameter out of [0, 1], on each side, alone
        inside = (q >= 0) & (q <= 1)
        assert ((p < 0) & inside).sum() > 100 and ((p > 1) & inside).sum() > 100
    # the borders of pad and im2col are in every check by construction; the reflected
    # and the edge-repeated pads differ on every border pixel but the edge's own
    img = check_inputs("pad_reflect", "reflect")["img"]
    reflect = expected_outputs("pad_reflect", "reflect")["out"]
    edge = np.pad(img, PAD, mode="edge")
    assert (reflect != edge).sum() > 0.9 * (reflect.size - img.size)
    cols = expected_outputs("im2col3x3", "zero_pad")["cols"]
    m, n = 45, 70   # two shifts leave a row, two a column, four a row and a column
    assert (cols == 0).sum() == 2 * n + 2 * m + 4 * (m + n - 1)
