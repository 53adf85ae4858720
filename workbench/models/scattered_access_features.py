"""Sectors a warp's store writes only in part, and sectors a warp's load reads alone
(issue #34, round 14).

``f_partial_store_sectors`` (a device feature: 32-byte sectors of the whole launch,
any element type): per global store instruction whose lanes are a sector or more
apart along the first work-item axis (each lane writes a sector of its own), the
sectors the warp's lanes write fewer than 32 bytes of, where another store of the same
array at the same lane steps fills the gaps (an array of structures written field by
field; a transposed write with no companion is priced by the store sectors).  Three
fields of 4 or 8 bytes (12 or 24 bytes a lane: lanes share sectors) are not counted:
heldout11's ``hsv_to_rgb`` writes them at the rate of three planes.  Nine values a work item
written at stride 9 (an array of structures: ``rot[i, k]``) are nine instructions of
32 partial sectors each; the same values as nine planes are nine instructions of 4
whole sectors.  The sector features count the union of the nine (sector sharing), the
sectors the array ends up filling: the H100 takes 5.6 times as long for the
array-of-structures form (``sample_data/h100/access-probe.txt``), since each partial
write is a transaction of its own in L2.

``f_isolated_load_sectors`` (the same units): per global load instruction whose lanes
are at least 64 bytes apart along the first work-item axis, the sectors whose
64-byte neighbour (the other half of their 64-byte DRAM access) the instruction does
not read, where the array's loads reach at most half its elements (no other warp
reads the neighbour: a transposed read of a whole array is not counted).  One value read from each 256- or 512-byte row costs 1.9 to 2.6 times as
much a sector as reads of adjacent sectors (the same probe).

``f_partial_store_lines`` (round 15; the same units, 128-byte lines): the distinct
lines that hold those partial sectors, per warp's instruction.  The loopy probe of
round 14 (``sample_data/h100/scattered-probe.txt``) shows the partial-store penalty
growing with the number of fields beyond one price a sector: float32 9 fields 10.3 ps a
partial sector, 16 fields 12.4; float64 9 fields 13.2, 16 fields 24.6; about 25 ps a
line in each case with lanes 64 bytes or more apart, so a model bounds the time by both
(the larger of the sectors' and the lines' time).

Rows walked along one work item (:mod:`workbench.models.row_walk_features`, a
sequential loop stepping within the lane's own line) are left out of both: they have
prices of their own.  Indices that are not affine in the lanes (gathers) are left out
too.  A model adds these features at prices from the probe, not fitted.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import SCATTER_FEATURES
from workbench.models.feature_rows import built_rows
from workbench.models.row_walk_features import (
    _LINE,
    _SECTOR,
    _SUBGROUP,
    _arrays_and_local_axes,
    _coefficient,
    _lanes,
    _subscripts,
    flat_index,
)
from workbench.properties.symbolic import count_at

#: bytes of one DRAM access on the H100: two sectors
_PAIR = 64


def _bytes_written(addresses: list[float], size: int) -> Counter:
    """{sector: bytes one warp's store of ``size``-byte items at these addresses writes
    in it}."""
    written = Counter()
    for a in addresses:
        for byte in range(int(a), int(a) + size):
            written[byte // _SECTOR] += 1
    return written


def _partial_lines(addresses: list[float], size: int) -> int:
    """The 128-byte lines that hold a sector one warp's store writes in part."""
    written = _bytes_written(addresses, size)
    return len({s * _SECTOR // _LINE for s, n in written.items() if n < _SECTOR})


def _scattered(addresses: list[float], size: int, direction: str) -> int:
    """Partial sectors (a store) or isolated sectors (a load) of one warp's access at
    these byte addresses."""
    if direction == "store":
        return sum(1 for n in _bytes_written(addresses, size).values() if n < _SECTOR)
    touched = {int(a) // _SECTOR for a in addresses}
    return sum(1 for s in touched if (s ^ 1) not in touched)


@functools.lru_cache(maxsize=512)
def _accesses(spec, request, params: tuple) -> tuple:
    """(direction, accesses per launch at work-item granularity, scattered sectors a
    warp's instruction) of each global access that has any."""
    from loopy.statistics import count_inames_domain

    from workbench.models.parallelism import sequential_inames
    from workbench.models.private_stack import item_size

    knl = _kernel(spec, request)
    arrays, local = _arrays_and_local_axes(knl)
    if not local.axis0:
        return ()
    sequential = sequential_inames(knl)
    names = {n: 0 for n in knl.all_inames()}
    names.update(dict(params))
    lanes = _lanes(request)
    out, seen = [], set()
    loads: dict[str, list[frozenset]] = {}   # the inames of every load of an array
    for insn in knl.instructions:
        for direction, name, index, red in _subscripts(insn, arrays):
            if direction == "load":
                loads.setdefault(name, []).append(frozenset(insn.within_inames) | red)
            arg = arrays[name]
            size = item_size(arg, request)
            flat = flat_index(arg, index)
            inames = frozenset(insn.within_inames) | red
            # the instruction's own lanes (a prefetch's l.0 iname is not its neighbours')
            lane, row = local.of(inames)
            if flat is None or lane is None or (name, index, inames) in seen:
                continue
            seen.add((name, index, inames))
            lane_step = _coefficient(flat, lane, names)
            if lane_step is None or abs(lane_step) <= 1:
                continue
            if abs(lane_step) * size < (_PAIR if direction == "load" else _SECTOR):
                continue   # lanes that share a sector (a 64-byte access, for a load)
            steps = (_coefficient(flat, s, names) for s in inames & sequential)
            if abs(lane_step) * size >= _SECTOR and any(
                    s is not None and 0 < abs(s) * size < _LINE for s in steps):
                continue   # a walked row (row_walk_features)
            row_step = (_coefficient(flat, row, names) or 0.0) if row is not None else 0.0
            addresses = [(a * lane_step + b * row_step) * size for a, b in lanes]
            low = min(addresses)
            shifted = [x - low for x in addresses]
            scattered = _scattered(shifted, size, direction)
            if scattered:
                lines = _partial_lines(shifted, size) if direction == "store" else 0
                out.append((direction, name, (lane_step, row_step), index,
                            count_inames_domain(knl, inames), scattered, lines))
    return _with_gaps(knl, out, loads)


def _with_gaps(knl, found: list, loads: dict) -> tuple:
    """The accesses whose scattered sectors are not filled by other accesses: a store
    with a companion of the same array at the same lane steps and another index (the
    fields of an array of structures: the sector sharing counts their union, which the
    partial writes do not reach); a load of an array whose loads reach at most half
    its elements (one value a row: the neighbour sector is read by no one; a transposed
    read of a whole array is not one).  (direction, accesses, sectors, array, loads'
    inames, partial lines) of each; the loads' share is checked when the sizes are
    known."""
    import loopy as lp

    arrays = {a.name: a for a in knl.args if isinstance(a, lp.ArrayArg)}
    out = []
    for direction, name, steps, index, count, sectors, lines in found:
        if direction == "store":
            if not any(d == "store" and n == name and st == steps and ix != index
                       for d, n, st, ix, *_ in found):
                continue
            out.append((direction, count, sectors, None, (), lines))
        else:
            out.append((direction, count, sectors, arrays[name].shape,
                        tuple(loads.get(name, ())), 0))
    return tuple(out)


def _half_or_less(knl, shape, inames_of_loads, params: dict) -> bool:
    """Whether an array's loads (one element each) reach at most half its elements."""
    from loopy.statistics import count_inames_domain
    from pymbolic import evaluate

    try:
        elements = math.prod(float(evaluate(d, params)) for d in shape)
    except Exception:  # noqa: BLE001 - a size that is not known: not scattered
        return False
    reached = sum(count_at(count_inames_domain(knl, inames), params)
                  for inames in inames_of_loads)
    return 2 * reached <= elements


@functools.lru_cache(maxsize=512)
def _kernel(spec, request):
    from workbench.kernels.base import entry_kernel

    return entry_kernel(spec.build(request))


def scattered_sectors(candidate: Candidate) -> dict[str, float]:
    """{'store': partial sectors, 'load': isolated sectors, 'lines': the lines of the
    partial sectors} of ``candidate``'s launch."""
    params = candidate.params_dict
    request = candidate.request()
    items = math.prod(request.group_size)
    per_item = math.ceil(items / _SUBGROUP) / items
    out = {"store": 0.0, "load": 0.0, "lines": 0.0}
    for direction, count, per_request, shape, load_inames, lines in _accesses(
            candidate.spec, request, tuple(sorted(params.items()))):
        if direction == "load" and not _half_or_less(
                _kernel(candidate.spec, request), shape, load_inames, params):
            continue
        accesses = count_at(count, params) * per_item
        out[direction] += accesses * per_request
        out["lines"] += accesses * lines
    return out


def scattered_values(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
    """Every feature of this module for every candidate (NaN where a candidate cannot be built)."""
    candidates = list(candidates)
    out = {name: np.zeros(len(candidates)) for name in SCATTER_FEATURES}
    for i, _, sectors in built_rows(candidates, scattered_sectors, out.values()):
        out["f_partial_store_sectors"][i] = sectors["store"]
        out["f_isolated_load_sectors"][i] = sectors["load"]
        out["f_partial_store_lines"][i] = sectors["lines"]
    return out


provide_device_features(SCATTER_FEATURES, scattered_values)
