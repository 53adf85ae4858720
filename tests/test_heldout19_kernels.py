"""The nineteenth held-out kernel set (``--set heldout19``): never fitted, checked and counted.

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

from workbench.kernels.catalog import get_kernel
from workbench.kernels.defs.heldout19 import BISECT_STEPS, GMM_K, WELFORD_SAMPLES
from workbench.kernels.defs.heldout19_geometry import ray_triangle
from workbench.kernels.defs.heldout19_grid import KEY_FAR, KEY_NEAR, LCN_EPS, PM_K, \
    clamped_neighbours, windows3x3, key_distance

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 2000
    # every sample read once; per sample four additions, a product and a division by
    # the running count
    got = nonzero_counts("welford_var_rows", "online", (256,), {"n": 700})
    assert total_of(got, "float32_load") == got["f_op_float32_div"] == WELFORD_SAMPLES * 700
    assert got["f_op_float32_add"] == 4 * WELFORD_SAMPLES * 700
    assert got["f_op_float32_mul"] == (WELFORD_SAMPLES + 1) * 700
    assert total_of(got, "float32_store") == 2 * 700
    # one load, one store, four calls counted special (fabs, exp, log, tanh)
    got = nonzero_counts("mish_activation", "stable_softplus", (256,), {"n": n})
    assert total_of(got, "float32_load") == total_of(got, "float32_store") == n
    assert got["f_op_float32_special"] == 4 * n
    # seven products and seven additions per bisection step, one of each at the end
    got = nonzero_counts("bisect_cubic_roots", "fixed_steps", (256,), {"n": n})
    assert got["f_op_float32_mul"] == got["f_op_float32_add"] == (7 * BISECT_STEPS + 1) * n
    assert total_of(got, "float32_load") == 2 * n and "f_op_float32_div" not in got
    # twelve minors of two products, six products of minors, no division
    got = nonzero_counts("batched_det4", "two_by_two_minors", (256,), {"n": n})
    assert total_of(got, "float32_load") == 48 * n and total_of(got, "float32_store") == n
    assert got["f_op_float32_mul"] == 30 * n and "f_op_float32_div" not in got
    # the mixture's parameters read by every work item in both passes; K exps and a log
    got = nonzero_counts("gmm_loglik", "log_sum_exp", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 2 * 4 * GMM_K * n
    assert got["f_op_float32_special"] == (GMM_K + 1) * n
    # a ray and a triangle read, one reciprocal
    got = nonzero_counts("ray_triangle_hit", "moeller_trumbore", (256,), {"n": n})
    assert total_of(got, "float32_load") == 15 * n and got["f_op_float32_div"] == n


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    got = nonzero_counts("perona_malik_step", "zero_flux", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 5 * m * n and got["f_op_float32_div"] == 4 * m * n
    got = nonzero_counts("local_contrast_norm3", "replicated_edges", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 9 * m * n
    assert got["f_op_float32_div"] == got["f_op_float32_special"] == m * n
    got = nonzero_counts("chroma_key_matte", "ramp_despill", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 3 * m * n
    assert total_of(got, "float32_store") == 2 * m * n and got["f_op_float32_special"] == m * n


def test_one_dimensional_inputs_take_every_sign_and_arm():
    # the textbook variance (mean of squares less the squared mean) in float32 misses
    # the tolerance on the check rows; the online update must not
    x = check_inputs("welford_var_rows", "online")["samples"]
    mean = x.sum(axis=1, dtype=np.float32) / np.float32(WELFORD_SAMPLES)
    naive = ((x * x).sum(axis=1, dtype=np.float32) - np.float32(WELFORD_SAMPLES) * mean * mean
             ) / np.float32(WELFORD_SAMPLES - 1)
    var = expected_outputs("welford_var_rows", "online")["var_out"].astype(np.float64)
    assert np.max(np.abs(naive - var) / var) > 3 * get_kernel("welford_var_rows").rtol
    assert min((mean < 0).sum(), (mean > 0).sum()) > 200
    act = check_inputs("mish_activation", "stable_softplus")["act_in"]
    assert min((act < -2).sum(), (act > 4).sum(), (np.abs(act) < 1).sum()) > 200
    root = expected_outputs("bisect_cubic_roots", "fixed_steps")["root"]
    assert min((root < 0).sum(), (root > 0).sum()) > 500
    det = expected_outputs("batched_det4", "two_by_two_minors")["det"]
    assert min((det < 0).sum(), (det > 0).sum()) > 500
    # the best component differs from point to point, and the others add to the max
    g = check_inputs("gmm_loglik", "log_sum_exp")
    d2 = ((g["pts"][:, None, :].astype(np.float64) - g["centers"][None]) ** 2).sum(axis=2)
    score = g["log_norm"] - 0.5 * g["inv_var"] * d2
    loglik = expected_outputs("gmm_loglik", "log_sum_exp")["loglik"]
    assert len(set(score.argmax(axis=1))) >= GMM_K - 1
    assert (loglik - score.max(axis=1) > 1e-2).sum() > 500
    # far points: the shift by the largest log-density is needed (exp underflows in
    # float32 below -104; a shift by the wrong component overflows above 89)
    assert (loglik < -150).sum() > 100
    assert (np.ptp(score, axis=1) > 150).sum() > 100


def test_rays_hit_and_miss_every_way():
    r = check_inputs("ray_triangle_hit", "moeller_trumbore")
    t, f = ray_triangle(r["rays"], r["tris"])
    facing = np.abs(f["det"]) > 1e-6
    inside = (f["u"] >= 0) & (f["v"] >= 0) & (f["u"] + f["v"] <= 1)
    assert f["hit"].sum() > 300 and (t[f["hit"]] > 0).all()
    assert np.ptp(t[f["hit"]]) > 1                              # distances, not a constant
    behind = f["t"][facing & inside & (f["t"] < 0)]
    assert (np.abs(behind + 1) > 0.1).sum() > 100               # not the miss's -1
    assert (~facing).sum() > 30                                  # parallel to the plane
    assert (facing & inside & (f["t"] < 0)).sum() > 100         # behind the origin
    for outside in (f["u"] < 0, f["v"] < 0, f["u"] + f["v"] > 1):  # beyond each edge
        assert (facing & outside & (f["t"] > 0)).sum() > 100
    assert min((f["det"] < -1e-2).sum(), (f["det"] > 1e-2).sum()) > 500   # both windings


def test_grid_inputs_take_every_clamp_and_arm():
    img = check_inputs("perona_malik_step", "zero_flux")["img"].astype(np.float64)
    diffs = np.abs(np.stack([nb - img for nb in clamped_neighbours(img).values()]))
    assert min(((diffs > 0) & (diffs < PM_K)).sum(), (diffs > 2 * PM_K).sum()) > 200
    img = check_inputs("local_contrast_norm3", "replicated_edges")["img"]
    w = windows3x3(img)
    var = (w * w).mean(axis=0) - w.mean(axis=0) ** 2
    assert min((var < LCN_EPS / 4).sum(), (var > 4 * LCN_EPS).sum()) > 300
    normed = expected_outputs("local_contrast_norm3", "replicated_edges")["normed"]
    assert min((normed < 0).sum(), (normed > 0).sum()) > 500
    c = check_inputs("chroma_key_matte", "ramp_despill")
    d = key_distance(np.stack([c["red"], c["green"], c["blue"]]))
    assert min((d < KEY_NEAR).sum(), ((d > KEY_NEAR) & (d < KEY_FAR)).sum(),
               (d > KEY_FAR).sum()) > 300                       # clamped low, ramp, clamped high
    out = expected_outputs("chroma_key_matte", "ramp_despill")["green_out"]
    assert min((out < c["green"]).sum(), (out == c["green"]).sum()) > 300
