"""Model-guided strategies that learn from what they measure (issue #23).

A fitted performance model (calibrated on micro-benchmarks and other kernels, never
on the space being tuned) ranks the space once; the strategy then measures and
corrects the model for *this* space with what it has measured, and only with that:

* ``model-bo``: measure the model's ``top`` best-predicted points, then fit a
  per-space correction of the model, ``log t = a + b log t_model + g(x)``: a linear
  trend of measured against predicted log times (``b`` pulled towards 1 with few
  points) and a Gaussian process ``g`` on the residuals over the point's parameters
  (numbers on a log2 scale, choices one-hot); the next point is the unmeasured one
  of largest expected improvement on the best measured log time.  Refitted after
  every measurement; its time is counted (the runner times ``ask`` and ``tell``).
* ``model-tpe``: optuna's TPE over the parameters, the model's ``top`` picks
  enqueued as its first trials, so that its density estimates start from them.
* ``model-ei``: ``model-bo`` made cheaper and less literal about the model's order
  (issue #33): its ``top`` first picks are spread over the model's near-ties (points
  predicted within :attr:`ModelEI.TIE` of the best, e.g. every point at the same DRAM
  floor) instead of taken in the ranking's arbitrary order, and its correction's
  Gaussian process is :mod:`workbench.tuning.gp` (hyperparameters from a small grid:
  5.6 ms a step against 0.86 s for scikit-learn's optimiser on the loaded 2-core VM,
  a cost every step is charged).
* ``bo``: the same Gaussian-process search without a model (its first ``top`` points
  in a seeded random order, no trend): what the model adds to ``model-bo``.

No peeking: a strategy gets the space's points (what is valid) and, through
``tell``, the evaluations it asked for; the ranking is computed from the space's
kernels and the model alone.  ``tests/test_guided.py`` replays the strategies on
a space whose unmeasured records are changed and checks that nothing changes.

A ranking may be given ready-made (``ranking=``) so that several seeds of a replay
share one: its recorded ``seconds`` (a fresh ranking, caches cold) is still charged
as the choosing cost of every replay that uses it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from workbench.errors import TuningError
from workbench.tuning.evaluation import Evaluation
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import STRATEGIES, OptunaTPE


def point_features(space: TuningSpace, points: Sequence[Point]) -> np.ndarray:
    """One row per point: every numeric parameter on a log2 (or linear, where a value
    is not positive) scale mapped to [0, 1], every other parameter one-hot."""
    columns = []
    for name, values in space.tune_params.items():
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool)
                      for v in values)
        if numeric:
            raw = np.array([float(p[name]) for p in points])
            if min(float(v) for v in values) > 0:
                raw = np.log2(raw)
            lo, hi = raw.min(initial=0.0), raw.max(initial=0.0)
            columns.append((raw - lo) / (hi - lo) if hi > lo else np.zeros_like(raw))
        else:
            for v in values:
                columns.append(np.array([1.0 if p[name] == v else 0.0 for p in points]))
    if not columns:
        return np.zeros((len(points), 0))
    return np.column_stack(columns)


class _RankedPrior:
    """A model's ranking of the valid points (computed, or given ready-made)."""

    #: the model's best-predicted points measured before anything is learnt (model-bo:
    #: 1, chosen on the design spaces: 1 to 4 made little difference there)
    TOP = 1

    def __init__(self, model=None, label: str | None = None, seed: int = 0,
                 top: int | None = None, ranking=None):
        if model is None and ranking is None:
            raise TuningError(f"the {self.family} strategy needs a model: --weights FILE "
                              "or --model roofline --device-model h100")
        top = self.TOP if top is None else top
        if top < 1:
            raise TuningError("top must be at least 1")
        self.model, self.ranking, self.seed, self.top = model, ranking, seed, top
        self.name = f"{self.family}:{label or getattr(model, 'family', 'model')}"

    family = "model-guided"

    def _rank(self, space: TuningSpace, points: Sequence[Point]) -> tuple[np.ndarray, float]:
        """log predicted time per point (NaN: not predicted) and the ranking's cost."""
        from workbench.tuning.ranking import rank_space

        if self.ranking is None:
            self.ranking = rank_space(self.model, space, points)
        by_label = {c.point.label: float(t) for c, t in
                    zip(self.ranking.candidates, self.ranking.predicted_s)}
        missing = [p.label for p in points if p.label not in by_label]
        if missing:
            raise TuningError(f"the ranking given does not cover the space {space.name!r} "
                              f"(e.g. {missing[0]})")
        pred = np.array([by_label[p.label] for p in points])
        with np.errstate(divide="ignore", invalid="ignore"):
            logp = np.where(np.isfinite(pred) & (pred > 0), np.log(pred), np.nan)
        return logp, float(self.ranking.seconds)

    @staticmethod
    def _order(logp: np.ndarray) -> np.ndarray:
        return np.argsort(np.where(np.isfinite(logp), logp, np.inf), kind="stable")


class ModelBO(_RankedPrior):
    """The model's top picks, then expected improvement on a corrected model."""

    family = "model-bo"
    stochastic = False   # the same picks whatever the seed

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        self.points = list(points)
        logp, seconds = self._rank(space, self.points)
        self.index = {p.label: i for i, p in enumerate(self.points)}
        fallback = np.nanmax(logp) if np.isfinite(logp).any() else 0.0
        self.logp = np.where(np.isfinite(logp), logp, fallback)
        self.x = point_features(space, self.points)
        self.order = self._order(logp)
        self.measured: dict[int, float | None] = {}
        self.known: set[int] = set()
        return seconds

    def ask(self) -> Point | None:
        if len(self.measured) >= len(self.points):
            return None
        if len(self.measured.keys() - self.known) < self.top:
            for i in self.order:
                if int(i) not in self.measured:
                    return self.points[int(i)]
        return self.points[self._next()]

    def upcoming(self, n: int) -> list[Point]:
        """The model's next unmeasured points in its order: its first picks exactly,
        later steps as a guess (expected improvement often picks among them)."""
        out: list[Point] = []
        for i in self.order:
            if len(out) >= n:
                break
            if int(i) not in self.measured:
                out.append(self.points[int(i)])
        return out

    def tell(self, evaluation: Evaluation) -> None:
        value = math.log(evaluation.time_s) if evaluation.ok else None
        self.measured[self.index[evaluation.point.label]] = value

    def know(self, evaluation: Evaluation) -> None:
        """A point measured before the search began (e.g. while the model ranked,
        :mod:`workbench.tuning.early`): the correction learns from it, and it is not
        one of the model's ``top`` picks, which are still measured."""
        self.tell(evaluation)
        self.known.add(self.index[evaluation.point.label])

    def _targets(self) -> tuple[np.ndarray, np.ndarray]:
        from workbench.tuning.gp import log_time_targets

        return log_time_targets(self.measured)

    def _trend(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The measured points, the trend ``a + b log t_model`` at every point (``b``
        pulled towards 1: ridge with weight 1 on ``b - 1``), and the residuals."""
        idx, y = self._targets()
        p = self.logp[idx]
        pc, yc = p - p.mean(), y - y.mean()
        b = (float(pc @ yc) + 1.0) / (float(pc @ pc) + 1.0)
        a = float(y.mean() - b * p.mean())
        trend = a + b * self.logp
        return idx, trend, y - trend[idx]

    def correction(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation of the corrected log time of every point."""
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.gaussian_process import GaussianProcessRegressor
        from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

        idx, trend, residual = self._trend()
        kernel = ConstantKernel(0.1, (1e-4, 10.0)) * Matern(0.5, (0.05, 5.0), nu=2.5) \
            + WhiteKernel(1e-3, (1e-6, 1e-1))
        gp = GaussianProcessRegressor(kernel, normalize_y=False, random_state=self.seed)
        with warnings.catch_warnings():   # a bound reached with a few points: expected
            warnings.simplefilter("ignore", ConvergenceWarning)
            gp.fit(self.x[idx], residual)
        mean, std = gp.predict(self.x, return_std=True)
        return trend + mean, np.maximum(std, 1e-9)

    def _next(self) -> int:
        from workbench.tuning.gp import expected_improvement

        mu, sigma = self.correction()
        best = min(v for v in self.measured.values() if v is not None) \
            if any(v is not None for v in self.measured.values()) else float(np.max(mu))
        ei = expected_improvement(best, mu, sigma)
        ei[list(self.measured)] = -np.inf
        return int(np.argmax(ei))


class ModelEI(ModelBO):
    """``model-bo`` with its first picks spread over the model's near-ties and a
    Gaussian process cheap enough to refit every step (module docstring)."""

    family = "model-ei"
    stochastic = False
    #: the model's picks measured before anything is learnt (chosen on the design
    #: spaces, 1 to 3: 3 with the spread)
    TOP = 3
    #: predictions within this much (log time: 2 %) of the model's best are ties
    TIE = 0.02

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        from workbench.tuning.gp import farthest_first

        seconds = super().start(space, points)
        finite = np.isfinite(self.logp)
        if finite.any() and self.top > 1:
            tied = np.flatnonzero(finite & (self.logp <= self.logp[finite].min() + self.TIE))
            first = int(np.flatnonzero(tied == int(self.order[0]))[0])
            spread = [int(tied[i]) for i in farthest_first(self.x[tied], first, self.top)]
            taken = set(spread)
            self.order = np.array(spread + [int(i) for i in self.order if int(i) not in taken])
        return seconds

    def correction(self) -> tuple[np.ndarray, np.ndarray]:
        from workbench.tuning.gp import fit_predict

        idx, trend, residual = self._trend()
        gp = fit_predict(self.x[idx], residual, self.x)
        return trend + gp.mean, np.maximum(gp.std, 1e-9)


class ModelTPE(_RankedPrior, OptunaTPE):
    """optuna's TPE, the model's ``top`` picks enqueued as its first trials."""

    family = "model-tpe"
    stochastic = True

    TOP = 4

    def __init__(self, model=None, label: str | None = None, seed: int = 0,
                 top: int | None = None, ranking=None, startup: int = 10):
        _RankedPrior.__init__(self, model, label, seed, top, ranking)
        self.startup = startup

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        points = list(points)
        logp, seconds = self._rank(space, points)
        OptunaTPE.start(self, space, points)
        for i in self._order(logp)[: self.top]:
            self.study.enqueue_trial(points[int(i)].as_dict())
        return seconds


class PlainBO(ModelBO):
    """``model-bo`` without a model (module docstring): a seeded random start."""

    family = "bo"
    stochastic = True

    def __init__(self, seed: int = 0, top: int = 3):
        self.model, self.ranking, self.seed, self.top = None, None, seed, top
        self.name = self.family

    def _rank(self, space, points):
        rng = np.random.default_rng(self.seed)
        self._start = rng.permutation(len(points))
        return np.zeros(len(points)), 0.0

    def start(self, space, points) -> float:
        seconds = super().start(space, points)
        self.order = self._start
        return seconds


#: the strategies that need a model's ranking
GUIDED = {ModelBO.family: ModelBO, ModelTPE.family: ModelTPE, ModelEI.family: ModelEI}
STRATEGIES.update(GUIDED)
STRATEGIES[PlainBO.family] = PlainBO
