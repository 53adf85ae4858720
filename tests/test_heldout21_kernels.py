"""The twenty-first held-out kernel set (``--set heldout21``): never fitted, checked and counted.

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

from workbench.kernels.defs.heldout21 import LEGENDRE_TERMS, PLANCK_C2, legendre, overlaps
from workbench.kernels.defs.heldout21_grid import HDR_TIMES, lbm_collide

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 3000
    # two loads, one store; one exponential and two divisions
    got = nonzero_counts("planck_radiance", "wavelength_um", (256,), {"n": n})
    assert total_of(got, "float32_load") == 2 * n and total_of(got, "float32_store") == n
    assert got["f_op_float32_special"] == n and got["f_op_float32_div"] == 2 * n
    # sixteen loads as written (each corner twice: the overlap and the area), a division
    got = nonzero_counts("box_iou_pairs", "xyxy", (256,), {"n": n})
    assert total_of(got, "float32_load") == 16 * n and got["f_op_float32_div"] == n
    assert "f_op_float32_special" not in got
    # five arrays read; two exponentials and a tanh; the sigmoids' two divisions
    got = nonzero_counts("gru_cell_update", "gates_given", (256,), {"n": n})
    assert total_of(got, "float32_load") == 5 * n and total_of(got, "float32_store") == n
    assert got["f_op_float32_special"] == 3 * n and got["f_op_float32_div"] == 2 * n
    # the coefficient table read by every work item, a division per term
    got = nonzero_counts("legendre_series", "recurrence", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == LEGENDRE_TERMS * n
    assert got["f_op_float32_div"] == LEGENDRE_TERMS * n
    # atan2, asin and a square root; two arrays written
    got = nonzero_counts("direction_to_equirect", "atan2_asin", (256,), {"n": n})
    assert got["f_op_float32_special"] == 3 * n and total_of(got, "float32_store") == 2 * n
    assert total_of(got, "float32_load") == 3 * n


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    got = nonzero_counts("hdr_merge3", "hat_weights", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 3 * m * n and got["f_op_float32_div"] == m * n
    got = nonzero_counts("lbm_bgk_collide", "bgk", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == total_of(got, "float32_store") == 9 * m * n
    assert got["f_op_float32_div"] == m * n
    got = nonzero_counts("wiener_filter_spectrum", "constant_snr", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 4 * m * n
    assert total_of(got, "float32_store") == 2 * m * n and got["f_op_float32_div"] == m * n
    got = nonzero_counts("depth_unproject", "pinhole", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == m * n and total_of(got, "float32_store") == 3 * m * n
    assert "f_op_float32_div" not in got


def test_one_dimensional_inputs_take_every_sign_and_arm():
    p = check_inputs("planck_radiance", "wavelength_um")
    x = PLANCK_C2 / (p["wavelength"].astype(np.float64) * p["temp_kk"])
    # both regimes: Wien's (x large) and Rayleigh-Jeans' (x small)
    assert min((x > 10).sum(), (x < 1).sum()) > 200
    b = check_inputs("box_iou_pairs", "xyxy")
    ox, oy = overlaps(b["box_a"], b["box_b"])
    iou = expected_outputs("box_iou_pairs", "xyxy")["iou"]
    # overlapping, apart along x only, along y only, along both: each clamp takes both arms
    for cx, cy in ((True, True), (True, False), (False, True), (False, False)):
        assert (((ox > 0) == cx) & ((oy > 0) == cy)).sum() > 100
    assert min((iou == 0).sum(), (iou > 0.3).sum()) > 100
    g = check_inputs("gru_cell_update", "gates_given")
    out = expected_outputs("gru_cell_update", "gates_given")["hidden_out"]
    assert min((out < 0).sum(), (out > 0).sum()) > 500
    for name in ("reset_pre", "update_pre", "cand_x", "cand_h"):
        assert min((g[name] < -2).sum(), (g[name] > 2).sum()) > 300    # saturating
    lg = check_inputs("legendre_series", "recurrence")
    values = expected_outputs("legendre_series", "recurrence")["values"]
    assert {-1.0, 1.0} <= set(lg["xs"].tolist())
    assert min((lg["coeffs"] < 0).sum(), (lg["coeffs"] > 0).sum()) >= 5
    # the high degrees matter: without the terms from degree 12 on the sum differs by
    # ten times the check's tolerance at a third of the points
    low = legendre(lg["xs"], lg["coeffs"][:12])
    assert (np.abs(values - low) > 1e-2 * np.abs(values)).mean() > 0.3
    d = check_inputs("direction_to_equirect", "atan2_asin")["dirs"]
    for octant in range(8):                                     # every quadrant of atan2
        signs = [(octant >> k) & 1 for k in range(3)]
        assert (np.all((d > 0) == np.array(signs, bool), axis=1)).sum() > 100


def test_grid_inputs_take_every_clamp_and_mask():
    h = check_inputs("hdr_merge3", "hat_weights")
    zs = np.stack([h[f"exposure{k}"] for k in range(len(HDR_TIMES))])
    radiance = expected_outputs("hdr_merge3", "hat_weights")["radiance"]
    # saturated and black exposures (weight zero), pixels saturated in every exposure
    assert min((zs == 1).sum(), (zs == 0).sum()) > 100
    assert (zs == 1).all(axis=0).sum() > 50 and (radiance[(zs == 1).all(axis=0)] == 0).all()
    assert ((zs > 0) & (zs < 1)).all(axis=0).sum() > 100       # three weights at once
    f = check_inputs("lbm_bgk_collide", "bgk")["f_in"].astype(np.float64)
    c = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
    ux = (c[:, None, None] * f).sum(axis=0)
    assert min((ux < -0.05).sum(), (ux > 0.05).sum()) > 300
    # the collision changes every population noticeably
    assert (np.abs(lbm_collide(f) - f) > 1e-3 * f).mean() > 0.9
    x = expected_outputs("wiener_filter_spectrum", "constant_snr")
    w = check_inputs("wiener_filter_spectrum", "constant_snr")
    mag2 = w["h_re"].astype(np.float64) ** 2 + w["h_im"] ** 2
    assert min((mag2 < 1e-3).sum(), (mag2 > 0.5).sum()) > 300   # below and above K
    for out in ("x_re", "x_im"):
        assert min((x[out] < 0).sum(), (x[out] > 0).sum()) > 500
    depth = check_inputs("depth_unproject", "pinhole")["depth"]
    pts = expected_outputs("depth_unproject", "pinhole")
    # holes (0 and negative) and far readings, each masked to zero; both signs of x, y
    for masked in (depth == 0, depth < 0, depth > 10):
        assert masked.sum() > 50 and (pts["pz"][masked] == 0).all()
    for out in ("px", "py"):
        assert min((pts[out] < 0).sum(), (pts[out] > 0).sum()) > 300
