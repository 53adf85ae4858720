"""The twelfth held-out kernel set (``--set heldout12``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text, and the check inputs are shown to take every min, sign and
arm the kernels have (so that a kernel missing one fails its check).
Nothing here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import numpy as np
import pytest
from heldout_checks import check_inputs, expected_outputs, total_of
from test_catalog import nonzero_counts

from workbench.kernels.defs.heldout12 import (
    CLIP_MAX,
    HUBER_DELTA,
    KEP_STEPS,
    POLY_POINTS,
    SYN_PARTIALS,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 2000
    got = nonzero_counts("huber_loss", "huber", (256,), {"n": n})
    assert total_of(got, "float32_load") == 2 * n and total_of(got, "float32_store") == n
    # four tables per partial, read by every work item (stride 0), a sine and an exp each
    got = nonzero_counts("sinusoid_synthesis", "damped", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 4 * SYN_PARTIALS * n
    assert got["f_op_float32_special"] == 2 * SYN_PARTIALS * n
    got = nonzero_counts("aos_to_soa", "split", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_frac4of4"] == 4 * n
    assert got["f_mem_access_global_float32_store_stride1"] == 4 * n
    got = nonzero_counts("kepler_solve", "newton", (256,), {"n": n})
    assert got["f_op_float32_special"] == 2 * KEP_STEPS * n
    assert got["f_op_float32_div"] == KEP_STEPS * n
    got = nonzero_counts("kepler_solve", "fixed_point", (256,), {"n": n})
    assert got["f_op_float32_special"] == KEP_STEPS * n
    # a square root per segment; each segment's four distinct loads counted once
    nlines = 500
    got = nonzero_counts("polyline_length", "closed", (128,), {"nlines": nlines})
    assert got["f_op_float32_special"] == POLY_POINTS * nlines
    assert total_of(got, "float32_load") == 4 * POLY_POINTS * nlines
    got = nonzero_counts("clip_by_norm3", "interleaved", (256,), {"n": n})
    assert got["f_mem_access_global_float32_store_frac3of3"] == 3 * n


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    # the centre, nine neighbours for the weights and nine for the weighted sum
    got = nonzero_counts("bilateral_filter3", "range", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 19 * m * n
    assert got["f_op_float32_special"] == 9 * m * n and got["f_op_float32_div"] == m * n
    # the centre, two velocities, four neighbours
    got = nonzero_counts("upwind_advect2d", "upwind", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 7 * m * n
    got = nonzero_counts("batchnorm_infer", "relu", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 5 * m * n and got["f_op_float32_special"] == m * n


def test_inputs_take_every_min_sign_and_arm():
    x = check_inputs("huber_loss", "huber")
    d = x["pred"].astype(np.float64) - x["target"]
    assert (np.abs(d) < HUBER_DELTA).sum() > 500 and (np.abs(d) > HUBER_DELTA).sum() > 500
    assert (d < 0).sum() > 500 and (d > 0).sum() > 500
    v = check_inputs("clip_by_norm3", "planar")
    norm = np.sqrt(v["vx"].astype(np.float64) ** 2 + v["vy"] ** 2 + v["vz"] ** 2)
    assert (norm < CLIP_MAX).sum() > 500 and (norm > CLIP_MAX).sum() > 500
    adv = check_inputs("upwind_advect2d", "upwind")
    for vel in (adv["vel_x"], adv["vel_y"]):
        assert (vel < 0).sum() > 500 and (vel > 0).sum() > 500
    y = expected_outputs("batchnorm_infer", "relu")["y"]
    assert (y == 0).sum() > 500 and (y > 0.05).sum() > 500


def test_variants_differ_where_they_should():
    for name, a, b, out in (("huber_loss", "huber", "smooth_l1", "loss"),
                            ("sinusoid_synthesis", "plain", "damped", "out"),
                            ("polyline_length", "open", "closed", "length"),
                            ("bilateral_filter3", "range", "range_spatial", "out")):
        first, second = expected_outputs(name, a)[out], expected_outputs(name, b)[out]
        assert (np.abs(first - second) > 1e-2 * np.abs(first)).sum() > 100, name
    # both iterations reach the root (the equation holds), far from where they start
    x = check_inputs("kepler_solve", "newton")
    m, e = x["mean_anomaly"].astype(np.float64), x["eccentricity"].astype(np.float64)
    for variant in ("newton", "fixed_point"):
        ea = expected_outputs("kepler_solve", variant)["ecc_anomaly"].astype(np.float64)
        assert np.abs(ea - e * np.sin(ea) - m).max() < 1e-2
        assert (np.abs(ea - m) > 1e-2 * m).sum() > 1000
    # the bilateral weights matter: the filter is not the plain box mean
    img = check_inputs("bilateral_filter3", "range")["img"].astype(np.float64)
    box = sum(img[1 + di:img.shape[0] - 1 + di, 1 + dj:img.shape[1] - 1 + dj]
              for di in (-1, 0, 1) for dj in (-1, 0, 1)) / 9.0
    out = expected_outputs("bilateral_filter3", "range")["out"]
    assert (np.abs(out - box) > 1e-2 * box).mean() > 0.5
