"""The fourth held-out kernel set (``--set heldout4``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
a campaign set of their own, share no name with any other set, run correctly on pocl
in both precisions and count exactly; a few counts are pinned against the kernels'
text. Nothing here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import math

import pymbolic
import pytest
from test_catalog import check_numerics, counting_warnings

from workbench.cli.measure_cmds import measurement_specs
from workbench.kernels import _util as u
from workbench.kernels.base import GROUP_SIZE_SETS, KernelRole
from workbench.kernels.catalog import all_kernels, get_kernel
from workbench.kernels.defs import HELDOUT4_SPECS, UNSEEN_SETS
from workbench.kernels.defs.heldout4 import BUCKET_CHUNK, FIR_TAPS, QF_SIZE
from workbench.models.dataset import TRAINABLE_ROLES
from workbench.properties import kernel_properties

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

NAMES = {"transpose_add", "decimate_fir", "softplus_rounds", "outer_update",
         "rigid_transform3", "star13_3d", "tridiag_matvec", "batched_quadform",
         "keyed_bucket_sums"}
VARIANTS = [(s.name, v) for s in HELDOUT4_SPECS for v in s.variants]


def test_a_set_of_its_own_never_trained_on():
    assert {s.name for s in HELDOUT4_SPECS} == NAMES
    assert all(s.role is KernelRole.UNSEEN for s in HELDOUT4_SPECS)
    assert KernelRole.UNSEEN.value not in TRAINABLE_ROLES
    assert all(get_kernel(s.name) is s for s in HELDOUT4_SPECS)
    assert not NAMES & {s.name for s in all_kernels()}
    assert measurement_specs("heldout4", ()) == HELDOUT4_SPECS
    others = {s.name for name, specs in UNSEEN_SETS.items() if name != "heldout4"
              for s in specs}
    assert not NAMES & others


@pytest.mark.parametrize("spec", HELDOUT4_SPECS, ids=lambda s: s.name)
def test_conventions_and_size_cases(spec):
    assert spec.dtypes == u.FLOATS
    assert spec.default_p in spec.p_choices
    assert GROUP_SIZE_SETS[spec.default_group_size_set].dims == spec.group_dims
    assert set(spec.check_params) == set(spec.parameters)
    for p in spec.p_choices:
        sizes = [math.prod(c.values()) for c in spec.cases(p)]
        assert len(sizes) == 4 and sizes == sorted(set(sizes))   # strictly growing
    # at the largest exponent every array is int32-indexable, float64 fits with room
    for variant in spec.variants:
        case = max(spec.cases(max(spec.p_choices), variant),
                   key=lambda c: math.prod(c.values()))
        knl = spec.build(spec.request(variant, "float64"))
        total = 0
        for arg in knl.default_entrypoint.args:
            if getattr(arg, "shape", None):
                n = math.prod(int(pymbolic.evaluate(d, case)) for d in arg.shape)
                assert n < 2 ** 31, (variant, arg.name, n)
                total += 8 * n
        assert total < 8e9, (variant, total)


def _numeric_runs():
    # every variant once and both precisions, in as few pocl builds: the precisions
    # alternate down the list
    for k, (name, variant) in enumerate(VARIANTS):
        yield name, variant, ("float32", "float64")[k % 2]


@pytest.mark.parametrize("name,variant,dtype", list(_numeric_runs()))
def test_numerics(queue, name, variant, dtype):
    """The set's first group size (128, 256, 16 x 12) leaves partial groups at edges."""
    spec = get_kernel(name)
    check_numerics(queue, name, variant, dtype, spec.group_sizes()[0])


@pytest.mark.parametrize("name,variant", VARIANTS)
def test_counting_is_exact(name, variant):
    spec = get_kernel(name)
    assert counting_warnings(spec.build(spec.request(variant, "float32"))) == []


def _counts(name, variant, group, params, dtype="float32") -> dict[str, int]:
    props = kernel_properties(name, variant=variant, dtype=dtype, group_size=group)
    return {k: v for k, v in props.evaluate_named(params).items() if v}


def test_filter_buckets_and_quadform_count_their_loops():
    n = 1000
    got = _counts("decimate_fir", "unrolled", (128,), {"n": n})
    # every tap one multiply-add; the filter is a broadcast (stride-0) load
    assert got["f_op_float32_mul"] == got["f_mem_access_global_float32_load_stride0"] \
        == FIR_TAPS * n
    assert got["f_mem_access_global_float32_store_stride1"] == n
    nc = 300
    for variant in ("contiguous", "interleaved"):
        got = _counts("keyed_bucket_sums", variant, (128,), {"nc": nc})
        loads = {k: v for k, v in got.items() if "_load_" in k}
        # one key and one value per entry; the private sums are not global traffic
        assert sum(v for k, v in loads.items() if "int32" in k) == BUCKET_CHUNK * nc
        assert sum(v for k, v in loads.items() if "float32" in k) == BUCKET_CHUNK * nc
        assert got["f_op_float32_add"] == BUCKET_CHUNK * nc
    nb, s = 300, QF_SIZE
    got = _counts("batched_quadform", "own_matrix", (128,), {"nb": nb}, "float64")
    assert got["f_op_float64_mul"] == (s * s + s) * nb
    assert got["f_mem_access_global_float64_load_stride1"] == (s * s + s) * nb
