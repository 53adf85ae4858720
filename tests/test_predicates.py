"""Instructions under an ``if``: an affine condition counts as the same condition
written into the loop domain; a data-dependent one keeps loopy's count (an upper
bound) and is named."""

import islpy as isl
import numpy as np
import loopy as lp
import pytest

from workbench.kernels.base import entry_kernel
from workbench.properties import Direction, OpCount, OpKind, extract_properties
from workbench.properties.accesses import kernel_accesses
from workbench.properties.counting import prepare
from workbench.properties.features import (
    GlobalAccess, LocalAccess, StrideFraction, ThreadGroups,
)
from workbench.properties.predicates import insn_runs, unresolved_predicates

LV = (2018, 2)
ARGS = [lp.GlobalArg("x,y", np.float32, shape=("n",)), ...]
MUL = OpCount("float32", OpKind.MUL)
ADD = OpCount("float32", OpKind.ADD)


def _work(knl, granularity, subgroup_size, params):
    """The counts of the work itself: operations and accesses (the launch grid of
    the two forms may differ, as a domain cut shrinks it)."""
    props = extract_properties(knl, granularity=granularity, subgroup_size=subgroup_size,
                               barriers=False)
    values = props.evaluate(params)
    return {f: int(v) for f, v in values.items()
            if isinstance(f, (OpCount, GlobalAccess, LocalAccess)) and v}


def _split(knl, size=128):
    return lp.split_iname(knl, "i", size, outer_tag="g.0", inner_tag="l.0")


def _tree(guarded: bool):
    """A work group's 128 values summed in local memory, level by level: each level
    ``if li < h`` (guarded) or over its own local iname of h lanes (domain)."""
    levels = [64, 32, 16, 8, 4, 2, 1]
    if guarded:
        domain = "{[g, li]: 0<=g<ng and 0<=li<128}"
        steps = [f"if li < {h}\n  acc[li] = acc[li] + acc[li + {h}] {{id=s{h}, dep=*}}\nend"
                 for h in levels]
    else:
        domain = ["{[g, li]: 0<=g<ng and 0<=li<128}",
                  *(f"{{[l{h}]: 0<=l{h}<{h}}}" for h in levels)]
        steps = [f"acc[l{h}] = acc[l{h}] + acc[l{h} + {h}] {{id=s{h}, dep=*}}"
                 for h in levels]
    knl = lp.make_kernel(
        domain,
        ["acc[li] = x[g*128 + li] {id=load}", *steps,
         "y[g] = acc[0] {id=store, dep=*}"],
        [lp.GlobalArg("x", np.float32, shape=("128*ng",)),
         lp.GlobalArg("y", np.float32, shape=("ng",)),
         lp.TemporaryVariable("acc", np.float32, shape=(128,),
                              address_space=lp.AddressSpace.LOCAL), ...],
        lang_version=LV, silenced_warnings=["write_race*"])
    tags = {"g": "g.0", "li": "l.0"}
    if not guarded:
        tags.update({f"l{h}": "l.0" for h in levels})
    return lp.tag_inames(knl, tags)


def test_a_tree_under_if_li_lt_h_counts_as_the_tree_over_shrinking_domains():
    guarded = _work(_tree(True), "workitem", None, {"ng": 5})
    assert guarded == _work(_tree(False), "workitem", None, {"ng": 5})
    # 127 additions per group, not 7 levels of 128 lanes
    assert guarded[ADD] == 5 * 127


def test_a_tree_under_if_counts_the_warps_that_have_a_working_lane():
    """Level h of 128 lanes runs in ceil(h / 32) warps: 2 + 6 * 1 per group, where
    loopy charges the domain form's every level all 4 warps of the group."""
    warps = sum(-(-h // 32) for h in (64, 32, 16, 8, 4, 2, 1))
    guarded = _work(_tree(True), "subgroup", 32, {"ng": 5})
    assert guarded[ADD] == 5 * warps
    # each level loads two values and stores one; the first store and last load are
    # unguarded: the group's 4 warps
    assert guarded[LocalAccess("float32", Direction.LOAD)] == 5 * (2 * warps + 4)
    assert guarded[LocalAccess("float32", Direction.STORE)] == 5 * (warps + 4)
    assert _work(_tree(False), "subgroup", 32, {"ng": 5})[ADD] == 5 * 7 * 4


def _triangle(guarded: bool):
    """``if li < s`` inside an enclosing sequential loop over s."""
    cut = "" if guarded else " and li < s"
    knl = lp.make_kernel(
        f"{{[g, s, li]: 0<=g<ng and 1<=s<=64 and 0<=li<64{cut}}}",
        "if li < s\n  out[g, s - 1, li] = 2*x[g*64 + li]\nend" if guarded else
        "out[g, s - 1, li] = 2*x[g*64 + li]",
        [lp.GlobalArg("x", np.float32, shape=("64*ng",)),
         lp.GlobalArg("out", np.float32, shape=("ng", 64, 64)), ...],
        lang_version=LV)
    return lp.tag_inames(knl, {"g": "g.0", "li": "l.0"})


def test_if_li_lt_s_of_an_enclosing_loop_counts_as_a_triangular_domain():
    guarded = _work(_triangle(True), "workitem", None, {"ng": 3})
    assert guarded == _work(_triangle(False), "workitem", None, {"ng": 3})
    assert guarded[MUL] == 3 * 64 * 65 // 2
    # 64 lanes, two warps: the second works only where s > 32
    assert _work(_triangle(True), "subgroup", 32, {"ng": 3})[MUL] == 3 * (32 + 2 * 32)


def _guard(condition: str | None, domain: str = "0<=i<n"):
    insn = "y[i] = 2*x[i]"
    if condition:
        insn = f"if {condition}\n  {insn}\nend"
    return _split(lp.make_kernel(f"{{[i]: {domain}}}", insn, ARGS, lang_version=LV))


GUARDS = [("i < n - 1", "0<=i<n and i<n-1", lambda i, n: i < n - 1),
          ("i % 2 == 0", "0<=i<n and i mod 2 = 0", lambda i, n: i % 2 == 0),
          ("i >= 3 and i < n - 1", "3<=i<n-1", lambda i, n: 3 <= i < n - 1),
          ("i < 10", "0<=i<n and i<10", lambda i, n: i < 10)]
SIZES = (1, 2, 127, 128, 130, 1000)


@pytest.mark.parametrize("condition,domain,holds", GUARDS)
def test_an_affine_guard_counts_as_the_condition_in_the_domain(condition, domain, holds):
    guarded, cut = _guard(condition), _guard(None, domain)
    for n in SIZES:
        assert _work(guarded, "workitem", None, {"n": n}) \
            == _work(cut, "workitem", None, {"n": n}), n
    assert not unresolved_predicates(entry_kernel(guarded))


@pytest.mark.parametrize("condition,domain,holds", GUARDS)
def test_a_guard_counts_the_warps_that_have_a_working_lane(condition, domain, holds):
    """Sub-group runs, against the warps of 32 lanes enumerated: a warp with some
    lane where the condition holds issues the instruction once."""
    props = extract_properties(_guard(condition), granularity="subgroup",
                               subgroup_size=32, barriers=False)
    for n in SIZES:
        lanes = np.arange(-(-n // 128) * 128).reshape(-1, 32)
        working = np.array([[holds(int(i), n) and i < n for i in warp] for warp in lanes])
        assert props.evaluate({"n": n})[MUL] == int(working.any(axis=1).sum()), n


def test_nested_ifs_are_a_conjunction():
    nested = _split(lp.make_kernel(
        "{[i]: 0<=i<n}", "if i >= 3\n  if i < n - 1\n    y[i] = 2*x[i]\n  end\nend",
        ARGS, lang_version=LV))
    assert _work(nested, "workitem", None, {"n": 1000})[MUL] == 996


def test_a_data_dependent_condition_keeps_the_upper_bound_and_is_named():
    knl = _split(lp.make_kernel(
        "{[i]: 0<=i<n}", "if x[i] > 0\n  y[i] = 2*x[i] {id=scale}\nend", ARGS,
        lang_version=LV))
    assert _work(knl, "workitem", None, {"n": 1000})[MUL] == 1000
    (found,) = unresolved_predicates(entry_kernel(knl))
    assert found.insn_id == "scale" and "reads x" in found.reason


def test_loopy_counts_the_whole_domain_under_an_if():
    """loopy 2025's get_op_map and get_mem_access_map ignore predicates: on the
    guarded kernel they count the whole domain, and on the domain form what the
    workbench counts for the guarded one."""
    guarded, cut = _guard("i < n - 1"), _guard(None, "0<=i<n and i<n-1")
    params = {"n": 129}

    def loopy_counts(knl):
        ops = lp.get_op_map(knl, subgroup_size=32, count_redundant_work=True,
                            count_within_subscripts=False)
        loads = lp.get_mem_access_map(knl, subgroup_size=32, count_redundant_work=True)
        return (ops.filter_by(name=["mul"], dtype=[np.float32]).eval_and_sum(params),
                loads.filter_by(mtype=["global"], direction=["load"]).eval_and_sum(params))

    assert loopy_counts(guarded) == (2 * 4, 129)     # two groups of 4 warps, every lane
    assert loopy_counts(cut) == (4, 128)
    workitem = _work(guarded, "workitem", None, params)
    subgroup = _work(guarded, "subgroup", 32, params)
    assert (subgroup[MUL], workitem[GlobalAccess("float32", Direction.LOAD,
                                                 StrideFraction(1, 0))]) == (4, 128)


def test_the_runs_and_footprints_of_a_guarded_instruction_follow_the_condition():
    pre = prepare(_guard("i < 10"))
    knl = entry_kernel(pre)
    (insn,) = knl.instructions
    assert insn_runs(knl, pre.callables_table, insn).eval_with_dict({"n": 1000}) == 10
    # at group level: the one group that has a working lane
    assert insn_runs(knl, pre.callables_table, insn,
                     disregard_local_axes=True).eval_with_dict({"n": 1000}) == 1
    (accesses,) = kernel_accesses(pre).instructions
    assert accesses.domain.fix_val(
        isl.dim_type.param, 0, 1000).count_val().to_python() == 10
    # the grid is the loop's: the condition does not shrink the launch
    assert extract_properties(_guard("i < 10")).evaluate({"n": 1000})[ThreadGroups()] == 8


def test_the_active_lanes_the_local_features_read_follow_the_condition():
    """:mod:`workbench.models.local_features` takes a level's active lanes as its
    work-item runs over its group runs: h lanes at level h, as in the domain form."""
    for guarded in (True, False):
        pre = prepare(_tree(guarded))
        knl = entry_kernel(pre)
        for h in (64, 32, 1):
            insn = knl.id_to_insn[f"s{h}"]
            lanes = insn_runs(knl, pre.callables_table, insn).eval_with_dict({"ng": 5})
            groups = insn_runs(knl, pre.callables_table, insn,
                               disregard_local_axes=True).eval_with_dict({"ng": 5})
            assert (lanes, groups) == (5 * h, 5), (guarded, h)


def test_a_size_only_the_condition_reads_becomes_a_parameter_of_the_counts():
    knl = _split(lp.make_kernel(
        "{[i]: 0<=i<n}", "if i < m\n  y[2*i] = 2*x[i]\nend",
        [lp.GlobalArg("x", np.float32, shape=("n",)),
         lp.GlobalArg("y", np.float32, shape=("2*n",)), lp.ValueArg("m", np.int32), ...],
        lang_version=LV))
    assert not unresolved_predicates(entry_kernel(knl))
    props = extract_properties(knl)
    assert props.parameters == ("m", "n")
    assert [props.evaluate({"n": 1000, "m": m})[MUL] for m in (0, 10, 5000)] == [0, 10, 1000]
    warps = extract_properties(knl, granularity="subgroup", subgroup_size=32)
    assert warps.evaluate({"n": 1000, "m": 33})[MUL] == 2


@pytest.mark.parametrize("condition", ["li < 34", "li >= 34"])
def test_warps_are_numbered_from_the_local_id_not_the_iname(condition):
    """li runs from 2: lid(0) = li - 2, so each half of the 64 lanes is one warp."""
    knl = lp.tag_inames(lp.make_kernel(
        "{[g, li]: 0<=g<ng and 2<=li<66}",
        f"if {condition}\n  y[g*64 + li] = 2*x[g*64 + li]\nend",
        [lp.GlobalArg("x,y", np.float32, shape=("64*ng + 2",)), ...], lang_version=LV),
        {"g": "g.0", "li": "l.0"})
    props = extract_properties(knl, granularity="subgroup", subgroup_size=32)
    assert props.evaluate({"ng": 3})[MUL] == 3


def test_the_ir_features_load_per_work_item_follows_the_condition():
    from workbench.models.ir_features import IRFeature, ir_features

    knl = _guard("i < 10")
    features = ir_features(knl, {"n": 1024})
    # loads per work item of the launch: the 10 that run, over 1024
    assert features[IRFeature.GLOBAL_LOADS] == pytest.approx(10 / 1024)
