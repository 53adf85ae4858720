"""``model-hedge-stream``: the model's picks start before the whole space is ranked
(issue #33, ``structure-ranking.md`` section 38).

``model-hedge-base`` ranks the whole space before its first model pick; on the spaces
it lost (the best point cheap to measure, the ranking 0.5-2 s on 2 cores) the first
picks waited for the ranking's last structure while TPE's first draws were lucky.
Here the ranking arrives **structure by structure**, cheapest to count first
(:func:`structure_order`), each structure's predictions published the moment they
are computed (:func:`rank_streamed`: one :func:`~workbench.tuning.ranking.rank_space`
per *wave* of structures, so every count comes from the same fits, checked as ever).
A wave takes structures until their planned probes reach the counting processes
(:func:`waves`): on the 2-core VM every structure is a wave of its own; on the GPU
host's 16 cores a wave of a few structures keeps the cores busy.  What streaming
costs: counts two structures share in a whole ranking (an ``unroll`` flag, section 19)
are shared only within a wave, and a wave's last probes leave cores idle: on the 2-core
VM the streamed ranking ends 1.27x later than the whole one (geometric mean over the 41
development spaces; up to 3.3x where many small split parts lose their parallel
counting), and its first structure arrives after 0.35x the whole one's time
(``structure-ranking.md`` section 38; ``benchmarks/stream_check.py``).

Which structures first.  A structure's counting cost is its probes times a probe's
cost.  A flag knob turned on (``prefetch``, ``local``, ``unroll`` = 1) adds a
transformation: the user's factory runs it and loopy preprocesses and counts a
kernel with more instructions (a ``local=1`` probe 70-80 ms against 26-29 ms,
section 33), and such structures also need the joint fit's extra probes; so
structures are counted fewest flags on first, then fewest planned probes, then in the
space's order.  The cheap structures are also the plain kernels, whose predictions
the model gets most right.

When a partial ranking is trusted over an early draw.  Within a structure the kernel's
shape is fixed and its counts are exact monomials in the knobs, so the model's order
*within* counted structures is as good as its order over the whole space; what it
cannot know is whether an uncounted structure holds a faster point.  So, while the
ranking runs (:class:`~workbench.tuning.early.EarlyStart` asks :meth:`stream_pick`
before each early draw), the counted points' best prediction is measured whenever it
is a **new best**: the first structure's best once it arrives, then a later
structure's best only if it is predicted faster than every partial pick so far by more
than the model's tie (:attr:`~workbench.tuning.guided.ModelEI.TIE`); otherwise the
explorer's draw goes on.  At most ``top`` such picks: they are the model's first
picks, measured earlier (credited to the model, counted against ``top``: once the
ranking is done, ``model-hedge-base`` goes on with ``top`` minus them).  A space of one
structure streams nothing and is ``model-hedge-base`` exactly.

Honest clocks.  Live, the ranking runs in :class:`EarlyStart`'s thread and a
structure is available once its predictions are published.  The replay is given a
:class:`StreamedRanking` run for real on this machine beside the host's share of
measuring (:func:`streamed_beside`, :class:`~workbench.tuning.beside.HostWork`): each
structure becomes available when the early points' recorded costs so far pass the
time its predictions were really ready, the same rule as the whole ranking's end.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import TuningError
from workbench.tuning.early import structure_plans
from workbench.tuning.evaluation import Evaluation
from workbench.tuning.guided import GUIDED
from workbench.tuning.hedge import MODEL, ModelHedgeBase
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import STRATEGIES


@dataclass(frozen=True)
class StructureArrival:
    """One structure's predictions and when, since the ranking began, they were ready."""

    structure: tuple[tuple[str, object], ...]
    labels: tuple[str, ...]
    predicted_s: tuple[float, ...]
    done_s: float


@dataclass(frozen=True, eq=False)
class StreamedRanking:
    """A ranking made structure by structure: the arrivals in order, and the whole
    (:class:`~workbench.models.prediction.Ranking`, ``seconds`` the last arrival's)."""

    arrivals: tuple[StructureArrival, ...]
    whole: object

    @property
    def seconds(self) -> float:
        return float(self.whole.seconds)


@dataclass(frozen=True, eq=False)
class StreamedCharge:
    """A replay's streamed ranking of a space (:func:`streamed_beside`) and the note its
    rows carry: how it was timed."""

    ranking: StreamedRanking
    note: str


def _flags_on(key: tuple[tuple[str, object], ...], space: TuningSpace) -> int:
    """Knobs of the structure that are on/off flags (values within {0, 1}) and on."""
    on = 0
    for name, value in key:
        values = space.tune_params.get(name, ())
        if values and set(values) <= {0, 1} and bool(value):
            on += 1
    return on


def _ordered_structures(space: TuningSpace, points: Sequence[Point]) -> list[tuple]:
    """(planned probes, key, points) of every structure, cheapest to count first
    (module docstring): fewest flags on, then fewest planned probes, then the space's
    order; each structure planned once."""
    from workbench.models.structure_counts import StructurePlan

    keyed = []
    for i, (key, members, plan) in enumerate(structure_plans(space, points)):
        probes = len(plan.probes) if isinstance(plan, StructurePlan) else len(members)
        keyed.append(((_flags_on(key, space), probes, i), key, members))
    keyed.sort(key=lambda k: k[0])
    return [(order[1], key, members) for order, key, members in keyed]


def structure_order(space: TuningSpace, points: Sequence[Point]
                    ) -> list[tuple[tuple[tuple[str, object], ...], list[Point]]]:
    """The space's structures (key, points), cheapest to count first (module
    docstring): fewest flags on, then fewest planned probes, then the space's order."""
    return [(key, members) for _, key, members in _ordered_structures(space, points)]


def waves(space: TuningSpace, points: Sequence[Point], jobs: int
          ) -> list[list[tuple[tuple[tuple[str, object], ...], list[Point]]]]:
    """The structures of :func:`structure_order` in consecutive waves, each ranked in
    one call: a wave takes structures until their planned probes reach ``jobs`` (the
    counting processes), so that a host of many cores keeps them busy (a structure of
    5 probes alone would leave 11 of 16 idle) while a 2-core host streams structure by
    structure; structures of one wave may share counts as in a whole ranking."""
    out, wave, planned = [], [], 0
    for probes, key, members in _ordered_structures(space, points):
        wave.append((key, members))
        planned += probes
        if planned >= jobs:
            out.append(wave)
            wave, planned = [], 0
    if wave:
        out.append(wave)
    return out


def rank_streamed(model, space: TuningSpace, points: Sequence[Point],
                  publish: Callable[[StructureArrival], None] | None = None,
                  jobs: int | None = None) -> StreamedRanking:
    """``points`` ranked by ``model`` in waves of structures, cheapest first
    (:func:`waves`; ``jobs``: the counting processes, default this host's); ``publish``
    is called with each structure's arrival as soon as its wave's predictions are
    computed.  A model that orders a whole space at once (``reorder``, the
    ``space-order`` trees) publishes its ``stream_model``'s predictions structure by
    structure and reorders the whole space once the last wave is in; that last step is
    part of the ranking's time."""
    from workbench.models.candidate_features import counting_report, rank_jobs
    from workbench.models.prediction import make_predictions, make_ranking
    from workbench.tuning.ranking import predict_space

    points = list(points)
    reorder = getattr(model, "reorder", None)
    counting_model = getattr(model, "stream_model", model) if reorder else model
    began = time.perf_counter()
    arrivals, by_label = [], {}
    for wave in waves(space, points, rank_jobs() if jobs is None else jobs):
        part = predict_space(counting_model, space,
                             [p for _, members in wave for p in members])
        done = time.perf_counter() - began
        for i, c in enumerate(part.candidates):
            by_label[c.point.label] = (c, float(part.seconds[i]), part.breakdowns[i],
                                       part.errors[i])
        for key, members in wave:
            labels = tuple(p.label for p in members)
            arrival = StructureArrival(key, labels, tuple(by_label[lab][1] for lab in labels),
                                       done)
            arrivals.append(arrival)
            if publish is not None:
                publish(arrival)
    rows = [by_label[p.label] for p in points]
    result = make_predictions([r[0] for r in rows], [r[1] for r in rows],
                              [r[2] for r in rows], [r[3] for r in rows])
    if reorder is not None and rows:
        result = reorder(result)
    whole = make_ranking(result.candidates, result.seconds, began, result.errors)
    seconds = whole.seconds if reorder is not None and rows else \
        (arrivals[-1].done_s if arrivals else 0.0)
    whole = dataclasses.replace(whole, seconds=seconds, counting=counting_report(space))
    return StreamedRanking(tuple(arrivals), whole)


@contextlib.contextmanager
def cold_counts():
    """A context in which counts are neither read from nor left in the process's disk
    cache of counts (a fresh one, removed after) and loopy's disk caches are empty and
    private to it (:func:`~workbench.tuning.loopy_caches.private_loopy_caches`): a
    second ranking of a space in one process (a replay ranking it whole, then streamed)
    finds nothing the first one left, as a live run's cold ranking, while the user's
    loopy caches (``~/.cache/pytools``, shared by every loopy process of the user) are
    neither read nor emptied and keep their entries.  Fork the counting processes
    inside it: they then use the private caches too.

    What it charges: the same as when the user's caches were emptied instead (before
    2026-11-27), within noise.  The streamed ranking inside it, after a whole ranking
    of the same space in the process, linear-nn model, 2-core VM at load 1.9-2.6, two
    rounds of 4 (triad) or 2 (matmul_tiled) in turn: ``examples/spaces/triad.py``
    (66 points) 0.57-0.63 processor s emptied, 0.57-0.62 private;
    ``examples/spaces/matmul_tiled.py`` (108 points) 1.17-1.19 s emptied, 1.17-1.24 s
    private.  Its counting bypasses loopy's disk caches
    (:func:`~workbench.properties.counting.prepare`): those two rankings leave no
    entry in them; a model that linearizes through loopy would pay the misses and
    stores a live cold run pays (module docstring of
    :mod:`~workbench.tuning.loopy_caches`)."""
    from workbench.models.candidate_features import flush_saves
    from workbench.tuning.loopy_caches import private_loopy_caches

    flush_saves()
    before = os.environ.get("WORKBENCH_COUNT_CACHE")
    with tempfile.TemporaryDirectory(prefix="workbench-stream-") as folder, \
            private_loopy_caches():
        os.environ["WORKBENCH_COUNT_CACHE"] = os.path.join(folder, "counts.sqlite")
        try:
            yield
        finally:
            flush_saves()
            if before is None:
                os.environ.pop("WORKBENCH_COUNT_CACHE", None)
            else:
                os.environ["WORKBENCH_COUNT_CACHE"] = before


def scaled_stream(streamed: StreamedRanking, factor: float) -> StreamedRanking:
    """``streamed`` with every arrival's time, and the whole's, times ``factor``: what
    the same ranking would give a replay if counting cost ``factor`` of what it did (a
    hypothetical, for a study of where the time goes; never a measured charge)."""
    if not factor >= 0:
        raise TuningError(f"a ranking's time scale must be 0 or more, not {factor}")
    arrivals = tuple(dataclasses.replace(a, done_s=a.done_s * factor)
                     for a in streamed.arrivals)
    return StreamedRanking(arrivals, dataclasses.replace(
        streamed.whole, seconds=float(streamed.whole.seconds) * factor))


def measured_stream(streamed: StreamedRanking, evaluations: Mapping[str, Evaluation],
                    noise: float = 0.0) -> StreamedRanking:
    """``streamed`` with every prediction replaced by the point's measured time (a failed
    or unmeasured point last), arrivals and their times kept: what the replay would give
    if the model ordered every structure perfectly (a hypothetical, for a study of what
    an order can give at a ranking's cost; never a model).  ``noise``: each time
    multiplied by ``exp(noise * z)``, ``z`` a standard normal draw seeded by the point's
    label (the same on every machine and in every replay): an order as good as a model
    whose log-time errors within a space have that spread."""
    import zlib

    if not noise >= 0:
        raise TuningError(f"a measured order's noise must be 0 or more, not {noise}")

    def measured(label: str) -> float:
        evaluation = evaluations.get(label)
        if evaluation is None or not evaluation.ok:
            return math.inf
        z = np.random.default_rng(zlib.crc32(label.encode())).standard_normal() \
            if noise else 0.0
        return float(evaluation.time_s) * math.exp(noise * z)

    arrivals = tuple(dataclasses.replace(a, predicted_s=tuple(measured(lab) for lab in a.labels))
                     for a in streamed.arrivals)
    whole = streamed.whole
    predicted = np.array([measured(c.point.label) for c in whole.candidates], dtype=float)
    order = np.argsort(predicted, kind="stable")
    return StreamedRanking(arrivals, dataclasses.replace(whole, predicted_s=predicted,
                                                         order=order))


def whole_order_stream(streamed: StreamedRanking) -> StreamedRanking:
    """``streamed`` whose structures arrive, when they did, with the *whole* ranking's
    predictions of their points (a hypothetical: what partial picks would give if a
    model that rescores the whole space, :mod:`workbench.models.space_order`, knew its
    final order as each structure arrives; an upper bound on rescoring partial
    rankings, never a model)."""
    whole = streamed.whole
    final = {c.point.label: float(t) for c, t in zip(whole.candidates, whole.predicted_s)}
    arrivals = tuple(dataclasses.replace(a, predicted_s=tuple(final.get(lab, math.inf)
                                                              for lab in a.labels))
                     for a in streamed.arrivals)
    return StreamedRanking(arrivals, whole)


#: the hypothetical orders a replay's streamed ranking can be given
#: (:class:`OrderHypothesis`)
ORDER_SOURCES = ("measured", "whole")


@dataclass(frozen=True)
class OrderHypothesis:
    """A hypothetical order for a replay's streamed ranking, its cost timed as ever:
    ``measured``, the measured times with log-normal ``noise`` (:func:`measured_stream`);
    ``whole``, each structure's arrival with the whole ranking's predictions
    (:func:`whole_order_stream`).  For studies of where the time goes; never a model."""

    source: str
    noise: float = 0.0

    def __post_init__(self):
        if self.source not in ORDER_SOURCES:
            raise TuningError(f"an order hypothesis is one of {', '.join(ORDER_SOURCES)}, "
                              f"not {self.source!r}")
        if not self.noise >= 0 or (self.noise and self.source != "measured"):
            raise TuningError("only a measured order takes noise, 0 or more")

    def apply(self, streamed: StreamedRanking, evaluations: Mapping[str, Evaluation]
              ) -> StreamedRanking:
        if self.source == "whole":
            return whole_order_stream(streamed)
        return measured_stream(streamed, evaluations, self.noise)

    @property
    def note(self) -> str:
        if self.source == "whole":
            return ", hypothetical: each structure arrives with the whole ranking's predictions"
        return (", hypothetical: the measured times as its predictions"
                + (f", log-normal noise of {self.noise:g}" if self.noise else ""))


def streamed_beside(model, space: TuningSpace, evaluations: Mapping[str, Evaluation],
                    overlap_charge: str = "beside", time_scale: float = 1.0,
                    order: OrderHypothesis | None = None) -> StreamedCharge:
    """The replay's streamed ranking of ``space`` (a fresh copy, counts cold), run for
    real here beside the host's share of measuring the headline's early points (as
    :func:`~workbench.tuning.study._ranked` times the whole ranking), or alone; and a
    note for the rows.  ``time_scale`` other than 1: its times scaled so
    (:func:`scaled_stream`, a hypothetical), which the note says; ``order``: a
    hypothetical order (:class:`OrderHypothesis`, said so; None: the model's own)."""
    from workbench.tuning.beside import ranking_beside
    from workbench.tuning.early import BASES, bases_then_draws

    space = dataclasses.replace(space)
    points = space.points()
    with cold_counts():
        if overlap_charge == "alone":
            streamed = rank_streamed(model, space, points)
            note = "; streamed ranking timed alone"
        else:
            host = bases_then_draws(space, points, BASES, 0)
            with ranking_beside(space, host, evaluations) as share:
                streamed = rank_streamed(model, space, points)
            note = (f"; streamed ranking beside the host's share ({share.points} points "
                    f"prepared)")
    if time_scale != 1.0:
        streamed = scaled_stream(streamed, time_scale)
        note += f", hypothetical: its times x {time_scale:g}"
    if order is not None:
        streamed = order.apply(streamed, evaluations)
        note += order.note
    times = ", ".join(f"{a.done_s:.2f}" for a in streamed.arrivals)
    return StreamedCharge(streamed, f"{note}, structures ready at {times} s")


class ModelHedgeStream(ModelHedgeBase):
    """``model-hedge-base`` whose model picks start as the ranking's structures arrive
    (module docstring)."""

    family = "model-hedge-stream"
    #: :func:`~workbench.tuning.study.compare_strategies` gives it a
    #: :class:`StreamedRanking` made beside the host's work
    STREAMS = True

    def __init__(self, model=None, label: str | None = None, seed: int = 0,
                 top: int | None = None, ranking=None, model_prior: float | None = None,
                 explore: str | None = None):
        given = ranking if isinstance(ranking, StreamedRanking) else None
        super().__init__(model, label, seed=seed, top=top,
                         ranking=given.whole if given is not None else ranking,
                         model_prior=model_prior, explore=explore)
        self.streamed = given
        #: arrivals published so far (live: by the ranking's thread, as they come)
        self.arrived: list[StructureArrival] = []
        #: labels of the points measured as partial picks, and their predictions
        self.partial: dict[str, float] = {}

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        self.partial.clear()
        self.arrived.clear()
        if self.streamed is None and self.ranking is None:
            self.streamed = rank_streamed(self.model, space, points,
                                          publish=self.arrived.append)
        elif self.streamed is not None:
            self.arrived.extend(self.streamed.arrivals)
        if self.streamed is not None:
            self.ranking = self.streamed.whole
        return super().start(space, points)

    def stream_pick(self, elapsed_s: float, measured: set[str]) -> str | None:
        """The label of the point to measure next as a partial pick, given the seconds
        since the ranking began and the labels measured so far (None: none)."""
        if len(self.partial) >= self.top:
            return None
        best_label, best = None, math.inf
        for arrival in list(self.arrived):
            if arrival.done_s > elapsed_s:
                continue
            for label, t in zip(arrival.labels, arrival.predicted_s):
                if math.isfinite(t) and t > 0 and t < best and label not in measured:
                    best_label, best = label, t
        if best_label is None:
            return None
        if self.partial and math.log(best) >= \
                math.log(min(self.partial.values())) - self.TIE:
            return None      # no new best among the counted structures
        self.partial[best_label] = best
        return best_label

    def upcoming_while_ranking(self, n: int, measured: set[str]) -> list[str]:
        """Labels of the ``n`` fastest predicted points among the structures counted so
        far, less ``measured``: a live run's guess at its partial and first picks."""
        best = sorted((t, label) for arrival in list(self.arrived)
                      for label, t in zip(arrival.labels, arrival.predicted_s)
                      if math.isfinite(t) and t > 0 and label not in measured)
        return [label for _, label in best[:n]]

    def know(self, evaluation: Evaluation) -> None:
        """An early point; a partial pick is the model's pick, told as one."""
        if evaluation.point.label in self.partial:
            self._asked = MODEL
            self.tell(evaluation)
            return
        super().know(evaluation)


GUIDED[ModelHedgeStream.family] = ModelHedgeStream
STRATEGIES[ModelHedgeStream.family] = ModelHedgeStream

__all__ = ["ORDER_SOURCES", "ModelHedgeStream", "OrderHypothesis", "StreamedCharge",
           "StreamedRanking", "StructureArrival", "cold_counts", "measured_stream",
           "rank_streamed", "scaled_stream", "streamed_beside", "structure_order", "waves",
           "whole_order_stream"]
