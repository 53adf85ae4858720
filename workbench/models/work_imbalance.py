"""How much longer a kernel's longest work item runs than its average one.

The serial-work and loads-in-flight floors (:mod:`workbench.models.floors`) price one
work item's share of the kernel's counts: the counts over the work items.  That is the
work of every item where the items are alike, but a launch ends with its longest item:
a lower-triangular matrix-vector product with one row per work item (row ``i`` sums
``i + 1`` products) has an average item of ``(n + 1) / 2`` trips and a longest of
``n``.  :func:`longest_item_ratio` is

    sum over instructions of (the most trips of one work item)
    / sum over instructions of (the trips over the work items),

each instruction's trips being the points of its loop domain (its reductions' inames
included) with the work-item
(hardware) inames fixed, counted by ISL (barvinok) and maximised over the work items
(an ISL bound of the piecewise quasi-polynomial, then evaluated at the sizes).  1 for
every kernel whose items run alike, and where a domain cannot be counted (a bound that
loaded data set): the floors then stay as they were.
"""

from __future__ import annotations

import functools

from workbench.kernels.candidate import Candidate


def _evaluate(piecewise, params: dict) -> float:
    import islpy as isl

    space = piecewise.get_domain_space()
    point = isl.Point.zero(space)
    for k in range(space.dim(isl.dim_type.param)):
        name = space.get_dim_name(isl.dim_type.param, k)
        point = point.set_coordinate_val(isl.dim_type.param, k, int(params[name]))
    return float(piecewise.eval(point).to_python())


def _with_hardware_as_input(domain, hardware: list[str]):
    import islpy as isl

    per_item = isl.Map.from_range(domain)
    for name in hardware:
        k = per_item.find_dim_by_name(isl.dim_type.out, name)
        if k < 0:
            continue
        per_item = per_item.move_dims(isl.dim_type.in_, per_item.dim(isl.dim_type.in_),
                                      isl.dim_type.out, k, 1)
    return per_item


@functools.lru_cache(maxsize=512)
def _trips(spec, request) -> tuple:
    """Per distinct loop nest of an instruction: (most trips of one work item, all
    trips, work items), ISL objects in the size parameters; empty where nothing loops."""
    import islpy as isl

    from workbench.kernels.base import entry_kernel

    knl = entry_kernel(spec.build(request))
    hardware = sorted(i for i in knl.all_inames() if knl.iname_tags(i))
    out = []
    nests = {frozenset(insn.within_inames | insn.reduction_inames())
             for insn in knl.instructions}
    for inames in nests:
        if not inames - set(hardware):
            continue
        domain = knl.get_inames_domain(inames).project_out_except(
            sorted(inames), [isl.dim_type.set])
        most, _tight = _with_hardware_as_input(domain, hardware).card().bound(
            isl.fold.max)
        items = domain.project_out_except(sorted(inames & set(hardware)),
                                          [isl.dim_type.set]).card()
        out.append((most, domain.card(), items))
    return tuple(out)


def longest_item_ratio(candidate: Candidate) -> float:
    """The longest work item's trips over the average item's (module docstring), at
    least 1; 1 where the kernel cannot be read or counted."""
    try:
        trips = _trips(candidate.spec, candidate.request())
        params = candidate.params_dict
        longest = mean = 0.0
        for most, total, items in trips:
            n_items = _evaluate(items, params)
            if n_items <= 0:
                continue
            longest += _evaluate(most, params)
            mean += _evaluate(total, params) / n_items
    except Exception:       # noqa: BLE001 - a floor falls back to the average item
        return 1.0
    return max(1.0, longest / mean) if mean > 0 else 1.0
