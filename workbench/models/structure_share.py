"""Structures of a ``kernel(point)`` space that share another's counts.

Many spaces have an on/off knob that changes the kernel's shape but none of the counts
a model reads (an ``unroll`` flag: loopy's unrolling tag leaves every operation,
access and run count as it was; which side of a transpose is staged in local memory,
often).  Each of its values is a structure of its own
(:func:`~workbench.models.structure_counts.structural_knobs`), so each was fitted
from its own probes: 4 to 14 builds each.

A structure that differs from an earlier one in one structural knob alone, and whose
every point has its counterpart there (the same numbers), is first counted at its
own plan's base and checks (:meth:`StructureFit.first_probes`: the point that differs
from the base in most knobs), then, where those equal an earlier structure's, at the
ends of every knob's range and every value of a lane knob and of its products (as an
accepted fit is checked: :mod:`~workbench.models.structure_lanes`); tried where that
is fewer builds than its own fit's first round and lane checks
(:meth:`StructureFit.first_cost`).  Where every
count at those points equals the earlier structure's at their counterparts (to
float rounding, :data:`~workbench.models.structure_counts.RTOL`), it takes that
structure's counts at every point (:attr:`CountMethod.SHARED`); else it is counted as
any structure, its probes so far among its fit's (nothing counted twice, none lost).
This is the same evidence a fit has for its unbuilt points (a check at the spread
point and the ends), taken against a fitted or counted structure instead of a
monomial; ``benchmarks/structure_counts.py`` compares every point with its own
count.

With many counting processes (the GPU host's 16) a share speculates as its own fit
would, after its own fit's first round (where the share fails, the fit that follows
then finds its next points counted or under way: structure-ranking.md, host19), and
every point of it counted so far, its probes or not, is compared with its counterpart
before it takes the earlier structure's counts."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from workbench.models.structure_counts import RTOL, CountMethod, structure_key, structural_knobs
from workbench.models.structure_fit import StructureFit


def _numbers(point, structural) -> tuple:
    return tuple((k, v) for k, v in point.items if k not in structural)


def _same(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    """Every count of one point equal to the other's (a count not listed is zero)."""
    for name in set(a) | set(b):
        x, y = float(a.get(name, 0.0)), float(b.get(name, 0.0))
        if x == y or (math.isnan(x) and math.isnan(y)):
            continue
        if not (math.isfinite(x) and math.isfinite(y)) or \
                abs(x - y) > RTOL * max(abs(x), abs(y)):
            return False
    return True


class SharedFit:
    """One structure that may take an earlier structure's counts (module docstring);
    the interface of :class:`StructureFit` (``wanted``, ``speculative``, ``give``,
    ``done``, ``values``, ``method``, ``report``), which it becomes where it does not."""

    def __init__(self, own: StructureFit, parents: Sequence[tuple[object, str, dict]]):
        self.own = own
        self.points = own.points
        self._members = set(self.points)
        # (fit, its label, point here -> its counterpart there), earliest first
        self.parents = list(parents)
        self.probes = own.first_probes()
        self._probe_set = set(self.probes)
        # its first stage: the plan's base and checks, which its own fit counts too;
        # where no earlier structure's counts equal them there (a local-memory flag,
        # another layout), it falls back before counting a point its fit would not
        # (the ends and lane values after them cost a failed share 2-3 builds); then
        # the rest one by one (:meth:`wanted`)
        self._first = own.first_stage()
        self.counted: dict = {}
        self._values: dict | None = None
        self._fell_back = False
        self.reason = ""

    @property
    def method(self):
        return self.own.method if self._fell_back else (
            CountMethod.SHARED if self._values is not None else None)

    @property
    def values(self):
        self._resolve()
        return self.own.values if self._fell_back else self._values

    @property
    def done(self) -> bool:
        return self.values is not None

    def _fall_back(self, reason: str) -> None:
        self._fell_back = True
        self.reason = reason
        self.own.give(self.counted)

    def _resolve(self) -> None:
        if self._fell_back or self._values is not None:
            return
        if any(p not in self.counted for p in self.probes[:self._first]):
            return
        have = [p for p in self.probes if p in self.counted]
        if any(self.counted[p] is None for p in have):
            self._fall_back("a probe could not be counted")
            return
        # points of it counted beyond its probes (its own fit's, speculated on idle
        # counting processes: speculative) are evidence too: where one differs from
        # its counterpart, its own fit takes that count, not the earlier structure's
        beyond = [p for p in self.counted if p not in self._probe_set]
        if any(self.counted[p] is None for p in beyond):
            self._fall_back("a point could not be counted")
            return
        agree = False
        for parent, label, counterpart in self.parents:
            if not parent.done:
                return        # asked again once it is (its own done resolves it first)
            theirs = parent.values
            if any(not theirs.get(counterpart[p]) for p in self.points):
                continue      # a counterpart that could not be counted
            if all(_same(self.counted[p], theirs[counterpart[p]]) for p in (*have, *beyond)):
                if len(have) < len(self.probes):
                    agree = True      # so far: the rest of its probes next
                    continue
                self._values = {p: dict(theirs[counterpart[p]]) for p in self.points}
                self.reason = (f"counts equal to {label}'s at "
                               f"{len(self.probes) + len(beyond)} points")
                return
        if agree:
            return
        self._fall_back("counts differ from " + " and ".join(
            label for _, label, _ in self.parents))

    def wanted(self) -> list:
        self._resolve()
        if self._fell_back:
            return self.own.wanted()
        if self._values is not None:
            return []
        first = [p for p in self.probes[:self._first] if p not in self.counted]
        # then the rest one at a time: a share that differs at one of them falls back
        # at once, before counting more points its own fit would not (a local-memory
        # flag equal at the base and check, not at the ends: 2 builds more than its fit)
        return first or [p for p in self.probes if p not in self.counted][:1]

    def speculative(self) -> list:
        if self._fell_back:
            return self.own.speculative()
        if self._values is not None:
            return []
        # the rest of its fit's first round: needed at once where the counts differ;
        # then what its own fit would speculate on
        first = [p for p in self.own.wanted() if p not in self.counted]
        return first + [p for p in self.own.speculative()
                        if p not in self.counted and p not in first]

    def give(self, counted: Mapping) -> None:
        if self._fell_back:
            self.own.give(counted)
            return
        self.counted.update({p: v for p, v in counted.items() if p in self._members})
        self._resolve()

    def report(self) -> list[tuple[tuple, int, int, CountMethod, str]]:
        if self._fell_back:
            return [(*r[:4], f"{self.reason}; {r[4]}" if r[4] else self.reason)
                    for r in self.own.report()]
        structure = tuple((k, self.points[0][k]) for k in self.own.structural)
        return [(structure, len(self.points), len(self.counted),
                 self.method or CountMethod.PER_POINT, self.reason)]


def share_structures(fits: dict, space) -> None:
    """Replace, in ``fits`` (``(space, structure key) -> fit``), the fit of every
    structure of ``space`` that an earlier structure may share its counts with by a
    :class:`SharedFit` (module docstring).  Earlier: in the order of the space's
    points; only structures counted whole (not point by point from the start)."""
    structural = structural_knobs(space)
    order = {k: i for i, k in enumerate(dict.fromkeys(
        structure_key(p, structural) for p in space.points()))}
    mine = sorted((skey for s, skey in fits if s is space and skey in order),
                  key=order.__getitem__)
    by_numbers = {skey: {_numbers(p, structural): p for p in fits[space, skey].points}
                  for skey in mine}
    for i, skey in enumerate(mine):
        own = fits[space, skey]
        if not isinstance(own, StructureFit) or own.method is not None:
            continue
        probes = own.first_probes()
        if not probes or len(probes) >= own.first_cost():
            continue      # no fewer builds than its own fit's first round and lane checks
        parents = []
        for earlier in mine[:i]:
            differ = [k for (k, a), (_, b) in zip(skey, earlier) if a != b]
            there = by_numbers[earlier]
            counterpart = {p: there.get(_numbers(p, structural)) for p in own.points}
            if len(differ) == 1 and None not in counterpart.values():
                label = ",".join(f"{k}={v}" for k, v in earlier)
                parents.append((fits[space, earlier], label, counterpart))
        if parents:
            fits[space, skey] = SharedFit(own, parents)
