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


def global_footprints(kernel: lp.TranslationUnit, global_arrays: dict) -> dict[str, Footprint]:
    """Footprints (reads and writes together, per array) of the named global arrays."""
    sets = lp.gather_access_footprints(kernel)
    per_array: dict[str, isl.Set] = {}
    for (name, _direction), fp in sets.items():
        if name in global_arrays:
            per_array[name] = per_array[name] | fp if name in per_array else fp
    result = {}
    for name, fp in per_array.items():
        fp = fp.coalesce()
        filled = fill_along_axis(fp, fastest_axis(global_arrays[name])).coalesce()
        result[name] = Footprint(name, pwqpolynomial_to_expr(fp.card()),
                                 pwqpolynomial_to_expr(filled.card()))
    return result
