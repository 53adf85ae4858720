"""The fourth held-out kernel set (``--set heldout4``): never fitted, checked and counted.

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
from workbench.kernels.defs import HELDOUT4_SPECS
from workbench.kernels.defs.heldout4 import BUCKET_CHUNK, FIR_TAPS, QF_SIZE

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

NAMES = {"transpose_add", "decimate_fir", "softplus_rounds", "outer_update",
         "rigid_transform3", "star13_3d", "tridiag_matvec", "batched_quadform",
         "keyed_bucket_sums"}
VARIANTS = [(s.name, v) for s in HELDOUT4_SPECS for v in s.variants]


def test_a_set_of_its_own_never_trained_on():
    check_a_set_of_its_own("heldout4", HELDOUT4_SPECS, NAMES)


@pytest.mark.parametrize("spec", HELDOUT4_SPECS, ids=lambda s: s.name)
def test_conventions_and_size_cases(spec):
    check_conventions_and_size_cases(spec, max_float64_bytes=8e9)


@pytest.mark.parametrize("name,variant,dtype", list(numeric_runs(VARIANTS)))
def test_numerics(queue, name, variant, dtype):
    """The set's first group size (128, 256, 16 x 12) leaves partial groups at edges."""
    spec = get_kernel(name)
    check_numerics(queue, name, variant, dtype, spec.group_sizes()[0])


@pytest.mark.parametrize("name,variant", VARIANTS)
def test_counting_is_exact(name, variant):
    spec = get_kernel(name)
    assert counting_warnings(spec.build(spec.request(variant, "float32"))) == []


def test_filter_buckets_and_quadform_count_their_loops():
    n = 1000
    got = nonzero_counts("decimate_fir", "unrolled", (128,), {"n": n})
    # every tap one multiply-add; the filter is a broadcast (stride-0) load
    assert got["f_op_float32_mul"] == got["f_mem_access_global_float32_load_stride0"] \
        == FIR_TAPS * n
    assert got["f_mem_access_global_float32_store_stride1"] == n
    nc = 300
    for variant in ("contiguous", "interleaved"):
        got = nonzero_counts("keyed_bucket_sums", variant, (128,), {"nc": nc})
        loads = {k: v for k, v in got.items() if "_load_" in k}
        # one key and one value per entry; the private sums are not global traffic
        assert sum(v for k, v in loads.items() if "int32" in k) == BUCKET_CHUNK * nc
        assert sum(v for k, v in loads.items() if "float32" in k) == BUCKET_CHUNK * nc
        assert got["f_op_float32_add"] == BUCKET_CHUNK * nc
    nb, s = 300, QF_SIZE
    got = nonzero_counts("batched_quadform", "own_matrix", (128,), {"nb": nb}, "float64")
    assert got["f_op_float64_mul"] == (s * s + s) * nb
    assert got["f_mem_access_global_float64_load_stride1"] == (s * s + s) * nb
