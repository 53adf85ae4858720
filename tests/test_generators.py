"""The 2019 measurement-kernel generators: they build, run right, and count as designed.

Numerical checks run on the pocl CPU OpenCL device (skipped, with the reason, where
there is none); the counting checks need no OpenCL. Counts are compared with the
designs written down in ``workbench.kernels.generators`` (and restated here where
that makes the test independent of the module's own helpers).
"""

from __future__ import annotations

import math
import re
import warnings

import loopy as lp
import numpy as np
import pytest

from workbench.errors import GroupSizeError, ParameterError, UnknownNameError
from workbench.kernels.base import GROUP_SIZE_SETS, KernelRole
from workbench.kernels.catalog import all_kernels, get_kernel
from workbench.kernels.generators import (
    ARITHMETIC_OPS,
    MIN_DEPENDENCY_DISTANCE,
    N_PRIVATE,
    UNROLL,
    arithmetic,
    arithmetic_op_counts,
    barriers,
    default_unroll,
    empty,
    global_memory_pattern,
    local_memory_counts,
    local_memory_moves,
    measurement_set_2019,
    update_schedule,
)
from workbench.properties import extract_properties
from workbench.properties.symbolic import evaluate_many

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

SET = measurement_set_2019()
BY_NAME = {s.name: s for s in SET}
GMEM = [s for s in SET if s.name.startswith("gmem_")]
ARITH = [s for s in SET if s.name.startswith("arith")]
LMEM = [s for s in SET if s.name.startswith("lmem_")]
BARRIERS = [s for s in SET if s.name.startswith("barriers_")]

_PROPS: dict = {}


def props_of(spec, granularity="workitem"):
    """Properties of a spec's default build (cached: extraction takes ~0.5 s)."""
    key = (spec.name, granularity)
    if key not in _PROPS:
        knl = spec.build(spec.request(None, spec.dtypes[0]))
        _PROPS[key] = extract_properties(knl, granularity=granularity, subgroup_size=32)
    return _PROPS[key]


def value(expr, params) -> int:
    return int(evaluate_many({"v": expr}, params)["v"])


def workitems(spec, params) -> int:
    if "n" in params:
        return params["n"]
    return params["groups"] * math.prod(spec.fixed_group_size)


# {{{ OpenCL


def check_numerics(queue, spec, dtype=None, group_size=None, params=None) -> None:
    request = spec.request(None, dtype or spec.dtypes[0], group_size)
    params = dict(params or spec.check_params)
    inputs = spec.inputs(params, request.dtype, np.random.default_rng(1234))
    knl = lp.set_options(spec.build(request), return_dict=True)
    _evt, out = knl.executor(queue)(queue, **inputs, **params)
    out = {k: v.get() if hasattr(v, "get") else v for k, v in out.items()}
    expected = spec.expected(inputs, params)
    assert expected or spec.name == "empty"
    for arg, want in expected.items():
        got = out[arg]
        assert got.dtype == request.dtype.numpy, arg
        assert got.shape == want.shape, arg
        np.testing.assert_allclose(got, want, rtol=spec.rtol, err_msg=f"{spec.name}/{arg}")

# }}}


# {{{ the set and its specs

def test_set_composition():
    names = [s.name for s in SET]
    assert len(names) == len(set(names))
    assert len(GMEM) == 24 + 5 + 2
    assert {s.name for s in ARITH} == {
        "arith32x64_add_float32", "arith32x64_mul_float32", "arith32x64_madd_float32",
        "arith32x64_unroll4_div_float32", "arith32x64_rsqrt_float32",
        "arith32x64_unroll1_pow_float32"}
    assert len(ARITHMETIC_OPS) == 6
    assert [s.name for s in LMEM] == ["lmem_moves_1perbarrier_float32",
                                      "lmem_moves_4perbarrier_float32"]
    assert [s.name for s in BARRIERS] == ["barriers_1periter", "barriers_4periter"]
    assert SET[-1] is get_kernel("empty") is empty()
    for k in (1, 2, 3, 4):
        for s in (1, 2, 3, 4, 8, 32):
            assert f"gmem_load_{k}arr_l{s}_gcontig_float32" in BY_NAME
    both = measurement_set_2019(("float32", "float64"))
    # dtype-free kernels (barriers, empty) once; the others per dtype
    assert len(both) == 2 * len(SET) - 3
    assert len({s.name for s in both}) == len(both)


def test_catalog_is_unchanged():
    """The generators register nothing: the 2018 catalog and its campaign stay as they are."""
    catalog = {s.name for s in all_kernels()}
    assert not catalog & {s.name for s in SET if s.name != "empty"}
    assert "arith" in catalog and "global_access" in catalog


@pytest.mark.parametrize("spec", SET, ids=lambda s: s.name)
def test_spec_consistency(spec):
    assert spec.role is KernelRole.MEASUREMENT
    assert spec.default_p in spec.p_choices
    assert set(spec.check_params) == set(spec.parameters)
    groups = spec.group_sizes()
    assert any(math.prod(g) == 256 for g in groups)
    if spec.fixed_group_size is None:
        assert groups == GROUP_SIZE_SETS[spec.default_group_size_set].sizes
    if spec is get_kernel("empty"):
        return
    knl = spec.build(spec.request(None, spec.dtypes[0]))
    args = {a.name: a for a in knl.default_entrypoint.args}
    for p in spec.parameters:  # sizes stay symbolic int32 value arguments
        assert isinstance(args[p], lp.ValueArg) and args[p].dtype.numpy_dtype == np.int32
    for p in spec.p_choices:
        cases = spec.size_cases(p)
        assert len(cases) == 4
        assert len({tuple(sorted(c.items())) for c in cases}) == 4
        for case in cases:
            assert set(case) == set(spec.parameters)
            assert all(isinstance(v, int) and v >= 1 for v in case.values())
            if "iters" in case:  # loop kernels: full groups for every size of the set
                assert all(case["n"] % math.prod(g) == 0 for g in groups)


@pytest.mark.parametrize("spec", [s for s in SET if s.name != "empty"], ids=lambda s: s.name)
def test_size_cases_satisfy_assumptions(spec):
    props = props_of(spec)
    for p in spec.p_choices:
        props.evaluate({k: np.array([c[k] for c in spec.size_cases(p)])
                        for k in spec.parameters})  # raises if violated
    props.evaluate(spec.check_params)

# }}}


# {{{ numerics on pocl

@pytest.mark.parametrize("spec", SET, ids=lambda s: s.name)
def test_numerics(queue, spec):
    check_numerics(queue, spec)


@pytest.mark.parametrize("name", [
    "gmem_load_3arr_l3_gcontig_float32", "gmem_store_1arr_l4_gcontig_float32",
    "lmem_moves_4perbarrier_float32", "barriers_4periter"])
@pytest.mark.parametrize("group", [(128,), (256,)])
def test_numerics_other_group_sizes(queue, name, group):
    """Results do not depend on the group size (references cannot know it)."""
    check_numerics(queue, BY_NAME[name], group_size=group)


@pytest.mark.parametrize("spec", [
    arithmetic("madd", "float64"), arithmetic("pow", "float64"),
    local_memory_moves("float64", 2),
    global_memory_pattern(2, (2,), None, "float64"),
    global_memory_pattern(2, (2, 64), None, "float64", "store"),
    global_memory_pattern(2, (1,), (64,), "float64"),
    global_memory_pattern(1, (0,)),
    global_memory_pattern(1, (2, 1), (1000,), group_size=(32, 4)),
], ids=lambda s: s.name)
def test_numerics_more_configurations(queue, spec):
    check_numerics(queue, spec)


def test_barrier_kernel_float64(queue):
    check_numerics(queue, barriers(2), dtype="float64")

# }}}


# {{{ global memory patterns: strides and array counts

def _pattern_of(name: str) -> tuple[str, int, tuple[int, ...]]:
    m = re.fullmatch(r"gmem_(load|store)_(\d+)arr_l([\dx]+)_g\w+?_float\d+", name)
    return m.group(1), int(m.group(2)), tuple(int(s) for s in m.group(3).split("x"))


def _stride_token(stride: int) -> str:
    if stride in (0, 1):
        return f"stride{stride}"
    return f"frac1of{stride}" if stride <= 4 else "frac1ofgt4"


@pytest.mark.parametrize("granularity", ["workitem", "subgroup"])
@pytest.mark.parametrize("spec", GMEM, ids=lambda s: s.name)
def test_global_pattern_accesses(spec, granularity):
    direction, n_arrays, lid = _pattern_of(spec.name)
    props = props_of(spec, granularity)
    params = spec.size_cases(spec.default_p)[1]
    items = workitems(spec, params)
    pattern = [r for r in props.accesses if r.mtype == "global" and r.direction.value ==
               direction and r.variable != "out"]
    other = [r for r in props.accesses if r not in pattern]
    # one record per array, each with the requested lid strides, once per work item
    assert sorted(r.variable for r in pattern) == sorted(
        f"{'a' if direction == 'load' else 'out'}{k}" for k in range(n_arrays))
    by_stride: dict = {}
    for r in pattern:
        assert dict(r.lid_strides) == dict(enumerate(lid)), r
        by_stride[dict(r.lid_strides)[0]] = by_stride.get(dict(r.lid_strides)[0], 0) + \
            value(r.count, params)
    assert by_stride == {lid[0]: n_arrays * items}
    # the rest: one coalesced access per work item (the sum's store, or the value's load)
    assert len(other) == 1 and dict(other[0].lid_strides)[0] == 1
    assert value(other[0].count, params) == items
    # the binned property agrees (2-D patterns use their lane footprint, so skip those)
    named = props.evaluate_named(params)
    if len(lid) == 1:
        dt = spec.dtypes[0].value
        assert named[f"f_mem_access_global_{dt}_{direction}_{_stride_token(lid[0])}"] == \
            n_arrays * items
    adds = named.get(f"f_op_{spec.dtypes[0].value}_add", 0)
    if granularity == "workitem":
        assert adds == (n_arrays - 1 if direction == "load" else 0) * items


def test_contiguous_groups_strides():
    props = props_of(BY_NAME["gmem_load_1arr_l4_gcontig_float32"])
    (rec,) = [r for r in props.accesses if r.variable == "a0"]
    assert rec.gid_strides == ((0, 4 * 384),)  # the default (largest) group size
    spec = global_memory_pattern(2, (1,), (64,))
    assert spec.name == "gmem_load_2arr_l1_g64_wg256_float32"
    recs = [r for r in extract_properties(spec.build(spec.request())).accesses
            if r.variable in ("a0", "a1")]
    assert {(r.lid_strides, r.gid_strides) for r in recs} == {(((0, 1),), ((0, 64),))}
    two_d = BY_NAME["gmem_load_1arr_l16x1_gcontig_wg16x16_float32"]
    (rec,) = [r for r in props_of(two_d).accesses if r.variable == "a0"]
    assert rec.lid_strides == ((0, 16), (1, 1)) and rec.gid_strides == ((0, 256),)
    # a transposed read of dense 16x16 blocks uses all of its footprint
    assert props_of(two_d).evaluate_named({"groups": 8})[
        "f_mem_access_global_float32_load_frac4ofgt4"] == 8 * 256

# }}}


# {{{ arithmetic

KIND = {"add": ("add",), "mul": ("mul",), "madd": ("mul", "add"), "div": ("div",),
        "rsqrt": ("special",), "pow": ("pow",)}


@pytest.mark.parametrize("op", ARITHMETIC_OPS)
def test_arithmetic_counts(op):
    spec = arithmetic(op)
    assert spec.name in BY_NAME
    props = props_of(spec)
    for n, iters in ((768, 1), (3 * 2 ** 12, 5)):
        named = {k: v for k, v in props.evaluate_named({"n": n, "iters": iters}).items() if v}
        updates = iters * UNROLL * N_PRIVATE
        want = {f"f_op_float32_{kind}": updates for kind in KIND[op]}
        want["f_op_float32_add"] = want.get("f_op_float32_add", 0) + N_PRIVATE - 1
        assert want == arithmetic_op_counts(op, "float32", iters)
        got = {k: v // n for k, v in named.items() if k.startswith("f_op_")}
        assert got == want
        assert all(v % n == 0 for k, v in named.items() if k.startswith("f_op_"))
        # nothing but one coalesced store per work item
        assert named["f_mem_access_global_float32_store_stride1"] == n
        assert not [k for k in named if "load" in k or "local" in k or "barrier" in k]
    assert not [r for r in props.accesses if r.direction.value == "load"]


def _updates_in_loop(code: str) -> list[tuple[int, set[int]]]:
    """(written, read) variables of each update in the generated loop body, in order."""
    body = code[code.index("for (int it"):]
    out = []
    for line in body.splitlines():
        m = re.fullmatch(r"\s*r(\d+) = (.*);", line)
        if m:
            out.append((int(m.group(1)), {int(v) for v in re.findall(r"\br(\d+)\b",
                                                                      m.group(2))}))
    return out


def _violations(updates: list[tuple[int, set[int]]], distance: int) -> list[int]:
    """Positions whose update reads a variable written by one of the `distance` before
    it (the sequence repeats, so the window wraps around the loop body)."""
    bad = []
    for k, (_, reads) in enumerate(updates):
        recent = {updates[(k - d) % len(updates)][0] for d in range(1, distance + 1)}
        if reads & recent:
            bad.append(k)
    return bad


def test_dependency_checker_can_fail():
    chain = [(j, {j - 1}) for j in range(1, 32)] + [(0, {31})]
    assert _violations(chain, MIN_DEPENDENCY_DISTANCE) == list(range(32))
    close = [(j, {(j + 3) % 32}) for j in range(32)]  # read written 29 updates ago: ok
    assert _violations(close, MIN_DEPENDENCY_DISTANCE) == []
    near = [(j, {(j - 4) % 32}) for j in range(32)]  # read written 4 updates ago
    assert _violations(near, MIN_DEPENDENCY_DISTANCE) == list(range(32))


@pytest.mark.parametrize("op,dtype", [(op, "float32") for op in ARITHMETIC_OPS] +
                         [("madd", "float64"), ("pow", "float64")])
def test_arithmetic_dependency_distance(op, dtype):
    spec = arithmetic(op, dtype)
    code = lp.generate_code_v2(spec.build(spec.request(None, dtype))).device_code()
    unroll = default_unroll(op, dtype)
    assert UNROLL % unroll == 0 and (unroll == UNROLL) == (op in ("add", "mul", "madd") or
                                                          (op, dtype) == ("rsqrt", "float32"))
    updates = _updates_in_loop(code)
    assert len(updates) == unroll * N_PRIVATE  # 32 updates per written-out inner trip
    assert [w for w, _ in updates] == list(range(N_PRIVATE)) * unroll  # round robin
    assert all(reads - {w} for w, reads in updates)  # every update uses another variable
    assert _violations(updates, MIN_DEPENDENCY_DISTANCE) == []
    # the same holds for the design itself, which the builder follows
    design = [(w, set(r)) for w, r in update_schedule(op)]
    assert updates == design * unroll
    assert _violations(design, MIN_DEPENDENCY_DISTANCE) == []
    if unroll == UNROLL:
        assert "for (int u" not in code  # the inner loop is unrolled, not a loop
    else:
        assert re.search(rf"for \(int u_outer = 0; u_outer <= {UNROLL // unroll - 1};", code)


def test_arithmetic_unroll_keeps_counts():
    """The unroll factor changes the source, never the counts or the results."""
    full, default = arithmetic("div", unroll=64), arithmetic("div")
    assert full.name == "arith32x64_div_float32"
    assert default.name == "arith32x64_unroll4_div_float32"
    params = {"n": 768, "iters": 3}
    counts = [extract_properties(s.build(s.request(None, "float32", (128,))))
              .evaluate_named(params) for s in (full, default)]
    assert counts[0] == counts[1]
    assert counts[0]["f_op_float32_div"] == 3 * 64 * 32 * 768
    with pytest.raises(ParameterError):
        arithmetic("add", unroll=3)


def test_arithmetic_aliases_and_errors():
    assert arithmetic("special").name == arithmetic("rsqrt").name
    with pytest.raises(UnknownNameError):
        arithmetic("exp")
    with pytest.raises(UnknownNameError):
        arithmetic("add", "float16")

# }}}


# {{{ local memory and barriers

@pytest.mark.parametrize("spec", LMEM, ids=lambda s: s.name)
def test_local_moves_counts_and_strides(spec):
    m = int(re.search(r"moves_(\d+)per", spec.name).group(1))
    props = props_of(spec)
    for n, iters in ((768, 3), (3 * 2 ** 10, 8)):
        named = props.evaluate_named({"n": n, "iters": iters})
        want = local_memory_counts(m, iters)
        assert want == {"local_store": 2 * m * (iters + 1), "local_load": m * (2 * iters + 1),
                        "barrier": 2 * iters + 1, "add": m - 1}
        assert named["f_mem_access_local_float32_store"] == want["local_store"] * n
        assert named["f_mem_access_local_float32_load"] == want["local_load"] * n
        assert named["f_sync_barrier_local"] == want["barrier"] * n
        assert named.get("f_op_float32_add", 0) == want["add"] * n
        assert named["f_mem_access_global_float32_store_stride1"] == n
        assert not [k for k in named if "global" in k and "load" in k]
    local = [r for r in props.accesses if r.mtype == "local"]
    assert {(r.variable, r.direction.value) for r in local} == {
        (v, d) for v in ("a_loc", "b_loc") for d in ("load", "store")}
    for r in local:  # consecutive lanes, consecutive words: no bank conflicts
        assert r.lid_strides == ((0, 1),), r


@pytest.mark.parametrize("spec", BARRIERS, ids=lambda s: s.name)
def test_barrier_counts(spec):
    nb = int(re.search(r"barriers_(\d+)periter", spec.name).group(1))
    props = props_of(spec)
    for n, iters in ((768, 1), (768, 7), (3 * 2 ** 14, 64)):
        named = {k: v for k, v in props.evaluate_named({"n": n, "iters": iters}).items() if v}
        assert named["f_sync_barrier_local"] == nb * iters * n
        assert named["f_thread_groups"] == n // 384
        assert not [k for k in named if k.startswith(("f_op_", "f_mem_access_local"))]
    assert barriers(3).name == "barriers_3periter"
    p3 = extract_properties(barriers(3).build(barriers(3).request(None, "float32", (128,))))
    assert p3.evaluate_named({"n": 256, "iters": 5})["f_sync_barrier_local"] == 3 * 5 * 256

# }}}


# {{{ validation

def test_invalid_configurations():
    with pytest.raises(UnknownNameError):
        global_memory_pattern(1, (1,), direction="sideways")
    with pytest.raises(ParameterError):
        global_memory_pattern(0, (1,))
    with pytest.raises(ParameterError):
        global_memory_pattern(1, (1, 2, 3))
    with pytest.raises(ParameterError):
        global_memory_pattern(1, (-1,))
    with pytest.raises(ParameterError):  # explicit gid strides could make stores race
        global_memory_pattern(1, (1,), (64,), direction="store")
    with pytest.raises(ParameterError):  # lanes storing to one element
        global_memory_pattern(1, (0,), direction="store")
    with pytest.raises(ParameterError):
        global_memory_pattern(1, (1, 1), direction="store")
    fixed = global_memory_pattern(1, (1,), (64,))
    assert fixed.group_sizes() == ((256,),)
    with pytest.raises(GroupSizeError):
        fixed.build(fixed.request(None, "float32", (128,)))
    with pytest.raises(UnknownNameError):
        fixed.request(None, "float64")
    with pytest.raises(ParameterError):
        local_memory_moves("float32", 0)
    big = local_memory_moves("float64", 16)
    with pytest.raises(GroupSizeError):  # 2*16*385*8 bytes of local memory
        big.build(big.request(None, "float64", (384,)))
    with pytest.raises(ParameterError):
        barriers(0)


def test_counting_is_exact():
    """loopy's counters never fall back to estimates on the generated kernels."""
    for spec in (ARITH[0], LMEM[1], BARRIERS[1], GMEM[0], GMEM[-1]):
        knl = spec.build(spec.request(None, spec.dtypes[0]))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lp.get_op_map(knl, subgroup_size=32)
            lp.get_mem_access_map(knl, subgroup_size=32)
            lp.get_synchronization_map(knl, subgroup_size=32)
        assert not [w for w in caught if issubclass(w.category, lp.diagnostic.LoopyWarning)
                    and "insn_count_subgroups_upper_bound" not in str(w.message)], spec.name

# }}}

# vim: foldmethod=marker
