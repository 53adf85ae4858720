"""The twentieth held-out kernel set (``--set heldout20``): never fitted, checked and counted.

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

from workbench.kernels.defs.heldout20 import GOERTZEL_N, LJ_CUTOFF, LJ_PROBES, PEND_STEPS
from workbench.kernels.defs.heldout20_grid import BALLS, ISING_BETA2, metaballs

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 2000
    # two loads, one store; fabs, exp, log and the exp back to p_t
    got = nonzero_counts("focal_loss", "gamma_two", (256,), {"n": n})
    assert total_of(got, "float32_load") == 2 * n and total_of(got, "float32_store") == n
    assert got["f_op_float32_special"] == 4 * n
    # four sines per RK4 step, the state in registers
    got = nonzero_counts("pendulum_rk4", "rk4", (256,), {"n": n})
    assert got["f_op_float32_special"] == 4 * PEND_STEPS * n
    assert total_of(got, "float32_load") == total_of(got, "float32_store") == 2 * n
    # a logarithm and two divisions
    got = nonzero_counts("dew_point_magnus", "magnus", (256,), {"n": n})
    assert got["f_op_float32_special"] == n and got["f_op_float32_div"] == 2 * n
    # the probe table read by every work item, a division per pair
    got = nonzero_counts("lj_probe_energy", "cutoff", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 3 * LJ_PROBES * n
    assert got["f_op_float32_div"] == LJ_PROBES * n
    # every sample read once, no division or special function
    got = nonzero_counts("goertzel_rows", "recurrence", (256,), {"n": 700})
    assert total_of(got, "float32_load") == GOERTZEL_N * 700
    assert "f_op_float32_div" not in got and "f_op_float32_special" not in got


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    got = nonzero_counts("metaball_field", "inverse_square", (16, 16), {"m": m, "n": n})
    assert got["f_mem_access_global_float32_load_stride0"] == 3 * BALLS * m * n
    assert got["f_op_float32_div"] == BALLS * m * n
    assert total_of(got, "float32_store") == 2 * m * n
    got = nonzero_counts("heightmap_normals", "central_differences", (16, 16),
                         {"m": m, "n": n})
    assert total_of(got, "float32_load") == 4 * m * n
    assert total_of(got, "float32_store") == 3 * m * n
    assert got["f_op_float32_div"] == got["f_op_float32_special"] == m * n
    got = nonzero_counts("ssim_map3", "replicated_edges", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 18 * m * n and got["f_op_float32_div"] == m * n
    got = nonzero_counts("ising_checkerboard", "black_sites", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 6 * m * n
    assert got["f_op_float32_special"] == m * n and total_of(got, "float32_store") == m * n


def test_one_dimensional_inputs_take_every_sign_and_arm():
    f = check_inputs("focal_loss", "gamma_two")
    t, z = f["targets"], f["logits"]
    s = np.where(t > 0.5, z, -z)
    # both targets (the class weight's two arms), right and wrong sides of the sigmoid
    for target in (0.0, 1.0):
        assert min(((t == target) & (s > 1)).sum(), ((t == target) & (s < -1)).sum()) > 200
    p = expected_outputs("pendulum_rk4", "rk4")
    for out in ("theta_out", "omega_out"):
        assert min((p[out] < 0).sum(), (p[out] > 0).sum()) > 300
    # swings where the sine is far from linear
    assert (np.abs(check_inputs("pendulum_rk4", "rk4")["theta"]) > 2).sum() > 300
    dew = expected_outputs("dew_point_magnus", "magnus")["dew_c"]
    assert min((dew < 0).sum(), (dew > 0).sum()) > 500
    g = check_inputs("lj_probe_energy", "cutoff")
    r = np.sqrt(((g["pts"][:, None, :].astype(np.float64) - g["probes"][None]) ** 2)
                .sum(axis=2))
    inside = r < LJ_CUTOFF
    energy = expected_outputs("lj_probe_energy", "cutoff")["energy"]
    assert (~inside.any(axis=1)).sum() > 20 and (energy == 0).sum() > 20   # beyond all
    assert (inside.sum(axis=1) >= 2).sum() > 500                          # several probes
    assert min((inside & (r < 2 ** (1 / 6))).sum(), (inside & (r > 1.3)).sum()) > 300
    assert min((energy < 0).sum(), (energy > 0).sum()) > 50
    # without the cut-off the far pairs would add to every energy
    assert (r >= LJ_CUTOFF).sum() > 10 * len(r)


def test_grid_inputs_take_every_clamp_and_arm():
    mb = check_inputs("metaball_field", "inverse_square")
    inside = expected_outputs("metaball_field", "inverse_square")["inside"]
    assert min((inside == 0).sum(), (inside == 1).sum()) > 500
    f = metaballs(mb["balls"], 45, 70, mb["inv_m"], mb["inv_n"])
    assert np.min(np.abs(f / mb["threshold"] - 1)) > 1e-4        # none on the surface
    nrm = expected_outputs("heightmap_normals", "central_differences")
    for out in ("nx", "ny"):
        assert min((nrm[out] < 0).sum(), (nrm[out] > 0).sum()) > 500
    # the clamped edges: one-sided differences there, unlike wrapped ones
    h = check_inputs("heightmap_normals", "central_differences")["height"].astype(np.float64)
    assert not np.allclose(4 * (h[:, 1] - h[:, 0]), 4 * (h[:, 1] - h[:, -1]), rtol=0.1)
    ssim = expected_outputs("ssim_map3", "replicated_edges")["ssim"]
    assert min((ssim < 0).sum(), (ssim > 0.5).sum()) > 100
    isi = check_inputs("ising_checkerboard", "black_sites")
    s, u = isi["spins"].astype(np.float64), isi["uniform"].astype(np.float64)
    field = np.roll(s, 1, 0) + np.roll(s, -1, 0) + np.roll(s, 1, 1) + np.roll(s, -1, 1)
    out = expected_outputs("ising_checkerboard", "black_sites")["spins_out"]
    i, j = np.indices(s.shape)
    black = (i + j) % 2 == 0
    assert np.all(out[~black] == s[~black])                      # white sites kept
    threshold = np.exp(-ISING_BETA2 * s * field)
    for sf in (-4, -2, 0, 2, 4):                                 # every local energy
        assert (black & (s * field == sf)).sum() > 5
    sometimes = black & (threshold < 1)
    assert min((sometimes & (u < threshold)).sum(), (sometimes & (u > threshold)).sum()) > 50
    flipped = out != s
    # flips across the periodic edges' neighbours: the first and last rows and columns
    assert all(edge.any() for edge in (flipped[0], flipped[-1], flipped[:, 0], flipped[:, -1]))
    # a clamped lattice would give other fields on the edges
    clamped = np.pad(s, 1, mode="edge")
    cfield = clamped[:-2, 1:-1] + clamped[2:, 1:-1] + clamped[1:-1, :-2] + clamped[1:-1, 2:]
    assert (cfield != field).sum() > 20
