"""Measuring while the model ranks: no idle GPU before a model-guided search starts.

A model-guided strategy ranks the whole space before its first point (counting a
``kernel(point)`` factory space builds a few points per structure, on the host's
cores).  :class:`EarlyStart` wraps such a strategy: while the ranking runs, the device
measures the points the counting builds anyway (every structure's base point first,
then its other probe points: :func:`early_points`); once the ranking is done, the
wrapped strategy goes on in its own order, and a point it asks for that was measured
early is told to it from that measurement, never measured twice.  (Live, the counting
builds its points in its own processes, so measuring a probe shares no work with it;
a live run's early point is mostly the process's first code generation, on the host.
A seeded random early point, ``order="random"``, did better on the six design spaces
and worse on the six held-out ones in replay, ``benchmarks/first_picks.py``: the
probes stay the default; ``model-hedge`` asks for ``order="bo"``, seeded random draws
then ``bo``'s expected improvement on what was measured early:
:mod:`workbench.tuning.hedge`; ``model-hedge-base`` asks for ``order="bases"``, the
first structure's base point, then the same.)

Two clocks say when the ranking is done:

* ``live``: the ranking runs in a background thread (its counting in forked worker
  processes, as ever), and early points are measured until the thread finishes;
* ``replay``: the ranking runs first, its wall time ``R`` measured, and early points
  are taken while the recorded costs of the early ones so far (and the time of
  ``bo``'s steps that chose them) stay below ``R``:
  exactly what a live run on this machine would have measured before the ranking
  finished, given those costs.

A strategy that can learn from points it did not ask for (``know``: ``model-bo``,
``model-ei``) is told every early point once the ranking is done, so that its
correction of the model starts from them; it still measures its own ``top`` picks.
Any other strategy is told an early point only when it asks for it.

Either way the exploration's result says how many evaluations ran beside the ranking
(``overlapped``), and its cost charges the ranking as it happened: the first model
point starts at ``max(R, early costs)``, not at ``R + early costs``
(:attr:`~workbench.tuning.runner.ExplorationResult.cost_s`;
``serial_cost_s`` keeps the old charging, the ranking before every point).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from workbench.errors import TuningError
from workbench.tuning.evaluation import Evaluation
from workbench.tuning.space import Point, TuningSpace

CLOCKS = ("live", "replay")
#: what is measured while the model ranks: the counting's probe points (the default,
#: :func:`early_points`), a seeded random order of the space, or (``bo``) that order's
#: first :data:`BO_START` points, then ``bo``'s expected-improvement step on the early
#: points measured so far (no model: it is still ranking)
ORDERS = ("random", "probes", "bo", "bases")
BO_START = 3
#: ``order="bases"``: how many structures' base points are measured first (then ``bo``'s
#: draws and steps) unless the wrapped strategy says otherwise (``EARLY_BASES``)
BASES = 1


def random_early_points(points: Sequence[Point], seed: int) -> list[Point]:
    """The space's points in a seeded random order (``bo``'s start: the same draw): what
    a search that knows nothing yet would measure."""
    import numpy as np

    points = list(points)
    return [points[int(i)] for i in np.random.default_rng(seed).permutation(len(points))]


def early_points(space: TuningSpace, points: Sequence[Point]) -> list[Point]:
    """The points worth measuring before the ranking is done, in order: each
    structure's base point in turn (what its counting builds first), then the other
    probe points of each structure's plan (:mod:`workbench.models.structure_counts`).
    A templated space builds none of its points to rank: its structures' first points."""
    plans = structure_probes(space, points)
    order = [probes[0] for probes in plans]
    order += [p for probes in plans for p in probes[1:]]
    return list(dict.fromkeys(order))


def bases_then_draws(space: TuningSpace, points: Sequence[Point], bases: int,
                     seed: int) -> list[Point]:
    """``order="bases"``: the first ``bases`` structures' base points (a point in the
    middle of every knob's range: :func:`~workbench.models.structure_counts.plan_structure`),
    then the space in a seeded random order (``bo``'s draws)."""
    first = [probes[0] for probes in structure_probes(space, points)][:bases]
    return list(dict.fromkeys(first + random_early_points(points, seed)))


def structure_plans(space: TuningSpace, points: Sequence[Point]) -> list[tuple]:
    """Per structure of the space (in the order of its first point): its key, its
    points, and the plan of the points its counting builds
    (:func:`~workbench.models.structure_counts.plan_structure`: a ``StructurePlan``, or
    why the structure is counted point by point; None for a structure of one point)."""
    from collections import defaultdict

    from workbench.models.structure_counts import (
        plan_structure,
        structural_knobs,
        structure_key,
    )

    # a template space names its structural knobs (with any knob no monomial takes:
    # structural_knobs); a factory's are inferred
    structural = structural_knobs(space)
    groups: dict = defaultdict(list)
    for p in points:
        groups[structure_key(p, structural)].append(p)
    return [(key, members,
             plan_structure(members, structural) if len(members) > 1 else None)
            for key, members in groups.items()]


def structure_probes(space: TuningSpace, points: Sequence[Point]) -> list[list[Point]]:
    """Per structure of the space (in the order of its first point), the points its
    counting builds, the base first."""
    from workbench.models.structure_counts import StructurePlan

    return [list(plan.probes) if isinstance(plan, StructurePlan) else members[:1]
            for _, members, plan in structure_plans(space, points)]


class EarlyStart:
    """A model-guided strategy that measures probe points while it ranks (module
    docstring)."""

    def __init__(self, inner, *, clock: str = "live", early: int | None = None,
                 order: str | None = None, seed: int | None = None,
                 bases: int | None = None, least: int | None = None):
        # the wrapped strategy's own preference (``model-hedge``: random draws), else
        # the probes
        preferred = getattr(inner, "EARLY_ORDER", "probes")
        order = preferred if order is None else order
        if clock not in CLOCKS:
            raise TuningError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")
        if order not in ORDERS:
            raise TuningError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
        if early is not None and early < 0:
            raise TuningError("early must not be negative")
        bases = getattr(inner, "EARLY_BASES", BASES) if bases is None else int(bases)
        if bases < 0:
            raise TuningError("bases must not be negative")
        self.bases = bases
        least = getattr(inner, "EARLY_LEAST", 0) if least is None else int(least)
        if least < 0:
            raise TuningError("least must not be negative")
        #: early points measured before the model's picks even if the ranking is done
        #: sooner (a strategy's ``EARLY_LEAST``, or ``benchmarks/hedge_study.py``'s
        #: ``x<M>`` variants: model-free draws the ranking's end does not cut)
        self.least = least
        self.inner = inner
        self.clock = clock
        self.most = early
        self.order = order
        self.seed = int(getattr(inner, "seed", 0) or 0) if seed is None else int(seed)
        self.name = f"{inner.name}+early" if order == preferred \
            else f"{inner.name}+early-{order}"
        # a seeded draw: runs of other seeds measure other early points
        self.stochastic = order in ("random", "bo", "bases") \
            or getattr(inner, "stochastic", False)

    # the runner reads these
    @property
    def choosing_s(self) -> float | None:
        """The ranking's wall time once it is done (None before; the replay clock
        knows it from the start, even if the search stops before it is reached)."""
        return self._wall if self.clock == "replay" else self._ranking_s

    @property
    def overlapped(self) -> int:
        """Evaluations measured before the ranking was done."""
        return len(self._early_done)

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        self.points = list(points)
        self._space, self._features = space, None
        if self.order == "probes":
            self._queue = early_points(space, self.points)
        elif self.order == "bases":
            self._queue = bases_then_draws(space, self.points, self.bases, self.seed)
        else:
            self._queue = random_early_points(self.points, self.seed)
        if self.most is not None:
            self._queue = self._queue[: self.most]
        self._early_done: dict[str, Evaluation] = {}
        self._early_cost = 0.0
        self._ranking_s: float | None = None
        self._error: BaseException | None = None
        self._asked_early = False
        if self.clock == "replay":
            self._rank(space)
            return 0.0
        from workbench.models.counting_pool import active_pool, fork_counting_pool

        self._began = time.perf_counter()
        self._done = threading.Event()     # set once the ranking the search waits for is done

        # forked here, before this thread measures anything (fork_counting_pool says
        # why), unless a pool was forked ahead (``workbench tune``, before the device)
        pool = None if active_pool([space]) is not None else fork_counting_pool([space])
        self._thread = threading.Thread(target=self._rank, args=(space, pool, True),
                                        name="workbench-ranking", daemon=True)
        self._thread.start()
        return 0.0

    def _rank(self, space, pool=None, live: bool = False) -> None:
        began = self._began if live else time.perf_counter()
        # live, a strategy may rank on after its ranking is done (``rank_after``:
        # model-hedge-handover's better model), on the same counting processes, while
        # the search goes on: the pool is closed after that
        after = getattr(self.inner, "rank_after", None) if live else None
        try:
            reported = self.inner.start(space, self.points)
        except BaseException as err:   # noqa: BLE001 - raised again in the runner's thread
            self._error = err
            reported = 0.0
        finally:
            if pool is not None and after is None:
                pool.close()
        wall = time.perf_counter() - began
        # a ranking given ready-made reports the fresh ranking's cost
        self._wall = max(wall, float(reported or 0.0))
        if live:
            self._done.set()
        if after is None:
            return
        try:
            if self._error is None:
                after()
        except Exception:   # noqa: BLE001 - the better order is an extra: the search goes on
            pass
        finally:
            if pool is not None:
                pool.close()

    def _ranking_done(self) -> bool:
        if len(self._early_done) < self.least:
            return False
        if self.clock == "live":
            return self._done.is_set()
        return self._early_cost >= self._wall

    def _finish(self) -> None:
        if self._ranking_s is not None:
            return
        if self.clock == "live":
            self._done.wait()
        if self._error is not None:
            raise self._error
        self._ranking_s = self._wall
        know = getattr(self.inner, "know", None)
        if know is not None:      # the correction learns from what is measured already
            for evaluation in self._early_done.values():
                know(evaluation)

    def ask(self) -> Point | None:
        if self._ranking_s is None:
            while self._queue and not self._ranking_done():
                point = self._stream_point() or self._bo_point() or self._queue.pop(0)
                if point.label not in self._early_done:
                    self._asked_early = True
                    return point
            self._finish()
        self._asked_early = False
        while True:
            point = self.inner.ask()
            if point is None or point.label not in self._early_done:
                return point
            self.inner.tell(self._early_done[point.label])   # known: not measured again

    def _stream_point(self) -> Point | None:
        """A strategy whose ranking arrives structure by structure (``stream_pick``,
        :mod:`workbench.tuning.stream`): its pick among the structures counted by now
        (replay: the early points' costs so far; live: the ranking's thread's time),
        taken off the queue."""
        pick = getattr(self.inner, "stream_pick", None)
        if pick is None:
            return None
        elapsed = self._early_cost if self.clock == "replay" \
            else time.perf_counter() - self._began
        label = pick(elapsed, set(self._early_done))
        if label is None:
            return None
        point = next(p for p in self.points if p.label == label)
        if point in self._queue:
            self._queue.remove(point)
        return point

    def _bo_point(self) -> Point | None:
        """``order="bo"``: past the first random draws, the unmeasured point of largest
        expected improvement on the early points' log times (taken off the queue)."""
        if self.order not in ("bo", "bases") \
                or len(self._early_done) < max(BO_START, self.bases):
            return None
        began = time.perf_counter()
        import math

        from workbench.tuning.gp import model_free_pick
        from workbench.tuning.guided import point_features

        if self._features is None:
            self._features = point_features(self._space, self.points)
        row = {p.label: i for i, p in enumerate(self.points)}
        measured = {row[label]: (math.log(e.time_s) if e.ok else None)
                    for label, e in self._early_done.items()}
        point = self.points[model_free_pick(self._features, measured)]
        if point in self._queue:
            self._queue.remove(point)
        else:   # the queue's length is what ``early`` still allows: one point fewer
            self._queue.pop()
        # the step runs beside the ranking as the device's points do: the replay clock
        # counts it too (a live run would have had that much less time)
        self._early_cost += time.perf_counter() - began
        return point

    @property
    def upcoming_settled(self) -> bool:
        """Whether :meth:`upcoming` gives the wrapped strategy's own next points: the
        ranking is done (live: its thread is, before the search asks)."""
        return self._ranking_s is not None or (
            self.clock == "live" and self._done.is_set() and self._error is None
            and len(self._early_done) >= self.least)

    def upcoming(self, n: int) -> list[Point]:
        """The wrapped strategy's next points once the ranking is done
        (:attr:`upcoming_settled`); before, live, a streamed ranking's best points so
        far (``upcoming_while_ranking``), else none (the early points are chosen as
        they go)."""
        if not self.upcoming_settled:
            guess = getattr(self.inner, "upcoming_while_ranking", None)
            if guess is None or self.clock != "live" or n <= 0:
                return []
            by_label = {p.label: p for p in self.points}
            return [by_label[label] for label in guess(n, set(self._early_done))]
        from workbench.tuning.strategies import upcoming_points

        return [p for p in upcoming_points(self.inner, n + len(self._early_done))
                if p.label not in self._early_done][:n]

    def tell(self, evaluation: Evaluation) -> None:
        if self._asked_early:
            self._early_done[evaluation.point.label] = evaluation
            self._early_cost += evaluation.cost_s
            return
        self.inner.tell(evaluation)

    @property
    def asked_early(self) -> bool:
        """Whether the last point asked for is measured before the ranking is done."""
        return self._asked_early

    @property
    def ranking(self):
        return getattr(self.inner, "ranking", None)
