"""The unseen kernels: never in a fit, yet built, checked and counted like the catalog.

They must stay out of everything built from the paper's catalog (``all_kernels()``,
hence the default campaign) while ``get_kernel`` finds them; every variant runs
correctly on pocl and counts exactly; a few counts are pinned against formulas
derived by hand from the kernels' text.
"""

from __future__ import annotations

import math

import pymbolic
import pytest
from test_catalog import MEASUREMENT, TEST, check_numerics, counting_warnings, nonzero_counts

from workbench.kernels import _util as u
from workbench.kernels.base import GROUP_SIZE_SETS, KernelRole
from workbench.kernels.catalog import all_kernels, get_kernel
from workbench.kernels.defs import (
    CATALOG_SPECS,
    HELDOUT10_SPECS,
    HELDOUT11_SPECS,
    HELDOUT12_SPECS,
    HELDOUT13_SPECS,
    HELDOUT14_SPECS,
    HELDOUT15_SPECS,
    HELDOUT16_SPECS,
    HELDOUT17_SPECS,
    HELDOUT18_SPECS,
    HELDOUT19_SPECS,
    HELDOUT20_SPECS,
    HELDOUT21_SPECS,
    HELDOUT22_SPECS,
    HELDOUT3_SPECS,
    HELDOUT4_SPECS,
    HELDOUT5_SPECS,
    HELDOUT6_SPECS,
    HELDOUT7_SPECS,
    HELDOUT8_SPECS,
    HELDOUT9_SPECS,
    UNSEEN_SPECS,
    UNSEEN_WIDE_SPECS,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    # padded or multiplied shapes (n+2, 5*n) hide n from the executor; we pass it
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

NAMES = {"row_sum_squares", "dot_partial", "batched_gemv", "batched_small_gemm",
         "gather_stride5", "stencil9_prefetch", "star7_3d"}
VARIANTS = [(s.name, v) for s in UNSEEN_SPECS for v in s.variants]


# {{{ roles and conventions (no OpenCL)

def test_unseen_kernels_are_found_by_name_and_role_only():
    assert {s.name for s in UNSEEN_SPECS} == NAMES
    assert all(s.role is KernelRole.UNSEEN for s in UNSEEN_SPECS)
    assert set(UNSEEN_SPECS) <= set(CATALOG_SPECS)
    assert all(get_kernel(s.name) is s for s in UNSEEN_SPECS)
    assert all_kernels(KernelRole.UNSEEN) == (*UNSEEN_SPECS, *UNSEEN_WIDE_SPECS,
                                              *HELDOUT3_SPECS, *HELDOUT4_SPECS,
                                              *HELDOUT5_SPECS, *HELDOUT6_SPECS,
                                              *HELDOUT7_SPECS, *HELDOUT8_SPECS,
                                              *HELDOUT9_SPECS, *HELDOUT10_SPECS,
                                              *HELDOUT11_SPECS, *HELDOUT12_SPECS,
                                              *HELDOUT13_SPECS, *HELDOUT14_SPECS,
                                              *HELDOUT15_SPECS, *HELDOUT16_SPECS,
                                              *HELDOUT17_SPECS, *HELDOUT18_SPECS,
                                              *HELDOUT19_SPECS, *HELDOUT20_SPECS,
                                              *HELDOUT21_SPECS, *HELDOUT22_SPECS)
    # the paper's catalog, and so the default campaign's roles, is unchanged
    assert {s.name for s in all_kernels()} == MEASUREMENT | TEST
    assert {s.name for s in all_kernels(KernelRole.MEASUREMENT)} == MEASUREMENT
    assert {s.name for s in all_kernels(KernelRole.TEST)} == TEST


def _largest_case(spec, variant: str) -> dict[str, int]:
    cases = spec.cases(max(spec.p_choices), variant)
    return max(cases, key=lambda c: math.prod(c.values()))


@pytest.mark.parametrize("spec", UNSEEN_SPECS, ids=lambda s: s.name)
def test_conventions_and_size_cases(spec):
    assert spec.dtypes == u.FLOATS
    assert spec.default_p in spec.p_choices
    assert GROUP_SIZE_SETS[spec.default_group_size_set].dims == spec.group_dims
    assert set(spec.check_params) == set(spec.parameters)
    for variant in spec.variants:
        for p in spec.p_choices:
            cases = spec.cases(p, variant)
            assert 3 <= len(cases) <= 4
            assert all(set(c) == set(spec.parameters) for c in cases)
            assert all(isinstance(v, int) and v >= 1 for c in cases for v in c.values())
            sizes = [math.prod(c.values()) for c in cases]
            assert sizes == sorted(set(sizes))   # strictly growing
        # at the largest p every array is int32-indexable and float64 data fits an
        # 80 GB device with room to spare
        knl = spec.build(spec.request(variant, "float64"))
        case = _largest_case(spec, variant)
        total = 0
        for arg in knl.default_entrypoint.args:
            if getattr(arg, "shape", None):
                n = math.prod(int(pymbolic.evaluate(d, case)) for d in arg.shape)
                assert n < 2 ** 31, (variant, arg.name, n)
                total += 8 * n
        assert total < 20e9, (variant, total)

# }}}


# {{{ numerics and exact counting

def _numeric_runs():
    # Every variant once and every kernel in both precisions, with as few pocl
    # compilations (the cost here) as that takes: the first variant in float32, the
    # others in float64.
    for spec in UNSEEN_SPECS:
        first, *others = spec.variants
        yield spec.name, first, "float32"
        for variant in others or [first]:
            yield spec.name, variant, "float64"


@pytest.mark.parametrize("name,variant,dtype", list(_numeric_runs()))
def test_numerics(queue, name, variant, dtype):
    """float64 runs take the set's first group size: 16 x 12 and 128 leave edges."""
    spec = get_kernel(name)
    group = spec.group_sizes()[0] if dtype == "float64" else None
    check_numerics(queue, name, variant, dtype, group)


@pytest.mark.parametrize("name,variant", VARIANTS)
def test_counting_is_exact(name, variant):
    spec = get_kernel(name)
    assert counting_warnings(spec.build(spec.request(variant, "float32"))) == []


def test_star7_counts_with_partial_groups_and_chunks():
    nx, ny, nz = 37, 19, 11
    pts = nx * ny * nz
    groups = math.ceil(nx / 16) * math.ceil(ny / 12) * math.ceil(nz / 8)
    # 3 multiplications (c0, c1 in plane, c1 across planes), 6 additions, 7 loads
    assert nonzero_counts("star7_3d", "zmarch", "16x12", {"nx": nx, "ny": ny, "nz": nz},
                   "float64") == {
        "f_op_float64_mul": 3 * pts, "f_op_float64_add": 6 * pts,
        "f_mem_access_global_float64_load_stride1": 7 * pts,
        "f_mem_access_global_float64_store_stride1": pts,
        "f_mem_access_global_float64_minls_stride1": pts,
        "f_thread_groups": groups, "f_sync_kernel_launch": 1}


def test_stencil9_prefetch_reads_each_tile_and_halo_once():
    n, g0, g1 = 64, 32, 16
    groups = (n // g0) * (n // g1)
    tile = (g0 + 2) * (g1 + 2)
    got = nonzero_counts("stencil9_prefetch", "prefetch", (g0, g1), {"n": n})
    assert got["f_mem_access_global_float32_load_stride1"] == groups * tile
    assert got["f_mem_access_local_float32_store"] == groups * tile
    assert got["f_mem_access_local_float32_load"] == 9 * n * n
    assert got["f_sync_barrier_local"] == n * n   # one barrier per work item
    assert (got["f_op_float32_mul"], got["f_op_float32_add"]) == (3 * n * n, 8 * n * n)
    direct = nonzero_counts("stencil9_prefetch", "direct", (g0, g1), {"n": n})
    assert direct["f_mem_access_global_float32_load_stride1"] == 9 * n * n
    assert not any(k.startswith("f_mem_access_local") for k in direct)


@pytest.mark.parametrize("name,variant,params,load", [
    ("gather_stride5", "stride5", {"n": 1000}, "frac1ofgt4"),
    ("gather_stride5", "stride2_offset", {"n": 1000}, "frac1of2"),
    # lanes m apart, each row fully read: the large-stride class, all of it used
    ("row_sum_squares", "row_per_item", {"n": 256, "m": 64}, "frac4ofgt4"),
    ("row_sum_squares", "col_major", {"n": 256, "m": 64}, "stride1"),
])
def test_stride_classes(name, variant, params, load):
    got = nonzero_counts(name, variant, "256", params)
    loads = {k: v for k, v in got.items() if "_load_" in k}
    assert loads == {f"f_mem_access_global_float32_load_{load}": math.prod(params.values())}

# }}}
