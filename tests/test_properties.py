"""Property extraction pinned against closed forms derived by hand."""

import numpy as np
import loopy as lp
import pytest

from workbench.errors import ParameterError, UnknownNameError, UnsupportedKernelError
from workbench.properties import (
    Direction, GlobalAccess, LocalAccess, OpCount, OpKind, StrideFraction,
    extract_properties, parse_feature,
)
from workbench.properties.features import Granularity

LV = (2018, 2)


def test_triangular_domain_counted_exactly():
    # sum over j <= i: n(n+1)/2 multiply-adds; barvinok makes this exact, not a box.
    knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<=i}",
                         "out[i] = sum(j, a[i, j]*2.0f)",
                         [lp.GlobalArg("a", np.float32, shape=("n", "n")),
                          lp.GlobalArg("out", np.float32, shape=("n",)), ...],
                         lang_version=LV)
    knl = lp.split_iname(knl, "i", 64, outer_tag="g.0", inner_tag="l.0")
    props = extract_properties(knl)
    for n in (64, 128, 640):
        v = props.evaluate({"n": n})
        assert v[OpCount("float32", OpKind.MUL)] == n * (n + 1) // 2
        assert v[OpCount("float32", OpKind.ADD)] == n * (n + 1) // 2
    # vectorized evaluation agrees with scalar evaluation
    ns = np.array([64, 128, 640])
    vec = props.evaluate({"n": ns})[OpCount("float32", OpKind.MUL)]
    assert list(vec) == [n * (n + 1) // 2 for n in ns]


def test_stride_two_half_used_vs_fully_used():
    def kernel(insn):
        k = lp.make_kernel("{[i]: 0<=i<n}", insn,
                           [lp.GlobalArg("a", np.float32, shape=("3*n",)),
                            lp.GlobalArg("out", np.float32, shape=("n",)), ...],
                           lang_version=LV)
        return lp.split_iname(k, "i", 128, outer_tag="g.0", inner_tag="l.0")

    half = extract_properties(kernel("out[i] = a[2*i]")).evaluate_named({"n": 1024})
    assert half["f_mem_access_global_float32_load_frac1of2"] == 1024
    assert "f_mem_access_global_float32_load_frac2of2" not in half or \
        half["f_mem_access_global_float32_load_frac2of2"] == 0
    full = extract_properties(kernel("out[i] = a[2*i] + a[2*i+1]")).evaluate_named({"n": 1024})
    assert full["f_mem_access_global_float32_load_frac2of2"] == 2048
    assert full.get("f_mem_access_global_float32_load_frac1of2", 0) == 0
    third = extract_properties(kernel("out[i] = a[3*i] + a[3*i+1]")).evaluate_named({"n": 999})
    assert third["f_mem_access_global_float32_load_frac2of3"] == 2 * 999


def test_feature_names_round_trip():
    names = ["f_op_float32_add", "f_op_float64_special", "f_sync_barrier_local",
             "f_thread_groups", "f_sync_kernel_launch",
             "f_mem_access_global_float32_load_stride1",
             "f_mem_access_global_float64_store_frac3ofgt4",
             "f_mem_access_global_float32_minls_frac2of2",
             "f_mem_access_local_float32_load"]
    for name in names:
        assert parse_feature(name).name == name
    assert parse_feature("f_mem_access_global_float32_load_frac1of3") == \
        GlobalAccess("float32", Direction.LOAD, StrideFraction(3, 1))
    assert StrideFraction(None, 4).label == "4/>4"
    with pytest.raises(UnknownNameError):
        parse_feature("f_op_float32_madd")


def test_errors_name_the_cause():
    knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]",
                         [lp.GlobalArg("a,out", np.float32, shape=("n",)), ...],
                         assumptions="n mod 4 = 0", lang_version=LV)
    props = extract_properties(knl)
    with pytest.raises(ParameterError, match="needs a value for parameter"):
        props.evaluate({})
    with pytest.raises(UnknownNameError, match="unknown parameter"):
        props.evaluate({"n": 8, "q": 1})
    with pytest.raises(ParameterError, match="assumptions"):
        props.evaluate({"n": 6})
    with pytest.raises(ParameterError, match="sub-group size"):
        extract_properties(knl, granularity=Granularity.SUBGROUP)


def test_data_dependent_bounds_are_refused():
    knl = lp.make_kernel(
        ["{[i]: 0<=i<n}", "{[j]: jstart<=j<jend}"],
        """
        <> jstart = rowptr[i]  {id=s}
        <> jend = rowptr[i+1]  {id=e}
        out[i] = sum(j, vals[j])  {dep=s:e}
        """,
        [lp.GlobalArg("rowptr", np.int32, shape=("n+1",)),
         lp.GlobalArg("vals", np.float32, shape=("nnz",)),
         lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("nnz", np.int32), ...],
        lang_version=LV)
    with pytest.raises(UnsupportedKernelError, match="depend on data"):
        extract_properties(knl)


def test_unsupported_dtype_is_refused():
    knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]",
                         [lp.GlobalArg("a,out", np.complex64, shape=("n",)), ...],
                         lang_version=LV)
    with pytest.raises(UnsupportedKernelError, match="complex64"):
        extract_properties(knl)


def test_min_and_max_reductions_and_fmin_fmax_are_additions_not_special():
    # loopy reports a reduction's min and OpenCL's fmax as functions ("func:min"),
    # but they are one ALU instruction, as the binary min loopy calls "maxmin"
    knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<8}",
                         "out[i] = fmax(min(j, a[i, j]), 0.0f)",
                         [lp.GlobalArg("a", np.float32, shape=("n", 8)),
                          lp.GlobalArg("out", np.float32, shape=("n",)), ...],
                         lang_version=LV)
    knl = lp.split_iname(knl, "i", 64, outer_tag="g.0", inner_tag="l.0")
    v = extract_properties(knl).evaluate({"n": 128})
    assert v.get(OpCount("float32", OpKind.SPECIAL), 0) == 0
    assert v[OpCount("float32", OpKind.ADD)] == 128 * 8 + 128


def test_an_element_read_twice_in_one_expression_is_one_load():
    # the compiler loads a[i] once for a[i]*a[i]; loopy counts every occurrence
    knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = a[i]*a[i] + b[i]",
                         [lp.GlobalArg("a,b,out", np.float32, shape=("n",)), ...],
                         lang_version=LV)
    knl = lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")
    v = extract_properties(knl).evaluate_named({"n": 4096})
    assert v["f_mem_access_global_float32_load_stride1"] == 2 * 4096


def test_a_repeated_arithmetic_subexpression_is_counted_once():
    # the compiler computes (a[i] - b[i]) once for (a[i] - b[i])*(a[i] - b[i]) + c[i];
    # loopy counts both subtractions (round 10 of #34: nearest_center_dist)
    knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = (a[i] - b[i])*(a[i] - b[i]) + c[i]",
                         [lp.GlobalArg("a,b,c,out", np.float32, shape=("n",)), ...],
                         lang_version=LV)
    knl = lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")
    v = extract_properties(knl).evaluate_named({"n": 4096})
    assert v["f_op_float32_add"] == 2 * 4096      # one subtraction, one addition
    assert v["f_op_float32_mul"] == 4096


def test_subgroup_granularity_counts_arithmetic_per_subgroup():
    knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + s",
                         [lp.GlobalArg("a,out", np.float32, shape=("n",)),
                          lp.ValueArg("s", np.float32), ...], lang_version=LV)
    knl = lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")
    wi = extract_properties(knl).evaluate_named({"n": 4096})
    sg = extract_properties(knl, granularity="subgroup", subgroup_size=32
                            ).evaluate_named({"n": 4096})
    assert wi["f_op_float32_mul"] == 4096
    assert sg["f_op_float32_mul"] == 4096 // 32
    # non-uniform global accesses stay per work item in both
    assert sg["f_mem_access_global_float32_load_stride1"] == 4096


def test_evaluation_is_exact_where_int64_intermediates_overflow():
    # barvinok's halo counts are polynomials whose terms reach n**5 / 4096: far past
    # int64 at n ~ 2**21, while the counts themselves stay small.  Compare with isl.
    from workbench.kernels import get_kernel
    from workbench.properties import kernel_properties
    from workbench.properties.counting import access_counts, prepare
    spec = get_kernel("finite_diff")
    props = kernel_properties(spec)
    mem = access_counts(prepare(spec.build(spec.request())), Granularity.WORKITEM, None)
    poly = next(p for a, p in mem.items() if a.mtype == "global" and a.direction == "load")
    ns = np.array([100, 4096, 32768, 1 << 20, 3 << 20, (1 << 22) + 17])
    vec = props.evaluate({"n": ns})[GlobalAccess("float32", Direction.LOAD, StrideFraction(1))]
    for n, v in zip(ns, vec):
        assert int(v) == poly.eval_with_dict({"n": int(n)})


def test_counts_beyond_int64_come_back_as_exact_integers():
    knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<=i}", "out[i] = sum(j, a[i, j]*2.0f)",
                         [lp.GlobalArg("a", np.float32, shape=("n", "n")),
                          lp.GlobalArg("out", np.float32, shape=("n",)), ...],
                         lang_version=LV)
    props = extract_properties(lp.split_iname(knl, "i", 64, outer_tag="g.0",
                                              inner_tag="l.0"))
    n = 2**33
    value = props.evaluate({"n": n})[OpCount("float32", OpKind.MUL)]
    assert int(value) == n * (n + 1) // 2 > 2**63


def _loopy_local_barriers(program):
    from workbench.properties.counting import prepare
    from workbench.properties.symbolic import pwqpolynomial_to_expr

    sync = lp.get_synchronization_map(prepare(program), subgroup_size=1)
    return sum((pwqpolynomial_to_expr(p.pwqpolynomial) for s, p in sync.items()
                if s.kind == "barrier_local"), 0)


@pytest.mark.parametrize("case", ["prefetch", "explicit", "plain"])
def test_local_barriers_as_loopy_counts_them(case, monkeypatch):
    """The barrier count from one linearization of the prepared kernel (or none where
    loopy inserts no local barrier) equals loopy's own synchronization map."""
    import loopy.schedule
    from pymbolic import evaluate

    from workbench.properties.counting import local_barriers, prepare
    from workbench.properties.symbolic import pwqpolynomial_to_expr

    if case == "explicit":     # a barrier the kernel's author wrote, no local array
        knl = lp.make_kernel("{[i, k]: 0 <= i < n and 0 <= k < m}",
                             """
                             for k
                                 out[i] = out[i] + a[k, i] {id=acc}
                                 ... lbarrier {id=bar, dep=acc}
                             end
                             """,
                             [lp.GlobalArg("a", np.float32, shape=("m", "n")),
                              lp.GlobalArg("out", np.float32, shape=("n",)), ...],
                             lang_version=LV)
    else:
        knl = lp.make_kernel("{[i, j, k]: 0 <= i, j, k < n}",
                             "c[i, j] = sum(k, a[i, k] * b[k, j])",
                             [lp.GlobalArg("a, b", np.float32, shape=("n", "n")),
                              lp.GlobalArg("c", np.float32, shape=("n", "n")), ...],
                             lang_version=LV)
        knl = lp.split_iname(knl, "j", 16, outer_tag="g.0", inner_tag="l.0")
    knl = lp.split_iname(knl, "i", 16, outer_tag="g.1", inner_tag="l.1")
    if case == "prefetch":
        knl = lp.split_iname(knl, "k", 8)
        knl = lp.add_prefetch(knl, "a", ["i_inner", "k_inner"],
                              fetch_outer_inames="i_outer, j_outer, k_outer",
                              default_tag="l.auto")
    want = _loopy_local_barriers(knl)
    if case == "plain":        # no local array, no barrier instruction: not linearized
        monkeypatch.setattr(loopy.schedule, "_get_one_linearized_kernel_inner", None)
    got = local_barriers(prepare(knl))
    got = 0 if isinstance(got, int) else pwqpolynomial_to_expr(got.pwqpolynomial)
    for values in ({"n": 64, "m": 5}, {"n": 160, "m": 9}):
        assert evaluate(got, values) == evaluate(want, values)
    assert (want == 0) == (case == "plain")
