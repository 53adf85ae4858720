"""Search strategies behind one registry: which point to measure next.

A strategy is started on a space's valid points (:meth:`Strategy.start`, which
returns what choosing up front cost, e.g. a model's ranking), then asked for points
one at a time and told each evaluation.  Registered:

* ``exhaustive``: every point, in the space's order;
* ``random``: every point, in a seeded random order (replay reports its
  expectation over all orderings instead, :mod:`workbench.tuning.metrics`);
* ``model``: measure in the order a fitted model predicts
  (:func:`workbench.tuning.ranking.rank_space`, any registered family's model);
* ``knn`` and ``xgb``: measure in the order of Lift's IR-feature kNN model or of a
  gradient-boosted ranker on the same features, trained on other programs' measured
  spaces (:mod:`workbench.tuning.ir_strategies`);
* ``tpe``: optuna's Tree-structured Parzen Estimator, an adaptive black-box search
  over the parameters as categorical variables.  Points that break a restriction
  are told to optuna as failed trials and cost nothing; a point proposed again is
  told its known result.

The model-guided strategies that learn from what they measure (``model-bo``,
``model-tpe``) live in :mod:`workbench.tuning.guided` and add themselves here.

A strategy that knows what it will ask for next may say so (``upcoming(n)``: its
likely next points, a guess it is not held to); a live run with ``--jobs`` then
prepares and builds those points on other cores while the device measures
(:class:`workbench.tuning.parallel.PrebuildPool`).  An ordered strategy knows its whole
order, a model-guided one its model's order; TPE knows its first draw (nothing is told
before it, so drawing it early draws the same point) and nothing after it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from workbench.errors import TuningError, UnknownNameError
from workbench.tuning.evaluation import Evaluation
from workbench.tuning.space import Point, TuningSpace


class Strategy(Protocol):
    name: str

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        """Prepare; returns the seconds spent choosing before the first point."""

    def ask(self) -> Point | None:
        """The next point to evaluate, or None when the strategy is done."""

    def tell(self, evaluation: Evaluation) -> None:
        """The result of the last point asked for."""


def upcoming_points(strategy, n: int, *, settled: bool = False) -> list[Point]:
    """Up to ``n`` points ``strategy`` expects to ask for next (its ``upcoming``), or
    none for a strategy that cannot know (TPE).  ``settled``: only once its guesses are
    its own order, not a ranking's partial results (``upcoming_settled``: none while a
    ranking beside it is still going); a strategy may still ask for another point
    after what it learns from the first."""
    guess = getattr(strategy, "upcoming", None)
    if guess is None or n <= 0 or \
            (settled and not getattr(strategy, "upcoming_settled", True)):
        return []
    return list(guess(n))


class _Ordered:
    """Measures points in a fixed order, computed by :meth:`order`."""

    name = "ordered"

    def __init__(self, seed: int = 0):
        self.seed = seed
        self._queue: list[Point] = []

    def order(self, space: TuningSpace, points: Sequence[Point]) -> tuple[list[Point], float]:
        raise NotImplementedError

    def start(self, space, points) -> float:
        self._queue, seconds = self.order(space, list(points))
        self._queue.reverse()
        return seconds

    def ask(self) -> Point | None:
        return self._queue.pop() if self._queue else None

    def upcoming(self, n: int) -> list[Point]:
        """The next ``n`` points of the order (the queue is kept reversed)."""
        return self._queue[: -n - 1 : -1] if n > 0 else []

    def tell(self, evaluation: Evaluation) -> None:
        pass


class Exhaustive(_Ordered):
    name = "exhaustive"

    def order(self, space, points):
        return points, 0.0


class RandomSearch(_Ordered):
    name = "random"

    def order(self, space, points):
        rng = np.random.default_rng(self.seed)
        return [points[i] for i in rng.permutation(len(points))], 0.0


class ModelGuided(_Ordered):
    """Measure in predicted order; ``label`` names the model in reports."""

    def __init__(self, model, label: str | None = None, seed: int = 0, ranking=None):
        super().__init__(seed)
        self.model = model
        self.name = f"model:{label or getattr(model, 'family', 'model')}"
        # a ranking given ready-made (replays sharing one): its fresh cost is charged
        self.ranking = ranking

    def order(self, space, points):
        from workbench.tuning.ranking import rank_space

        if self.ranking is None:
            self.ranking = rank_space(self.model, space, points)
        ordered = [points[i] for i in self.ranking.order
                   if math.isfinite(self.ranking.predicted_s[i])]
        return ordered, self.ranking.seconds


class OptunaTPE:
    """optuna's TPE sampler over the space's parameters (module docstring)."""

    name = "tpe"
    #: proposals of invalid or already-measured points in a row before giving up
    #: on the sampler and taking an unmeasured point at random (each is a trial in
    #: the study, and the sampler's cost grows with the trials)
    MAX_PROPOSALS = 25

    def __init__(self, seed: int = 0, startup: int = 10):
        self.seed = seed
        self.startup = startup

    def start(self, space, points) -> float:
        import optuna
        from optuna.distributions import CategoricalDistribution

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.valid = {p.label: p for p in points}
        self.known: dict[str, float | None] = {}
        self.space = space
        self.distributions = {k: CategoricalDistribution(list(v))
                              for k, v in space.tune_params.items()}
        self.study = optuna.create_study(direction="minimize", sampler=optuna.samplers.
                                         TPESampler(seed=self.seed,
                                                    n_startup_trials=self.startup))
        self.rng = np.random.default_rng(self.seed)
        self._trial = None
        self._asked = False
        self._drawn: tuple[Point | None, object] | None = None
        return 0.0

    def _tell(self, trial, value: float | None) -> None:
        from optuna.trial import TrialState

        if value is None:
            self.study.tell(trial, state=TrialState.FAIL)
        else:
            self.study.tell(trial, value)

    def ask(self) -> Point | None:
        if len(self.known) >= len(self.valid):
            return None
        drawn, self._drawn, self._asked = self._drawn, None, True
        if drawn is not None and drawn[0].label in self.known:   # told since it was drawn
            if drawn[1] is not None:
                self._tell(drawn[1], self.known[drawn[0].label])
            drawn = None
        point, self._trial = drawn if drawn is not None else self._draw()
        return point

    def upcoming(self, n: int) -> list[Point]:
        """Its first point before it is asked for, drawn now: nothing is told before the
        first draw, so it is the point :meth:`ask` would draw, and a live explorer builds
        it while the inputs are made, as it builds an order's first point (the head start
        a model's first pick had alone until live run 34).  After that none: each draw
        depends on what TPE is told.  (The explorer tells nothing before the first ask;
        a point told meanwhile is drawn around, not measured twice.)"""
        if n <= 0 or self._asked or len(self.known) >= len(self.valid):
            return []
        if self._drawn is None:
            self._drawn = self._draw()
        if self._drawn[0].label in self.known:    # told since: ask() draws again
            return []
        return [self._drawn[0]]

    def _draw(self) -> tuple[Point, object]:
        """The sampler's next unmeasured valid point and its trial (None: a random
        unmeasured point after ``MAX_PROPOSALS`` proposals that were not)."""
        for _ in range(self.MAX_PROPOSALS):
            trial = self.study.ask(self.distributions)
            point = Point(tuple((k, trial.params[k]) for k in self.space.tune_params))
            if point.label not in self.valid:
                self._tell(trial, None)
            elif point.label in self.known:
                self._tell(trial, self.known[point.label])
            else:
                return point, trial
        unmeasured = [p for label, p in self.valid.items() if label not in self.known]
        return unmeasured[int(self.rng.integers(len(unmeasured)))], None

    def tell(self, evaluation: Evaluation) -> None:
        from optuna.trial import create_trial

        value = evaluation.time_s if evaluation.ok else None
        self.known[evaluation.point.label] = value
        if self._trial is not None:
            self._tell(self._trial, value)
        elif value is not None:   # a point the sampler did not propose: add it as data
            self.study.add_trial(create_trial(params=evaluation.point.as_dict(),
                                              distributions=self.distributions,
                                              value=value))
        self._trial = None


#: The registry. ``knn`` and ``xgb`` add themselves when :mod:`workbench.tuning` is
#: imported (:mod:`workbench.tuning.ir_strategies` builds on this module, not the
#: other way).
STRATEGIES: dict[str, Callable[..., Strategy]] = {
    "exhaustive": Exhaustive, "random": RandomSearch, "tpe": OptunaTPE,
    "model": ModelGuided,
}


def make_strategy(name: str, *, seed: int = 0, model=None, label: str | None = None,
                  training=None) -> Strategy:
    """A strategy by registry name; ``model`` (a fitted model) for ``model`` and the
    ``model-*`` strategies;
    ``training`` (tuning stores or sample files of other measured spaces) for
    ``knn`` and ``xgb``."""
    if name not in STRATEGIES:
        raise UnknownNameError("strategy", name, STRATEGIES)
    if name == "model" or name.startswith("model-"):
        if model is None:
            raise TuningError(f"the {name} strategy needs a model: --weights FILE "
                              "or --model roofline --device-model h100")
        return STRATEGIES[name](model, label, seed=seed)
    if name in ("knn", "xgb"):
        return STRATEGIES[name](seed=seed, training=training)
    return STRATEGIES[name](seed=seed)
