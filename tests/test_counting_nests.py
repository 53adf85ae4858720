"""Run counts shared by the instructions of one loop nest, and one set of counters per
kernel: the same counts as loopy's own per-instruction ones (``_get_insn_count``) and
maps (``get_op_map``, ``get_mem_access_map``), on a kernel whose instructions share
nests and differ in them (a prefetch into local memory, two products in one nest, a
reduction)."""

from __future__ import annotations

import warnings

import loopy as lp
import numpy as np
import pytest

PARAMS = {"n": 64}


def _kernel():
    knl = lp.make_kernel(
        "{[i, j, k]: 0 <= i, j, k < n}",
        """
        c[i, j] = sum(k, a[i, k] * b[k, j])
        d[i, j] = 2 * x[i, j] + y[j, i]
        e[i, j] = x[i, j] * x[i, j] - y[i, j]
        """,
        [lp.GlobalArg("a, b, x, y", np.float32, shape=("n", "n")),
         lp.GlobalArg("c, d, e", np.float32, shape=("n", "n"), is_output=True),
         lp.ValueArg("n", np.int32)],
        name="nests", lang_version=(2018, 2), assumptions="n >= 16 and n mod 16 = 0")
    knl = lp.split_iname(knl, "i", 16, outer_tag="g.1", inner_tag="l.1")
    knl = lp.split_iname(knl, "j", 16, outer_tag="g.0", inner_tag="l.0")
    knl = lp.split_iname(knl, "k", 16)
    return lp.add_prefetch(knl, "b", ["k_inner", "j_inner"],
                           fetch_outer_inames="i_outer, j_outer, k_outer",
                           default_tag="l.auto")


@pytest.mark.parametrize("granularity", ["workitem", "subgroup"])
def test_nest_runs_equal_loopys_per_instruction(granularity):
    from loopy.kernel.instruction import Assignment
    from loopy.statistics import CountGranularity, _get_insn_count

    from workbench.kernels.base import entry_kernel
    from workbench.properties.counting import access_counts, op_counts, prepare
    from workbench.properties.features import Granularity

    warnings.filterwarnings("ignore")
    pre = prepare(_kernel())
    runs: dict = {}
    op_counts(pre, Granularity(granularity), 32, runs)
    access_counts(pre, Granularity(granularity), 32, runs)
    knl = entry_kernel(pre)
    insns = [i for i in knl.instructions if isinstance(i, Assignment)]
    nests = {key for key in runs if not isinstance(key[0], str)}
    # instructions did share a nest (three statements in the i, j nest at least)
    assert 0 < len(nests) < len(insns)
    checked = set()
    for insn in insns:
        for level in (CountGranularity.WORKITEM, CountGranularity.WORKGROUP,
                      CountGranularity.SUBGROUP):
            if (insn.id, level) not in runs:
                continue
            theirs = _get_insn_count(knl, pre.callables_table, insn.id, 32, True, level)
            assert runs[insn.id, level].eval_with_dict(PARAMS) == \
                theirs.eval_with_dict(PARAMS), (insn.id, level)
            checked.add(insn.id)
    # every instruction but a reduction's ``acc = 0`` (which counts nothing) was compared
    assert len(checked) >= len(insns) - 1 >= 4


def test_counters_per_kernel_equal_loopys_maps():
    from workbench.properties.counting import access_counts, op_counts, prepare
    from workbench.properties.features import Granularity

    warnings.filterwarnings("ignore")
    knl = _kernel()
    pre = prepare(knl)
    runs: dict = {}
    ops = op_counts(pre, Granularity.WORKITEM, None, runs)
    mem = access_counts(pre, Granularity.WORKITEM, None, runs)
    theirs = lp.get_mem_access_map(knl, subgroup_size="guess")
    checked = 0
    for key, count in theirs.count_map.items():
        if key.count_granularity != "workitem":
            continue
        # x[i, j] * x[i, j] loads x[i, j] once (as the compiler does), loopy twice
        extra = 64 ** 2 if key.variable == "x" and key.direction == "load" else 0
        assert mem[key].eval_with_dict(PARAMS) == count.eval_with_dict(PARAMS) - extra, key
        checked += 1
    assert checked >= 6
    theirs_ops = lp.get_op_map(knl, subgroup_size="guess", count_within_subscripts=True)
    for key, count in theirs_ops.count_map.items():
        if key.name not in ("add", "mul"):
            continue
        # loopy counts arithmetic a sub-group of 32 lanes (every one active), these a lane
        lanes = 32 if key.count_granularity == "subgroup" else 1
        ours = ops[key].eval_with_dict(PARAMS)
        assert ours == lanes * count.eval_with_dict(PARAMS), key
    # float products: c n^3, d n^2, e n^2 (x*x once); the index arithmetic is int32
    mul = [k for k in ops if k.name == "mul" and k.dtype.numpy_dtype == np.float32]
    assert sum(ops[k].eval_with_dict(PARAMS) for k in mul) == 64 ** 3 + 2 * 64 ** 2


def _hard_kernel():
    """Instructions a nest cache could confuse: a conditional instruction first in a
    nest that unconditional ones share, a nested reduction (its inner body in a deeper
    nest than its outer one), an instruction in the ``i`` nest alone between
    instructions of the ``i, j`` nest, a second ``j``-like loop (``jj``) beside ``j``,
    and a sequential loop (``t``) inside the parallel ones."""
    knl = lp.make_kernel(
        "{[i, j, jj, k, l, t]: 0 <= i, j, jj, k, l < n and 0 <= t < 3}",
        """
        for i, j
            if i < 10 and j >= 2
                g[i, j] = 3 * x[i, j]  {id=guarded}
            end
            c[i, j] = sum(k, a[i, k] * sum(l, b[k, l] * y[l, j]))  {id=nested}
            d[i, j] = x[i, j] + y[j, i]  {id=plain}
        end
        e[i] = 2 * x[i, 0] + 1  {id=row, inames=i}
        for i, jj
            f[i, jj] = x[jj, i] - 1  {id=other_j}
            for t
                h[t, i, jj] = t * y[i, jj]  {id=seq}
            end
        end
        """,
        [lp.GlobalArg("a, b, x, y", np.float32, shape=("n", "n")),
         lp.GlobalArg("c, d, f, g", np.float32, shape=("n", "n"), is_output=True),
         lp.GlobalArg("e", np.float32, shape=("n",), is_output=True),
         lp.GlobalArg("h", np.float32, shape=(3, "n", "n"), is_output=True),
         lp.ValueArg("n", np.int32)],
        name="hard_nests", lang_version=(2018, 2), seq_dependencies=False,
        assumptions="n >= 32 and n mod 32 = 0")
    knl = lp.split_iname(knl, "i", 32, outer_tag="g.0", inner_tag="l.0")
    return lp.split_iname(knl, "jj", 8, outer_tag="g.1")


def _uncached(monkeypatch):
    """The counting as before the nest cache: loopy's run count and fresh counters for
    every instruction."""
    import workbench.properties.counting as counting
    from loopy.statistics import _get_insn_count

    monkeypatch.setattr(counting, "_unguarded_runs",
                        lambda knl, callables, insn, level, sg, runs_of: _get_insn_count(
                            knl, callables, insn.id, sg, True, level))
    monkeypatch.setattr(counting, "_per_kernel", lambda made, knl, make: make())


@pytest.mark.parametrize("granularity", ["workitem", "subgroup"])
def test_the_nest_cache_changes_no_count_where_nests_are_shared_and_differ(
        granularity, monkeypatch):
    from loopy.kernel.instruction import Assignment
    from loopy.statistics import CountGranularity, _get_insn_count

    from workbench.kernels.base import entry_kernel
    from workbench.properties.counting import access_counts, op_counts, prepare
    from workbench.properties.features import Granularity

    warnings.filterwarnings("ignore")
    level = Granularity(granularity)
    params = {"n": 64}
    pre = prepare(_hard_kernel())
    runs: dict = {}
    cached = (op_counts(pre, level, 32, runs), access_counts(pre, level, 32, runs))
    knl = entry_kernel(pre)
    insns = {i.id: i for i in knl.instructions if isinstance(i, Assignment)}
    # the nested reduction is realized into instructions in (i, j), (i, j, k) and
    # (i, j, k, l); some share a nest, others do not
    nests = {i.within_inames for i in insns.values()}
    assert len(nests) >= 5 and len(nests) < len(insns)
    checked = 0
    for (name, count_level), count in runs.items():
        if not isinstance(name, str):
            continue
        insn = insns[name]
        value = count.eval_with_dict(params)
        if name == "guarded":
            # cut by its condition: i < 10 (one group of i) and 2 <= j < n (loopy
            # would count n * n), in each of the n / 8 groups of the axis it leaves unused
            work = {CountGranularity.WORKITEM: 10 * 62 * 8,
                    CountGranularity.WORKGROUP: 1 * 62 * 8,
                    CountGranularity.SUBGROUP: 1 * 62 * 8}  # one sub-group active
            assert value == work[count_level], count_level
        else:
            theirs = _get_insn_count(knl, pre.callables_table, name, 32, True, count_level)
            assert value == theirs.eval_with_dict(params), (name, count_level)
        checked += 1
    # every instruction that counts anything (a reduction's ``acc = 0`` counts nothing)
    counted = {n for n, _ in (k for k in runs if isinstance(k[0], str))}
    assert set(insns) - counted == {i for i in insns if i.endswith("_init")}
    assert checked >= len(counted) == 8
    _uncached(monkeypatch)
    fresh: dict = {}
    uncached = (op_counts(pre, level, 32, fresh), access_counts(pre, level, 32, fresh))
    for ours, before in zip(cached, uncached):
        assert ours.keys() == before.keys()
        for key in ours:
            assert ours[key].eval_with_dict(params) == before[key].eval_with_dict(params), key


def test_the_unconditional_counts_of_the_hard_kernel_equal_loopys_maps():
    from workbench.properties.counting import access_counts, op_counts, prepare
    from workbench.properties.features import Granularity

    warnings.filterwarnings("ignore")
    params = {"n": 64}
    knl = _hard_kernel()
    knl = knl.with_kernel(knl.default_entrypoint.copy(instructions=[
        i for i in knl.default_entrypoint.instructions if i.id != "guarded"]))
    pre = prepare(knl)
    runs: dict = {}
    ops = op_counts(pre, Granularity.WORKITEM, None, runs)
    mem = access_counts(pre, Granularity.WORKITEM, None, runs)
    theirs = lp.get_mem_access_map(knl, subgroup_size="guess", count_redundant_work=True)
    keys = [k for k in theirs.count_map if k.count_granularity == "workitem"]
    assert len(keys) >= 8
    for key in keys:
        assert mem[key].eval_with_dict(params) == \
            theirs.count_map[key].eval_with_dict(params), key
    # loopy counts arithmetic a sub-group (32 lanes, every one active here), these a lane
    theirs = lp.get_op_map(knl, subgroup_size="guess", count_redundant_work=True,
                           count_within_subscripts=True)
    assert len(theirs.count_map) >= 3
    for key, count in theirs.count_map.items():
        lanes = 32 if key.count_granularity == "subgroup" else 1
        assert ops[key].eval_with_dict(params) == lanes * count.eval_with_dict(params), key
