"""The runs of an instruction under an ``if``: its domain cut by the condition.

loopy counts an instruction's runs from the points of its loop domain and ignores
``insn.predicates`` (``loopy.statistics.count_insn_runs``): a tree step written
``if li < s`` is charged to every lane.  Where a condition is affine in the
instruction's inames and the kernel's parameters (``li < s``, ``i < n - 1``,
``i % 2 == 0``, conjunctions, negations), ISL writes it as a set, and the runs are the
points of the domain intersected with it: exact, a barvinok count symbolic in the
parameters like every other count, and at work-item granularity the same as the
count of the kernel with the condition moved into its loop domain.

At work-group granularity the local axes are projected out of the cut domain, as
loopy does for any domain: a group runs the instruction where at least one of its
work items does.  At sub-group granularity the count is the sub-groups (warps) that
hold at least one work item where the condition holds, per run of the loops outside
the group: a warp whose lanes are partly active issues the instruction once, a warp
with no active lane not at all (it branches around it).  That is what the device
does, and fewer than loopy charges a condition written into the domain: it charges
every warp of a group that runs the instruction, ``ceil(group size / sub-group
size)``, so the two forms agree at sub-group granularity only where the condition
leaves no warp of a running group idle.  Where the group size is symbolic (a tuning
template) or a local iname does not start at a constant, the sub-group count falls
back to loopy's rule (an upper bound).

A condition that is not affine (it reads an array or a temporary, calls a function)
leaves the instruction counted as loopy counts it, over its whole domain: an upper
bound, which :func:`unresolved_predicates` names, instruction by instruction.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from islpy import dim_type
from loopy.statistics import (
    CountGranularity,
    count,
    get_kernel_parameter_space,
    get_unused_hw_axes_factor,
)
from loopy.symbolic import condition_to_set, get_dependencies


@dataclass(frozen=True)
class UnresolvedPredicate:
    """An instruction whose condition could not be counted exactly, and why."""

    insn_id: str
    condition: str
    reason: str

    def describe(self) -> str:
        return f"{self.insn_id} (if {self.condition}: {self.reason})"


def _cut(knl, insn, domain: isl.Set) -> tuple[isl.Set | None, UnresolvedPredicate | None]:
    """``domain`` (a set over ``insn``'s inames, maybe more) intersected with the
    conjunction of ``insn``'s predicates, or the first predicate that is not affine in
    its inames and the parameters."""
    import loopy as lp

    sizes = {a.name for a in knl.args if isinstance(a, lp.ValueArg)
             and a.dtype not in (None, lp.auto) and a.dtype.numpy_dtype.kind in "iu"}
    affine_names = set(insn.within_inames) | set(knl.outer_params()) | sizes
    cut = domain
    for predicate in sorted(insn.predicates, key=str):
        deps = get_dependencies(predicate)
        for name in sorted((deps & sizes) - set(domain.get_var_dict(dim_type.param))):
            # a size parameter only the condition reads: a parameter of the count
            at = domain.dim(dim_type.param)
            domain = domain.add_dims(dim_type.param, 1).set_dim_name(
                dim_type.param, at, name)
            cut = cut.add_dims(dim_type.param, 1).set_dim_name(dim_type.param, at, name)
        others = sorted(deps - affine_names)
        if others:
            return None, UnresolvedPredicate(
                insn.id, str(predicate),
                f"reads {', '.join(others)}, not only loop indices and size parameters")
        as_set = condition_to_set(domain.space, predicate)
        if as_set is None:
            return None, UnresolvedPredicate(
                insn.id, str(predicate), "not an affine condition (ISL cannot write it)")
        cut = cut & as_set
    return cut, None


def _condition_set(knl, insn) -> tuple[isl.Set | None, UnresolvedPredicate | None]:
    return _cut(knl, insn, knl.get_inames_domain(insn.within_inames))


def cut_by_condition(knl, insn, domain: isl.Set) -> isl.Set:
    """The points of ``domain`` (over ``insn``'s inames and maybe others, such as its
    reduction inames) where ``insn``'s condition holds; ``domain`` itself where it
    has no condition or one that is not affine (then an upper bound)."""
    if not getattr(insn, "predicates", None):
        return domain
    cut, _ = _cut(knl, insn, domain)
    return domain if cut is None else cut


def count_cut_domain(knl, insn, inames):
    """loopy's ``count_inames_domain(knl, inames)`` (``inames``: ``insn``'s loops and
    maybe its reduction loops, work-item granularity, no redundant work) over the
    domain cut by ``insn``'s condition where it is affine, so that a feature counted
    per point of an instruction's loops agrees with its operation counts."""
    from loopy.statistics import count_inames_domain

    inames = frozenset(inames)
    if not inames or not getattr(insn, "predicates", None):
        return count_inames_domain(knl, inames)
    domain = cut_by_condition(knl, insn, knl.get_inames_domain(inames))
    return count(knl, domain.project_out_except(sorted(inames), [dim_type.set]),
                 space=get_kernel_parameter_space(knl))


def unresolved_predicates(knl) -> tuple[UnresolvedPredicate, ...]:
    """The instructions of a loopy kernel whose counts stay upper bounds: those under
    a condition that is not affine in their inames and the size parameters."""
    found = []
    for insn in knl.instructions:
        if getattr(insn, "predicates", None):
            _, unresolved = _condition_set(knl, insn)
            if unresolved is not None:
                found.append(unresolved)
    return tuple(found)


def guarded_runs(knl, callables, insn, level, subgroup_size: int | None = None):
    """The runs of ``insn`` at ``level`` (a loopy ``CountGranularity``) over its
    domain cut by its condition, as loopy's ``_get_insn_count`` counts runs (with
    redundant work); None where ``insn`` has no condition or one that is not affine
    (count it as loopy does)."""
    if not getattr(insn, "predicates", None):
        return None
    cut, unresolved = _condition_set(knl, insn)
    if unresolved is not None:
        return None
    from loopy.kernel.data import LocalInameTag

    disregard_local = level != CountGranularity.WORKITEM
    inames = [iname for iname in insn.within_inames
              if not (disregard_local and knl.iname_tags_of_type(iname, LocalInameTag))]
    runs = count(knl, cut.project_out_except(inames, [dim_type.set]),
                 space=get_kernel_parameter_space(knl))
    runs = _times(runs, get_unused_hw_axes_factor(knl, callables, insn,
                                                  disregard_local_axes=disregard_local))
    if level == CountGranularity.SUBGROUP:
        runs = _active_subgroups(knl, callables, insn, cut, inames, subgroup_size,
                                 runs)
    return runs


def with_parameters_of(poly: isl.PwQPolynomial, space: isl.Space) -> isl.PwQPolynomial:
    """``poly`` (in the kernel's parameters) given the parameters of ``space`` that
    only a condition reads: ``count`` puts those after the kernel's, in order."""
    names = [space.get_dim_name(dim_type.param, k) for k in range(space.dim(dim_type.param))]
    have = poly.space.dim(dim_type.param)
    if names[:have] != [poly.space.get_dim_name(dim_type.param, k) for k in range(have)]:
        raise ValueError(f"parameters {names} do not extend those of {poly.space}")
    poly = poly.add_dims(dim_type.param, len(names) - have)
    for k in range(have, len(names)):
        poly = poly.set_dim_name(dim_type.param, k, names[k])
    return poly


def _times(runs, factor):
    """``runs * factor``, ``factor`` given the parameters only a condition reads."""
    space = runs.pwqpolynomial.space
    if factor.pwqpolynomial.space != space:
        from loopy.statistics import GuardedPwQPolynomial

        factor = GuardedPwQPolynomial(with_parameters_of(factor.pwqpolynomial, space),
                                      factor.valid_domain.align_params(space))
    return runs * factor


def _local_id_offsets(knl, insn) -> dict[int, tuple[str, int]] | None:
    """Local axis -> (``insn``'s iname on it, the iname's constant lower bound: its
    value at local id 0); None where a lower bound is not a constant."""
    from loopy.kernel.data import LocalInameTag

    found = {}
    for iname in insn.within_inames:
        (tag,) = knl.iname_tags_of_type(iname, LocalInameTag) or (None,)
        if tag is None:
            continue
        lower = knl.get_iname_bounds(iname, constants_only=True).lower_bound_pw_aff
        if lower.n_piece() != 1 or not lower.is_cst():
            return None
        (_, aff), = lower.get_pieces()
        found[tag.axis] = (iname, aff.get_constant_val().to_python())
    return found


def _active_subgroups(knl, callables, insn, cut: isl.Set, outer: list[str],
                      subgroup_size: int, group_runs):
    """Sub-group runs of ``insn``: per run of its loops outside the group, the
    sub-groups that hold at least one work item where its condition holds.  A
    sub-group whose lanes are partly active issues the instruction once, as the
    device does; one with no active lane issues nothing.  The lanes are numbered as
    :mod:`workbench.properties.lanes` lays them out (lid(0) fastest), a local axis the
    instruction does not use spanning its whole size.  Where the group size is
    symbolic or a local iname's lower bound is not a constant, every sub-group of a
    group that runs the instruction is charged (loopy's count of a domain, an upper
    bound): ``group_runs`` times ``ceil(group size / sub-group size)``."""
    _, local_size = knl.get_grid_size_upper_bounds_as_exprs(callables)
    offsets = _local_id_offsets(knl, insn)
    if not all(isinstance(s, int) for s in local_size) or offsets is None:
        from pytools import div_ceil

        group = 1
        for size in local_size:
            group *= int(size)
        return group_runs * div_ceil(group, subgroup_size)
    lanes: dict[str | int, int] = {1: 0}    # the linear lane id, affine in the inames
    weight = 1
    added = []
    for axis, size in enumerate(local_size):
        if axis in offsets:
            iname, lower = offsets[axis]
        else:
            iname, lower = f"_wb_lid{axis}", 0
            added.append((iname, size))
        lanes[iname] = lanes.get(iname, 0) + weight
        lanes[1] -= weight * lower
        weight *= size
    subgroup = "_wb_subgroup"
    start = cut.n_dim()
    cut = cut.add_dims(dim_type.set, len(added) + 1)
    for k, (name, _) in enumerate([*added, (subgroup, None)]):
        cut = cut.set_dim_name(dim_type.set, start + k, name)
    space = cut.space
    for name, size in added:
        cut = cut.add_constraint(isl.Constraint.ineq_from_names(space, {name: 1}))
        cut = cut.add_constraint(isl.Constraint.ineq_from_names(
            space, {name: -1, 1: size - 1}))
    # subgroup_size * w <= lane <= subgroup_size * w + subgroup_size - 1
    cut = cut.add_constraint(isl.Constraint.ineq_from_names(
        space, {**lanes, subgroup: -subgroup_size}))
    cut = cut.add_constraint(isl.Constraint.ineq_from_names(
        space, {**{k: -v for k, v in lanes.items()}, subgroup: subgroup_size,
                1: subgroup_size - 1 - lanes[1]}))
    active = count(knl, cut.project_out_except([*outer, subgroup], [dim_type.set]),
                   space=get_kernel_parameter_space(knl))
    return _times(active, get_unused_hw_axes_factor(knl, callables, insn,
                                                    disregard_local_axes=True))


def insn_runs(knl, callables, insn, disregard_local_axes: bool = False):
    """loopy's ``count_insn_runs`` (with redundant work) over the domain cut by the
    instruction's condition where it is affine."""
    level = CountGranularity.WORKGROUP if disregard_local_axes else CountGranularity.WORKITEM
    runs = guarded_runs(knl, callables, insn, level)
    if runs is None:
        from loopy.statistics import count_insn_runs

        runs = count_insn_runs(knl, callables, insn, count_redundant_work=True,
                               disregard_local_axes=disregard_local_axes)
    return runs


def guarded_note(spec, request) -> str | None:
    """What the counts of instructions under an ``if`` that is not affine in their
    loop indices and the size parameters mean (``if x[i] > 0``, a temporary, a call):
    they are counted for every point of their loops, so those counts are upper
    bounds.  An affine condition (``if li < s``, ``if i < n - 1``, ``if i % 2 == 0``)
    is counted exactly.  None where no instruction's condition is left uncounted
    (``spec``, ``request``: a kernel spec and its build request)."""
    from workbench.kernels.base import entry_kernel

    unresolved = unresolved_predicates(entry_kernel(spec.build(request)))
    if not unresolved:
        return None
    named = "; ".join(u.describe() for u in unresolved[:3])
    more = f"; and {len(unresolved) - 3} more" if len(unresolved) > 3 else ""
    return (f"{len(unresolved)} instruction(s) run under a condition the counts cannot "
            f"follow: {named}{more}. They are counted for every work item of their "
            "loops, whether the condition holds or not, so their counts are upper "
            "bounds and a prediction charges the work items that skip them; a "
            "condition on loop indices and size parameters alone (if i < n - 1) is "
            "counted exactly")


__all__ = ["UnresolvedPredicate", "count_cut_domain", "cut_by_condition", "guarded_note", "guarded_runs",
           "insn_runs", "unresolved_predicates", "with_parameters_of"]
