"""``model-hedge``: a model-guided search that does not bet everything on the model's
order (issue #33).

On spaces written after the model-guided methods (the ``blind_*`` spaces,
``structure-ranking.md`` section 17) two things went wrong for ``model-ei``: a few
random draws found a point within 95 % of the best sooner than the model's order did,
and the ranking itself cost several measurements of the best point.  ``model-hedge``
keeps ``model-ei``'s model (its spread first picks and its corrected Gaussian-process
search) and adds a second source of points, an *explorer* that needs no model:
``bo``'s step, expected improvement on a Gaussian process of the measured log times
over the parameters (:func:`workbench.tuning.gp.model_free_pick`; ``explore="tpe"``:
optuna's TPE told every point, ``"random"``: a seeded random order).  Three rules:

* while the model ranks, the device measures what the explorer would
  (:class:`~workbench.tuning.early.EarlyStart` reads :attr:`EARLY_ORDER`, ``bo``: three
  seeded random draws, then expected improvement on the early points), not the
  counting's probe points, so that an expensive ranking costs about what a model-free
  search costs, not more;
* once the ranking is done, the model's ``top`` spread picks are measured (the
  model's strongest asset on the spaces where its order is good);
* then every step goes to one of the two sources by Thompson sampling on how often
  each one improved the best point found so far (Beta posteriors, the model's with
  :attr:`MODEL_PRIOR` wins in hand; the early points count for the explorer): a model
  whose picks stop improving the incumbent loses its turns to the explorer, and gets
  them back when a pick improves it.  Both sources learn from every point measured,
  whichever chose it.

The explorer and the early order were chosen on the 17 spaces of ``examples/spaces``
(all development spaces for this: ``structure-ranking.md`` section 20,
``benchmarks/hedge_study.py``): ``bo`` early and after beat random draws (and TPE) on
``blind_box27``, ``blind_conv2d_5x5`` and ``stencil2d_5pt`` and matched them
elsewhere.  Stochastic (the draws are seeded): replays report the mean over seeds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum

import numpy as np

from workbench.errors import TuningError
from workbench.tuning.evaluation import Evaluation
from workbench.tuning.guided import GUIDED, ModelEI
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import STRATEGIES

class Source(Enum):
    """The two sources of points after the model's first picks."""

    MODEL = "model"
    EXPLORER = "explorer"


MODEL, EXPLORER = Source.MODEL, Source.EXPLORER
#: what the explorer is
EXPLORERS = ("bo", "tpe", "random")


class ModelHedge(ModelEI):
    """``model-ei`` hedged with an explorer, a bandit choosing between them (module
    docstring)."""

    family = "model-hedge"
    stochastic = True
    #: what :class:`~workbench.tuning.early.EarlyStart` measures while this one ranks
    EARLY_ORDER = "bo"
    #: wins credited to the model before anything is measured: a model is worth a few
    #: turns more than the explorer until its picks stop improving the incumbent
    MODEL_PRIOR = 1.0
    #: the explorer (:data:`EXPLORERS`)
    EXPLORE = "bo"

    def __init__(self, model=None, label: str | None = None, seed: int = 0,
                 top: int | None = None, ranking=None, model_prior: float | None = None,
                 explore: str | None = None):
        super().__init__(model, label, seed=seed, top=top, ranking=ranking)
        prior = self.MODEL_PRIOR if model_prior is None else float(model_prior)
        if not prior >= 0:
            raise TuningError("model_prior must not be negative")
        explore = self.EXPLORE if explore is None else explore
        if explore not in EXPLORERS:
            raise TuningError(f"explore must be one of {', '.join(EXPLORERS)}, "
                              f"got {explore!r}")
        self.model_prior, self.explore = prior, explore

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        from workbench.tuning.early import random_early_points

        seconds = super().start(space, points)
        self.space = space
        self.rng = np.random.default_rng((self.seed, 0x4ED6E))
        self.draws = [self.index[p.label] for p in random_early_points(self.points, self.seed)]
        self.wins = {MODEL: 0.0, EXPLORER: 0.0}
        self.tries = {MODEL: 0.0, EXPLORER: 0.0}
        self.sources: list[Source] = []       # which source chose each point asked for
        self._best: float | None = None
        self._asked: Source | None = None
        # made at the explorer's first turn, told every point measured before: its
        # import and set-up are charged to that step, not to the ranking
        self.tpe = None
        self._seen: list[Evaluation] = []
        return seconds

    def _draw(self) -> Point:
        """The explorer's next point (some point is unmeasured)."""
        if self.explore == "bo":
            return self.points[self._model_free_next()]
        if self.explore == "tpe":
            if self.tpe is None:
                from workbench.tuning.strategies import OptunaTPE

                self.tpe = OptunaTPE(seed=self.seed)
                self.tpe.start(self.space, self.points)
                for evaluation in self._seen:
                    self.tpe.tell(evaluation)
            return self.tpe.ask()
        while self.draws[0] in self.measured:
            self.draws.pop(0)
        return self.points[self.draws[0]]

    def _model_free_next(self) -> int:
        """``bo``'s step: expected improvement on a Gaussian process of the measured
        log times over the parameters alone, no model trend."""
        from workbench.tuning.gp import model_free_pick

        return model_free_pick(self.x, self.measured)

    def _choose_source(self) -> Source:
        """Thompson sampling: each source's chance of improving the incumbent drawn
        from its Beta posterior; the larger draw chooses."""
        model = self.rng.beta(1.0 + self.model_prior + self.wins[MODEL],
                              1.0 + self.tries[MODEL] - self.wins[MODEL])
        explorer = self.rng.beta(1.0 + self.wins[EXPLORER],
                                 1.0 + self.tries[EXPLORER] - self.wins[EXPLORER])
        return MODEL if model >= explorer else EXPLORER

    def ask(self) -> Point | None:
        if len(self.measured) >= len(self.points):
            return None
        if len(self.measured.keys() - self.known) < self.top:
            self._asked = MODEL      # the model's first picks (ModelBO.ask)
            return super().ask()
        self._asked = self._choose_source()
        return self._draw() if self._asked == EXPLORER else self.points[self._next()]

    def _score(self, source: Source, evaluation: Evaluation) -> None:
        """Credit ``source`` with a try, and a win if the point beat the incumbent
        (the first point measured beats nothing: no credit either way)."""
        value = evaluation.time_s if evaluation.ok else math.inf
        if self._best is not None:
            self.tries[source] += 1
            self.wins[source] += value < self._best
        if math.isfinite(value) and (self._best is None or value < self._best):
            self._best = value

    def _teach_explorer(self, evaluation: Evaluation) -> None:
        """TPE learns every point: its own proposal as its trial, any other as data
        (TPE is asked only when it chooses, so a point it did not propose finds no
        trial of its open: :meth:`OptunaTPE.tell` adds it as a finished one)."""
        if self.tpe is not None:
            self.tpe.tell(evaluation)
        else:
            self._seen.append(evaluation)

    def tell(self, evaluation: Evaluation) -> None:
        source = self._asked or MODEL
        self._teach_explorer(evaluation)
        self._score(source, evaluation)
        self.sources.append(source)
        self._asked = None
        super().tell(evaluation)

    def know(self, evaluation: Evaluation) -> None:
        """An early point (drawn at random while the model ranked): the correction and
        the explorer learn from it, and it counts for the explorer."""
        self._teach_explorer(evaluation)
        self._score(EXPLORER, evaluation)
        ModelEI.tell(self, evaluation)     # not self.tell: no second credit
        self.known.add(self.index[evaluation.point.label])


class ModelHedgeBase(ModelHedge):
    """``model-hedge`` whose first point, measured while the model ranks, is the first
    structure's base point (issue #33, ``structure-ranking.md`` section 24).

    The base point of a structure is the point its counting builds first: the one
    whose lines along every knob reach the most ends of the knobs' ranges, so a point
    in the middle of each range
    (:func:`~workbench.models.structure_counts.plan_structure`).  On the second blind
    set that one point was within 95 % of the best on three of six spaces, where
    ``model-hedge``'s random draws needed 5 to 17 runs; on the first blind set
    measuring every probe point (``model-ei``'s early start) lost to the draws.  One
    base point, then ``bo``'s draws and steps (:func:`~workbench.tuning.early.bases_then_draws`),
    then ``model-hedge`` as ever.  :attr:`EARLY_BASES` is the one constant added;
    1 did better than 0 (``model-hedge``), 2 or 3 on the 23 development spaces."""

    family = "model-hedge-base"
    EARLY_ORDER = "bases"
    #: structures' base points measured first while the model ranks
    EARLY_BASES = 1


class ModelHedgeCheck(ModelHedgeBase):
    """``model-hedge-base`` whose model must first order the points measured while it
    ranked (issue #33, ``structure-ranking.md`` section 28).

    Once the ranking is done, the points measured meanwhile (the base point and the
    explorer's draws) are a free test of the model on this space: of the pairs of them
    whose predictions differ by more than :attr:`TIE`, the share the model orders as
    measured.  Below :attr:`CONCORDANCE` the model's ``top`` first picks are not
    measured: the bandit chooses from the first step after the ranking, as it would
    after the picks.  With fewer than two such points nothing is tested and the picks
    are measured, as in ``model-hedge-base``."""

    family = "model-hedge-check"
    #: the share of the early points' pairs the model must order as measured for its
    #: first picks to be measured
    CONCORDANCE = 0.5

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        seconds = super().start(space, points)
        self.checked: float | None = None     # the concordance found (None: untested)
        self._decided = False
        return seconds

    def concordance(self) -> float | None:
        """The share of the known points' informative pairs the model orders as
        measured (None: no such pair)."""
        rows = [i for i in self.known if self.measured.get(i) is not None]
        agree = pairs = 0
        for a, i in enumerate(rows):
            for j in rows[a + 1:]:
                predicted = self.logp[i] - self.logp[j]
                if abs(predicted) <= self.TIE:
                    continue
                pairs += 1
                agree += (predicted > 0) == (self.measured[i] > self.measured[j])
        return agree / pairs if pairs else None

    def ask(self) -> Point | None:
        if not self._decided and self.known:
            self._decided = True
            self.checked = self.concordance()
            if self.checked is not None and self.checked < self.CONCORDANCE:
                self.top = 0      # no first picks: the bandit from the first step
        return super().ask()


for _strategy in (ModelHedge, ModelHedgeBase, ModelHedgeCheck):
    GUIDED[_strategy.family] = _strategy
    STRATEGIES[_strategy.family] = _strategy
