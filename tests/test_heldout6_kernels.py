"""The sixth held-out kernel set (``--set heldout6``): never fitted, checked and counted.

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
from workbench.kernels.defs import HELDOUT6_SPECS
from workbench.kernels.defs.heldout6_grid import MARCH_LEVELS

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

NAMES = {"particle_push", "newton_cbrt", "tril_matvec", "fake_quantize",
         "nearest_center_dist", "alpha_composite", "max_pool2d", "column_march3d",
         "bias_gelu"}
VARIANTS = [(s.name, v) for s in HELDOUT6_SPECS for v in s.variants]


def test_a_set_of_its_own_never_trained_on():
    check_a_set_of_its_own("heldout6", HELDOUT6_SPECS, NAMES)


@pytest.mark.parametrize("spec", HELDOUT6_SPECS, ids=lambda s: s.name)
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


def test_triangle_newton_pooling_and_march_count_their_text():
    n = 300
    got = nonzero_counts("tril_matvec", "by_columns", (128,), {"n": n})
    # row i sums i + 1 products: the triangle, not the square
    assert got["f_op_float32_mul"] == n * (n + 1) // 2
    n = 1000
    got = nonzero_counts("newton_cbrt", "steps16", (128,), {"n": n}, "float64")
    assert got["f_op_float64_div"] == 16 * n
    got = nonzero_counts("particle_push", "soa", (256,), {"n": n})
    stores = sum(v for k, v in got.items() if "float32_store" in k)
    assert stores == 2 * 3 * n
    m, n = 45, 70
    got = nonzero_counts("max_pool2d", "w3_s2", (16, 12), {"m": m, "n": n})
    loads = sum(v for k, v in got.items() if "float32_load" in k)
    assert loads == 9 * m * n
    got = nonzero_counts("column_march3d", "vertical3", (16, 16), {"m": m, "n": n})
    loads = sum(v for k, v in got.items() if "float32_load" in k)
    assert loads == 3 * MARCH_LEVELS * m * n
