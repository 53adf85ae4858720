"""The second, wider unseen set (``--set unseen2``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them),
are a campaign set of their own apart from the first unseen set, run correctly on
pocl in both precisions, count exactly, and a few counts are pinned against the
kernels' text.
"""

from __future__ import annotations

import math

import pymbolic
import pytest
from test_catalog import check_numerics, counting_warnings, nonzero_counts

from workbench.cli.measure_cmds import measurement_specs
from workbench.kernels import _util as u
from workbench.kernels.base import GROUP_SIZE_SETS, KernelRole
from workbench.kernels.catalog import all_kernels, get_kernel
from workbench.kernels.defs import UNSEEN_SPECS, UNSEEN_WIDE_SPECS
from workbench.kernels.defs.unseen_wide_grid import SCAN_BLOCK
from workbench.models.dataset import TRAINABLE_ROLES

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

NAMES = {"spmv_ell", "complex_axpy", "atx_partial", "batched_trsv", "column_cumsum",
         "conv2d_5x5", "box27_3d", "block_scan"}
VARIANTS = [(s.name, v) for s in UNSEEN_WIDE_SPECS for v in s.variants]


def test_a_set_of_its_own_never_trained_on():
    assert {s.name for s in UNSEEN_WIDE_SPECS} == NAMES
    assert all(s.role is KernelRole.UNSEEN for s in UNSEEN_WIDE_SPECS)
    assert KernelRole.UNSEEN.value not in TRAINABLE_ROLES
    assert all(get_kernel(s.name) is s for s in UNSEEN_WIDE_SPECS)
    assert not NAMES & {s.name for s in all_kernels()}
    assert measurement_specs("unseen2", ()) == UNSEEN_WIDE_SPECS
    assert measurement_specs("unseen", ()) == UNSEEN_SPECS


@pytest.mark.parametrize("spec", UNSEEN_WIDE_SPECS, ids=lambda s: s.name)
def test_conventions_and_size_cases(spec):
    assert spec.dtypes == u.FLOATS
    assert spec.default_p in spec.p_choices
    assert GROUP_SIZE_SETS[spec.default_group_size_set].dims == spec.group_dims
    assert set(spec.check_params) == set(spec.parameters)
    for p in spec.p_choices:
        cases = spec.cases(p)
        assert len(cases) == 4
        sizes = [math.prod(c.values()) for c in cases]
        assert sizes == sorted(set(sizes))   # strictly growing
    # at the largest exponent of the paper's range, every array is int32-indexable
    case = max(spec.cases(max(spec.p_choices)), key=lambda c: math.prod(c.values()))
    knl = spec.build(spec.request(spec.default_variant, "float64"))
    for arg in knl.default_entrypoint.args:
        if getattr(arg, "shape", None):
            n = math.prod(int(pymbolic.evaluate(d, case)) for d in arg.shape)
            assert n < 2 ** 31, (arg.name, n)


def _numeric_runs():
    # every variant once and every kernel in both precisions, in as few pocl builds
    for spec in UNSEEN_WIDE_SPECS:
        first, *others = spec.variants
        yield spec.name, first, "float32"
        for variant in others or [first]:
            yield spec.name, variant, "float64"


@pytest.mark.parametrize("name,variant,dtype", list(_numeric_runs()))
def test_numerics(queue, name, variant, dtype):
    """The set's first group size (128, 16 x 12) leaves partial groups at the edges."""
    spec = get_kernel(name)
    check_numerics(queue, name, variant, dtype, spec.group_sizes()[0])


@pytest.mark.parametrize("name,variant", VARIANTS)
def test_counting_is_exact(name, variant):
    spec = get_kernel(name)
    assert counting_warnings(spec.build(spec.request(variant, "float32"))) == []


def test_scan_steps_and_barriers():
    n, g = 3 * SCAN_BLOCK, 256
    steps = int(math.log2(SCAN_BLOCK))
    got = nonzero_counts("block_scan", "hillis_steele", (g,), {"n": n})
    assert got["f_op_float32_add"] == steps * n
    # a barrier before each read phase and each write phase, except where the offset
    # is a multiple of the group size: then every lane reads only what it wrote
    assert got["f_sync_barrier_local"] == (n // SCAN_BLOCK) * g * 2 * int(math.log2(g))
    assert got["f_mem_access_local_float32_load"] == (3 * steps + 1) * n
    assert got["f_mem_access_global_float32_load_stride1"] == n


def test_box27_reads_every_neighbour_from_global_memory():
    nx, ny, nz = 37, 19, 11
    pts = nx * ny * nz
    got = nonzero_counts("box27_3d", "zmarch", "16x12", {"nx": nx, "ny": ny, "nz": nz},
                  "float64")
    assert got["f_mem_access_global_float64_load_stride1"] == 27 * pts
    assert (got["f_op_float64_mul"], got["f_op_float64_add"]) == (4 * pts, 26 * pts)


def test_trsv_counts_a_triangle_per_system():
    nb, s = 300, 24
    got = nonzero_counts("batched_trsv", "batch_minor", (128,), {"nb": nb})
    tri = s * (s - 1) // 2
    assert got["f_op_float32_mul"] == tri * nb
    assert got["f_op_float32_div"] == s * nb
    # lanes read adjacent systems' entries: the off-diagonal and diagonal entries of
    # L plus b, all stride 1
    assert got["f_mem_access_global_float32_load_stride1"] == (tri + 2 * s) * nb


def test_indirect_loads_are_counted_once_per_entry():
    n = 4096
    got = nonzero_counts("spmv_ell", "scattered", (256,), {"n": n})
    loads = sum(v for k, v in got.items() if "float32_load" in k)
    assert loads == 2 * 8 * n   # val and x per stored entry
    assert got["f_mem_access_global_int32_load_stride1"] == 8 * n
