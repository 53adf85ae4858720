"""The sixteenth held-out kernel set (``--set heldout16``): never fitted, checked and counted.

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

from workbench.kernels.defs.heldout16 import CLIP_SAMPLES, FIT_SAMPLES, HALF_DIR, LIGHT_DIR, \
    sigma_clip
from workbench.kernels.defs.heldout16_grid import AUTOCORR_WINDOW, WARP, yuv_to_rgb

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 2000
    # three planes read, one square root, one reciprocal, and the highlight's power
    got = nonzero_counts("phong_shade", "blinn_phong", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride1"] == 3 * n
    assert got["f_op_float32_pow"] == n and got["f_op_float32_div"] == n
    assert "f_op_float32_pow" not in nonzero_counts("phong_shade", "lambert", (256,), {"n": n})
    # eight corners gathered per point (data-dependent: stride 0), three floors
    got = nonzero_counts("trilinear_sample", "trilinear", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 8 * n
    assert got["f_mem_access_global_float32_load_stride1"] == 3 * n
    assert got["f_op_float32_special"] == 3 * n
    # every sample of every row read (the weights beside them), two stores per row
    got = nonzero_counts("line_fit_rows", "weighted", (256,), {"n": 700})
    assert total_of(got, "float32_load") - got["f_mem_access_global_float32_load_stride0"] \
        == 7 * FIT_SAMPLES * 700          # y twice, w five times
    assert got["f_op_float32_div"] == 2 * 700 and total_of(got, "float32_store") == 2 * 700
    # the row read in four sums (mean, variance, count, kept sum); a square root and
    # a fabs per sample
    got = nonzero_counts("sigma_clip_rows", "mean_count", (256,), {"n": 500})
    assert total_of(got, "float32_load") == 4 * CLIP_SAMPLES * 500
    assert got["f_op_float32_special"] == (CLIP_SAMPLES + 1) * 500
    assert total_of(got, "float32_store") == 2 * 500
    # four taps or two, read by a computed index; a floor per output
    for variant, taps in (("catmull_rom", 4), ("linear", 2)):
        got = nonzero_counts("catmull_rom_resample", variant, (256,), {"n": n})
        assert got["f_mem_access_global_float32_load_stride0"] == taps * n
        assert got["f_op_float32_special"] == n


def test_grid_kernels_count_their_text():
    # per 2 x 2 block: two chroma reads, four luma reads, twelve clamped stores
    m, n = 23, 35
    got = nonzero_counts("yuv420_to_rgb", "video_range", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 6 * m * n
    assert total_of(got, "float32_store") == 12 * m * n
    m, n = 45, 70
    # eighteen reads and one square root (the smaller eigenvalue), or one division
    got = nonzero_counts("structure_tensor_corners", "min_eigen", (16, 16), {"m": m, "n": n})
    assert got["f_mem_access_global_float32_load_stride1"] == 36 * m * n   # each read twice
    assert got["f_op_float32_special"] == m * n
    got = nonzero_counts("structure_tensor_corners", "noble", (16, 16), {"m": m, "n": n})
    assert got["f_op_float32_div"] == m * n and "f_op_float32_special" not in got
    # four gathers per plane; the source point in double (loopy promotes the int32
    # pixel index against the clamp's int32 bound), the sample in float32
    got = nonzero_counts("affine_warp", "rgb", (16, 16), {"m": m, "n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 12 * m * n
    assert got["f_op_float64_special"] > 0 and total_of(got, "float32_store") == 3 * m * n
    # a window of products per (signal, lag); the energy's window again when normalised
    m, n = 30, 40
    got = nonzero_counts("autocorr_lags", "raw", (16, 16), {"m": m, "n": n})
    assert got["f_op_float32_mul"] == AUTOCORR_WINDOW * m * n
    got = nonzero_counts("autocorr_lags", "normalized", (16, 16), {"m": m, "n": n})
    assert got["f_op_float32_mul"] == 2 * AUTOCORR_WINDOW * m * n
    assert got["f_op_float32_div"] == m * n


def test_inputs_take_every_clamp_sign_and_arm():
    ph = check_inputs("phong_shade", "blinn_phong")
    normal = np.stack([ph[f"n{a}"] for a in "xyz"], axis=1).astype(np.float64)
    unit = normal / np.linalg.norm(normal, axis=1, keepdims=True)
    assert min((unit @ LIGHT_DIR < 0).sum(), (unit @ LIGHT_DIR > 0).sum()) > 500
    assert (unit @ HALF_DIR > 0.9).sum() > 300 and (unit @ HALF_DIR < 0).sum() > 300
    assert np.ptp(np.linalg.norm(normal, axis=1)) > 1.0       # lengths vary
    tri = check_inputs("trilinear_sample", "trilinear")
    pts = np.stack([tri[p] for p in ("px", "py", "pz")])
    assert min((pts < 0).sum(), (pts > 1).sum(), (pts == 1).sum()) > 50
    fit = check_inputs("line_fit_rows", "weighted")
    slope = expected_outputs("line_fit_rows", "weighted")["slope"]
    assert min((slope < 0).sum(), (slope > 0).sum()) > 200 and np.ptp(fit["w"]) > 1.5
    mean, kept, margin = sigma_clip(check_inputs("sigma_clip_rows", "mean_count")["x"])
    assert (kept == CLIP_SAMPLES).sum() > 50 and (kept < CLIP_SAMPLES - 1).sum() > 50
    assert margin.min() >= 0.02
    for variant in ("full_range", "video_range"):
        yuv = check_inputs("yuv420_to_rgb", variant)
        raw = yuv_to_rgb(variant, yuv["y_plane"], yuv["u_plane"], yuv["v_plane"])
        assert min((raw < 0).sum(), (raw > 1).sum(), ((raw > 0) & (raw < 1)).sum()) > 300
    m, n = 45, 70
    rows, cols = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    sx = WARP[0][0] * cols + WARP[0][1] * rows + WARP[0][2]
    sy = WARP[1][0] * cols + WARP[1][1] * rows + WARP[1][2]
    # every side of the source clamped somewhere, most points inside
    assert min((sx < 0).sum(), (sx > n - 1).sum(), (sy < 0).sum(), (sy > m - 1).sum()) > 50
    assert ((sx > 0) & (sx < n - 1) & (sy > 0) & (sy < m - 1)).mean() > 0.6
    score = expected_outputs("structure_tensor_corners", "min_eigen")["score"]
    assert score.min() > 0
