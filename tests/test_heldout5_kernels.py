"""The fifth held-out kernel set (``--set heldout5``): never fitted, checked and counted.

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
from workbench.kernels.defs import HELDOUT5_SPECS
from workbench.kernels.defs.heldout5 import RANGE_COLS, RMS_COLS

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

NAMES = {"horner_poly", "rms_norm_rows", "batched_inverse3", "hash_dropout",
         "haversine_dist", "row_peak_to_peak", "sobel_gradient", "image_flip",
         "resize_bilinear"}
VARIANTS = [(s.name, v) for s in HELDOUT5_SPECS for v in s.variants]


def test_a_set_of_its_own_never_trained_on():
    check_a_set_of_its_own("heldout5", HELDOUT5_SPECS, NAMES)


@pytest.mark.parametrize("spec", HELDOUT5_SPECS, ids=lambda s: s.name)
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


def test_polynomial_rows_inverses_and_resize_count_their_text():
    n = 1000
    got = nonzero_counts("horner_poly", "degree32", (128,), {"n": n})
    # one multiply and one add per degree; the coefficients are broadcast loads
    assert got["f_op_float32_mul"] == got["f_op_float32_add"] == 32 * n
    assert got["f_mem_access_global_float32_load_stride0"] == 33 * n
    nr = 300
    got = nonzero_counts("rms_norm_rows", "interleaved", (128,), {"nr": nr}, "float64")
    # the row is read twice (squares, then scaling), x*x written as two loads
    assert got["f_mem_access_global_float64_load_stride1"] == 3 * RMS_COLS * nr
    assert got["f_mem_access_global_float64_store_stride1"] == RMS_COLS * nr
    got = nonzero_counts("row_peak_to_peak", "interleaved", (128,), {"nr": nr})
    assert got["f_mem_access_global_float32_load_stride1"] == 2 * RANGE_COLS * nr
    nb = 1000
    got = nonzero_counts("batched_inverse3", "entry_arrays", (256,), {"nb": nb})
    # nine 2 x 2 cofactors, the determinant's three products, nine scalings
    assert got["f_op_float32_mul"] == (9 * 2 + 3 + 9) * nb
    assert got["f_op_float32_div"] == nb
    m, n = 45, 70
    got = nonzero_counts("resize_bilinear", "shrink", (16, 12), {"m": m, "n": n})
    loads = sum(v for k, v in got.items() if "float32_load" in k)
    assert loads == 4 * m * n
    got = nonzero_counts("hash_dropout", "fmix4", (256,), {"n": n})
    assert got["f_op_float32_mul"] == 2 * n        # the mask is arithmetic, no branch
