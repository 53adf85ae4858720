"""The host's share of measuring, run beside a replayed ranking (issue #33).

Live, a strategy that measures while it ranks (:mod:`workbench.tuning.early`) ranks in
a thread of the process that measures: the ranking's thread and its counting
processes share the host's cores, and the ranking's thread shares the interpreter
lock, with the preparation of every point measured meanwhile (its kernel built and its
code generated, :func:`~workbench.tuning.live.prepare_point`: pure Python), and with
the OpenCL compiler's build of it (native code, the lock released).  The replay clock
used to time the ranking alone and let the early points run beside it for free: on
the 2-core VM a ranking beside points prepared back to back took 1.17-1.66x its time
alone (``structure-ranking.md`` section 28), so the replay undercharged it.

:class:`HostWork` is that share, done for real: a thread that, for each point in
turn, prepares it (on a copy of the space, so that the ranking is given none of its
work), then keeps one core busy outside the interpreter lock for the point's recorded
build seconds (as the compiler would), then sleeps its recorded run seconds (the
device's time, while a live run's thread waits on it).  A ranking timed inside it is
charged what a live run on this machine pays for it, given those recorded costs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import threading
import time
from collections.abc import Mapping, Sequence

from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.space import Point, TuningSpace

#: what a replay charges an overlapped ranking: its time alone (the old clock) or its
#: time beside the host's share of measuring the early points (:class:`HostWork`)
OVERLAP_CHARGES = ("alone", "beside")

# hashed per step of a busy wait: hashlib releases the interpreter lock for inputs
# this large, so the wait keeps a core busy without holding the lock, as a compiler
_BLOCK = bytes(1 << 20)


def busy_outside_lock(seconds: float) -> None:
    """Keep one core busy for ``seconds`` of wall time without the interpreter lock."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        hashlib.sha256(_BLOCK).digest()


@dataclasses.dataclass
class HostShare:
    """What :class:`HostWork` did: points prepared, and their seconds of preparation."""

    points: int = 0
    prepare_s: float = 0.0
    build_s: float = 0.0
    run_s: float = 0.0


class HostWork:
    """A context: while it is entered, a thread measures ``points`` in turn as a live
    run's host would (module docstring), the device's and the compiler's parts from
    ``evaluations`` (recorded costs by label), until the context is left or the points
    run out.  ``share`` says what it did."""

    def __init__(self, space: TuningSpace, points: Sequence[Point],
                 evaluations: Mapping[str, Evaluation]):
        self.space = dataclasses.replace(space)
        self.points = list(points)
        self.evaluations = dict(evaluations)
        self.share = HostShare()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._work, name="workbench-host-share",
                                        daemon=True)

    def _work(self) -> None:
        from workbench.tuning.live import prepare_point

        for point in self.points:
            if self._stop.is_set():
                return
            began = time.perf_counter()
            prepare_point(self.space, point)
            self.share.prepare_s += time.perf_counter() - began
            recorded = self.evaluations.get(point.label)
            costs = recorded.costs if recorded is not None else {}
            build, run = float(costs.get(Cost.BUILD, 0.0)), float(costs.get(Cost.RUN, 0.0))
            busy_outside_lock(build)
            self.share.build_s += build
            self._stop.wait(run)
            self.share.run_s += run
            self.share.points += 1

    def __enter__(self) -> HostWork:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()




@contextlib.contextmanager
def ranking_beside(space: TuningSpace, points: Sequence[Point],
                   evaluations: Mapping[str, Evaluation]):
    """A context to rank ``space`` in (the very object: its counting processes are
    forked for it now, before the host's thread starts, as a live run forks them before
    it measures: a fork beside a running thread may inherit a lock held), beside
    :class:`HostWork` over ``points``; yields the :class:`HostShare`."""
    from workbench.models.counting_pool import fork_counting_pool

    pool = fork_counting_pool([space])
    try:
        with HostWork(space, points, evaluations) as work:
            yield work.share
    finally:
        if pool is not None:
            pool.close()


__all__ = ["OVERLAP_CHARGES", "HostShare", "HostWork", "busy_outside_lock",
           "ranking_beside"]
