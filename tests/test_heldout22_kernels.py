"""The twenty-second held-out kernel set (``--set heldout22``): never fitted, checked and counted.

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

from workbench.kernels.defs.heldout22 import DRAG_STEPS, GEOMEAN_COLS, HORNER_DEGREE, \
    complex_poly, segment_param
from workbench.kernels.defs.heldout22_grid import curvature_parts, kz_squared, \
    unclamped_saturation

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 3000
    # four arrays read, one written; a logarithm and an exponential, one division
    got = nonzero_counts("arrhenius_rates", "log_form", (256,), {"n": n})
    assert total_of(got, "float32_load") == 4 * n and total_of(got, "float32_store") == n
    assert got["f_op_float32_special"] == 2 * n and got["f_op_float32_div"] == n
    # twelve loads as written (the first end twice per component), a division, a root
    got = nonzero_counts("point_segment_dist", "clamped_projection", (256,), {"n": n})
    assert total_of(got, "float32_load") == 12 * n and got["f_op_float32_div"] == n
    assert got["f_op_float32_special"] == n
    # the coefficient table read by every work item, no division, no special function
    got = nonzero_counts("complex_horner", "horner", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 2 * (HORNER_DEGREE + 1) * n
    assert total_of(got, "float32_store") == 2 * n
    assert "f_op_float32_div" not in got and "f_op_float32_special" not in got
    # rows of 3 read twice and written once, one division
    got = nonzero_counts("householder_reflect3", "normal_given", (256,), {"n": n})
    assert total_of(got, "float32_load") == 6 * n and total_of(got, "float32_store") == 3 * n
    assert got["f_op_float32_div"] == n and "f_op_float32_special" not in got
    # a square root per step; five arrays read, four written
    got = nonzero_counts("drag_projectile_steps", "semi_implicit", (256,), {"n": n})
    assert got["f_op_float32_special"] == DRAG_STEPS * n
    assert total_of(got, "float32_load") == 5 * n and total_of(got, "float32_store") == 4 * n
    # a logarithm per entry and an exponential per row
    got = nonzero_counts("row_geomean", "log_sum", (256,), {"n": n})
    assert got["f_op_float32_special"] == (GEOMEAN_COLS + 1) * n
    assert total_of(got, "float32_load") == GEOMEAN_COLS * n


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    got = nonzero_counts("saturation_adjust", "luma_clamped", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == total_of(got, "float32_store") == 3 * m * n
    assert "f_op_float32_div" not in got
    got = nonzero_counts("levelset_curvature", "central_differences", (16, 16),
                         {"m": m, "n": n})
    assert total_of(got, "float32_load") == 9 * m * n
    assert got["f_op_float32_div"] == got["f_op_float32_special"] == m * n
    got = nonzero_counts("angular_spectrum_step", "evanescent_masked", (16, 16),
                         {"m": m, "n": n})
    assert total_of(got, "float32_load") == total_of(got, "float32_store") == 2 * m * n
    assert got["f_op_float32_special"] == 3 * m * n and "f_op_float32_div" not in got


def test_one_dimensional_inputs_take_every_sign_and_arm():
    a = check_inputs("arrhenius_rates", "log_form")
    rate = expected_outputs("arrhenius_rates", "log_form")["rate"].astype(np.float64)
    assert min((a["beta"] < 0).sum(), (a["beta"] > 0).sum()) > 500
    assert min((rate < 1e-3).sum(), (rate > 1e3).sum()) > 300      # many decades
    s = check_inputs("point_segment_dist", "clamped_projection")
    t = segment_param(s["pts"], s["seg_a"], s["seg_b"])
    # the projection before, on and past the segment: both clamps and neither
    assert min((t < 0).sum(), ((t > 0) & (t < 1)).sum(), (t > 1).sum()) > 500
    c = check_inputs("complex_horner", "horner")
    for sr in (-1, 1):
        for si in (-1, 1):                                      # every quadrant of z
            assert ((np.sign(c["z_re"]) == sr) & (np.sign(c["z_im"]) == si)).sum() > 300
    # the high degrees matter: without the terms of degree 6 and more the values differ
    # by ten times the check's tolerance at most points
    full = complex_poly(c["z_re"], c["z_im"], c["coeffs"])
    low = complex_poly(c["z_re"], c["z_im"], c["coeffs"][HORNER_DEGREE - 5:])
    assert (np.abs(full - low) > 2e-2 * np.abs(full)).mean() > 0.5
    h = check_inputs("householder_reflect3", "normal_given")
    dots = (h["normals"].astype(np.float64) * h["vecs"]).sum(axis=1)
    assert min((dots < 0).sum(), (dots > 0).sum()) > 1000
    lengths = np.linalg.norm(h["normals"].astype(np.float64), axis=1)
    assert lengths.min() < 0.5 and lengths.max() > 4.0             # not unit normals
    final = expected_outputs("drag_projectile_steps", "semi_implicit")
    for out in ("y_out", "vy_out"):                                # rising and falling
        assert min((final[out] < 0).sum(), (final[out] > 0).sum()) > 300
    g = check_inputs("row_geomean", "log_sum")["rows"]
    means = expected_outputs("row_geomean", "log_sum")["geomean"]
    assert min((g < 1).sum(), (g > 1).sum()) > 10000               # logs of both signs
    assert min((means < 0.5).sum(), (means > 2).sum()) > 300


def test_grid_inputs_take_every_clamp_and_mask():
    rgb = check_inputs("saturation_adjust", "luma_clamped")
    s = unclamped_saturation([rgb[a] for a in ("red", "green", "blue")])
    # each channel clamped below, above, and not at all
    assert min((s < 0).sum(), ((s > 0) & (s < 1)).sum(), (s > 1).sum()) > 300
    phi = check_inputs("levelset_curvature", "central_differences")["phi"]
    kappa = expected_outputs("levelset_curvature", "central_differences")["kappa"]
    terms, g2 = curvature_parts(phi)
    assert min((kappa < 0).sum(), (kappa > 0).sum()) > 500         # bent both ways
    assert (g2 >= 0.01).all() and np.ptp(np.log10(g2)) > 1
    # every numerator term matters: each is at least a tenth of the sum somewhere often
    for term in terms:
        assert (np.abs(term) > 0.1 * np.abs(terms.sum(axis=0))).mean() > 0.3
    spec = check_inputs("angular_spectrum_step", "evanescent_masked")
    out = expected_outputs("angular_spectrum_step", "evanescent_masked")
    kz2 = kz_squared(spec["spec_re"].shape)
    # propagating and evanescent bins, none so near the boundary that rounding decides;
    # the check image has only its corners evanescent (10 bins, the constants being what
    # the device measured), enough to fail a kernel without the mask: there the unmasked
    # phase is 0 and the value would pass through unchanged
    assert (kz2 < 0).sum() == 10 and (kz2 > 0).sum() > 3000 and np.abs(kz2).min() > 1e-3
    assert (np.hypot(spec["spec_re"], spec["spec_im"])[kz2 < 0] > 0.1).all()
    assert (out["out_re"][kz2 < 0] == 0).all() and (out["out_im"][kz2 < 0] == 0).all()
    for part in ("out_re", "out_im"):
        assert min((out[part] < 0).sum(), (out[part] > 0).sum()) > 500
