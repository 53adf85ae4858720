"""``model-hedge-handover``: the cheap model's stream first, the better model's order
once idle cores have counted it (issue #33, ``structure-ranking.md`` section 46).

``linear-nn`` with the residency penalty ranks a ``kernel(point)`` space in 0.2-3 s on
the 2-core VM; the shipped default model (``chains38``) with the same penalty orders the
development spaces much better (runs to 95 % 3.69 against 5.21 over 53 spaces, first
pick within 95 % on 24 against 17: section 43) but costs 5.7-37x as much to count.  On
the GPU host's 16 cores the cheap ranking ends before the first early point (live runs
17 and 18), and the cores stay idle while the device measures.  So here:

* the cheap ranking streams as in ``model-hedge-stream``
  (:class:`~workbench.tuning.stream.ModelHedgeStream`), and once it is done the search
  goes on with it exactly as the headline does;
* meanwhile, in the ranking's thread, on the counting processes the cheap ranking used,
  the better model ranks the whole space (:meth:`ModelHedgeHandover.rank_after`);
* when its ranking is ready, at the model's next turn the better model takes over
  (:meth:`ModelHedgeHandover.hand_over`): its log predictions replace the cheap ones
  (the correction's trend and the bandit's model steps use them from then on), and its
  first picks, spread over its near-ties as ``model-ei``'s are, replace the cheap
  model's first picks not yet measured; at least one (:attr:`PICKS`) is measured even
  if the cheap model's were all measured already.

Where cores do not pay for it, it is ``model-hedge-stream`` exactly: on a host of fewer
than :attr:`ModelHedgeHandover.MIN_JOBS` counting processes (the 2-core VM) the better
model never ranks, since there its counting would take the cores the measuring loop
builds its kernels on.

Clocks.  Live, the better ranking is ready when the ranking thread has it.  In a replay
the strategy keeps its own clock (:meth:`ModelHedgeHandover.elapsed`): since the
ranking began, the later of the cheap ranking's end and the early points' recorded
costs, then every later point's recorded cost and this strategy's own ``ask``/``tell``
seconds; the better order takes over at the first ``ask`` at which that clock has
passed its ready time.  The replay's ready time is timed here beside the host's share
(:func:`handed_beside`; on this host only where it has enough counting processes), or
recorded on another host (:class:`HostRecord`, ``benchmarks/handover_record.py``: the
GPU host's 16 cores).
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.errors import TuningError
from workbench.tuning.evaluation import Evaluation
from workbench.tuning.guided import GUIDED
from workbench.tuning.rerank import better_model
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.stream import (
    ModelHedgeStream,
    StreamedCharge,
    StreamedRanking,
    StructureArrival,
    cold_counts,
)
from workbench.tuning.strategies import STRATEGIES


@dataclass(frozen=True, eq=False)
class HandoverRanking(StreamedRanking):
    """A streamed cheap ranking and the better model's whole ranking, ready ``ready_s``
    seconds after the cheap ranking began (``better`` None: none, the headline)."""

    better: object = None
    ready_s: float = math.inf


@dataclass(frozen=True)
class RecordedSpace:
    """One space's two rankings as recorded on a host (``benchmarks/handover_record.py``)."""

    cores: int
    jobs: int
    arrivals: tuple[tuple[tuple[str, ...], float], ...]   # (labels, done_s) per structure
    cheap: Mapping[str, float]
    better: Mapping[str, float]
    cheap_s: float
    ready_s: float


@dataclass(frozen=True)
class HostRecord:
    """Every space's record of one host, from ``benchmarks/handover_record.py``'s JSON."""

    source: str
    host: str
    spaces: Mapping[str, RecordedSpace]

    @classmethod
    def load(cls, path: str | Path) -> HostRecord:
        data = json.loads(Path(path).read_text())
        spaces = {name: RecordedSpace(
            cores=int(data["cores"]), jobs=int(data["jobs"]),
            arrivals=tuple((tuple(a["labels"]), float(a["done_s"])) for a in s["arrivals"]),
            cheap=dict(s["cheap"]), better=dict(s["better"]),
            cheap_s=float(s["cheap_s"]), ready_s=float(s["ready_s"]))
            for name, s in data["spaces"].items()}
        return cls(str(path), str(data.get("host", "?")), spaces)

    def space(self, name: str) -> RecordedSpace:
        if name not in self.spaces:
            raise TuningError(f"{self.source} has no record of the space {name!r}")
        return self.spaces[name]


def _ranking_of(space: TuningSpace, points: Sequence[Point], predicted: Mapping[str, float],
                seconds: float):
    """A :class:`~workbench.models.contract.Ranking` of ``points`` with the recorded
    ``predicted`` times (by label) and ``seconds``."""
    from workbench.kernels.candidate import Candidate
    from workbench.models.prediction import make_ranking

    values = np.array([float(predicted.get(p.label, math.nan)) for p in points])
    ranking = make_ranking([Candidate.of_point(space, p) for p in points], values,
                           time.perf_counter())
    return dataclasses.replace(ranking, seconds=float(seconds))


def recorded_stream(record: HostRecord, space: TuningSpace, computed=None
                    ) -> StreamedCharge:
    """The cheap streamed ranking of ``space`` as ``record``'s host streamed it: its
    structures' arrivals at the recorded times, the recorded predictions; ``computed``
    (a ranking of the same model made here) is compared with them for the note."""
    rec = record.space(space.name)
    points = space.points()
    arrivals = tuple(StructureArrival((), labels,
                                      tuple(float(rec.cheap[lab]) for lab in labels), done)
                     for labels, done in rec.arrivals)
    whole = _ranking_of(space, points, rec.cheap, rec.cheap_s)
    note = (f"; streamed ranking as recorded on {record.host} ({rec.jobs} counting "
            f"processes, {record.source}), structures ready at "
            + ", ".join(f"{d:.2f}" for _, d in rec.arrivals) + " s")
    if computed is not None:
        here = {c.point.label: float(t)
                for c, t in zip(computed.candidates, computed.predicted_s)}
        differ = sum(1 for lab, t in rec.cheap.items()
                     if not (math.isclose(t, here.get(lab, math.nan), rel_tol=1e-9)
                             or (math.isnan(t) and math.isnan(here.get(lab, 0.0)))))
        note += f"; {differ} of {len(rec.cheap)} recorded predictions differ from this host's"
    return StreamedCharge(StreamedRanking(arrivals, whole), note)


def recorded_handover(streamed: StreamedCharge, record: HostRecord,
                      space: TuningSpace) -> StreamedCharge:
    """``streamed`` (:func:`recorded_stream`) with the better model's ranking as
    ``record``'s host made it, ready at the recorded time; none on a host of fewer
    than :attr:`ModelHedgeHandover.MIN_JOBS` counting processes."""
    rec = record.space(space.name)
    if rec.jobs < ModelHedgeHandover.MIN_JOBS:
        return StreamedCharge(HandoverRanking(streamed.ranking.arrivals,
                                              streamed.ranking.whole),
                              streamed.note + f"; no handover ({rec.jobs} counting processes)")
    better = _ranking_of(space, space.points(), rec.better, rec.ready_s - rec.cheap_s)
    return StreamedCharge(HandoverRanking(streamed.ranking.arrivals, streamed.ranking.whole,
                                          better, rec.ready_s),
                          streamed.note + f"; better order ready at {rec.ready_s:.2f} s "
                                          f"(recorded)")


def handed_beside(streamed: StreamedCharge, space: TuningSpace,
                  evaluations: Mapping[str, Evaluation], overlap_charge: str = "beside",
                  second=None, jobs: int | None = None) -> StreamedCharge:
    """The replay's rankings of ``model-hedge-handover`` on this host: ``streamed`` (the
    replay's streamed ranking, shared with ``model-hedge-stream``), then, where this
    host has at least :attr:`ModelHedgeHandover.MIN_JOBS` counting processes, the better
    model's whole ranking run for real on a fresh copy of the space, counts cold, beside
    the host's share of measuring (or alone), ready at the streamed ranking's end plus
    its seconds."""
    from workbench.models.candidate_features import rank_jobs
    from workbench.tuning.beside import ranking_beside
    from workbench.tuning.early import BASES, bases_then_draws
    from workbench.tuning.ranking import rank_space

    jobs = rank_jobs() if jobs is None else jobs
    if jobs < ModelHedgeHandover.MIN_JOBS:
        return StreamedCharge(HandoverRanking(streamed.ranking.arrivals,
                                              streamed.ranking.whole),
                              streamed.note + f"; no handover ({jobs} counting processes)")
    second = better_model() if second is None else second
    space = dataclasses.replace(space)
    with cold_counts():
        began = time.perf_counter()
        if overlap_charge == "alone":
            better = rank_space(second, space)
        else:
            host = bases_then_draws(space, space.points(), BASES, 0)
            with ranking_beside(space, host, evaluations):
                better = rank_space(second, space)
        seconds = time.perf_counter() - began
    ready = streamed.ranking.seconds + seconds
    return StreamedCharge(HandoverRanking(streamed.ranking.arrivals, streamed.ranking.whole,
                                          better, ready),
                          streamed.note + f"; better order ready at {ready:.2f} s")


class ModelHedgeHandover(ModelHedgeStream):
    """``model-hedge-stream`` whose model turns go to a better model's order once idle
    cores have ranked the space with it (module docstring)."""

    family = "model-hedge-handover"
    #: counting processes from which the better model ranks beside the measuring
    #: (fewer: the headline exactly)
    MIN_JOBS = 8
    #: the better model's first picks measured at least, whatever the cheap one's
    PICKS = 1

    def __init__(self, model=None, label: str | None = None, seed: int = 0,
                 top: int | None = None, ranking=None, model_prior: float | None = None,
                 explore: str | None = None, second=None):
        super().__init__(model, label, seed=seed, top=top, ranking=ranking,
                         model_prior=model_prior, explore=explore)
        given = ranking if isinstance(ranking, HandoverRanking) else None
        self.second = second
        #: (the better ranking, seconds since the ranking began when it was ready)
        self.pending = (given.better, given.ready_s) \
            if given is not None and given.better is not None else None
        self.live = ranking is None
        self.handed_at: float | None = None

    # -- the ranking ------------------------------------------------------------------
    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        self._began = time.perf_counter()
        self._space = space
        self.handed_at = None
        self._cheap_s = 0.0
        self._known_s = 0.0
        self._after_s = 0.0
        self._knowing = False
        seconds = super().start(space, points)
        self._cheap_s = float(self.ranking.seconds) if self.ranking is not None else 0.0
        return seconds

    def rank_after(self) -> None:
        """Live, in the ranking's thread once the cheap ranking is done
        (:class:`~workbench.tuning.early.EarlyStart`): the better model's whole ranking,
        on a host of at least :attr:`MIN_JOBS` counting processes; it takes over at the
        model's next turn after it is ready."""
        from workbench.models.candidate_features import rank_jobs
        from workbench.tuning.ranking import rank_space

        if not self.live or rank_jobs() < self.MIN_JOBS:
            return
        second = self.second if self.second is not None else better_model()
        better = rank_space(second, self._space, self.points)
        self.pending = (better, time.perf_counter() - self._began)

    # -- the clock --------------------------------------------------------------------
    def elapsed(self) -> float:
        """Seconds since the ranking began: live, the wall clock; in a replay, the
        recorded costs (module docstring)."""
        if self.live:
            return time.perf_counter() - self._began
        return max(self._cheap_s, self._known_s) + self._after_s

    def know(self, evaluation: Evaluation) -> None:
        self._known_s += evaluation.cost_s
        self._knowing = True           # a partial pick is told through tell: no second count
        try:
            super().know(evaluation)
        finally:
            self._knowing = False

    def tell(self, evaluation: Evaluation) -> None:
        if self._knowing:
            super().tell(evaluation)
            return
        began = time.perf_counter()
        self._after_s += evaluation.cost_s
        super().tell(evaluation)
        if not self.live:
            self._after_s += time.perf_counter() - began

    # -- the handover -----------------------------------------------------------------
    def hand_over(self, better) -> None:
        """The better ranking replaces the cheap one (module docstring)."""
        from workbench.tuning.gp import farthest_first

        by_label = {c.point.label: float(t)
                    for c, t in zip(better.candidates, better.predicted_s)}
        pred = np.array([by_label.get(p.label, math.nan) for p in self.points])
        with np.errstate(divide="ignore", invalid="ignore"):
            logp = np.where(np.isfinite(pred) & (pred > 0), np.log(pred), np.nan)
        finite = np.isfinite(logp)
        if not finite.any():
            return                       # nothing predicted: the cheap order stays
        self.logp = np.where(finite, logp, np.nanmax(logp))
        order = self._order(logp)
        tied = np.flatnonzero(finite & (self.logp <= self.logp[finite].min() + self.TIE))
        first = int(np.flatnonzero(tied == int(order[0]))[0])
        picks = max(self.PICKS, self.TOP - len(self.measured.keys() - self.known))
        spread = [int(tied[i]) for i in farthest_first(self.x[tied], first, min(picks, len(tied)))]
        taken = set(spread)
        self.order = np.array(spread + [int(i) for i in order if int(i) not in taken])
        # the first picks asked for from now on are the better model's
        self.top = len(self.measured.keys() - self.known) + picks
        self.ranking = better
        self.handed_at = self.elapsed()

    def ask(self) -> Point | None:
        began = time.perf_counter()
        pending = self.pending
        if pending is not None and self.handed_at is None and pending[1] <= self.elapsed():
            self.hand_over(pending[0])
            self.pending = None
        point = super().ask()
        if not self.live:
            self._after_s += time.perf_counter() - began
        return point

    @staticmethod
    def charge_beside(streamed: StreamedCharge, space: TuningSpace,
                      evaluations: Mapping[str, Evaluation],
                      overlap_charge: str) -> StreamedCharge:
        """What :func:`~workbench.tuning.study.compare_strategies` gives this strategy in
        a replay timed on this host (:func:`handed_beside`)."""
        return handed_beside(streamed, space, evaluations, overlap_charge)

    @staticmethod
    def charge_recorded(streamed: StreamedCharge, record: HostRecord,
                        space: TuningSpace) -> StreamedCharge:
        """What it is given in a replay charged as ``record``'s host ranked
        (:func:`recorded_handover`)."""
        return recorded_handover(streamed, record, space)


GUIDED[ModelHedgeHandover.family] = ModelHedgeHandover
STRATEGIES[ModelHedgeHandover.family] = ModelHedgeHandover

__all__ = ["HandoverRanking", "HostRecord", "ModelHedgeHandover", "RecordedSpace",
           "handed_beside", "recorded_handover", "recorded_stream"]
