"""A joint fit from the points already counted: the fewest of a :class:`TensorPlan`'s
monomials that give every counted value.

A tile with a halo counts ``n^2 (1 + 1/bx)(1 + 1/(by rpi))``: four terms, whose weights
do not sort out knob by knob (:func:`workbench.models.structure_counts._join`), so the
structure is fitted jointly over every product of the exponents its knobs show one at a
time (``{1, 1/bx} x {1, 1/by} x {1, 1/rpi}``: eight monomials).  Determining all eight
weights takes points that differ from the base in several knobs (five more builds on
``blind2_resize``), but four of them are zero.  The points of the two rounds before (the
base, two neighbours along every knob, the checks that differ from it in most knobs)
already fix the four that are not, with equations to spare.  Per feature, where
the counted points fix every monomial's share at every point (the rank of the
monomials there is their rank over the structure), the joint fit is solved from them
and checked at two points over, each counted point predicted by the others (not one
alone fixing a monomial, a halo's cross term through one point off the axes); else the fewest monomials that give every counted
value (to float rounding, value by value) are taken where

- the counted points give at least two independent equations beyond those monomials
  (the rank of all of the feature's monomials there, less their number): a count of
  many terms through points that cannot tell them apart has a sparser stand-in that
  fits them exactly, and then leaves fewer over (a 3-D box's ``27 + (1 + 2/bx)(1 +
  2/by)(1 + 2/zpi)``, eight terms, fits six at ten points of rank 7);
- no set of up to two more monomials (and fewer than that rank, which give any values)
  gives them too and differs anywhere in the structure;

or where the feature is the product of its fits along each knob (a 3-D halo's eight
monomials, none zero), checked at two points or more that differ from the base in
two knobs.  Where a feature has none of these, the caller counts the joint fit's
points as before."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from workbench.models.structure_counts import (
    RTOL,
    Minima,
    TensorPlan,
    _basis,
    _design,
    _fit_axis,
    _fitted_names,
    _take_minima,
    knob_ratios,
)

#: the most subsets of one feature's monomials tried (a feature of 16 monomials has
#: 65,536; the halo's four of eight take 162)
MAX_SUBSETS = 2000
#: counted points beyond a subset's size that it must also give: its checks
SPARE = 2
#: larger subsets than the fewest that must not fit otherwise
GAP = 2


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal value by value up to float rounding, each relative to itself (a term
    that is small at one point only is not lost in the largest value's tolerance); a
    zero as a solve leaves it, a millionth of the tolerance of the largest value."""
    floor = 1e-6 * RTOL * max(np.abs(a).max(initial=0), np.abs(b).max(initial=0))
    return bool(np.all(np.abs(a - b) <= RTOL * np.maximum(np.abs(a), np.abs(b)) + floor))


def _each_checked(a: np.ndarray) -> bool:
    """Every row of ``a`` lies in the span of the others: each counted point is
    predicted by the rest, so its value checks the fit (a monomial that one point alone
    fixes, the cross term of a halo through one point off the axes, is fitted to it and
    checked nowhere, however many points lie on the axes)."""
    rank = np.linalg.matrix_rank(a)
    return all(np.linalg.matrix_rank(np.delete(a, i, axis=0)) == rank
               for i in range(len(a)))


def _exact(a: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """The weights of ``a w = y`` where the columns of ``a`` are independent and the
    solution gives every value to float rounding, else None."""
    if a.shape[1] and np.linalg.matrix_rank(a) < a.shape[1]:
        return None
    w = np.linalg.lstsq(a, y, rcond=None)[0] if a.shape[1] else np.zeros(0)
    return w if _equal(a @ w, y) else None


def fewest_terms(basis: Sequence[tuple], at_counted: np.ndarray, y: np.ndarray,
                 at_all: np.ndarray) -> np.ndarray | None:
    """A feature at every point (``at_all``: ratios to the base) from the fewest of
    ``basis``'s monomials that give ``y`` at the counted points (``at_counted``; all of
    them where those points fix them all, with ``SPARE`` points over), or None: the counted points leave fewer than ``SPARE`` independent equations over (the
    rank of all the basis's monomials there, less the subset's size), or some subset
    of up to ``GAP`` more monomials (and fewer than the rank, which give any values)
    also gives ``y`` and differs from it somewhere (a sparser stand-in for a count of
    many terms through points that cannot tell them apart), or too many subsets to
    try."""
    full = _design(at_counted, basis)
    every = _design(at_all, basis)
    rank = np.linalg.matrix_rank(full) if len(basis) else 0
    if rank == np.linalg.matrix_rank(every):
        # the counted points fix every monomial's share at every point: the joint fit
        # itself, checked where points are left over
        w = np.linalg.lstsq(full, y, rcond=None)[0]
        if len(y) < rank + SPARE or not _equal(full @ w, y) or not _each_checked(full):
            return None
        return every @ w
    tried = 0
    first = None
    for size in range(0, len(basis) + 1):
        if first is None and rank < size + SPARE:
            return None
        # as many independent monomials as the rank give any counts: no evidence
        if first is not None and (size > first[0] + GAP or size >= rank):
            return first[1]
        for subset in itertools.combinations(range(len(basis)), size):
            tried += 1
            if tried > MAX_SUBSETS:
                return None
            cols = list(subset)
            w = _exact(full[:, cols], y)
            if w is None:
                continue
            values = every[:, cols] @ w if cols else np.zeros(len(at_all))
            if first is None:
                if not _each_checked(full[:, cols]):
                    return None
                first = (size, values)
            elif not _equal(values, first[1]):
                return None
    return first[1] if first is not None else None


def _off_axes(at: Sequence, base, knobs) -> int:
    return sum(sum(p[k] != base[k] for k in knobs) >= 2 for p in at)


def product_of_axes(plan: TensorPlan, at: Sequence, y: np.ndarray, points: Sequence
                    ) -> np.ndarray | None:
    """A feature as the product of its fits along each knob through the base
    (``n^3 (1 + 2/bx)(1 + 2/by)(1 + 2/zpi)``: all eight monomials, none zero, but three
    factors of two terms), at every one of ``points``, where it gives the value at
    every counted point (``at``, values ``y``) and at least ``SPARE`` of those differ
    from the base in two knobs or more; else None."""
    where = {p: j for j, p in enumerate(at)}
    if plan.base not in where or _off_axes(at, plan.base, plan.knobs) < SPARE:
        return None
    y0 = float(y[where[plan.base]])
    if y0 == 0:
        return None
    factors = []
    for knob in plan.knobs:
        along = [p for p in at if p[knob] != plan.base[knob] and all(
            p[k] == plan.base[k] for k in plan.knobs if k != knob)]
        fit = _fit_axis([float(p[knob]) / float(plan.base[knob]) for p in along],
                        [float(y[where[p]]) for p in along], y0)
        if not fit:
            return None
        factors.append(fit)

    def at_ratios(ratios: np.ndarray) -> np.ndarray:
        out = np.full(len(ratios), y0)
        for i, fit in enumerate(factors):
            out = out * sum(w * _basis(ratios[:, i], code) for code, w in fit) / y0
        return out
    got = at_ratios(knob_ratios(at, plan.base, plan.knobs))
    if not _equal(got, y):
        return None
    return at_ratios(knob_ratios(points, plan.base, plan.knobs))


def fit_counted(plan: TensorPlan, counted: Mapping, points: Sequence,
                minima: Minima | None = None) -> dict[str, np.ndarray] | None:
    """Every feature at every one of ``points`` from the counts at hand (``counted``:
    point -> name -> value, every point of the structure counted so far; a point that
    could not be counted, None), or None where some feature needs more points."""
    at = [p for p in points if p in counted]
    if any(counted[p] is None for p in at):
        return None
    names, pairs = _fitted_names(sorted(set().union(*(counted[p] for p in at))), minima)
    bases = dict(plan.bases)
    at_counted = knob_ratios(at, plan.base, plan.knobs)
    at_all = knob_ratios(points, plan.base, plan.knobs)
    out: dict[str, np.ndarray] = {}
    for name in names:
        if name not in bases:
            return None
        y = np.array([float(counted[p].get(name, 0.0)) for p in at])
        if np.isnan(y).all():
            out[name] = np.full(len(points), np.nan)
            continue
        if np.isnan(y).any():
            return None
        values = fewest_terms(bases[name], at_counted, y, at_all)
        if values is None:
            values = product_of_axes(plan, at, y, points)
        if values is None:
            return None
        out[name] = values
    if _take_minima(out, pairs, counted, at, points):
        return None
    return out
