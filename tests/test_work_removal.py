"""Work removal: same global traffic, no on-chip work, loads kept alive.

For each kernel the derived kernel must (1) count exactly the original's global
accesses and thread groups at two parameter sets, (2) count no float operation, no
local access and no barrier, (3) compile and run on pocl, and (4) move data: its
output is checked against a numpy model of what each work item loads (the derived
kernel stores the maximum of the values that reach each store), which fails if any
load is skipped at run time or never reaches a store, and it changes when the
inputs change.
"""

from __future__ import annotations

import functools

import loopy as lp
import numpy as np
import pytest

from workbench.errors import UnknownNameError, UnsupportedKernelError
from workbench.kernels.base import DType, KernelRole
from workbench.kernels.catalog import get_kernel
from workbench.kernels.user import spec_from_loopy
from workbench.kernels.work_removal import (
    SUFFIX,
    remove_work,
    tag_global_accesses,
    work_removed_spec,
)
from workbench.properties import extract_properties
from workbench.properties.symbolic import evaluate_many

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

LV = (2018, 2)

#: (kernel, variant, group size) of every kernel the transformation must handle.
CASES = [
    ("matmul_tiled", "square", (16, 16)),
    ("matmul_naive", "default", (16, 16)),
    ("transpose", "prefetch", (16, 16)),
    ("transpose", "read_strided", (16, 16)),
    ("transpose", "write_strided", (16, 16)),
    ("finite_diff", "default", (16, 16)),
    ("convolution", "default", (16, 16)),
    ("nbody", "default", (256,)),
    ("vector_scale_add", "stride2", (256,)),
    ("global_access", "sum4", (256,)),
    ("arith", "mul", (16, 16)),
]
IDS = [f"{k}-{v}" for k, v, _ in CASES]


# {{{ fixtures and helpers


@functools.cache
def built(name: str, variant: str, group: tuple[int, ...], dtype: str = "float32"
          ) -> tuple[lp.TranslationUnit, lp.TranslationUnit]:
    spec = get_kernel(name)
    original = spec.build(spec.request(variant, dtype, group))
    return original, remove_work(original)


@functools.cache
def properties(name: str, variant: str, group: tuple[int, ...]):
    original, derived = built(name, variant, group)
    return extract_properties(original), extract_properties(derived)


def second_params(params: dict[str, int]) -> dict[str, int]:
    """Another parameter set, again not a multiple of any group size."""
    return {k: 2 * v + 3 for k, v in params.items()}


def run(queue, knl: lp.TranslationUnit, args: dict) -> dict[str, np.ndarray]:
    knl = lp.set_options(knl, return_dict=True)
    _evt, out = knl.executor(queue)(queue, **args)
    return {k: v.get() if hasattr(v, "get") else v for k, v in out.items()}


def lowest(dtype) -> float:
    return np.finfo(dtype).min


def max_over(values: list[np.ndarray], dtype) -> float:
    """Max of several (possibly empty) arrays; a carrier nothing was loaded into
    keeps the dtype's lowest value."""
    present = [v.max() for v in values if v.size]
    return max(present) if present else lowest(dtype)


# }}}


# {{{ what each derived kernel must store: a model of its per-work-item loads

def ref_matmul_tiled(inp, p, g):
    # Work item (l1, l0) fetches a[i, l0 + g0*t] and b[l1 + g1*s + g0*t, j] for all
    # t (k tiles of length g0) and s (passes over a b tile taller than the group).
    a, b = inp["a"], inp["b"]
    g0, g1 = g
    m = p["m"]
    c = np.empty((p["n"], p["l"]), a.dtype)
    for i in range(p["n"]):
        b_rows = np.arange(m)[np.isin(np.arange(m) % g0, np.arange(i % g1, g0, g1))]
        for j in range(p["l"]):
            c[i, j] = max_over([a[i, j % g0::g0], b[b_rows, j]], a.dtype)
    return {"c": c}


def ref_transpose_prefetch(inp, p, g):
    # Work item (l1, l0) of group (gi, gj) fetches a[g1*gj + l1, g0*gi + l0] and
    # stores out[g1*gi + l1, g0*gj + l0]: the tile's transpose is done by no one.
    a, n = inp["a"], p["n"]
    g0, g1 = g
    assert g0 == g1
    out = np.full((n, n), lowest(a.dtype), a.dtype)
    for i in range(n):
        for j in range(n):
            r, s = g0 * (j // g0) + i % g0, g0 * (i // g0) + j % g0
            if r < n and s < n:
                out[i, j] = a[r, s]
    return {"out": out}


def ref_finite_diff(inp, p, g):
    # The (g1+2) x (g0+2) tile is fetched in passes of g1 x g0: rows l1, l1+g1, ...
    u, n = inp["u"], p["n"]
    g0, g1 = g
    out = np.empty((n, n), u.dtype)
    for i in range(n):
        for j in range(n):
            r0, c0 = g1 * (i // g1), g0 * (j // g0)
            rows = np.arange(i % g1, min(g1 + 2, n + 2 - r0), g1)
            cols = np.arange(j % g0, min(g0 + 2, n + 2 - c0), g0)
            out[i, j] = max_over([u[np.ix_(r0 + rows, c0 + cols)]], u.dtype)
    return {"out": out}


def ref_convolution(inp, p, g):
    m, f, n = inp["m"], inp["f"], p["n"]
    g0, g1 = g
    r = np.empty((3, 3, n, n), m.dtype)
    for x in range(n):
        for y in range(n):
            l1, l0 = x % g1, y % g0
            x0, y0 = x - l1, y - l0
            rows = np.arange(l1, min(g1 + 6, n + 6 - x0), g1)
            cols = np.arange(l0, min(g0 + 6, n + 6 - y0), g0)
            f_part = [f[:, :, l1, l0]] if l1 < 7 and l0 < 3 else []
            for img in range(3):
                r[img, :, x, y] = max_over(
                    [m[img][np.ix_(x0 + rows, y0 + cols)], *f_part], m.dtype)
    return {"r": r}


def ref_nbody(inp, p, g):
    x, n = inp["x"], p["n"]
    (g0,) = g
    out = np.array([max(x[:, i].max(), x[:, i % g0::g0].max()) for i in range(n)],
                   x.dtype)
    return {"out": out}


REFERENCES = {
    ("matmul_tiled", "square"): ref_matmul_tiled,
    ("matmul_naive", "default"): lambda inp, p, g: {
        "c": np.maximum(inp["a"].max(axis=1)[:, None], inp["b"].max(axis=0)[None, :])},
    ("transpose", "prefetch"): ref_transpose_prefetch,
    ("transpose", "read_strided"): lambda inp, p, g: {"out": inp["a"].T},
    ("transpose", "write_strided"): lambda inp, p, g: {"out": inp["a"].T},
    ("finite_diff", "default"): ref_finite_diff,
    ("convolution", "default"): ref_convolution,
    ("nbody", "default"): ref_nbody,
    ("vector_scale_add", "stride2"): lambda inp, p, g: {
        "out": np.maximum(inp["x"][::2], inp["y"][::2])},
    ("global_access", "sum4"): lambda inp, p, g: {
        "out": np.maximum.reduce([inp[v] for v in "abcd"])},
    ("arith", "mul"): lambda inp, p, g: {
        "out": np.zeros((p["n"], p["n"]), np.float32)},
}

# }}}


# {{{ counts

@pytest.mark.parametrize("name,variant,group", CASES, ids=IDS)
def test_global_accesses_and_groups_identical(name, variant, group):
    original, derived = properties(name, variant, group)
    params = dict(get_kernel(name).check_params)
    for values in (params, second_params(params)):
        before = original.evaluate_named(values)
        after = derived.evaluate_named(values)
        glob = {k: v for k, v in before.items() if k.startswith("f_mem_access_global_")}
        assert glob, "every catalog kernel stores to global memory"
        assert {k: v for k, v in after.items()
                if k.startswith("f_mem_access_global_")} == glob
        assert after["f_thread_groups"] == before["f_thread_groups"]


@pytest.mark.parametrize("name,variant,group", CASES, ids=IDS)
def test_no_float_work_no_local_memory(name, variant, group):
    original, derived = properties(name, variant, group)
    params = dict(get_kernel(name).check_params)
    after = derived.evaluate_named(params)
    on_chip = {k: v for k, v in after.items() if v and (
        k.startswith(("f_op_float32_", "f_op_float64_", "f_mem_access_local_"))
        or k == "f_sync_barrier_local")}
    assert on_chip == {}
    knl = derived.program[derived.program.default_entrypoint.name]
    assert all(t.address_space == lp.AddressSpace.PRIVATE
               for t in knl.temporary_variables.values())


@pytest.mark.parametrize("name,variant,group", CASES, ids=IDS)
def test_same_accesses_per_array(name, variant, group):
    """Not just the totals: every array keeps its loads and stores, with the same
    strides along every hardware axis."""
    original, derived = properties(name, variant, group)
    params = dict(get_kernel(name).check_params)

    def per_access(props):
        values = evaluate_many({k: r.count for k, r in enumerate(props.accesses)},
                               params)
        out: dict = {}
        for k, r in enumerate(props.accesses):
            if r.mtype == "global":
                key = (r.variable, r.direction, r.lid_strides, r.gid_strides)
                out[key] = out.get(key, 0) + int(values[k])
        return out

    assert per_access(derived) == per_access(original)


def test_derived_kernel_keeps_name_tags_and_grid():
    original, derived = built("matmul_tiled", "square", (16, 16))
    assert derived.default_entrypoint.name == "matmul_tiled" + SUFFIX
    o_knl, d_knl = original["matmul_tiled"], derived["matmul_tiled" + SUFFIX]
    # Every iname that still has work keeps its tag; k_inner (the loop over the
    # local tiles) is gone with that work.
    assert set(o_knl.inames) - set(d_knl.inames) == {"k_inner"}
    for iname, iname_obj in d_knl.inames.items():
        if iname in o_knl.inames:
            assert iname_obj.tags == o_knl.inames[iname].tags
    o_grid = o_knl.get_grid_size_upper_bounds_as_exprs(original.callables_table)
    d_grid = d_knl.get_grid_size_upper_bounds_as_exprs(derived.callables_table)
    assert str(o_grid) == str(d_grid)


# }}}


# {{{ running

@pytest.mark.parametrize("name,variant,group", CASES, ids=IDS)
def test_runs_and_stores_what_it_loads(queue, name, variant, group):
    spec = get_kernel(name)
    params = dict(spec.check_params)
    _original, derived = built(name, variant, group)
    inputs = spec.inputs(params, DType.FLOAT32, np.random.default_rng(3), variant)
    out = run(queue, derived, {**inputs, **params})
    expected = REFERENCES[name, variant](inputs, params, group)
    for arg, value in expected.items():
        np.testing.assert_array_equal(out[arg], value, err_msg=f"{name}: {arg}")


@pytest.mark.parametrize("name,variant,group",
                         [c for c in CASES if c[0] != "arith"],
                         ids=[i for i in IDS if not i.startswith("arith")])
def test_output_depends_on_inputs(queue, name, variant, group):
    spec = get_kernel(name)
    params = dict(spec.check_params)
    _original, derived = built(name, variant, group)
    outs = []
    for seed in (5, 6):
        inputs = spec.inputs(params, DType.FLOAT32, np.random.default_rng(seed), variant)
        outs.append(run(queue, derived, {**inputs, **params}))
        loaded = np.concatenate([v.ravel() for v in inputs.values()
                                 if isinstance(v, np.ndarray)])
        for value in outs[-1].values():
            stored = value[value != lowest(value.dtype)]
            assert stored.size and np.isin(stored, loaded).all()
    for arg in outs[0]:
        assert not np.array_equal(outs[0][arg], outs[1][arg])


@pytest.mark.parametrize("name,variant,group", [
    ("matmul_tiled", "square", (24, 16)),   # b tiles taller than the group
    ("matmul_tiled", "l_half", (16, 12)),
    ("transpose", "read_strided", (32, 16)),
    ("finite_diff", "default", (32, 16)),
    ("nbody", "default", (384,)),
], ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v)
def test_other_group_sizes(queue, name, variant, group):
    spec = get_kernel(name)
    params = dict(spec.check_params)
    _original, derived = built(name, variant, group)
    inputs = spec.inputs(params, DType.FLOAT32, np.random.default_rng(4), variant)
    out = run(queue, derived, {**inputs, **params})
    for arg, value in REFERENCES[name, "square" if name == "matmul_tiled" else variant](
            inputs, params, group).items():
        np.testing.assert_array_equal(out[arg], value)


def test_float64(queue):
    spec = get_kernel("finite_diff")
    params = dict(spec.check_params)
    _original, derived = built("finite_diff", "default", (16, 12), "float64")
    inputs = spec.inputs(params, DType.FLOAT64, np.random.default_rng(0))
    out = run(queue, derived, {**inputs, **params})
    expected = ref_finite_diff(inputs, params, (16, 12))["out"]
    assert expected.dtype == np.float64
    np.testing.assert_array_equal(out["out"], expected)


# }}}


# {{{ specs

def test_work_removed_spec(queue):
    from workbench.measure.runner import KernelRunner

    spec = get_kernel("vector_scale_add")
    wr = work_removed_spec(spec)
    assert wr.name == "vector_scale_add" + SUFFIX
    assert (wr.parameters, wr.variants, wr.group_sizes(), wr.role) == \
        (spec.parameters, spec.variants, spec.group_sizes(), KernelRole.MEASUREMENT)
    assert wr.cases(20, "stride3") == spec.cases(20, "stride3")
    req = wr.request("stride3", "float32", (256,))
    assert wr.build(req).default_entrypoint.name == "vector_scale_add" + SUFFIX
    inputs = wr.inputs(wr.check_params, DType.FLOAT32, np.random.default_rng(0), "stride3")
    assert set(inputs) == {"x", "y", "alpha", "beta"}  # no new argument needed
    assert wr.expected(inputs, wr.check_params, "stride3") == {}

    import pyopencl as cl

    runner = KernelRunner(cl.CommandQueue(
        queue.context, properties=cl.command_queue_properties.PROFILING_ENABLE))
    args = runner.allocate(wr, req, {"n": 4096})
    assert runner.run_once(wr, req, args) > 0
    out = {k: v.get() for k, v in args.items() if hasattr(v, "get")}
    np.testing.assert_array_equal(out["out"], np.maximum(out["x"][::3], out["y"][::3]))


def _index_temp_kernel() -> lp.TranslationUnit:
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        <int32> k = idx[i]
        out[i] = 2.0f*a[k] + a[i]
        """,
        [lp.GlobalArg("a", np.float32, shape=("n",)),
         lp.GlobalArg("idx", np.int32, shape=("n",)),
         lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("n", np.int32)],
        name="gather", lang_version=LV)
    return lp.split_iname(knl, "i", 64, outer_tag="g.0", inner_tag="l.0")


def test_user_kernel_with_index_temporary(queue):
    """Index arithmetic (here through a loaded index) is kept verbatim."""
    knl = _index_temp_kernel()
    wr = work_removed_spec(spec_from_loopy(knl))
    assert wr.name == "gather" + SUFFIX
    derived = wr.build(wr.request())
    params = {"n": 1000}
    before = extract_properties(knl).evaluate_named(params)
    after = extract_properties(derived).evaluate_named(params)
    assert {k: v for k, v in after.items() if "global" in k} == \
        {k: v for k, v in before.items() if "global" in k}
    assert not any(k.startswith("f_op_float") and v for k, v in after.items())
    rng = np.random.default_rng(0)
    a = rng.random(1000, dtype=np.float32)
    idx = rng.permutation(1000).astype(np.int32)
    out = run(queue, derived, {"a": a, "idx": idx, "n": 1000})
    np.testing.assert_array_equal(out["out"], np.maximum(a[idx], a))


def test_user_kernel_with_local_memory_and_barrier(queue):
    """A hand-written local tile and explicit barrier disappear."""
    knl = lp.make_kernel(
        "{[g, l, j]: 0 <= g < ng and 0 <= l, j < 32}",
        """
        <> tile[j] = a[32*g + j] {id=fetch}
        ... lbarrier {id=sync, dep=fetch}
        out[32*g + l] = 2.0f*tile[(l + 1) % 32] {dep=sync}
        """,
        [lp.GlobalArg("a", np.float32, shape=("32*ng",)),
         lp.GlobalArg("out", np.float32, shape=("32*ng",)), lp.ValueArg("ng", np.int32)],
        name="shift", lang_version=LV)
    knl = lp.tag_inames(knl, {"g": "g.0", "l": "l.0", "j": "l.0"})
    knl = lp.set_temporary_address_space(knl, "tile", "local")
    derived = remove_work(knl)
    after = extract_properties(derived).evaluate_named({"ng": 3})
    assert not any(("local" in k or k.startswith("f_op_float")) and v
                   for k, v in after.items())
    assert not any(isinstance(i, lp.BarrierInstruction)
                   for i in derived["shift" + SUFFIX].instructions)
    a = np.random.default_rng(0).random(96, dtype=np.float32)
    out = run(queue, derived, {"a": a, "ng": 3})
    np.testing.assert_array_equal(out["out"], a)  # each item stores what it fetched


def test_unsupported_kernels_are_refused():
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}",
        [lp.CInstruction("i", "out[i] = 1;", assignees="out[i]", read_variables="")],
        [lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("n", np.int32)],
        lang_version=LV)
    with pytest.raises(UnsupportedKernelError, match="raw C"):
        remove_work(knl)
    from loopy.preprocess import preprocess_program
    original, _ = built("matmul_naive", "default", (16, 16))
    with pytest.raises(UnsupportedKernelError, match="preprocessed"):
        remove_work(preprocess_program(original))


# }}}


# {{{ access tags

def test_tags_reach_loopy_and_the_access_records():
    original, _ = built("matmul_tiled", "square", (16, 16))
    tagged = tag_global_accesses(original, {"a": "aLD", "b": "bLD", "c": "cST"})
    params = dict(get_kernel("matmul_tiled").check_params)

    def tagged_counts(knl) -> dict:
        props = extract_properties(knl)
        values = evaluate_many({k: r.count for k, r in enumerate(props.accesses)}, params)
        out: dict = {}
        for k, r in enumerate(props.accesses):
            if r.mtype != "global":
                continue
            # The record holds loopy's tag (its text has the tag's value in it).
            tag = next(t for t in ("aLD", "bLD", "cST") if any(t in s for s in r.tags))
            key = (r.variable, tag, r.direction.value)
            out[key] = out.get(key, 0) + int(values[k])
        return out

    derived = remove_work(tagged)
    for knl in (tagged, derived):
        mem = lp.get_mem_access_map(knl, subgroup_size=32)
        tags = {(a.variable, t.value) for a in mem.keys() if a.mtype == "global"
                for t in a.variable_tags}
        assert tags == {("a", "aLD"), ("b", "bLD"), ("c", "cST")}
    assert tagged_counts(derived) == tagged_counts(tagged)
    assert set(tagged_counts(tagged)) == {("a", "aLD", "load"), ("b", "bLD", "load"),
                                          ("c", "cST", "store")}


def test_tagging_an_unknown_array_fails():
    original, _ = built("transpose", "prefetch", (16, 16))
    with pytest.raises(UnknownNameError):
        tag_global_accesses(original, {"a_fetch": "x"})


# }}}
