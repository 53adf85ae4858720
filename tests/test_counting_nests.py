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
    for insn in insns:
        for level in (CountGranularity.WORKITEM, CountGranularity.WORKGROUP,
                      CountGranularity.SUBGROUP):
            if (insn.id, level) not in runs:
                continue
            theirs = _get_insn_count(knl, pre.callables_table, insn.id, 32, True, level)
            assert runs[insn.id, level].eval_with_dict(PARAMS) == \
                theirs.eval_with_dict(PARAMS), (insn.id, level)


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
            continue        # x*x - y: the repeated product counted once here
        lanes = 32 if key.count_granularity == "subgroup" else 1
        ours = ops[key].eval_with_dict(PARAMS)
        assert ours <= lanes * count.eval_with_dict(PARAMS), key
    # float products: c n^3, d n^2, e n^2 (x*x once); the index arithmetic is int32
    mul = [k for k in ops if k.name == "mul" and k.dtype.numpy_dtype == np.float32]
    assert sum(ops[k].eval_with_dict(PARAMS) for k in mul) == 64 ** 3 + 2 * 64 ** 2
