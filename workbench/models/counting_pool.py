"""Counting processes: built and counted factory points on every core.

A factory point costs tens of milliseconds to build and count, so the points a
ranking needs are counted in forked worker processes (``WORKBENCH_RANK_JOBS`` sets
how many; 1 counts in this process).  Forked per round by default: what the workers
read (the candidates, the features asked for) is set just before the fork, and only
results are pickled.  A ranking that runs in a thread while another thread measures
on a device takes a pool forked ahead instead (:func:`fork_counting_pool`): a
process forked while another thread holds a lock (a driver's, a cache's) inherits it
held and may wait on it for ever; its tasks name a point by its space and label.

What counting one point means is the caller's (``count``, a module-level function of
``(candidate, refs, granularity, subgroup_size) -> (found, error)``).
"""

from __future__ import annotations

import multiprocessing
import os
import sys

from workbench.kernels.candidate import Candidate

#: what per-round workers read: set just before the fork
_FORKED: tuple = ()
#: below this many points, forking costs more than it saves
_PARALLEL_FROM = 4
#: the pool forked ahead, and the spaces its workers know (forked with them)
_POOL = None
_POOL_SPACES: list = []


def rank_jobs() -> int:
    """Worker processes for counting factory points: ``WORKBENCH_RANK_JOBS`` or every
    core; 1 where fork is not available."""
    if sys.platform != "linux":
        return 1
    try:
        return max(1, int(os.environ.get("WORKBENCH_RANK_JOBS", "0"))) \
            if os.environ.get("WORKBENCH_RANK_JOBS") else max(1, os.cpu_count() or 1)
    except ValueError:
        return 1


def _count_point(i: int):
    count, candidates, args = _FORKED
    return (i, *count(candidates[i], *args))


def _count_in_pool(task):
    i, which, label, count, args = task
    space = _POOL_SPACES[which]
    return (i, *count(Candidate.of_point(space, space.point(label)), *args))


class CountingPool:
    """Counting processes forked now, for a ranking of ``spaces`` to come."""

    def __init__(self, spaces, jobs: int):
        global _POOL, _POOL_SPACES
        _POOL_SPACES = list(spaces)
        self.pool = multiprocessing.get_context("fork").Pool(jobs)
        _POOL = self

    def covers(self, tasks) -> bool:
        return all(any(t.space is s for s in _POOL_SPACES) for t in tasks)

    def run(self, tasks, count, args) -> list:
        which = [next(j for j, s in enumerate(_POOL_SPACES) if s is t.space) for t in tasks]
        work = [(i, w, t.point.label, count, args) for i, (t, w) in enumerate(zip(tasks, which))]
        return list(self.pool.imap_unordered(_count_in_pool, work))

    def close(self) -> None:
        global _POOL
        if _POOL is self:
            _POOL = None
        self.pool.terminate()


def fork_counting_pool(spaces) -> CountingPool | None:
    """Fork the counting processes now, while this process does nothing else, for a
    ranking of ``spaces`` that will run in another thread (module docstring).  None
    with one counting process.  Close it once the ranking is done."""
    jobs = rank_jobs()
    return CountingPool(spaces, jobs) if jobs > 1 else None


def count_all(tasks: list[Candidate], count, *args) -> list:
    """``count(task, *args)`` of every task on every core: (found, error) per task, in
    order."""
    global _FORKED
    if not tasks:
        return []
    pool = _POOL
    if pool is not None and pool.covers(tasks):
        by_task = {i: (found, error) for i, found, error in pool.run(tasks, count, args)}
        return [by_task[i] for i in range(len(tasks))]
    jobs = min(rank_jobs(), len(tasks))
    _FORKED = (count, tasks, args)
    try:
        if jobs > 1 and len(tasks) >= _PARALLEL_FROM:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                results = list(pool.imap_unordered(
                    _count_point, range(len(tasks)),
                    chunksize=max(1, len(tasks) // (4 * jobs))))
        else:
            results = [_count_point(i) for i in range(len(tasks))]
    finally:
        _FORKED = ()
    by_task = {i: (found, error) for i, found, error in results}
    return [by_task[i] for i in range(len(tasks))]
