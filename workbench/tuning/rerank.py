"""``model-hedge-rerank``: the cheap model ranks the space, a better one re-ranks only
its first few points (issue #33, ``structure-ranking.md`` section 43).

The tuning strategies rank a user's space with ``linear-nn`` and the residency penalty:
its features are counted per structure in a few ms a point.  The shipped default model
(``workbench/models/data/h100/default-model.json``: the chains38 fit, sub-group counts
with sector-priced accesses) predicts unseen kernels better (#34), but counting its
features costs about ten times more a point on the 2-core VM (section 43), more than
the runs its order could save if it ranked the whole space.  So it is asked only about
the cheap model's first :attr:`ModelHedgeRerank.K` points, after the cheap ranking is
done (:func:`rerank`): those few points are counted one by one (a structure fit counts
more points than that), and re-ordered by its predictions.  The cheap model's values
are kept and only permuted among those ``K`` points (:func:`rerank_ranking`), so that
the correction's trend, the near-ties of the spread first picks and the bandit see the
same scale as before: only which of the ``K`` comes first changes.

Everything else is ``model-hedge-stream``: the cheap ranking arrives structure by
structure and its partial picks are measured while it runs; the re-ranking runs in the
same ranking thread after it (live) or, in a replay, for real beside the host's share
of measuring, counts cold (:func:`reranked_beside`), and its seconds are added to the
ranking's end: the model's first picks after the ranking wait for it.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence

import numpy as np

from workbench.tuning.evaluation import Evaluation
from workbench.tuning.guided import GUIDED
from workbench.tuning.hedge import ModelHedgeBase
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.stream import (
    ModelHedgeStream,
    StreamedCharge,
    StreamedRanking,
    cold_counts,
    rank_streamed,
)
from workbench.tuning.strategies import STRATEGIES


def rerank_order(order: Sequence[int], labels: Sequence[str], better: Mapping[str, float],
                 k: int) -> np.ndarray:
    """``order`` (indices into ``labels``) with its first ``k`` re-ordered by
    ``better``'s predictions (stable; a point it did not predict goes after those it
    did), the rest as they were."""
    order = np.asarray(order, dtype=int)
    head = [int(i) for i in order[:k]]

    def key(i: int) -> float:
        t = better.get(labels[i], math.nan)
        return t if math.isfinite(t) and t > 0 else math.inf

    head.sort(key=key)       # list.sort is stable
    return np.concatenate([np.array(head, dtype=int), order[k:]]).astype(int)


def rerank_ranking(ranking, better: Mapping[str, float], k: int, seconds: float):
    """``ranking`` whose first ``k`` points follow ``better`` (:func:`rerank_order`):
    the values its model predicted for them are dealt out again in that order, fastest
    value first, so that every prediction of the cheap model stays on its scale.
    ``seconds``: the new ranking's cost."""
    labels = [c.point.label for c in ranking.candidates]
    order = np.asarray(ranking.order, dtype=int)
    new = rerank_order(order, labels, better, k)
    predicted = np.array(ranking.predicted_s, dtype=float)
    head = order[:k]
    values = np.sort(predicted[head])           # the same values, fastest first
    predicted[new[:k]] = values
    return dataclasses.replace(ranking, predicted_s=predicted, order=new,
                               seconds=float(seconds))


def rerank(better_model, space: TuningSpace, ranking, k: int) -> tuple[dict[str, float], float]:
    """``better_model``'s predictions of ``ranking``'s first ``k`` points (by label)
    and the wall seconds they took."""
    from workbench.tuning.ranking import rank_space

    began = time.perf_counter()
    points = [ranking.candidates[int(i)].point for i in ranking.order[:k]]
    part = rank_space(better_model, space, points) if points else None
    seconds = time.perf_counter() - began
    if part is None:
        return {}, seconds
    return ({c.point.label: float(t) for c, t in zip(part.candidates, part.predicted_s)},
            seconds)


def _reranked(streamed: StreamedRanking, better: Mapping[str, float], k: int,
              rerank_s: float) -> StreamedRanking:
    whole = rerank_ranking(streamed.whole, better, k, streamed.whole.seconds + rerank_s)
    return StreamedRanking(streamed.arrivals, whole)


def better_model():
    """The second model: the shipped default (``default-model.json``) with the
    residency penalty, as the cheap one has it."""
    from workbench.models.defaults import default_model
    from workbench.models.residency_penalty import ResidencyPenalty

    return ResidencyPenalty(default_model().model)


def reranked_beside(streamed: StreamedCharge, space: TuningSpace,
                    evaluations: Mapping[str, Evaluation], overlap_charge: str = "beside",
                    k: int | None = None, second=None) -> StreamedCharge:
    """The replay's ranking of ``model-hedge-rerank``: ``streamed``, the replay's
    streamed ranking (:func:`~workbench.tuning.stream.streamed_beside`, shared with
    ``model-hedge-stream``), then the second model's re-ranking of its first ``k``
    points, run for real here on a fresh copy of the space, counts cold, beside the
    host's share of measuring (or alone), its seconds added to the ranking's end; and
    the rows' note."""
    from workbench.tuning.beside import ranking_beside
    from workbench.tuning.early import BASES, bases_then_draws

    k = ModelHedgeRerank.K if k is None else k
    second = better_model() if second is None else second
    space = dataclasses.replace(space)
    with cold_counts():
        if overlap_charge == "alone":
            better, rerank_s = rerank(second, space, streamed.ranking.whole, k)
        else:
            host = bases_then_draws(space, space.points(), BASES, 0)
            with ranking_beside(space, host, evaluations):
                better, rerank_s = rerank(second, space, streamed.ranking.whole, k)
    return StreamedCharge(_reranked(streamed.ranking, better, k, rerank_s),
                          f"{streamed.note}; its first {k} re-ranked in {rerank_s:.2f} s "
                          f"({'alone' if overlap_charge == 'alone' else 'beside'})")


class ModelHedgeRerank(ModelHedgeStream):
    """``model-hedge-stream`` whose first picks after the ranking come from the cheap
    ranking's first :attr:`K` points re-ranked by the shipped default model (module
    docstring)."""

    family = "model-hedge-rerank"
    #: the cheap ranking's first points the second model re-ranks
    K = 6

    def __init__(self, model=None, label: str | None = None, seed: int = 0,
                 top: int | None = None, ranking=None, model_prior: float | None = None,
                 explore: str | None = None, second=None, k: int | None = None):
        super().__init__(model, label, seed=seed, top=top, ranking=ranking,
                         model_prior=model_prior, explore=explore)
        self.second, self.k = second, self.K if k is None else int(k)

    @staticmethod
    def charge_beside(streamed: StreamedCharge, space: TuningSpace,
                      evaluations: Mapping[str, Evaluation],
                      overlap_charge: str) -> StreamedCharge:
        """What :func:`~workbench.tuning.study.compare_strategies` gives this strategy
        in a replay, from the streamed ranking it gives ``model-hedge-stream``
        (:func:`reranked_beside`)."""
        return reranked_beside(streamed, space, evaluations, overlap_charge)

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        if self.streamed is None and self.ranking is None:
            # live: the streamed ranking, then the re-ranking, in this (the ranking's)
            # thread; the partial picks see the structures as they arrive
            self.partial.clear()
            self.arrived.clear()
            began = time.perf_counter()
            streamed = rank_streamed(self.model, space, points, publish=self.arrived.append)
            second = self.second if self.second is not None else better_model()
            better, _ = rerank(second, space, streamed.whole, self.k)
            self.streamed = _reranked(streamed, better, self.k,
                                      time.perf_counter() - began - streamed.seconds)
            self.ranking = self.streamed.whole
            # not ModelHedgeStream.start: it would forget the partial picks measured
            # while this thread ranked
            return ModelHedgeBase.start(self, space, points)
        return super().start(space, points)


GUIDED[ModelHedgeRerank.family] = ModelHedgeRerank
STRATEGIES[ModelHedgeRerank.family] = ModelHedgeRerank

__all__ = ["ModelHedgeRerank", "better_model", "rerank", "rerank_order", "rerank_ranking",
           "reranked_beside"]
