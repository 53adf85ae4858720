"""The held-out kernel set (``--set heldout3``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
a campaign set of their own, run correctly on pocl in both precisions and count
exactly; two counts are pinned against the kernels' text.
"""

from __future__ import annotations

import pytest
from heldout_checks import (
    check_a_set_of_its_own,
    check_conventions_and_size_cases,
    numeric_runs,
)
from test_catalog import check_numerics, counting_warnings, nonzero_counts

from workbench.kernels.catalog import get_kernel
from workbench.kernels.defs import HELDOUT3_SPECS
from workbench.kernels.defs.heldout3 import CHAIN_STEPS, LU_SIZE, SOFTMAX_COLS

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

NAMES = {"lcg_chain", "row_serial_sum", "gather_perm", "star19_3d", "batched_lu",
         "softmax_rows", "upsample2x", "complex_strided_mul"}
VARIANTS = [(s.name, v) for s in HELDOUT3_SPECS for v in s.variants]


def test_a_set_of_its_own_never_trained_on():
    check_a_set_of_its_own("heldout3", HELDOUT3_SPECS, NAMES)


@pytest.mark.parametrize("spec", HELDOUT3_SPECS, ids=lambda s: s.name)
def test_conventions_and_size_cases(spec):
    check_conventions_and_size_cases(spec, max_float64_bytes=20e9)


@pytest.mark.parametrize("name,variant,dtype", list(numeric_runs(VARIANTS)))
def test_numerics(queue, name, variant, dtype):
    """The set's first group size (128, 256, 16 x 12) leaves partial groups at edges."""
    spec = get_kernel(name)
    check_numerics(queue, name, variant, dtype, spec.group_sizes()[0])


@pytest.mark.parametrize("name,variant", VARIANTS)
def test_counting_is_exact(name, variant):
    spec = get_kernel(name)
    assert counting_warnings(spec.build(spec.request(variant, "float32"))) == []


def test_chain_and_lu_count_their_loops():
    n = 1000
    got = nonzero_counts("lcg_chain", "recurrence", (128,), {"n": n}, "float64")
    assert (got["f_op_float64_mul"], got["f_op_float64_add"]) == (CHAIN_STEPS * n,) * 2
    nb, s = 300, LU_SIZE
    got = nonzero_counts("batched_lu", "batch_minor", (128,), {"nb": nb})
    # one division per entry below the diagonal, one multiply-add per entry of the
    # trailing submatrices
    assert got["f_op_float32_div"] == s * (s - 1) // 2 * nb
    assert got["f_op_float32_mul"] == sum(k * k for k in range(s)) * nb


def test_softmax_reads_each_row_three_times_with_tree_barriers():
    m, g = 37, 256
    got = nonzero_counts("softmax_rows", "group_per_row", (g,), {"m": m})
    assert got["f_mem_access_global_float32_load_stride1"] == 3 * m * SOFTMAX_COLS
    # two exponentials per entry are special functions; the max steps are one ALU
    # instruction each, counted with the additions (round 9 of #34)
    assert got["f_op_float32_special"] == 2 * m * SOFTMAX_COLS
    assert got["f_op_float32_div"] == m * SOFTMAX_COLS
    assert got["f_sync_barrier_local"] > 0
