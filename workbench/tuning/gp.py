"""A small Gaussian process for searches that refit after every measurement.

A guided search refits its correction of the model after each point, and that time
is charged to the search (the runner times ``ask`` and ``tell``).  scikit-learn's
regressor optimises its hyperparameters with L-BFGS on every fit: 0.86 s a step on
average on the shared 2-core machine at load 11 to 20
(``benchmarks/guided_step_cost.py``), more than measuring a bandwidth-bound point.  With the few points a search measures (1 to 30), the same
model is a handful of small matrix products: a Matern 5/2 kernel on the points'
parameters (:func:`workbench.tuning.guided.point_features`, all in [0, 1]), its
signal variance and length scale chosen by the marginal likelihood over a fixed grid
(:data:`GRID`), the noise fixed (:data:`NOISE`, log-time units: the run-to-run noise
of a point is a few per cent).  A step costs 5.6 ms on average there (1 ms or less
at lower load).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.errors import TuningError

#: (signal variance, length scale) pairs tried, in log-time units and in the [0, 1]
#: scale of the point features: short to long correlations, weak to strong residuals
GRID = ((0.1, 0.25), (0.1, 0.5), (0.1, 1.0), (0.1, 2.0), (0.03, 0.5), (0.3, 0.5))
#: the variance of a measurement's noise (log-time units; 3 % standard deviation)
NOISE = 1e-3


def matern52(a: np.ndarray, b: np.ndarray, length: float) -> np.ndarray:
    """The Matern 5/2 correlation between every row of ``a`` and every row of ``b``."""
    d = np.sqrt(np.maximum(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1), 0.0)) / length
    s = np.sqrt(5.0) * d
    return (1.0 + s + s * s / 3.0) * np.exp(-s)


@dataclass(frozen=True)
class GPPrediction:
    """Posterior mean and standard deviation at every point asked about, and the
    hyperparameters the marginal likelihood chose."""

    mean: np.ndarray
    std: np.ndarray
    variance: float
    length: float


def fit_predict(x: np.ndarray, y: np.ndarray, at: np.ndarray,
                grid=GRID, noise: float = NOISE) -> GPPrediction:
    """A zero-mean GP fitted on ``(x, y)`` (hyperparameters: the grid pair of least
    negative log marginal likelihood), predicted at ``at``."""
    x, y, at = np.asarray(x, float), np.asarray(y, float), np.asarray(at, float)
    if len(x) == 0 or len(x) != len(y):
        raise TuningError("a Gaussian process needs at least one (x, y) pair")
    best = None
    for variance, length in grid:
        k = variance * matern52(x, x, length) + noise * np.eye(len(x))
        try:
            chol = np.linalg.cholesky(k)
        except np.linalg.LinAlgError:
            continue
        alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, y))
        nll = 0.5 * float(y @ alpha) + float(np.log(np.diag(chol)).sum())
        if best is None or nll < best[0]:
            best = (nll, variance, length, chol, alpha)
    if best is None:
        raise TuningError("no kernel of the grid could be factorised")
    _, variance, length, chol, alpha = best
    cross = variance * matern52(at, x, length)
    v = np.linalg.solve(chol, cross.T)
    std = np.sqrt(np.maximum(variance + noise - (v * v).sum(0), 1e-18))
    return GPPrediction(cross @ alpha, std, variance, length)


def farthest_first(x: np.ndarray, first: int, k: int) -> list[int]:
    """``k`` rows of ``x``: ``first``, then each time the row farthest from those
    chosen (a spread of near-equal candidates)."""
    chosen = [int(first)]
    distance = np.linalg.norm(x - x[first], axis=1)
    while len(chosen) < min(k, len(x)):
        i = int(np.argmax(distance))
        if distance[i] <= 0:
            break
        chosen.append(i)
        distance = np.minimum(distance, np.linalg.norm(x - x[i], axis=1))
    return chosen


def expected_improvement(best: float, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    """Expected improvement of every point on ``best`` (minimising; Gaussian posterior
    ``mean``, ``std``).  The normal's density and distribution from :func:`math.erfc`:
    importing :mod:`scipy.stats` for them took 0.5 to 1.0 s on the H100 host, charged
    to the first step that needed it (``strategy_s`` of live run 8's fifth points)."""
    mean, std = np.asarray(mean, float), np.asarray(std, float)
    z = (best - mean) / std
    cdf = np.array([0.5 * math.erfc(-v / math.sqrt(2.0)) for v in z.ravel()]).reshape(z.shape)
    pdf = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    return (best - mean) * cdf + std * pdf


#: a measured point that failed: this much (log time) above the worst measured
FAILED_PENALTY = float(np.log(4.0))


def log_time_targets(measured: dict[int, float | None]) -> tuple[np.ndarray, np.ndarray]:
    """The measured rows and their log times (``measured``: row -> log time, None for a
    failed point, counted :data:`FAILED_PENALTY` above the worst)."""
    idx = np.array(list(measured), dtype=int)
    ok = [v for v in measured.values() if v is not None]
    worst = (max(ok) if ok else 0.0) + FAILED_PENALTY
    return idx, np.array([worst if v is None else v for v in measured.values()])


def model_free_pick(x: np.ndarray, measured: dict[int, float | None]) -> int:
    """``bo``'s step on rows ``x``: the unmeasured row of largest expected improvement
    on a GP of the measured log times (:func:`log_time_targets`), no model trend."""
    idx, y = log_time_targets(measured)
    ok = [v for v in measured.values() if v is not None]
    gp = fit_predict(x[idx], y - y.mean(), x)
    best = (min(ok) if ok else float(y.max())) - float(y.mean())
    ei = expected_improvement(best, gp.mean, np.maximum(gp.std, 1e-9))
    ei[idx] = -np.inf
    return int(np.argmax(ei))
