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

:func:`busiest_sm_wavefronts` does the same for work groups: the L1 wavefronts (128-byte
lines a warp's load touches) of the busiest group, which the floors' L1 bound prices
at one a cycle on the SM that runs it.
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
    least 1; 1 where the kernel cannot be read or counted, and for a tuning space's
    point (ranking a space stays a matter of its cached counts: no build here)."""
    if candidate.space is not None:
        return 1.0
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


# {{{ the L1 wavefronts of the busiest group's loads

@functools.lru_cache(maxsize=512)
def _load_wavefronts(spec, request) -> tuple:
    """(per global load: (warp requests over the launch, lines a request touches)),
    (the trips of each group, all trips, the groups) of the kernel's deepest loop nest;
    ISL objects and numbers.  Lines are 128-byte L1 lines, from the lanes' strides."""
    import islpy as isl
    import numpy as np
    from loopy.kernel.data import GroupInameTag

    from workbench.kernels.base import entry_kernel
    from workbench.properties import Direction, extract_properties
    from workbench.properties.lanes import subgroup_lanes
    from workbench.properties.sectors import sectors_per_access

    program = spec.build(request)
    knl = entry_kernel(program)
    group_size = tuple(request.group_size)
    props = extract_properties(program, granularity="subgroup", subgroup_size=32,
                               barriers=False)
    loads = []
    for record in props.accesses:
        if record.mtype != "global" or record.direction is not Direction.LOAD:
            continue
        lines = sectors_per_access(record.lid_strides, group_size,
                                   np.dtype(record.dtype).itemsize, sector_bytes=128)
        per_item = dict(record.lid_strides).get(0, 0) != 0
        loads.append((record.count, lines / subgroup_lanes(group_size, 32) if per_item
                      else lines))
    group = sorted(i for i in knl.all_inames()
                   if any(isinstance(t, GroupInameTag) for t in knl.iname_tags(i)))
    nests = {frozenset(insn.within_inames | insn.reduction_inames())
             for insn in knl.instructions}
    largest = max(nests, key=len, default=frozenset())
    domain = knl.get_inames_domain(largest).project_out_except(
        sorted(largest), [isl.dim_type.set])
    per_group = domain
    for name in group:
        k = per_group.find_dim_by_name(isl.dim_type.set, name)
        if k >= 0:
            per_group = per_group.move_dims(isl.dim_type.param,
                                            per_group.dim(isl.dim_type.param),
                                            isl.dim_type.set, k, 1)
    group_set = domain.project_out_except(sorted(largest & set(group)),
                                          [isl.dim_type.set])
    return tuple(loads), (per_group.card(), domain.card(), group_set)


def busiest_sm_wavefronts(candidate: Candidate, sms: int) -> float:
    """L1 wavefronts (one a 128-byte line a warp's load touches) that the SM running
    the busiest work group must serve: the launch's wavefronts times the busiest
    group's share of the trips of the kernel's deepest loop nest, or an even share
    of ``sms`` where that is more; 0 where the kernel cannot be read, and for a tuning
    space's point (as :func:`longest_item_ratio`)."""
    if candidate.space is not None:
        return 0.0
    try:
        loads, (busiest, total, groups) = _load_wavefronts(candidate.spec,
                                                          candidate.request())
        params = candidate.params_dict
        wavefronts = sum(_evaluate_count(count, params) * lines for count, lines in loads)
        all_trips = _evaluate(total, params)
        n_groups = _evaluate(groups.card(), params)
        if all_trips <= 0 or n_groups <= 0:
            return 0.0
        # many groups: the average group's share, a lower bound of the busiest's
        share = 1.0 / n_groups if n_groups > MAX_ENUMERATED_GROUPS \
            else _busiest_group(busiest, groups, params) / all_trips
    except Exception:       # noqa: BLE001 - no bound where the kernel cannot be read
        return 0.0
    return wavefronts * max(share, 1.0 / sms)


#: enumerate at most this many groups for the busiest; beyond, the average group
MAX_ENUMERATED_GROUPS = 4096


def _busiest_group(per_group, group_set, params: dict) -> float:
    """The most trips of one group, from every group's count."""
    import islpy as isl

    fixed = group_set
    for k in range(fixed.dim(isl.dim_type.param)):
        fixed = fixed.fix_val(isl.dim_type.param, k,
                              int(params[fixed.get_dim_name(isl.dim_type.param, k)]))
    points = []
    fixed.foreach_point(points.append)
    space = per_group.get_domain_space()
    best = 0.0
    for point in points:
        values = dict(params)
        for k in range(fixed.dim(isl.dim_type.set)):
            values[fixed.get_dim_name(isl.dim_type.set, k)] = \
                point.get_coordinate_val(isl.dim_type.set, k).to_python()
        at = isl.Point.zero(space)
        for k in range(space.dim(isl.dim_type.param)):
            at = at.set_coordinate_val(isl.dim_type.param, k,
                                       int(values[space.get_dim_name(isl.dim_type.param, k)]))
        best = max(best, float(per_group.eval(at).to_python()))
    return best


def _evaluate_count(count, params: dict) -> float:
    from workbench.properties.symbolic import evaluate_many

    return float(evaluate_many({0: count}, params)[0])

# }}}
