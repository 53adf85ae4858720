"""The fifteenth held-out kernel set (``--set heldout15``): never fitted, checked and counted.

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

from workbench.kernels.defs.heldout15 import IIR_STEPS, LAB_KNEE, SRGB_KNEE, quadratic_parts, \
    srgb_to_xyz
from workbench.kernels.defs.heldout15_geometry import HIT_EPS, MARCH_STEPS, NEAR, march, \
    scene_distance
from workbench.kernels.defs.heldout15_grid import MEDIAN_NETWORKS, central_gradients

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 2000
    # three planes; a square root and two fabs, and three divisions (q / a, c / q, the
    # imaginary part's), or the first root's square root, fabs and division alone
    got = nonzero_counts("quadratic_roots", "both_roots", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride1"] == 3 * n
    assert got["f_op_float32_special"] == 3 * n and got["f_op_float32_div"] == 3 * n
    got = nonzero_counts("quadratic_roots", "first_root", (256,), {"n": n})
    assert got["f_op_float32_special"] == 2 * n and got["f_op_float32_div"] == n
    # a power per channel on the decoding curve, and one per component on the Lab curve
    got = nonzero_counts("srgb_to_lab", "lab", (256,), {"n": n})
    assert got["f_op_float32_pow"] == 6 * n and total_of(got, "float32_store") == 3 * n
    assert nonzero_counts("srgb_to_lab", "xyz", (256,), {"n": n})["f_op_float32_pow"] == 3 * n
    # every time step of every channel read and written once; five multiplies a step
    got = nonzero_counts("iir_channels", "biquad", (256,), {"n": 700})
    assert got["f_mem_access_global_float32_load_stride1"] == IIR_STEPS * 700
    assert got["f_op_float32_mul"] == 5 * IIR_STEPS * 700
    # the matrix's 16 entries read by every work item (stride 0), one division
    got = nonzero_counts("project_points", "pixels_depth", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 16 * n
    assert got["f_op_float32_div"] == n and total_of(got, "float32_store") == 3 * n
    # a square root per step and one more for the field where the march ends
    got = nonzero_counts("sdf_march", "distance", (256,), {"n": n})
    assert got["f_op_float32_special"] == (MARCH_STEPS + 1) * n
    assert got["f_mem_access_global_float32_load_stride1"] == 6 * n


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    for variant, reads in (("square3x3", 9), ("cross5", 5)):
        got = nonzero_counts("median_filter", variant, (16, 16), {"m": m, "n": n})
        assert got["f_mem_access_global_float32_load_stride1"] == reads * m * n
        # a min and a max per exchange
        assert got["f_op_float32_add"] == 2 * len(MEDIAN_NETWORKS[variant][0]) * m * n
    got = nonzero_counts("gauss_blur_pass", "columns", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 5 * m * n and got["f_op_float32_mul"] == 3 * m * n
    got = nonzero_counts("grad_orientation", "angle_magnitude", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 4 * m * n and got["f_op_float32_special"] == 2 * m * n
    got = nonzero_counts("givens_rotate_rows", "from_angle", (16, 16), {"m": m, "n": n})
    assert got["f_op_float32_special"] == 2 * m * n      # a cosine and a sine
    assert got["f_mem_access_global_float32_load_stride0"] == 2 * m * n
    got = nonzero_counts("givens_rotate_rows", "given_cos_sin", (16, 16), {"m": m, "n": n})
    assert "f_op_float32_special" not in got and total_of(got, "float32_store") == 2 * m * n


def test_inputs_take_every_clamp_sign_and_arm():
    q = {k: v.astype(np.float64) for k, v in check_inputs("quadratic_roots", "both_roots").items()}
    d = q["qb"] ** 2 - 4 * q["qa"] * q["qc"]
    assert min((d > 0).sum(), (d < 0).sum()) > 500
    for sign in (-1, 1):   # both branches of sign(b), with real roots
        assert ((np.sign(q["qb"]) == sign) & (d > 0)).sum() > 200
    first, second = quadratic_parts(q["qa"], q["qb"], q["qc"])
    assert np.all(np.abs(first[d > 0]) >= np.abs(second[d > 0]) * (1 - 1e-12))
    assert np.all(second[d < 0] > 0)
    lab = check_inputs("srgb_to_lab", "lab")
    rgb = np.stack([lab[f"{c}_in"] for c in "rgb"], axis=1).astype(np.float64)
    xyz = srgb_to_xyz(rgb)
    assert min((rgb <= SRGB_KNEE).sum(), (rgb > SRGB_KNEE).sum()) > 1000
    assert min((xyz <= LAB_KNEE).sum(), (xyz > LAB_KNEE).sum()) > 1000
    a_star = expected_outputs("srgb_to_lab", "lab")["a_star"]
    assert min((a_star < 0).sum(), (a_star > 0).sum()) > 200
    proj = check_inputs("project_points", "pixels")
    px = expected_outputs("project_points", "pixels")["px_out"]
    behind = proj["pts_z"] > 5.0 - NEAR   # the camera sits at z = 5, looking down -z
    assert behind.sum() > 200 and np.all(px[behind] == -1) and np.all(px[~behind] != -1)
    assert ((px > 1920) | ((px < 0) & (px != -1))).sum() > 50    # beside the image
    rays = check_inputs("sdf_march", "hit_mask")
    origin = np.stack([rays[f"orig_{a}"] for a in "xyz"], axis=1).astype(np.float64)
    direction = np.stack([rays[f"dir_{a}"] for a in "xyz"], axis=1).astype(np.float64)
    t, last = march(origin, direction)
    end = origin + t[:, None] * direction
    on_sphere = np.abs(np.linalg.norm(end, axis=1) - 1.0) < HIT_EPS
    on_ground = np.abs(end[:, 1] + 1.0) < HIT_EPS
    # hits on each surface and misses, none near the hit threshold (float32 agrees)
    assert min(on_sphere.sum(), on_ground.sum(), (last > 1.0).sum()) > 400
    assert not ((last > HIT_EPS / 10) & (last < 10 * HIT_EPS)).any()
    assert np.all(scene_distance(origin) > 0)
    mask = expected_outputs("sdf_march", "hit_mask")["out"]
    assert set(np.unique(mask)) == {0.0, 1.0}
    gx, gy = central_gradients(check_inputs("grad_orientation", "angle")["img"])
    for sx in (-1, 1):      # all four quadrants of atan2
        for sy in (-1, 1):
            assert ((np.sign(gx) == sx) & (np.sign(gy) == sy)).sum() > 500
    theta = check_inputs("givens_rotate_rows", "from_angle")["theta"]
    assert np.histogram(theta, bins=4, range=(-np.pi, np.pi))[0].min() > 5


def test_the_median_networks_sort_out_the_median():
    # the exchange networks against numpy's median on every ordering of distinct values
    rng = np.random.default_rng(7)
    for variant, (network, middle) in MEDIAN_NETWORKS.items():
        size = 1 + max(max(pair) for pair in network)
        values = rng.permuted(np.tile(np.arange(size, dtype=float), (2000, 1)), axis=1)
        slots = values.T.copy()
        for lo, hi in network:
            pair = slots[lo].copy(), slots[hi].copy()
            slots[lo], slots[hi] = np.minimum(*pair), np.maximum(*pair)
        assert np.array_equal(slots[middle], np.median(values, axis=1)), variant
