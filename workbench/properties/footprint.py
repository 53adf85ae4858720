"""Per-array data utilization from access footprints (unified-model paper, Algorithm 2).

The utilization of an array is |F| / |fill(F)|: the number of distinct elements any
instruction touches, over the same set with the gaps along the array's fastest axis
filled in (for each fixed index on the other axes, every element between the first
and the last touched one).  Both are exact barvinok counts, symbolic in the kernel's
parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
import loopy as lp
from loopy.kernel.array import FixedStrideArrayDimTag
from loopy.symbolic import WalkMapper, get_access_map

from workbench.kernels.base import entry_kernel
from workbench.properties.symbolic import Expression, pwqpolynomial_to_expr


@dataclass(frozen=True)
class Footprint:
    """Symbolic element counts of one array's footprint, as used and as filled."""

    array: str
    used: Expression
    filled: Expression


def fastest_axis(array) -> int:
    """The axis whose stride is 1 element (last axis when strides are unknown)."""
    tags = getattr(array, "dim_tags", None) or ()
    for axis, tag in enumerate(tags):
        if isinstance(tag, FixedStrideArrayDimTag) and tag.stride == 1:
            return axis
    return max(len(tags) - 1, 0)


def fill_along_axis(footprint: isl.Set, axis: int) -> isl.Set:
    """Close the gaps of ``footprint`` along ``axis``, other coordinates held fixed."""
    ndim = footprint.dim(isl.dim_type.set)
    src = [f"i{k}" for k in range(ndim)]
    dst = [f"j{k}" for k in range(ndim)]
    same = [f"{d} = {s}" for k, (s, d) in enumerate(zip(src, dst)) if k != axis]

    def relation(op: str) -> isl.Map:
        constraints = " and ".join([*same, f"j{axis} {op} i{axis}"])
        text = f"{{ [{', '.join(src)}] -> [{', '.join(dst)}] : {constraints} }}"
        return isl.Map(text).align_params(footprint.space)

    above_some = footprint.apply(relation(">="))
    below_some = footprint.apply(relation("<="))
    return above_some & below_some


class SubscriptCollector(WalkMapper):
    """Every subscript of the named arrays in an expression (calls included)."""

    def __init__(self, names):
        super().__init__()
        self.names = names
        self.found = []

    def map_subscript(self, expr, *args, **kwargs):
        if getattr(expr.aggregate, "name", None) in self.names:
            self.found.append(expr)
        return super().map_subscript(expr, *args, **kwargs)


def _access_sets(kernel: lp.TranslationUnit, names) -> dict[str, isl.Set]:
    """Union, per array, of every instruction's accessed index set (Algorithm 2)."""
    knl = entry_kernel(kernel)
    per_array: dict[str, isl.Set] = {}
    for insn in knl.instructions:
        if not isinstance(insn, lp.MultiAssignmentBase):
            continue
        inames = knl.insn_inames(insn)
        domain = knl.get_inames_domain(inames).project_out_except(
            inames, [isl.dim_type.set])
        collector = SubscriptCollector(names)
        collector(insn.expression)
        for assignee in insn.assignees:
            collector(assignee)
        for sub in collector.found:
            index = sub.index if isinstance(sub.index, tuple) else (sub.index,)
            accessed = get_access_map(domain, index, knl.assumptions).range()
            name = sub.aggregate.name
            per_array[name] = per_array[name] | accessed if name in per_array else accessed
    return per_array


def global_footprints(kernel: lp.TranslationUnit, global_arrays: dict) -> dict[str, Footprint]:
    """Footprints (reads and writes together, per array) of the named global arrays.

    ``kernel`` must be preprocessed.  An index that is not affine raises isl.Error or
    TypeError, which the caller treats as an unknown footprint.
    """
    result = {}
    for name, fp in _access_sets(kernel, set(global_arrays)).items():
        fp = fp.coalesce()
        filled = fill_along_axis(fp, fastest_axis(global_arrays[name])).coalesce()
        result[name] = Footprint(name, pwqpolynomial_to_expr(fp.card()),
                                 pwqpolynomial_to_expr(filled.card()))
    return result
