"""The thirteenth held-out kernel set (``--set heldout13``): never fitted, checked and counted.

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

from workbench.kernels.defs.heldout13 import BLEND_EDGES, KEY_STEPS, KEYFRAMES, keyframe_interval
from workbench.kernels.defs.heldout13_geometry import SLERP_MIN_ANGLE, bary_weights, slerp_dots
from workbench.kernels.defs.heldout13_grid import CONV_TAPS, STFT_FRAME

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 2000
    got = nonzero_counts("smoothstep_blend", "smootherstep", (256,), {"n": n})
    assert total_of(got, "float32_load") == 3 * n and total_of(got, "float32_store") == n
    # a square root, an arc cosine and a cosine per eigenvalue written beyond the first
    got = nonzero_counts("sym_eigvals3", "all", (256,), {"n": n})
    assert got["f_op_float32_special"] == 4 * n and total_of(got, "float32_store") == 3 * n
    # six planes, the diagonal read twice (for the trace and for the shift)
    got = nonzero_counts("sym_eigvals3", "largest", (256,), {"n": n})
    assert got["f_op_float32_special"] == 3 * n and total_of(got, "float32_load") == 9 * n
    # a table read per bisection step, four for the interpolation (all data-dependent)
    got = nonzero_counts("keyframe_sample", "linear", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == (KEY_STEPS + 4) * n
    assert got["f_op_float32_div"] == n
    # six interleaved coordinates, three interleaved attributes, the point
    got = nonzero_counts("barycentric_interp", "clamped", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_frac4ofgt4"] == 6 * n
    assert got["f_mem_access_global_float32_load_frac3of3"] == 3 * n
    assert got["f_op_float32_div"] == 2 * n
    # three indices; the first vertex's coordinates read in both edges' statements
    got = nonzero_counts("triangle_normals", "with_area", (256,), {"ntris": n, "nverts": n // 2})
    assert got["f_mem_access_global_int32_load_frac3of3"] == 3 * n
    assert got["f_mem_access_global_float32_load_stride0"] == 12 * n
    assert got["f_mem_access_global_float32_store_frac3of3"] == 3 * n
    # an arc cosine and three sines, or one reciprocal square root
    got = nonzero_counts("quat_slerp", "slerp", (256,), {"n": n})
    assert got["f_op_float32_special"] == 4 * n and got["f_op_float32_div"] == n
    assert got["f_mem_access_global_float32_store_frac4of4"] == 4 * n
    got = nonzero_counts("quat_slerp", "nlerp", (256,), {"n": n})
    assert got["f_op_float32_special"] == n and "f_op_float32_div" not in got


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    got = nonzero_counts("bezier_eval", "tangent", (16, 16), {"ncurves": m, "nsamples": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 8 * m * n
    assert total_of(got, "float32_store") == 2 * m * n
    frames = 37
    got = nonzero_counts("stft_frames", "half_hop", (16, 16), {"nframes": frames})
    assert total_of(got, "float32_load") == 2 * STFT_FRAME * frames
    got = nonzero_counts("depthwise_causal_conv", "silu", (16, 16),
                         {"nchannels": m, "nsteps": n})
    assert got["f_mem_access_global_float32_load_stride0"] == (CONV_TAPS + 1) * m * n
    assert got["f_mem_access_global_float32_load_stride1"] == CONV_TAPS * m * n
    assert got["f_op_float32_special"] == m * n


def test_inputs_take_every_clamp_sign_and_arm():
    mask = check_inputs("smoothstep_blend", "smoothstep")["mask"]
    lo, hi = BLEND_EDGES
    assert min((mask < lo).sum(), (mask > hi).sum(), ((mask > lo) & (mask < hi)).sum()) > 500
    w = bary_weights(check_inputs("barycentric_interp", "masked"))
    inside = w.min(axis=1) >= 0
    assert inside.sum() > 500 and (~inside).sum() > 500
    out = expected_outputs("barycentric_interp", "masked")["out"]
    assert (out == np.float32(0.25)).sum() == (~inside).sum()
    q = check_inputs("quat_slerp", "slerp")
    dots = slerp_dots(q)
    assert (dots < 0).sum() > 500 and (dots > 0).sum() > 500
    # equal pairs: the angle's lower clamp, and float32 dots above one (the upper one)
    assert (np.arccos(np.minimum(np.abs(dots), 1.0)) < SLERP_MIN_ANGLE).sum() > 300
    q0, q1 = q["q0"], q["q1"]
    d32 = np.abs(q0[:, 0] * q1[:, 0] + q0[:, 1] * q1[:, 1] + q0[:, 2] * q1[:, 2]
                 + q0[:, 3] * q1[:, 3])
    assert (d32 > 1).sum() > 5
    nrm = expected_outputs("triangle_normals", "unit")["normals"]
    for c in range(3):
        assert (nrm[:, c] < 0).sum() > 300 and (nrm[:, c] > 0).sum() > 300
    y = expected_outputs("depthwise_causal_conv", "plain")["y"]
    assert (y < -0.3).sum() > 500 and (y > 0.3).sum() > 500
    # every interval of the curve is hit, both ends included
    assert set(keyframe_interval(check_inputs("keyframe_sample", "linear"))) == \
        set(range(KEYFRAMES - 1))


def test_variants_differ_where_they_should():
    for name, a, b, out in (("smoothstep_blend", "smoothstep", "smootherstep", "out"),
                            ("keyframe_sample", "linear", "hold", "values"),
                            ("barycentric_interp", "masked", "clamped", "out"),
                            ("quat_slerp", "slerp", "nlerp", "q_out"),
                            ("bezier_eval", "point", "tangent", "x_out"),
                            ("depthwise_causal_conv", "plain", "silu", "y")):
        first, second = expected_outputs(name, a)[out], expected_outputs(name, b)[out]
        assert (np.abs(first - second) > 1e-3 * np.abs(first)).sum() > 100, name
    # the closed form against the three eigenvalues: all distinct, the middle one too
    eig = expected_outputs("sym_eigvals3", "all")
    assert (eig["eig_max"] > eig["eig_mid"] + 0.4).all()
    assert (eig["eig_mid"] > eig["eig_min"] + 0.4).all()
    # frames overlap by three quarters or by half
    for variant, hop in (("quarter_hop", STFT_FRAME // 4), ("half_hop", STFT_FRAME // 2)):
        x = check_inputs("stft_frames", variant)
        frames = expected_outputs("stft_frames", variant)["frames"]
        window = x["window"].astype(np.float64)
        np.testing.assert_allclose(frames[1, 1:STFT_FRAME - hop] / window[1:STFT_FRAME - hop],
                                   frames[0, hop + 1:] / window[hop + 1:], rtol=1e-6)
