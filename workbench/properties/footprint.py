"""Per-array data utilization from access footprints (unified-model paper, Algorithm 2).

The utilization of an array is |F| / |fill(F)|: the number of distinct elements any
instruction touches, over the same set with the gaps along the array's fastest axis
filled in (for each fixed index on the other axes, every element between the first
and the last touched one).  Both are exact barvinok counts, symbolic in the kernel's
parameters, over the accesses of the shared access model
(:mod:`workbench.properties.accesses`).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from loopy.symbolic import get_access_map

from workbench.properties.accesses import KernelAccesses
from workbench.properties.counting import require_barvinok
from workbench.properties.symbolic import Expression, pwqpolynomial_to_expr


@dataclass(frozen=True)
class Footprint:
    """Symbolic element counts of one array's footprint, as used and as filled."""

    array: str
    used: Expression
    filled: Expression


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


def _access_sets(accesses: KernelAccesses, names) -> dict[str, isl.Set]:
    """Union, per array, of every instruction's accessed index set (Algorithm 2).

    A subscript that several instructions of the same domain read (a transform's
    sixteen sums of the same sixteen entries) adds its set once: a union is the same
    without its repeats, and each repeat made the union a disjunct longer, which the
    coalescing and the count then paid for."""
    per_array: dict[str, isl.Set] = {}
    seen: dict[tuple, list[isl.Set]] = {}
    for ins, sub in accesses.subscripts_of(names):
        domains = seen.setdefault((sub.array, sub.index), [])
        if any(ins.domain is d or ins.domain == d for d in domains):
            continue
        domains.append(ins.domain)
        accessed = get_access_map(ins.domain, sub.index, accesses.assumptions).range()
        name = sub.array
        per_array[name] = per_array[name] | accessed if name in per_array else accessed
    return per_array


def global_used_elements(accesses: KernelAccesses, names) -> dict[str, Expression]:
    """The distinct elements the kernel touches of each named global array: a
    footprint's ``used`` alone, without the filled span (an ISL count more) that only
    the utilization needs."""
    require_barvinok()
    return {name: pwqpolynomial_to_expr(fp.coalesce().card())
            for name, fp in _access_sets(accesses, set(names)).items()}


def global_footprints(accesses: KernelAccesses, names) -> dict[str, Footprint]:
    """Footprints (reads and writes together, per array) of the named global arrays.

    An index that is not affine raises isl.Error or TypeError, which the caller
    treats as an unknown footprint.
    """
    require_barvinok()
    result = {}
    for name, fp in _access_sets(accesses, set(names)).items():
        fp = fp.coalesce()
        filled = fill_along_axis(fp, accesses.arrays[name].fastest_axis).coalesce()
        result[name] = Footprint(name, pwqpolynomial_to_expr(fp.card()),
                                 pwqpolynomial_to_expr(filled.card()))
    return result
