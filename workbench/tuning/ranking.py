"""Ranking a whole search space with a model, at a cost far below measuring it.

Every point becomes a candidate that carries its space and point
(:meth:`~workbench.kernels.candidate.Candidate.of_point`), and the model predicts
them through the one entry :func:`workbench.models.prediction.predict`.  The cost is
kept low by the families themselves, which read what a point carries:

* count-based models (``unified-linear``, ``expression``) count a templated space's
  template once per *structure*, symbolically in the point's numbers, and evaluate
  the counts for every point at once (:mod:`workbench.models.candidate_features`);
* the roofline reads a template's access model once per structure and binds it to
  each point's numbers;
* the ``tiling`` family evaluates T_alg of a time-tiled space vectorized, with no
  kernel built; ``ir-knn`` reads a template's IR features once per structure;
* a space written as a ``kernel(point)`` factory is counted once per *structure* from
  a few built points, its counts fitted as sums of monomials in the numeric knobs and
  checked at a further point, falling back to every point where a fit does not check
  out (:mod:`workbench.models.structure_counts`); counts are kept on disk
  (:mod:`workbench.models.count_cache`), so a second session counts nothing; the
  expression model's device features of its points are kept there too
  (:mod:`workbench.models.device_features`), so that session builds no kernel.  The
  ranking's ``counting`` says how each structure was counted.

The result is a :class:`~workbench.models.contract.Ranking` whose ``seconds`` is the
whole cost, extraction included; :class:`CountSources` sums its ``counting`` into what a
user sees: how many points' counts came from the disk cache, and whether their device
features did.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.kernels.candidate import Candidate
from workbench.models.contract import Ranking
from workbench.models.prediction import Predictions, make_ranking, predict
from workbench.tuning.space import Point, TuningSpace


def point_candidate(space: TuningSpace, point: Point) -> Candidate:
    """A point as a candidate of its concrete kernel (built now, counted as any user
    kernel is): what a template's symbolic counts are checked against."""
    from workbench.kernels.user import spec_from_loopy

    spec = spec_from_loopy(space.build(point), name=f"{space.name}[{point.label}]")
    return Candidate(spec, "default", spec.fixed_group_size, (), space.dtype)


def rank_space(model, space: TuningSpace, points: Sequence[Point] | None = None
               ) -> Ranking:
    """The points (default: all) ranked by ``model``, fastest first, with its cost."""
    import dataclasses

    from workbench.models.candidate_features import counting_report

    began = time.perf_counter()
    result = predict_space(model, space, points)
    ranking = make_ranking(result.candidates, result.seconds, began, result.errors)
    return dataclasses.replace(ranking, counting=counting_report(space))


def predict_space(model, space: TuningSpace, points: Sequence[Point] | None = None
                  ) -> Predictions:
    """The points' (default: all) predictions by ``model``, breakdowns included."""
    from workbench.models.device_features import forget_feature_sources

    points = list(points if points is not None else space.points())
    forget_feature_sources(space.name)
    return predict(model, [Candidate.of_point(space, p) for p in points])


def _extends(key: tuple, base: tuple) -> bool:
    """Whether structure ``key`` is ``base`` split further (``base``'s knobs and more)."""
    return len(key) > len(base) and set(base) <= set(key)


@dataclass(frozen=True)
class CountSources:
    """Where a ranking of a ``kernel(point)`` space found its points' counts: read
    from the on-disk count cache, or worked out now (``built``: the points built and
    counted for it, a structure's probes or every point)."""

    points: int
    cached: int
    built: int
    #: False where ``WORKBENCH_COUNT_CACHE`` turns the cache off
    cache_on: bool = True
    #: device-feature families the ranking's model read (0: none, e.g. a linear
    #: model), and how many of them were read back from the cache
    feature_families: int = 0
    feature_families_cached: int = 0

    @classmethod
    def of(cls, ranking) -> CountSources | None:
        """From a ranking's ``counting`` report; None for a ranking without one (a
        templated space counts its template symbolically, with no cache)."""
        from workbench.models.count_cache import cache_path
        from workbench.models.device_features import device_feature_sources
        from workbench.models.structure_counts import CountMethod

        counting = tuple(getattr(ranking, "counting", None) or ())
        if not counting:
            return None
        # the last ranking of the space: read right after it (what rank_space records)
        families = device_feature_sources(counting[0].space)
        # a model that counts at two granularities records a structure twice, once
        # whole and once split by a knob (its key extended): the split parts are the
        # same points, so they count once, and from the cache only if every record
        # of them says so
        whole = [c for c in counting
                 if not any(_extends(c.structure, o.structure) for o in counting)]
        cached = sum(w.points for w in whole
                     if all(c.method is CountMethod.CACHED for c in counting
                            if c is w or _extends(c.structure, w.structure)))
        return cls(points=sum(w.points for w in whole), cached=cached,
                   built=sum(c.counted for c in counting),
                   cache_on=cache_path() is not None,
                   feature_families=len(families),
                   feature_families_cached=sum(f.from_cache for f in families))

    def describe(self) -> str:
        """One line, e.g. "84 of 84 points from the count cache"."""
        if not self.cache_on:
            return (f"{self.built} points built and counted for {self.points}; "
                    "the count cache is off (WORKBENCH_COUNT_CACHE)")
        line = f"{self.cached} of {self.points} points from the count cache"
        if self.built:
            line += f", {self.built} built and counted now"
        n, cached = self.feature_families, self.feature_families_cached
        if n and cached == n:
            line += f"; their device features too ({n} families)"
        elif n and cached:
            line += f"; device features of {cached} of {n} families from it"
        elif n:
            line += f"; device features ({n} families) worked out now"
        return line

    def as_dict(self) -> dict:
        out = {"points": self.points, "from_cache": self.cached, "built": self.built,
               "cache_on": self.cache_on}
        if self.feature_families:
            out["device_feature_families"] = {"read": self.feature_families,
                                              "from_cache": self.feature_families_cached}
        return out
