"""What an exploration achieved: best-so-far curves, and runs and time to a target.

The figure of merit of a point is the fraction of the space's best performance it
reaches: ``best_time / time`` (1.0 for the best point).  An exploration's curve is
the best fraction found after each evaluation, against the number of evaluations
(runs) and against the tuning cost spent (choosing plus every counted cost of every
point, failed ones included).  "Runs to 95 %" is the first evaluation whose best
so far reaches 0.95.

Random search is reported as its exact expectation over all orderings of the
space, not one draw: with ``m`` of the ``N`` points at or above the target, the
expected number of runs to the first of them is ``(N + 1) / (m + 1)``, and the
expected cost counts each other point ``j`` with probability ``1 / (m + 1)`` (it
comes before all ``m``) and each target point with probability ``1 / m``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from workbench.tuning.evaluation import Evaluation
from workbench.tuning.runner import ExplorationResult

TARGETS = (0.90, 0.95)


@dataclass(frozen=True)
class Curve:
    """Best fraction of the optimum after each evaluation, and the cost spent."""

    label: str
    fraction: np.ndarray          # best so far / optimum, per evaluation
    cost_s: np.ndarray            # cumulative tuning cost after each evaluation
    choosing_s: float

    def reach(self, target: float) -> tuple[int, float] | None:
        """(runs, seconds) to the first evaluation at ``target``; None if never."""
        hit = np.flatnonzero(self.fraction >= target - 1e-12)
        if not hit.size:
            return None
        i = int(hit[0])
        return i + 1, float(self.cost_s[i])


def optimum(evaluations: Sequence[Evaluation]) -> float:
    times = [e.time_s for e in evaluations if e.ok]
    if not times:
        raise ValueError("no point of the space was measured successfully")
    return min(times)


def curve(result: ExplorationResult, best_s: float, charging: str = "overlap") -> Curve:
    """``charging``: how a ranking that ran beside the first evaluations is charged
    (:meth:`ExplorationResult.cumulative_cost_s`; the same either way when none did)."""
    times = np.array([e.time_s if e.ok else np.inf for e in result.evaluations])
    best = np.minimum.accumulate(times) if len(times) else times
    return Curve(result.strategy, np.where(np.isfinite(best), best_s / best, 0.0),
                 np.array(result.cumulative_cost_s(charging)), result.choosing_s)


def random_reach(evaluations: Sequence[Evaluation], target: float
                 ) -> tuple[float, float]:
    """Expected (runs, seconds) of random search to ``target`` (module docstring)."""
    best = optimum(evaluations)
    hit = np.array([e.ok and best / e.time_s >= target - 1e-12 for e in evaluations])
    costs = np.array([e.cost_s for e in evaluations])
    n, m = len(evaluations), int(hit.sum())
    runs = (n + 1) / (m + 1)
    seconds = costs[~hit].sum() / (m + 1) + costs[hit].sum() / m
    return float(runs), float(seconds)


def random_curve(evaluations: Sequence[Evaluation], runs: int) -> np.ndarray:
    """Expected best fraction after k = 1..runs random evaluations without repetition."""
    best = optimum(evaluations)
    frac = np.sort([best / e.time_s if e.ok else 0.0 for e in evaluations])[::-1]
    n = len(frac)
    out = np.empty(min(runs, n))
    log_comb = lambda a, b: gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)  # noqa: E731
    for k in range(1, len(out) + 1):
        # the i-th best (0-based) is the best drawn with probability C(n-1-i, k-1)/C(n, k)
        i = np.arange(0, n - k + 1)
        weights = np.exp(log_comb(n - 1 - i, k - 1) - log_comb(n, k))
        out[k - 1] = float(np.dot(weights, frac[: n - k + 1]))
    return out


def exhaustive_cost(evaluations: Sequence[Evaluation]) -> float:
    """What measuring every point costs."""
    return float(sum(e.cost_s for e in evaluations))


def geometric_mean(values) -> float:
    values = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    return float(np.exp(np.mean(np.log(values)))) if values else math.nan
