"""Every value of a lane knob, and of its product with each other knob, checked once a
structure's fit is accepted.

A fit's probes and checks take a few values of each knob (round 1: the base, one
neighbour and the ends of the range), and a count may change class at one value
inside the range only: where the extent of a group along ``lid(0)``, or the block a
group covers (lanes times the work per item), equals a constant of the kernel, an index
``2J (p // J) + p % J`` becomes the lane (or the group's offset) itself and loopy finds
a stride class that it finds at no other size (issue #33: blind10's bitonic_step,
``J = 128``: ``..._stride1`` at ``gs = 128`` and ``..._frac4of4`` at ``gs*ppi = 128``,
``..._frac4ofgt4`` elsewhere; a fit through the other values carried the fraction
there).  So every value of a lane knob (:func:`~workbench.models.candidate_features.
_lane_knobs`) and of its product with each other numeric knob that no probe had is
counted at some point (the fewest points that reach them all, none where a counted
point has it) and compared with the fit at every feature; the caller splits off the
points of a value that differs (:class:`~workbench.models.structure_fit.StructureFit`).
Numbers only: which points, and which values differ."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from workbench.models.structure_counts import RTOL

#: a key: the knobs whose product is checked at every value ("gs", or "gs*ppi")
Key = tuple[str, ...]


def key_name(key: Key) -> str:
    return "*".join(key)


def key_value(p, key: Key):
    return math.prod(p[k] for k in key)


def lane_keys(knobs: Sequence[str], lanes: Sequence[str]) -> list[Key]:
    """Every lane knob among ``knobs``, and its product with every other of them."""
    out: list[Key] = []
    for k in (k for k in knobs if k in lanes):
        out += [(k,), *((k, j) for j in knobs if j != k and (j, k) not in out)]
    return out


def _pairs(p, keys) -> set:
    return {(key, key_value(p, key)) for key in keys}


def _unprobed(plan, points: Sequence, lanes: Sequence[str]) -> set:
    """(key, value) of every :func:`lane_keys` key and value of it at ``points`` that
    none of the plan's probes (fit points and checks) had."""
    keys = lane_keys(plan.knobs, lanes)
    seen = set().union(*(_pairs(q, keys) for q in plan.probes))
    return set().union(*(_pairs(p, keys) for p in points)) - seen


def unprobed_points(plan, points: Sequence, lanes: Sequence[str]) -> set:
    """The points with some :func:`lane_keys` value that none of the plan's probes had:
    those :func:`lane_misses` compares with an accepted fit (and splits off where
    they differ)."""
    keys = lane_keys(plan.knobs, lanes)
    if not keys:
        return set()
    missed = _unprobed(plan, points, lanes)
    return {p for p in points if _pairs(p, keys) & missed}


def reach(p, base, knobs) -> tuple:
    # the point that differs from the base in most knobs, farthest on a log scale:
    # its check reaches the lane value's products with the others too
    return (sum(p[k] != base[k] for k in knobs),
            sum(abs(math.log(float(p[k]) / float(base[k]))) for k in knobs))


def cover(points: Sequence, pairs_of, missed: set, base, knobs, prefer=frozenset()) -> list:
    """The fewest of ``points`` (greedy) whose ``pairs_of(point)`` reach every pair of
    ``missed``; of points that reach as many, one in ``prefer`` first, then the one
    :func:`reach` puts farthest from ``base``."""
    missed, out = set(missed), []
    # each point's pairs and reach once, not once per pick: the ranking's process plans
    # every structure before its first probe is sent (blind10's bitonic_step: 2,000
    # calls of ``key_value`` a ranking), and on the GPU host's 16 cores that is wall time
    # no counting process uses
    known: dict = {}

    def of(p) -> tuple:
        got = known.get(p)
        if got is None:
            got = known[p] = (pairs_of(p), p in prefer, reach(p, base, knobs))
        return got

    while missed:
        best = max(points, key=lambda p: (len(of(p)[0] & missed), *of(p)[1:]),
                   default=None)
        if best is None or not of(best)[0] & missed:
            break
        out.append(best)
        missed -= of(best)[0]
    return out


def lane_check_points(plan, points: Sequence, lanes: Sequence[str],
                      counted: Mapping) -> tuple:
    """The points to count that reach every unprobed (key, value) (:func:`_unprobed`)
    that no counted point has yet."""
    keys = lane_keys(plan.knobs, lanes)
    missed = _unprobed(plan, points, lanes) - set().union(
        *(_pairs(p, keys) for p in counted))
    return tuple(cover(points, lambda p: _pairs(p, keys), missed, plan.base, plan.knobs))


def _same(a: float, b: float) -> bool:
    if a == b or (math.isnan(a) and math.isnan(b)):
        return True
    return math.isfinite(a) and math.isfinite(b) and \
        abs(a - b) <= RTOL * max(abs(a), abs(b), 1e-300) + RTOL * abs(b)


def differs(found: Mapping, fitted: Mapping) -> str | None:
    """The first feature whose count differs from its fitted value, if one."""
    return next((n for n in sorted(set(found) | set(fitted))
                 if not _same(float(found.get(n, 0.0)), float(fitted.get(n, 0.0)))), None)


def lane_misses(plan, points: Sequence, lanes: Sequence[str], counted: Mapping,
                values: Mapping) -> tuple[list[tuple[Key, object, str]], list]:
    """(key, value, why) of every unprobed (key, value) where a counted point's count
    differs from the fit's ``values`` at some feature (a count not listed is zero), or
    could not be counted, in the order of the keys, then of their values; and the
    points still to count: a value whose counted points all have an earlier miss's
    value (``gs*ppi = 128`` seen only at ``gs = 128``) is checked at another."""
    keys = lane_keys(plan.knobs, lanes)
    misses: list = []
    unresolved = set()

    def explained(p) -> bool:
        return any(key_value(p, key) == v for key, v, _ in misses)

    for key, v in sorted(_unprobed(plan, points, lanes),
                         key=lambda kv: (keys.index(kv[0]), kv[1])):
        at = [q for q in points if key_value(q, key) == v and not explained(q)]
        checked = [q for q in at if q in counted]
        if at and not checked:
            unresolved.add((key, v))
        for p in checked:
            found, fitted = counted[p], values[p]
            if found is None:
                misses.append((key, v, f"{p.label} could not be counted"))
                break
            bad = differs(found, fitted)
            if bad is not None:
                misses.append((key, v, f"{key_name(key)}={v} split off: {bad}'s fit "
                                       f"differs from its count at {p.label}"))
                break
    rest = [p for p in points if not explained(p)]
    return misses, cover(rest, lambda p: _pairs(p, keys), unresolved, plan.base,
                         plan.knobs)
