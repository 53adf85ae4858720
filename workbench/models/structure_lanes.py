"""Every value of a lane knob checked once a structure's fit is accepted.

A fit's probes and checks take a few values of each knob (round 1: the base, one
neighbour and the ends of the range), and a count may change class at one value
inside the range only: where the extent of a group along ``lid(0)`` equals a
constant of the kernel, an index ``2J (p // J) + p % J`` becomes the lane itself and
loopy finds a unit stride that it finds at no other group size (issue #33: blind10's
bitonic_step, ``..._stride1`` at ``gs = 128`` of ``J = 128`` and ``..._frac4ofgt4``
at every other ``gs``; a fit through 32, 64, 256 and 1024 carried the fraction to
128).  So every value of a lane knob (:func:`~workbench.models.candidate_features.
_lane_knobs`) that no probe had is counted at one point (a point counted already
where there is one) and compared with the fit at every feature; the caller splits
off the points of a value that differs (:class:`~workbench.models.structure_fit.
StructureFit`).  Numbers only: which points, and which values differ."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from workbench.models.structure_counts import RTOL


def _unprobed(plan, points: Sequence, lanes: Sequence[str]) -> list[tuple[str, object]]:
    """(knob, value) of every lane knob among the plan's knobs, and every value of it
    at ``points`` that none of the plan's probes (fit points and checks) had."""
    out = []
    for k in plan.knobs:
        if k in lanes:
            seen = {q[k] for q in plan.probes}
            out += [(k, v) for v in sorted({p[k] for p in points} - seen)]
    return out


def reach(p, base, knobs) -> tuple:
    # the point that differs from the base in most knobs, farthest on a log scale:
    # its check reaches the lane value's products with the others too
    return (sum(p[k] != base[k] for k in knobs),
            sum(abs(math.log(float(p[k]) / float(base[k]))) for k in knobs))


def lane_check_points(plan, points: Sequence, lanes: Sequence[str],
                      counted: Mapping) -> tuple:
    """One point to count per unprobed lane value (:func:`_unprobed`) that no counted
    point has yet."""
    want: list = []
    for k, v in _unprobed(plan, points, lanes):
        if any(p[k] == v for p in (*counted, *want)):
            continue
        at = [p for p in points if p[k] == v]
        want.append(max(at, key=lambda p: reach(p, plan.base, plan.knobs)))
    return tuple(want)


def _same(a: float, b: float) -> bool:
    if a == b or (math.isnan(a) and math.isnan(b)):
        return True
    return math.isfinite(a) and math.isfinite(b) and \
        abs(a - b) <= RTOL * max(abs(a), abs(b), 1e-300) + RTOL * abs(b)


def lane_misses(plan, points: Sequence, lanes: Sequence[str], counted: Mapping,
                values: Mapping) -> list[tuple[str, object, str]]:
    """(knob, value, why) of every unprobed lane value where a counted point's count
    differs from the fit's ``values`` at some feature (a count not listed is zero), or
    could not be counted."""
    misses = []
    for k, v in _unprobed(plan, points, lanes):
        for p in (q for q in points if q[k] == v and q in counted):
            found, fitted = counted[p], values[p]
            if found is None:
                misses.append((k, v, f"{p.label} could not be counted"))
                break
            bad = next((n for n in sorted(set(found) | set(fitted))
                        if not _same(float(found.get(n, 0.0)), float(fitted.get(n, 0.0)))),
                       None)
            if bad is not None:
                misses.append((k, v, f"{k}={v} split off: {bad}'s fit differs from its "
                                     f"count at {p.label}"))
                break
    return misses
