"""The eighteenth held-out kernel set (``--set heldout18``): never fitted, checked and counted.

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
from workbench.kernels.defs.heldout18 import CHOL_PACKED, KAHAN_SAMPLES, LIF_STEPS, heat_arms
from workbench.kernels.defs.heldout18_geometry import POLY_VERTS, spring_forces
from workbench.kernels.defs.heldout18_grid import BOX_RADIUS, nms_offsets

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 2000
    # every sample read once, four dependent additions per sample, a store per row
    got = nonzero_counts("kahan_row_sum", "compensated", (256,), {"n": 700})
    assert total_of(got, "float32_load") == KAHAN_SAMPLES * 700
    assert got["f_op_float32_add"] == 4 * KAHAN_SAMPLES * 700
    assert total_of(got, "float32_store") == 700
    # the lower triangle read, four square roots and reciprocals, the factor written
    got = nonzero_counts("batched_cholesky4", "packed_lower", (256,), {"n": n})
    assert total_of(got, "float32_load") == total_of(got, "float32_store") \
        == len(CHOL_PACKED) * n
    assert got["f_op_float32_special"] == got["f_op_float32_div"] == 4 * n
    # two planes read, a square root and an absolute value, no division
    got = nonzero_counts("heat_index", "rothfusz", (256,), {"n": n})
    assert total_of(got, "float32_load") == 2 * n and total_of(got, "float32_store") == n
    assert got["f_op_float32_special"] == 2 * n and "f_op_float32_div" not in got
    # two loads and two stores per neuron; four additions and two products per step
    got = nonzero_counts("lif_neurons", "reset_to_zero", (256,), {"n": n})
    assert total_of(got, "float32_load") == total_of(got, "float32_store") == 2 * n
    assert got["f_op_float32_add"] == 4 * LIF_STEPS * n
    assert got["f_op_float32_mul"] == 2 * LIF_STEPS * n
    # the node and its two neighbours, a square root and a division per spring
    got = nonzero_counts("spring_chain_forces", "hooke", (256,), {"n": n})
    assert total_of(got, "float32_load") == 6 * n and total_of(got, "float32_store") == 2 * n
    assert got["f_op_float32_special"] == got["f_op_float32_div"] == 2 * n
    # four vertex reads (the same for every work item) and a division per edge
    got = nonzero_counts("point_in_polygon", "even_odd", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 4 * POLY_VERTS * n
    assert got["f_op_float32_div"] == POLY_VERTS * n


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    # the two neighbours across the edge are gathers at data-dependent offsets
    got = nonzero_counts("nonmax_suppress", "four_directions", (16, 16), {"m": m, "n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 2 * m * n
    assert total_of(got, "float32_store") == m * n
    # five points of each field, two stores
    got = nonzero_counts("gray_scott_step", "periodic", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 10 * m * n
    assert total_of(got, "float32_store") == 2 * m * n
    # four table corners, one division
    got = nonzero_counts("box_filter_sat", "clipped_mean", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 4 * m * n and got["f_op_float32_div"] == m * n


def test_inputs_take_every_clamp_sign_and_arm():
    # an uncompensated float32 sum misses the tolerance on the check rows
    x = check_inputs("kahan_row_sum", "compensated")["x"]
    naive = np.zeros(x.shape[0], np.float32)
    for k in range(KAHAN_SAMPLES):
        naive = naive + x[:, k]
    total = expected_outputs("kahan_row_sum", "compensated")["total"].astype(np.float64)
    assert np.max(np.abs(naive - total) / np.abs(total)) > 3 * get_kernel("kahan_row_sum").rtol
    assert min((total < 0).sum(), (total > 0).sum()) > 100
    chol = expected_outputs("batched_cholesky4", "packed_lower")["chol"]
    off = [k for k, (r, c) in enumerate(CHOL_PACKED) if r != c]
    assert min((chol[:, off] < 0).sum(axis=0).min(), (chol[:, off] > 0).sum(axis=0).min()) > 300
    h = check_inputs("heat_index", "rothfusz")
    assert all(v.sum() > 300 for v in heat_arms(h["temp_f"], h["humidity"]).values())
    lif = expected_outputs("lif_neurons", "reset_to_zero")
    assert min((lif["spikes"] == 0).sum(), (lif["spikes"] > 5).sum()) > 300
    assert (lif["spikes"] > 0).sum() > 300 and lif["spikes"].max() < LIF_STEPS
    p = check_inputs("spring_chain_forces", "hooke")
    length = np.hypot(np.diff(p["px"].astype(np.float64)), np.diff(p["py"].astype(np.float64)))
    assert min((length < 1).sum(), (length > 1).sum()) > 300     # compressed and stretched
    f = spring_forces(p["px"], p["py"])
    assert (np.abs(f) >= 1e-2).all()
    inside = expected_outputs("point_in_polygon", "even_odd")["inside_out"]
    assert min((inside == 1).sum(), (inside == 0).sum()) > 500
    g = check_inputs("nonmax_suppress", "four_directions")
    di, dj = nms_offsets(g["gx"].astype(np.float64), g["gy"].astype(np.float64))
    for d in ((0, 1), (1, 0), (1, 1), (1, -1)):          # every direction, on every edge
        here = (di == d[0]) & (dj == d[1])
        assert here.sum() > 500
        assert all(e.any() for e in (here[0], here[-1], here[:, 0], here[:, -1]))
    edges = expected_outputs("nonmax_suppress", "four_directions")["edges"]
    assert min((edges == 0).sum(), (edges > 0).sum()) > 500
    assert (edges[:4, :4] > 0).sum() > 4                 # a plateau's ties are kept
    gs = check_inputs("gray_scott_step", "periodic")
    assert np.ptp(gs["u"]) > 0.5 and np.ptp(gs["v"][0]) > 0.3 and np.ptp(gs["v"][:, -1]) > 0.3
    sat = check_inputs("box_filter_sat", "clipped_mean")["sat"]
    assert (sat[0] == 0).all() and (sat[:, 0] == 0).all()
    m, n = sat.shape[0] - 1, sat.shape[1] - 1
    assert m > 2 * BOX_RADIUS + 1 and n > 2 * BOX_RADIUS + 1   # clipped and whole windows
