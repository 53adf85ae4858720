"""The tenth held-out kernel set (``--set heldout10``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text, and the check inputs are shown to take every rule, sign
and quadrant the kernels have (so that a kernel missing one fails its check). Nothing
here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import numpy as np
import pytest
from heldout_checks import check_inputs, total_of
from test_catalog import nonzero_counts

from workbench.kernels.catalog import get_kernel
from workbench.kernels.defs.heldout10 import LORENZ_STEPS, QUANT_GROUP, SIM_COLS, STATS_ROWS
from workbench.kernels.defs.heldout10_grid import life_counts

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_elementwise_and_row_kernels_count_their_text():
    n = 2000
    got = nonzero_counts("box_muller", "pair", (256,), {"n": n})
    assert got["f_op_float32_special"] == 4 * n and got["f_op_float32_mul"] == 4 * n
    assert total_of(got, "float32_load") == 2 * n == total_of(got, "float32_store")
    got = nonzero_counts("spectrum_mag_phase", "power_db", (256,), {"n": n}, "float64")
    assert got["f_op_float64_special"] == n and total_of(got, "float64_store") == n
    n = 1000
    # an Euler step: 7 additions and 7 multiplications; the state loaded and stored once
    got = nonzero_counts("lorenz_ensemble", "euler", (128,), {"n": n}, "float64")
    assert got["f_op_float64_add"] == got["f_op_float64_mul"] == 7 * LORENZ_STEPS["euler"] * n
    assert total_of(got, "float64_load") == 3 * n == total_of(got, "float64_store")
    got = nonzero_counts("column_stats", "mean_std", (128,), {"n": 300})
    assert total_of(got, "float32_load") == 2 * STATS_ROWS * 300
    assert got["f_op_float32_special"] == 300 and total_of(got, "float32_store") == 600
    got = nonzero_counts("cosine_similarity_rows", "cosine", (128,), {"nr": 500})
    # a in the products and in its own squares, b likewise: four reads per column
    assert total_of(got, "float32_load") == 4 * SIM_COLS * 500
    assert got["f_op_float32_div"] == 500
    n = 64 * 40
    got = nonzero_counts("groupwise_dequant", "affine", (256,), {"n": n})
    assert total_of(got, "float32_load") == 3 * n and got["f_op_float32_mul"] == n


def test_grid_kernels_count_their_text():
    m, n = 45, 70
    got = nonzero_counts("rope_rotate", "computed", (16, 12), {"m": m, "n": n})
    assert got["f_op_float32_special"] == 2 * m * n
    assert total_of(got, "float32_store") == 2 * m * n
    got = nonzero_counts("game_of_life", "life", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 9 * m * n and total_of(got, "float32_store") == m * n
    # the Laplacian's points, the centre again in the update, the previous level
    got = nonzero_counts("wave_leapfrog", "order4", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == (9 + 1 + 1) * m * n
    got = nonzero_counts("wave_leapfrog", "order2", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == (5 + 1 + 1) * m * n


def test_life_inputs_take_every_rule():
    board = check_inputs("game_of_life", "highlife")["board"].astype(np.float64)
    alive, cnt = board[1:-1, 1:-1] > 0, life_counts(board)
    assert not board[0].any() and not board[:, -1].any()          # a dead border
    # births on 3 (both rules) and on 6 (HighLife only), survivals on 2 and 3, deaths
    for taken in (~alive & (cnt == 3), ~alive & (cnt == 6), alive & (cnt == 2),
                  alive & (cnt == 3), alive & ((cnt < 2) | (cnt > 3))):
        assert taken.sum() >= 5
    spec = get_kernel("game_of_life")
    inputs = check_inputs("game_of_life", "highlife")
    life = spec.expected(inputs, spec.check_params, "life")["nxt"]
    high = spec.expected(inputs, spec.check_params, "highlife")["nxt"]
    assert (high != life).sum() >= 5


def test_inputs_take_every_sign_and_quadrant():
    u2 = check_inputs("box_muller", "pair")["u2"]
    assert all(((u2 >= q / 4) & (u2 < (q + 1) / 4)).sum() > 100 for q in range(4))
    z = check_inputs("spectrum_mag_phase", "power_db")["z"]
    power = (z.astype(np.float64) ** 2).sum(axis=1)
    assert (power < 1).sum() > 100 and (power > 1).sum() > 100
    assert len({(a > 0, b > 0) for a, b in z}) == 4
    spec = get_kernel("cosine_similarity_rows")
    sim = spec.expected(check_inputs(spec.name, "pearson"), spec.check_params,
                        "pearson")["sim"]
    assert (sim < -0.5).sum() > 50 and (sim > 0.5).sum() > 50
    q = check_inputs("groupwise_dequant", "affine")
    assert len(q["zero"]) * QUANT_GROUP == len(q["q"]) and len(set(q["zero"])) > 5
