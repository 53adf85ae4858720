"""Unique data footprints of a thread group, by enumeration and by ISL (paper, III-D).

Both methods count, per array, the distinct ``granularity``-byte units (bytes,
32-byte sectors, 128-byte lines) overlapped by the elements accessed of the threads in a
:class:`~workbench.models.roofline.address.ThreadGroup`, and add the arrays up (no
aliasing between arrays). They agree exactly:

* ``"enumerate"`` evaluates every address with numpy (one broadcast array per
  access over the coordinates the access depends on) and counts ``np.unique`` of
  ``address // granularity``: cost grows with the number of threads.
* ``"intervals"`` (:mod:`workbench.models.roofline.intervals`) counts unions of contiguous
  address runs: as exact, and far faster, for accesses that are contiguous along some
  coordinate; ``"auto"`` uses it where it applies and ISL elsewhere.
* ``"isl"`` builds, per access, the set ``{ [u] : exists coords in the group's box,
  loop ranges and guards, 0 <= e < element_size with g*u <= address + e < g*u + g }``, unions them per
  array and counts it with barvinok (``card()``): cost depends on the number and
  shape of the accesses, not on how many threads or blocks the group has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import islpy as isl
import numpy as np

from workbench.models.roofline.address import (
    HW_VARS, Access, Direction, ThreadGroup, bound_address)
from workbench.models.roofline.distinct import distinct, distinct_count
from workbench.models.roofline.intervals import MAX_RUNS, footprint_ranges, union_size
from workbench.properties.counting import require_barvinok

METHODS = ("enumerate", "isl", "intervals", "auto")


def _select(accesses: Iterable[Access], direction) -> list[Access]:
    if direction is None:
        return list(accesses)
    direction = Direction(direction)
    return [a for a in accesses if a.direction is direction]


# {{{ enumeration

def _enumerate_units(access: Access, group: ThreadGroup, granularity: int,
                     params: Mapping[str, int]) -> np.ndarray:
    addr = bound_address(access, params)
    ranges = {**group.ranges(), **addr.loop_ranges}
    # Coordinates the access does not depend on cannot add addresses: leave them out.
    used = [v for v in ranges if v in addr.variables()]
    values = {}
    for axis, name in enumerate(used):
        lo, hi = ranges[name]
        if hi <= lo:
            return np.empty(0, dtype=np.int64)
        shape = [1] * len(used)
        shape[axis] = hi - lo
        values[name] = np.arange(lo, hi, dtype=np.int64).reshape(shape)
    shape = tuple(ranges[v][1] - ranges[v][0] for v in used)
    byte = access.base_alignment + access.element_size * np.broadcast_to(
        np.asarray(addr.index.evaluate(values), dtype=np.int64), shape)
    if addr.guards:
        mask = np.ones(shape, dtype=bool)
        for g in addr.guards:
            mask &= np.broadcast_to(np.asarray(g.holds(values)), shape)
        byte = byte[mask]
    byte = byte.ravel()
    # An element covers bytes [byte, byte + element_size): these offsets reach every
    # unit it overlaps (one per unit start, plus its last byte).
    offsets = sorted(set(range(0, access.element_size, granularity))
                     | {access.element_size - 1})
    return distinct(np.concatenate(
        [np.floor_divide(byte + off, granularity) for off in offsets]))


def _footprint_enumerate(accesses, group, granularity, params) -> dict[str, int]:
    per_array: dict[str, list[np.ndarray]] = {}
    for acc in accesses:
        per_array.setdefault(acc.array, []).append(
            _enumerate_units(acc, group, granularity, params))
    return {name: distinct_count(np.concatenate(parts))
            for name, parts in per_array.items()}

# }}}


# {{{ ISL

def _isl_units_set(access: Access, group: ThreadGroup, granularity: int,
                   params: Mapping[str, int]) -> isl.Set:
    addr = bound_address(access, params)
    # Loop variables get neutral names (loopy's inames or user names may clash with
    # ISL keywords or the hardware coordinates).
    rename = {name: f"v{k}" for k, (name, _) in enumerate(addr.loops)}
    renamed = {**{v: v for v in HW_VARS}, **rename}

    def aff(expr) -> str:
        parts = [f"{c}*{renamed[v]}" for v, c in expr.terms]
        return " + ".join([*parts, str(expr.const)])

    constraints = []
    for name, (lo, hi) in {**group.ranges(), **addr.loop_ranges}.items():
        constraints.append(f"{lo} <= {renamed[name]} <= {hi - 1}")
    for g in addr.guards:
        constraints.append(f"{aff(g.expr)} {'=' if g.equality else '>='} 0")
    byte = (f"{access.base_alignment} + {access.element_size}*({aff(addr.index)})")
    gran = int(granularity)
    # Every unit overlapping the element's bytes [byte, byte + element_size).
    constraints.append(f"0 <= e < {access.element_size}")
    constraints.append(f"{gran}*u <= {byte} + e <= {gran}*u + {gran - 1}")
    coords = ", ".join([*HW_VARS, *rename.values(), "e"])
    return isl.Set(f"{{ [u] : exists ({coords} : {' and '.join(constraints)}) }}")


def card_int(s: isl.Set) -> int:
    """Exact number of points of a parameter-free set (barvinok)."""
    if s.is_empty():
        return 0
    require_barvinok()
    pwq = s.card()
    val = pwq.eval(isl.Point.zero(pwq.get_domain_space()))
    return int(val.to_python())


def _footprint_isl(accesses, group, granularity, params) -> dict[str, int]:
    per_array: dict[str, isl.Set] = {}
    for acc in accesses:
        s = _isl_units_set(acc, group, granularity, params)
        per_array[acc.array] = per_array[acc.array] | s if acc.array in per_array else s
    return {name: card_int(s.coalesce()) for name, s in per_array.items()}


def unit_sets(accesses: Iterable[Access], group: ThreadGroup, granularity: int = 1,
              params: Mapping[str, int] | None = None, direction=None
              ) -> dict[str, isl.Set]:
    """Per array, the ISL set of unit indices touched (for intersections/overlaps)."""
    out: dict[str, isl.Set] = {}
    for acc in _select(accesses, direction):
        s = _isl_units_set(acc, group, granularity, dict(params or {}))
        out[acc.array] = out[acc.array] | s if acc.array in out else s
    return {k: v.coalesce() for k, v in out.items()}

# }}}


def footprint(accesses: Iterable[Access], group: ThreadGroup, granularity: int = 1,
              method: str = "isl", params: Mapping[str, int] | None = None,
              direction: str | Direction | None = None) -> dict[str, int]:
    """Distinct ``granularity``-byte units per array touched by ``group``.

    ``direction`` ("load"/"store") keeps only those accesses; ``None`` takes both.
    """
    if granularity < 1:
        raise ValueError("granularity must be a positive number of bytes")
    selected = _select(accesses, direction)
    params = dict(params or {})
    if method in ("intervals", "auto"):
        ranges = footprint_ranges(selected, group, granularity, params)
        if ranges is not None:
            return {name: union_size(parts) for name, parts in ranges.items()}
        if method == "intervals":
            raise ValueError("the intervals method needs, per access, no multi-variable "
                             "equality guard, and "
                             f"at most {MAX_RUNS} runs")
        method = "isl"
    if method == "enumerate":
        return _footprint_enumerate(selected, group, granularity, params)
    if method == "isl":
        return _footprint_isl(selected, group, granularity, params)
    raise ValueError(f"unknown method {method!r}; expected one of {METHODS}")


def unique_units(accesses, group, granularity: int = 1, **kwargs) -> int:
    """Distinct ``granularity``-byte units, all arrays together."""
    return sum(footprint(accesses, group, granularity, **kwargs).values())


def unique_bytes(accesses, group, granularity: int = 1, **kwargs) -> int:
    """Bytes moved when whole ``granularity``-byte units are transferred."""
    return granularity * unique_units(accesses, group, granularity, **kwargs)


def unique_lines(accesses, group, line: int = 128, **kwargs) -> int:
    """Distinct cache lines (128 B allocation granularity by default)."""
    return unique_units(accesses, group, line, **kwargs)


def unique_sectors(accesses, group, sector: int = 32, **kwargs) -> int:
    """Distinct sectors (32 B transfer granularity by default)."""
    return unique_units(accesses, group, sector, **kwargs)
