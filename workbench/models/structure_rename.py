"""A structure whose global access classes move with a knob's value, fitted across that
knob with the classes renamed (issue #33).

A work-per-item knob of a blocked order (``wpi`` consecutive items a work item) sets
the stride between neighbouring lanes, and with it the class a global access count is
filed under: ``..._load_frac2of2`` at ``wpi = 2``, ``..._frac4of4`` at 4,
``..._frac4ofgt4`` from 8 (:class:`~workbench.properties.features.StrideFraction`).
A feature present at one value is absent at the next, no sum of monomials fits it,
and the structure used to be split value by value, each part of four to six points
counted nearly point by point (378 of the 2,110 probes of the 65 development spaces,
``structure-ranking.md`` section 67).  The count itself is often one sum of monomials
across the values; only the name of its class moves.

So before such a split, where the counted points of every value of the knob show the
classes of the base's value but for one class at most swapped for another (a token
out, a token in), the structure is fitted on counts whose classes are renamed to the
base value's, and each point's fitted values get its value's classes back.  Every
check of that fit (its checks, ends and lane values) compares renamed counts, so a
count that changes with its class, not only its name, fails the fit as any count
does, and the fit splits or counts per point as before.  Where the classes do not map
one to one, or no value's classes differ, the structure is split by the knob's values
exactly as before.  Numbers and names only; building and counting is the caller's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

#: a global access count's name: its head (granularity, array type, direction) and class
_CLASSED = re.compile(r"^(?P<head>.*f_mem_access_global_[a-z0-9]+_(?:load|store|minls))_"
                      r"(?P<cls>stride[01]|frac\dof(?:\d|gt4))$")


def access_classes(found: Mapping[str, float]) -> frozenset[str]:
    """The access classes of a point's counts that hold a count (a zero count is no
    count: a count not listed is zero)."""
    return frozenset(m["cls"] for name, v in found.items()
                     if v != 0 and (m := _CLASSED.match(name)) is not None)


def rename(found: Mapping[str, float], swap: Mapping[str, str]) -> dict[str, float]:
    """``found`` with every global access class ``c`` in ``swap`` filed under ``swap[c]``."""
    if not swap:
        return dict(found)
    out: dict[str, float] = {}
    for name, v in found.items():
        m = _CLASSED.match(name)
        if m is not None and m["cls"] in swap:
            name = f"{m['head']}_{swap[m['cls']]}"
        out[name] = out.get(name, 0.0) + v
    return out


def class_swaps(points: Sequence, knob: str, counted: Mapping, base_value
                ) -> dict[object, dict[str, str]] | None:
    """Per value of ``knob`` among the counted ``points``, the class swap that gives
    its points the classes of ``base_value``'s (empty where they agree): None where
    some value's classes are not those of the base value's with one class swapped for
    one other, or where the points of one value disagree among themselves."""
    seen: dict[object, frozenset[str]] = {}
    for p in points:
        found = counted.get(p)
        if found is None:
            continue
        classes = access_classes(found)
        if seen.setdefault(p[knob], classes) != classes:
            return None
    if base_value not in seen or len(seen) < len({p[knob] for p in points}):
        return None
    home = seen[base_value]
    swaps: dict[object, dict[str, str]] = {}
    for value, classes in seen.items():
        out, into = sorted(classes - home), sorted(home - classes)
        if len(out) != len(into) or len(out) > 1:
            return None
        swaps[value] = dict(zip(out, into))
    return swaps


class AcrossKnob:
    """A structure part that is fitted across ``knob`` on renamed classes (an inner
    fit made by ``fitted()``), or, where that cannot be tried, the split by the
    knob's values that ``split()`` makes; it answers as a
    :class:`~workbench.models.structure_fit.StructureFit` does (``wanted``, ``give``,
    ``speculative``, ``done``, ``values``, ``report``)."""

    def __init__(self, points: Sequence, knob: str, base_value,
                 fitted: Callable[[], object], split: Callable[[], list], split_label: str):
        self.points = list(points)
        self.knob = knob
        self.base_value = base_value
        self._members = set(self.points)
        self._fitted, self._split = fitted, split
        self.counted: dict = {}
        self.values: dict | None = None
        self.inner = None
        self.parts: list = []
        self._swaps: dict | None = None
        self.reason = split_label   # until a fit across the knob is tried

    @property
    def done(self) -> bool:
        return self.values is not None

    def _unseen(self) -> list:
        """One point of every value of the knob that no counted point has: the one
        nearest the start of the part's list (the space's order)."""
        have = {p[self.knob] for p in self.counted}
        out, taken = [], set()
        for p in self.points:
            value = p[self.knob]
            if value not in have and value not in taken:
                out.append(p)
                taken.add(value)
        return out

    def wanted(self) -> list:
        if self.done:
            return []
        if self.parts:
            return [p for part in self.parts for p in part.wanted()]
        if self.inner is not None:
            return self.inner.wanted()
        return self._unseen()

    def speculative(self) -> list:
        if self.parts:
            return [p for part in self.parts for p in part.speculative()]
        return self.inner.speculative() if self.inner is not None else []

    def _canonical(self, counted: Mapping) -> dict:
        return {p: (rename(v, self._swaps[p[self.knob]]) if v is not None else None)
                for p, v in counted.items() if p in self._members}

    def give(self, counted: Mapping) -> None:
        if self.done:
            return
        self.counted.update({p: v for p, v in counted.items() if p in self._members})
        if self.parts:
            for part in self.parts:
                part.give(counted)
            if all(part.done for part in self.parts):
                self.values = {p: v for part in self.parts for p, v in part.values.items()}
            return
        if self.inner is None:
            if self._unseen():
                return
            swaps = class_swaps(self.points, self.knob, self.counted, self.base_value)
            if swaps is None or not any(swaps.values()):
                # no one-to-one swap, or nothing moves: the split by values, as before
                self.parts = self._split()
                self.give(self.counted)
                return
            self._swaps = swaps
            self.inner = self._fitted()
            moved = ", ".join(f"{self.knob}={v}: {', '.join(f'{a} as {b}' for a, b in s.items())}"
                              for v, s in sorted(swaps.items(), key=lambda vs: vs[0]) if s)
            self.reason = f"fitted across {self.knob} with classes renamed ({moved})"
            counted = self.counted
        self.inner.give(self._canonical(counted))
        if self.inner.done:
            back = {v: {b: a for a, b in s.items()} for v, s in self._swaps.items()}
            self.values = {p: rename(v, back[p[self.knob]])
                           for p, v in self.inner.values.items()}

    def report(self) -> list[tuple]:
        rows = [r for part in self.parts for r in part.report()] if self.parts else \
            self.inner.report() if self.inner is not None else []
        return [(*r[:4], self.reason + (f"; {r[4]}" if r[4] else "")) for r in rows]
