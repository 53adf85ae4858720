"""The model's exact ties broken by the loop overhead it does not count (issue #33).

A count-based model counts what each work item computes and moves, not the loop that
repeats it: the increment, compare and branch of every iteration of a sequential loop,
which unrolling removes (and with them the wait between one iteration's loads and the
next's).  Points that differ only in how far a loop is unrolled get the same counts, so
the same prediction to the last digit, and the ranking's order among them is the
space's order of points.  On the 35 development spaces (``structure-ranking.md``
section 34) the model predicts every pair of points that differ only in an unrolling
knob equal, while the more unrolled one ran faster in 13 of 20 spaces' geometric means
(0.97x over the 20; 0.81-0.85x on colsum, logsumexp and rmsnorm, 1.07x slower on cmac).

:func:`fewer_trips_first` reorders only the model's *exact* ties at the top of its order
(log predictions within :data:`EXACT`): the one of fewest sequential loop iterations per
work item (:func:`loop_trips`, read from the point's built kernel) first, the model's
order otherwise.  No constant is fitted; the points are built here, and their build is
charged with the ranking.  ``model-hedge-loops`` is ``model-hedge-base`` with that
order.  ``model-hedge-trips`` keeps ``model-hedge-base``'s three spread first picks and
only measures them fewest loop iterations first (:func:`picks_fewest_trips_first`).
Neither beat ``model-hedge-base`` over the 35 development spaces (section 34).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.tuning.guided import GUIDED
from workbench.tuning.hedge import ModelHedgeBase
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import STRATEGIES

#: log predictions closer than this are one prediction (the same counts: unrolling)
EXACT = 1e-6


def loop_trips(kernel) -> int:
    """Iterations of sequential loops one work item runs: for each loop nest (the
    untagged inames an instruction is within or reduces over: not parallel, not
    unrolled, not ILP), the
    product of their lengths, summed over the nests.  A length loopy cannot give as a
    constant counts as 1."""
    knl = getattr(kernel, "default_entrypoint", kernel)
    nests = set()
    for insn in knl.instructions:
        inames = set(insn.within_inames) | set(insn.reduction_inames())
        nests.add(frozenset(i for i in inames if not knl.iname_tags(i)))
    total = 0
    for nest in nests:
        if not nest:
            continue
        trips = 1
        for iname in nest:
            try:
                trips *= int(knl.get_constant_iname_length(iname))
            except Exception:  # noqa: BLE001 - a length that depends on a parameter
                continue
        total += trips
    return total



def _trips_of(space: TuningSpace, points: Sequence[Point]):
    """A point's :func:`loop_trips` by index into ``points``; a point that does not
    build sorts last (infinite trips): its measurement will say why."""
    def trips(i: int) -> float:
        try:
            return float(loop_trips(space.build(points[i])))
        except Exception:  # noqa: BLE001 - its measurement will say why
            return float("inf")
    return trips

def fewer_trips_first(space: TuningSpace, points: Sequence[Point], logp: np.ndarray,
                      order: np.ndarray, within: float | None = None) -> np.ndarray:
    """``order`` with the points tied exactly with its first (log predictions within
    ``within``, default :data:`EXACT`) sorted by :func:`loop_trips`, fewest first
    (stable: the model's order among equals).  A point that does not build goes after
    the others."""
    within = EXACT if within is None else within
    order = np.asarray(order)
    if not len(order) or not np.isfinite(logp[order[0]]):
        return order
    head = float(logp[order[0]])
    tied = [int(i) for i in order if np.isfinite(logp[i]) and abs(logp[i] - head) <= within]
    if len(tied) < 2:
        return order

    trips = _trips_of(space, points)

    ranked = sorted(tied, key=trips)
    taken = set(ranked)
    return np.array(ranked + [int(i) for i in order if int(i) not in taken])


class ModelHedgeLoops(ModelHedgeBase):
    """``model-hedge-base`` whose model's exact ties at the top are taken fewest loop
    iterations first (module docstring): its first pick, and the spread of the next
    two around it, start from the most unrolled of the points the model cannot tell
    apart."""

    family = "model-hedge-loops"

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        self._space, self.tie_s = space, 0.0
        # the ties' builds are part of the choosing: charged beside the ranking's cost
        return super().start(space, points) + self.tie_s

    def _order(self, logp: np.ndarray) -> np.ndarray:
        import time

        began = time.perf_counter()
        # never wider than the near-tie its first picks are spread over
        order = fewer_trips_first(self._space, self.points, logp,
                                  ModelHedgeBase._order(logp), min(EXACT, self.TIE))
        self.tie_s += time.perf_counter() - began
        return order


def picks_fewest_trips_first(space: TuningSpace, points: Sequence[Point],
                             order: np.ndarray, top: int) -> np.ndarray:
    """``order`` with its first ``top`` points (the model's spread first picks) sorted
    by :func:`loop_trips`, fewest first (stable); the set of picks is unchanged."""
    order = np.asarray(order)
    head = [int(i) for i in order[:top]]
    if len(head) < 2:
        return order

    trips = _trips_of(space, points)

    return np.array(sorted(head, key=trips) + [int(i) for i in order[top:]])


class ModelHedgeTrips(ModelHedgeBase):
    """``model-hedge-base`` whose three spread first picks (the same three) are measured
    fewest loop iterations per work item first: where one of them is within 95 % and
    more unrolled, it is reached a run or two sooner (``structure-ranking.md`` section
    34)."""

    family = "model-hedge-trips"

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        import time

        seconds = super().start(space, points)
        began = time.perf_counter()
        self.order = picks_fewest_trips_first(space, self.points, self.order, self.top)
        # the picks' builds are part of the choosing: charged beside the ranking's cost
        self.tie_s = time.perf_counter() - began
        return seconds + self.tie_s


for _strategy in (ModelHedgeLoops, ModelHedgeTrips):
    GUIDED[_strategy.family] = _strategy
    STRATEGIES[_strategy.family] = _strategy

__all__ = ["EXACT", "ModelHedgeLoops", "ModelHedgeTrips", "fewer_trips_first", "loop_trips",
           "picks_fewest_trips_first"]
