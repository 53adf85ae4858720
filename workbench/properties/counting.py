"""Per-instruction counting on top of loopy's expression counters.

loopy's ``get_op_map`` counts arithmetic per sub-group, projecting away the local
axes: a loop whose trip count depends on the work item (a triangular domain) is then
charged its longest trip for every lane.  That is the 2019 paper's sub-group view; the
2018 unified model wants exact work-item totals.  Here each instruction's operations
are multiplied by the instruction's run count at the granularity the workbench asks
for, so both views come from the same counters.
"""

from __future__ import annotations

from collections.abc import Callable

import loopy as lp
from loopy.kernel.instruction import Assignment, CallInstruction
from loopy.statistics import (
    CountGranularity,
    ExpressionOpCounter,
    GlobalMemAccessCounter,
    LocalMemAccessCounter,
    ToCountMap,
    _get_insn_count,
)

from workbench.kernels.base import entry_kernel
from workbench.properties.features import Granularity


def prepare(kernel: lp.TranslationUnit) -> lp.TranslationUnit:
    """Preprocess and type-infer once; every counter below works on the result."""
    from loopy.preprocess import infer_unknown_types, preprocess_program
    return infer_unknown_types(preprocess_program(kernel), expect_completion=True)


def _count(program, per_insn: Callable, granularity: Granularity, subgroup_size: int | None):
    knl = entry_kernel(program)
    callables = program.callables_table
    result = None
    for insn in knl.instructions:
        if not isinstance(insn, (Assignment, CallInstruction)):
            continue
        for key, val in per_insn(knl, callables, insn).count_map.items():
            level = key.count_granularity
            if granularity is Granularity.WORKITEM:
                level = CountGranularity.WORKITEM
            runs = _get_insn_count(knl, callables, insn.id, subgroup_size,
                                   True, level)
            term = ToCountMap({key: val}) * runs
            result = term if result is None else result + term
    return result.count_map if result is not None else {}


def op_counts(program, granularity: Granularity, subgroup_size: int | None) -> dict:
    def per_insn(knl, callables, insn):
        counter = ExpressionOpCounter(knl, callables, None, True)
        return counter(insn.assignees) + counter(insn.expression)
    return _count(program, per_insn, granularity, subgroup_size)


def access_counts(program, granularity: Granularity, subgroup_size: int | None) -> dict:
    def per_insn(knl, callables, insn):
        g = GlobalMemAccessCounter(knl, callables, None)
        loc = LocalMemAccessCounter(knl, callables, None)
        counts = (g(insn.expression) + loc(insn.expression)).with_set_attributes(
            direction="load")
        for assignee in insn.assignees:
            counts = counts + (g(assignee) + loc(assignee)).with_set_attributes(
                direction="store")
        return counts
    return _count(program, per_insn, granularity, subgroup_size)
