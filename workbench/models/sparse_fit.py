"""A joint fit from the points already counted: the fewest of a :class:`TensorPlan`'s
monomials that give every counted value.

A tile with a halo counts ``n^2 (1 + 1/bx)(1 + 1/(by rpi))``: four terms, whose weights
do not sort out knob by knob (:func:`workbench.models.structure_counts._join`), so the
structure is fitted jointly over every product of the exponents its knobs show one at a
time (``{1, 1/bx} x {1, 1/by} x {1, 1/rpi}``: eight monomials).  Determining all eight
weights takes points that differ from the base in several knobs (five more builds on
``blind2_resize``), but four of them are zero.  The points of the two rounds before (the
base, two neighbours along every knob, the checks that differ from it in most knobs)
already determine the four that are not, with points to spare: here every subset of a
feature's monomials is tried, fewest first, and a feature is taken where the smallest
subsets that give its value at every counted point (to float rounding) leave at least
two of those points over as checks, and all agree at every point of the structure.
Where a feature has no such fit, the caller counts the joint fit's points as before.

The evidence is the kind every fit here has: a sum of few monomials through the points
counted, checked at points it was not solved from (here at least two beyond the
unknowns, where the joint fit checks at two)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from workbench.models.structure_counts import (
    RTOL,
    Minima,
    TensorPlan,
    _design,
    _fitted_names,
    _take_minima,
    knob_ratios,
)

#: the most subsets of one feature's monomials tried (a feature of 16 monomials has
#: 65,536; the halo's four of eight take 162)
MAX_SUBSETS = 2000
#: counted points beyond a subset's size that it must also give: its checks
SPARE = 2


def _exact(a: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """The weights of ``a w = y`` where the columns of ``a`` are independent and the
    solution gives every value to float rounding, else None."""
    if a.shape[1] and np.linalg.matrix_rank(a) < a.shape[1]:
        return None
    w = np.linalg.lstsq(a, y, rcond=None)[0] if a.shape[1] else np.zeros(0)
    scale = RTOL * np.abs(y).max(initial=0)
    return w if np.allclose(a @ w, y, rtol=RTOL, atol=scale) else None


def fewest_terms(basis: Sequence[tuple], at_counted: np.ndarray, y: np.ndarray,
                 at_all: np.ndarray) -> np.ndarray | None:
    """A feature at every point (``at_all``: ratios to the base) from the fewest of
    ``basis``'s monomials that give ``y`` at the counted points (``at_counted``), or
    None: no subset with ``SPARE`` points over fits, several fit and disagree
    somewhere, or too many subsets to try."""
    full = _design(at_counted, basis)
    every = _design(at_all, basis)
    tried = 0
    for size in range(0, len(basis) + 1):
        if len(y) < size + SPARE:
            return None
        found = []
        for subset in itertools.combinations(range(len(basis)), size):
            tried += 1
            if tried > MAX_SUBSETS:
                return None
            cols = list(subset)
            w = _exact(full[:, cols], y)
            if w is not None:
                found.append(every[:, cols] @ w if cols else np.zeros(len(at_all)))
        if found:
            first = found[0]
            if any(not np.allclose(f, first, rtol=RTOL, atol=RTOL * np.abs(first).max(
                    initial=0)) for f in found[1:]):
                return None
            return first
    return None


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
            return None
        out[name] = values
    if _take_minima(out, pairs, counted, at, points):
        return None
    return out
