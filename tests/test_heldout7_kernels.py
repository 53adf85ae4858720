"""The seventh held-out kernel set (``--set heldout7``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
a campaign set of their own, share no name with any other set, run correctly on pocl
in both precisions and count exactly; a few counts are pinned against the kernels'
text. Nothing here predicts with a model: the set stays unseen by model design.
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
from workbench.kernels.defs import HELDOUT7_SPECS
from workbench.kernels.defs.heldout7 import SCAN_COLUMNS
from workbench.kernels.defs.heldout7_grid import DENSE_INPUTS

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

NAMES = {"black_scholes", "rgb_to_ycbcr", "bitonic_step", "fv_flux_update",
         "optimizer_step", "running_max_rows", "dense_layer", "diffusion_varcoef",
         "embedding_lookup"}
VARIANTS = [(s.name, v) for s in HELDOUT7_SPECS for v in s.variants]


def test_a_set_of_its_own_never_trained_on():
    check_a_set_of_its_own("heldout7", HELDOUT7_SPECS, NAMES)


@pytest.mark.parametrize("spec", HELDOUT7_SPECS, ids=lambda s: s.name)
def test_conventions_and_size_cases(spec):
    check_conventions_and_size_cases(spec, max_float64_bytes=8e9)


@pytest.mark.parametrize("name,variant,dtype", list(numeric_runs(VARIANTS)))
def test_numerics(queue, name, variant, dtype):
    """The set's first group size (128, 256, 16 x 12, 16 x 16) leaves partial groups."""
    spec = get_kernel(name)
    check_numerics(queue, name, variant, dtype, spec.group_sizes()[0])


@pytest.mark.parametrize("name,variant", VARIANTS)
def test_counting_is_exact(name, variant):
    spec = get_kernel(name)
    assert counting_warnings(spec.build(spec.request(variant, "float32"))) == []


def test_pairs_scans_layers_and_options_count_their_text():
    n = 1024
    got = nonzero_counts("bitonic_step", "dist256", (256,), {"n": n})
    stores = sum(v for k, v in got.items() if "float32_store" in k)
    assert stores == 2 * n
    n = 300
    got = nonzero_counts("running_max_rows", "by_columns", (128,), {"n": n}, "float64")
    stores = sum(v for k, v in got.items() if "float64_store" in k)
    assert stores == SCAN_COLUMNS * n
    m, n = 45, 70
    got = nonzero_counts("dense_layer", "in_major", (16, 12), {"m": m, "n": n})
    assert got["f_op_float32_mul"] == DENSE_INPUTS * m * n
    n = 1000
    got = nonzero_counts("black_scholes", "call_put", (128,), {"n": n})
    stores = sum(v for k, v in got.items() if "float32_store" in k)
    assert stores == 2 * n
    got = nonzero_counts("optimizer_step", "adam", (256,), {"n": n})
    assert got["f_op_float32_div"] == n
