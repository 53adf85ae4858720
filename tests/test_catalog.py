"""The kernel catalog: every kernel builds, runs correctly on pocl, and counts exactly.

Numerical checks run each kernel at its ``check_params`` on the pocl CPU OpenCL
device and compare with the numpy reference. The tests that need OpenCL are skipped,
with the reason, where no pocl device exists.
"""

from __future__ import annotations

import warnings

import loopy as lp
import numpy as np
import pytest

from workbench.errors import GroupSizeError, UnknownNameError
from workbench.kernels.base import GROUP_SIZE_SETS, DType, KernelRole
from workbench.kernels.catalog import all_kernels, get_kernel

pytestmark = [
    # islpy deprecation noise from inside loopy.
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    # The executor cannot infer n from padded shapes like (n+2); we always pass n.
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

MEASUREMENT = {"matmul_tiled", "matmul_naive", "vector_scale_add", "transpose",
               "global_access", "filled_access", "arith", "empty"}
TEST = {"finite_diff", "skinny_matmul", "convolution", "nbody"}

#: Number of size cases per kernel, from the paper.
N_CASES = {"matmul_tiled": 4, "matmul_naive": 4, "vector_scale_add": 4, "transpose": 4,
           "global_access": 9, "filled_access": 4, "arith": 9, "empty": 6,
           "finite_diff": 4, "skinny_matmul": 4, "convolution": 4, "nbody": 4}

SPECS = all_kernels()
VARIANTS = [(s.name, v) for s in SPECS for v in s.variants]
RUNS = [(s.name, v, d.value) for s in SPECS for v in s.variants for d in s.dtypes]


# {{{ OpenCL fixture and helpers


def run_kernel(queue, knl, args: dict) -> dict[str, np.ndarray]:
    knl = lp.set_options(knl, return_dict=True)
    _evt, out = knl.executor(queue)(queue, **args)
    return {k: v.get() if hasattr(v, "get") else v for k, v in out.items()}


def check_numerics(queue, name: str, variant: str, dtype: str, group_size=None,
                   params=None) -> None:
    spec = get_kernel(name)
    request = spec.request(variant, dtype, group_size)
    params = dict(params or spec.check_params)
    inputs = spec.inputs(params, request.dtype, np.random.default_rng(1234), variant)
    out = run_kernel(queue, spec.build(request), {**inputs, **params})
    expected = spec.expected(inputs, params, variant)
    assert expected or name == "empty"
    for arg, want in expected.items():
        got = out[arg]
        assert got.dtype == request.dtype.numpy, arg
        assert got.shape == want.shape, arg
        np.testing.assert_allclose(got, want, rtol=spec.rtol, err_msg=f"{name}/{variant}")


def nonzero_counts(name, variant, group, params, dtype="float32") -> dict[str, int]:
    """A catalog kernel's nonzero named counts at ``params``."""
    from workbench.properties import kernel_properties

    props = kernel_properties(name, variant=variant, dtype=dtype, group_size=group)
    return {k: v for k, v in props.evaluate_named(params).items() if v}


def counting_warnings(knl) -> list[str]:
    """Run loopy's three counters and return the loopy warnings they raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        op_map = lp.get_op_map(knl, subgroup_size=32)
        mem_map = lp.get_mem_access_map(knl, subgroup_size=32)
        lp.get_synchronization_map(knl, subgroup_size=32)
    assert op_map is not None and mem_map is not None
    return [str(w.message) for w in caught
            if issubclass(w.category, lp.diagnostic.LoopyWarning)]

# }}}


# {{{ catalog structure (no OpenCL needed)

def test_catalog_names_and_roles():
    names = {s.name for s in SPECS}
    assert names == MEASUREMENT | TEST
    assert {s.name for s in all_kernels(KernelRole.MEASUREMENT)} == MEASUREMENT
    assert {s.name for s in all_kernels(KernelRole.TEST)} == TEST


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_spec_consistency(spec):
    assert spec.default_p in spec.p_choices
    assert GROUP_SIZE_SETS[spec.default_group_size_set].dims == spec.group_dims
    assert set(spec.check_params) == set(spec.parameters)
    assert DType.FLOAT32 in spec.dtypes
    assert len(set(spec.variants)) == len(spec.variants)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_size_cases(spec):
    for p in spec.p_choices:
        for variant in spec.variants:
            cases = spec.cases(p, variant)
            assert len(cases) == N_CASES[spec.name]
            for case in cases:
                assert set(case) == set(spec.parameters)
                assert all(isinstance(v, int) and v >= 1 for v in case.values())
        assert len(spec.size_cases(p)) == N_CASES[spec.name]


def test_size_case_formulas():
    p = 10
    assert [c["n"] for c in get_kernel("vector_scale_add").size_cases(p)] == \
        [2 ** 10, 2 ** 12, 2 ** 14, 2 ** 16]
    assert [c["n"] for c in get_kernel("filled_access").size_cases(p)] == \
        [2 ** 10, 2 ** 13, 2 ** 16, 2 ** 19]
    assert [c["n"] for c in get_kernel("global_access").size_cases(p)] == \
        [2 ** (p + t) for t in range(9)]
    arith = get_kernel("arith").size_cases(7)
    assert sorted({c["k"] for c in arith}) == [256, 512, 728]
    assert sorted({c["n"] for c in arith}) == [128, 256, 512]
    assert all(c["m"] == 8 * c["n"] and c["l"] == c["n"]
               for c in get_kernel("skinny_matmul").size_cases(9))
    mm = get_kernel("matmul_tiled")
    n = 2 ** 8
    assert mm.cases(8, "square")[0] == {"n": n, "m": n, "l": n}
    assert mm.cases(8, "l_half")[0] == {"n": n, "m": n, "l": n // 2}
    assert mm.cases(8, "m_half")[0] == {"n": n, "m": n // 2, "l": n}
    assert mm.cases(8, "n_half")[0] == {"n": n, "m": 2 * n, "l": 2 * n}
    assert mm.size_cases(8) == mm.cases(8, "square")


def test_request_validation():
    spec = get_kernel("transpose")
    with pytest.raises(UnknownNameError):
        spec.request("sideways")
    with pytest.raises(GroupSizeError):
        spec.request("prefetch", "float32", "256")
    with pytest.raises(UnknownNameError):
        spec.cases(10, "sideways")


@pytest.mark.parametrize("name,variant", VARIANTS)
def test_arguments_are_inputs_sizes_or_outputs(name, variant):
    """Each kernel argument is a size, comes from inputs() or is checked by expected()."""
    spec = get_kernel(name)
    request = spec.request(variant, "float32")
    knl = spec.build(request)
    arg_names = {a.name for a in knl.default_entrypoint.args}
    inputs = spec.inputs(spec.check_params, request.dtype, np.random.default_rng(0),
                         variant)
    expected = spec.expected(inputs, spec.check_params, variant)
    assert set(spec.parameters) <= arg_names
    assert set(inputs) | set(expected) | set(spec.parameters) == arg_names
    assert not set(inputs) & set(expected)
    for name_, value in inputs.items():
        assert np.asarray(value).dtype == request.dtype.numpy, name_


@pytest.mark.parametrize("name,variant", VARIANTS)
def test_counting_is_exact(name, variant):
    """loopy's counters work on every kernel and never fall back to estimates."""
    spec = get_kernel(name)
    knl = spec.build(spec.request(variant, "float32"))
    assert counting_warnings(knl) == []


def test_empty_kernel_counts_nothing():
    spec = get_kernel("empty")
    for group in spec.group_sizes():
        knl = spec.build(spec.request(None, "float32", group))
        params = {"n": 1000}
        ops = lp.get_op_map(knl, subgroup_size=32)
        assert all(c.eval_with_dict(params) == 0 for c in ops.values())
        mem = lp.get_mem_access_map(knl, subgroup_size=32)
        assert all(c.eval_with_dict(params) == 0 for k, c in mem.items()
                   if k.address_space == lp.AddressSpace.GLOBAL)
        assert all(k.address_space != lp.AddressSpace.GLOBAL for k in mem.keys())
        sync = lp.get_synchronization_map(knl, subgroup_size=32)
        assert {k.kind for k in sync.keys()} == {"kernel_launch"}

@pytest.mark.parametrize("variant,kind", [
    ("add_sub", "add"), ("mul", "mul"), ("div", "div"), ("pow", "pow"),
    ("rsqrt", "func:rsqrt")])
def test_arith_operation_mix(variant, kind):
    """Per summation step: eight float operations of the variant's kind plus one add."""
    spec = get_kernel("arith")
    knl = spec.build(spec.request(variant, "float64"))
    params = {"n": 64, "k": 256}
    counts = {}
    for key, count in lp.get_op_map(knl, subgroup_size=32).items():
        value = count.eval_with_dict(params)
        if key.dtype.numpy_dtype.kind == "f" and value:
            counts[key.name] = counts.get(key.name, 0) + value
    steps = counts["add"] if kind != "add" else counts["add"] / 9
    expected = {"add": 9 * steps} if kind == "add" else {kind: 8 * steps, "add": steps}
    assert counts == expected

# }}}


# {{{ numerics on pocl

@pytest.mark.parametrize("name,variant,dtype", RUNS)
def test_numerics(queue, name, variant, dtype):
    check_numerics(queue, name, variant, dtype)


@pytest.mark.parametrize("name,variant", [
    ("matmul_tiled", "square"), ("transpose", "prefetch"), ("transpose", "read_strided"),
    ("transpose", "write_strided"), ("finite_diff", "default"),
    ("convolution", "default"), ("matmul_naive", "default"),
])
def test_numerics_non_square_group(queue, name, variant):
    check_numerics(queue, name, variant, "float32", (16, 12))


@pytest.mark.parametrize("name", ["filled_access", "nbody", "vector_scale_add"])
def test_numerics_non_power_of_two_group(queue, name):
    spec = get_kernel(name)
    check_numerics(queue, name, spec.variants[-1], "float32", (384,))


@pytest.mark.parametrize("variant", get_kernel("matmul_tiled").variants)
def test_matmul_tiled_shape_cases(queue, variant):
    """Each shape variant runs correctly at (a small instance of) its own shape."""
    params = get_kernel("matmul_tiled").cases(4, variant)[1]
    check_numerics(queue, "matmul_tiled", variant, "float32", (16, 12), params)


def test_empty_kernel_launches(queue):
    spec = get_kernel("empty")
    knl = spec.build(spec.request())
    assert run_kernel(queue, knl, {"n": 100}) == {}
    assert lp.generate_code_v2(knl).host_code().count("enqueue_nd_range_kernel") == 1

# }}}
