"""Counting processes: built and counted factory points on every core.

A factory point costs tens of milliseconds to build and count, so the points a
ranking needs are counted in forked worker processes (``WORKBENCH_RANK_JOBS`` sets
how many; 1 counts in this process).  Forked per round by default: what the workers
read (the candidates, the features asked for) is set just before the fork, and only
results are pickled.  A ranking that runs in a thread while another thread measures
on a device takes a pool forked ahead instead (:func:`fork_counting_pool`): a
process forked while another thread holds a lock (a driver's, a cache's) inherits it
held and may wait on it for ever; its tasks name a point by its space and label.

A pool forked ahead also counts *as results come* (:func:`count_streaming`): a
structure whose probes are in is fitted at once and its next points sent, while other
structures' points are still counting, and workers left idle count each structure's
likeliest next points (speculation), so no structure waits for another's slowest
point and no process is forked per round.  Its workers may warm up first (``warm``:
build and count a small kernel, so that loopy's and islpy's first-use costs are paid
before a ranking, not by its first points); :meth:`CountingPool.wait_ready` waits
for that.

A worker that dies while counting (killed, out of memory, a crash in a native library)
takes its point with it, and a pool never answers for a lost task: each worker says
which task it starts, so the pool gives that point back as failed, with the reason,
instead of waiting for it for ever.

What counting one point means is the caller's (``count``, a module-level function of
``(candidate, refs, granularity, subgroup_size) -> (found, error)``).
"""

from __future__ import annotations

import functools
import gc
import itertools
import multiprocessing
import os
import pickle
import queue
import sys
import threading
import time
from collections import defaultdict

from workbench.kernels.candidate import Candidate

#: what per-round workers read: set just before the fork
_FORKED: tuple = ()
#: below this many points, forking costs more than it saves
PARALLEL_FROM = 4
#: the pool forked ahead
_POOL = None
#: in a pool's worker: the spaces of its pool (given at the worker's start)
_POOL_SPACES: list = []
#: in a pool's worker: where it says which task it starts (its pid and the task's token)
_STARTED = None
#: True in a counting process (its tasks never fork counting processes of their own)
_IN_WORKER = False
#: seconds between checks for dead workers while a pool's results are awaited
POLL_S = 0.5
LOST = ("the counting process died while counting this point (killed, out of memory, "
        "or a crash in a native library); it is left uncounted")


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


def _count_forked(task):
    token, i = task
    if _STARTED is not None:
        _STARTED.put((os.getpid(), token))
    count, candidates, args = _FORKED
    return (token, *count(candidates[i], *args))


def _count_in_pool(task):
    i, which, label, count, args = task
    if _STARTED is not None:
        _STARTED.put((os.getpid(), i))
    space = _POOL_SPACES[which]
    return (i, *count(Candidate.of_point(space, space.point(label)), *args))


def _start_worker(warm, ready, started=None, spaces=None) -> None:
    global _STARTED, _POOL_SPACES, _IN_WORKER
    _IN_WORKER = True
    _STARTED = started
    if spaces is not None:
        _POOL_SPACES = spaces
    try:
        if warm is not None:
            try:
                warm()
            except Exception:  # noqa: BLE001 - warming only saves time; a worker that
                pass           # failed it counts as a cold one does, rather than dying
    finally:
        if ready is not None:
            ready.release()


class CountingPool:
    """Counting processes forked now, for rankings of ``spaces`` to come; each runs
    ``warm()`` first where given."""

    def __init__(self, spaces, jobs: int, warm=None, *, ahead: bool = True):
        global _POOL
        # each worker is given the spaces at its start (a worker that replaces a dead
        # one too, whatever pool was made since); this process keeps its own list
        self.spaces = list(spaces)
        context = multiprocessing.get_context("fork")
        wait_closed()
        began = time.perf_counter()
        self.jobs = jobs
        self._ready = context.Semaphore(0)
        self._started = context.SimpleQueue()
        self._tokens = itertools.count()
        # token -> (the caller's key, its results queue), until the result comes
        self._outstanding: dict = {}
        self._last_started: dict = {}
        # the objects of now frozen for the workers: their collector then leaves them
        # alone instead of touching (and so copying) every page it inherited
        gc.freeze()
        try:
            self.pool = context.Pool(jobs, initializer=_start_worker,
                                     initargs=(warm, self._ready, self._started,
                                               self.spaces or None))
        finally:
            gc.unfreeze()
        self._workers = self._worker_pids()
        #: seconds to fork the workers, and until every one had warmed up
        self.fork_s = time.perf_counter() - began
        self.ready_s: float | None = None
        self._began = began
        if ahead:
            _POOL = self

    def wait_ready(self, timeout: float = 120.0) -> float:
        """Wait until every worker has started (and warmed up): the seconds from the
        fork until then."""
        if self.ready_s is None:
            deadline = time.perf_counter() + timeout
            for _ in range(self.jobs):
                self._ready.acquire(timeout=max(0.0, deadline - time.perf_counter()))
            self.ready_s = time.perf_counter() - self._began
        return self.ready_s

    def workers_cpu_s(self) -> float:
        """Processor seconds its live workers have spent so far (Linux's /proc; 0 where
        it cannot be read)."""
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for worker in list(getattr(self.pool, "_pool", ())):
            try:
                with open(f"/proc/{worker.pid}/stat") as stat:
                    fields = stat.read().rpartition(")")[2].split()
                total += (int(fields[11]) + int(fields[12])) / tick
            except (OSError, ValueError, IndexError):
                continue
        return total

    def covers(self, tasks) -> bool:
        return all(any(t.space is s for s in self.spaces) for t in tasks)

    def _which(self, space) -> int:
        return next(j for j, s in enumerate(self.spaces) if s is space)

    def run(self, tasks, count, args) -> list:
        results: queue.SimpleQueue = queue.SimpleQueue()
        for i, t in enumerate(tasks):
            self.submit(i, t.space, t.point, count, args, results)
        out = [self.get(results) for _ in tasks]
        for item in out:
            if isinstance(item, BaseException):
                raise item
        return out

    def submit(self, key, space, point, count, args, results) -> None:
        """Count one point; ``(key, found, error)`` (or the exception raised) is put
        on ``results`` when done.  Take results with :meth:`get`, which gives a point
        whose worker died back as failed."""
        self._send(key, _count_in_pool, (self._which(space), point.label, count, args),
                   results)

    def _send(self, key, work, payload: tuple, results) -> None:
        token = next(self._tokens)
        self._outstanding[token] = (key, results)
        self.pool.apply_async(work, ((token, *payload),), callback=self._done,
                              error_callback=functools.partial(self._raised, token))

    def _done(self, result) -> None:
        token, found, error = result
        key, results = self._outstanding.pop(token)
        results.put((key, found, error))

    def _raised(self, token, err) -> None:
        self._outstanding.pop(token)[1].put(err)

    def get(self, results: queue.SimpleQueue):
        """The next item :meth:`submit` put on ``results``, waiting for it; while it
        waits, a worker that died gives its point back as ``(key, {}, LOST)``."""
        while True:
            self._read_started()
            try:
                return results.get(timeout=POLL_S)
            except queue.Empty:
                self._give_back_lost()

    def _read_started(self) -> None:
        # read as it comes: the workers' pipe must never fill, or their puts would block
        while not self._started.empty():
            pid, token = self._started.get()
            self._last_started[pid] = token

    def _worker_pids(self) -> set[int]:
        return {w.pid for w in list(getattr(self.pool, "_pool", ()))}

    def _give_back_lost(self) -> None:
        alive = self._worker_pids()
        dead, self._workers = self._workers - alive, alive
        if not dead:
            return
        self._read_started()
        for pid in dead:
            token = self._last_started.pop(pid, None)
            lost = self._outstanding.pop(token, None) if token is not None else None
            if lost is not None:
                key, results = lost
                results.put((key, {}, LOST))

    def close(self) -> None:
        global _POOL
        if _POOL is self:
            _POOL = None
        self.pool.terminate()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def fork_counting_pool(spaces, *, warm=None, jobs: int | None = None
                       ) -> CountingPool | None:
    """Fork the counting processes now, while this process does nothing else, for a
    ranking of ``spaces`` that will run later or in another thread (module
    docstring); ``warm``: run in each worker first.  None with one counting process.
    Close it once the ranking is done."""
    jobs = rank_jobs() if jobs is None else jobs
    return CountingPool(spaces, jobs, warm) if jobs > 1 else None


def active_pool(spaces) -> CountingPool | None:
    """The pool forked ahead, if its workers know every one of ``spaces``."""
    pool = _POOL
    if pool is None or not all(any(s is k for k in pool.spaces) for s in spaces):
        return None
    return pool


def close_later(pool: CountingPool) -> None:
    """Close a pool in a thread: its workers' ends cost the caller no wall time (the
    next pool waits for them before it forks: a fork beside a thread that holds a
    lock inherits it held)."""
    global _POOL
    if _POOL is pool:
        _POOL = None
    closing = threading.Thread(target=pool.pool.terminate, daemon=True)
    closing.start()
    _CLOSING.append(closing)


#: pools being closed in a thread (:func:`close_later`)
_CLOSING: list = []


def wait_closed() -> None:
    """Wait until the pools being closed in a thread are (their workers reaped, so
    that their processor time counts among this process's children's)."""
    while _CLOSING:
        _CLOSING.pop().join()


def count_streaming(pool: CountingPool, fits: dict, count, args, counted: dict,
                    failed: dict, given, *, speculate: bool) -> None:
    """Count what the ``fits`` (``(space, structure) -> fit`` with ``wanted``,
    ``speculative``, ``give`` and ``done``) want on ``pool`` as results come: each
    result is given to its space's fits at once (``given(found, error)``: what a fit
    reads of it) and what they want next is sent at once; with ``speculate``, workers
    that would be idle count the fits' speculative points in turn.  Fills
    ``counted[space][point]`` (found) and ``failed[space][point]`` (error)."""
    results: queue.SimpleQueue = queue.SimpleQueue()
    owners: list = []
    running: set = set()
    by_space: dict = defaultdict(list)
    for (space, _), fit in fits.items():
        by_space[space].append(fit)

    def send(owner) -> None:
        running.add(owner)
        owners.append(owner)
        pool.submit(len(owners) - 1, *owner, count, args, results)

    def fresh(owner) -> bool:
        space, p = owner
        return owner not in running and p not in counted[space] and p not in failed[space]

    while not all(fit.done for fit in fits.values()):
        # the structures that want most first: where points outnumber the workers, the
        # last to start are the few points of a small structure (often of a cheaper
        # kernel: a prefetch adds a knob), not the last probes of the largest
        wants = [(space, fit.wanted()) for (space, _), fit in fits.items()]
        for space, wanted in sorted(wants, key=lambda w: -len(w[1])):
            for p in wanted:
                if fresh((space, p)):
                    send((space, p))
        # speculation leaves one core to this process, whose fits and evaluation of
        # every point are the ranking's last step (and its next points' sending)
        room = pool.jobs - 1
        if speculate and len(running) < room:
            queues = [[(space, p) for p in fit.speculative()]
                      for (space, _), fit in fits.items() if not fit.done]
            while len(running) < room and any(queues):
                for q in queues:
                    while q:
                        owner = q.pop(0)
                        if fresh(owner):
                            send(owner)
                            break
                    if len(running) >= room:
                        break
        if not running:
            break
        got = [pool.get(results)]
        while not results.empty():
            got.append(results.get())
        new: dict = defaultdict(dict)
        for item in got:
            if isinstance(item, BaseException):
                raise item
            key, found, error = item
            owner = owners[key]
            running.discard(owner)
            space, p = owner
            counted[space][p] = found
            if error is not None:
                failed[space][p] = error
            new[space][p] = given(found, error)
        for space, values in new.items():
            for fit in by_space[space]:
                if not fit.done:
                    fit.give(values)


#: what says the counting processes may not compute a device family now (each returns
#: True then): a module whose numbers read state that a pool forked earlier lacks
_HERE_WHEN: list = []


def compute_here_when(predicate):
    """Register ``predicate``: while it is true, device-feature families are computed in
    this process (a compiler's build report put in use after the pool was forked)."""
    _HERE_WHEN.append(predicate)
    return predicate


def device_pool_from() -> int:
    """The fewest counting processes that compute device families
    (``WORKBENCH_DEVICE_POOL_FROM``, default 8; at least 2).  A worker builds its points
    anew for every family (this process builds a point once for all of them), so on a
    few cores the families cost more there than here; on many, the builds spread."""
    try:
        return max(2, int(os.environ.get("WORKBENCH_DEVICE_POOL_FROM", "8")))
    except ValueError:
        return 8


def _sendable(compute) -> bool:
    """Whether a worker can take ``compute``: it pickles, and its function lives in an
    importable module, not ``__main__``.  A pool forked ahead has no ``__main__``
    function defined after its fork (a script's, a notebook's): its worker would die
    reading the task, before it says which task it starts, and the pool would wait for
    it for ever."""
    try:
        pickle.dumps(compute)
    except Exception:  # noqa: BLE001 - a closure: computed in this process, as before
        return False
    function = getattr(compute, "func", compute)
    return getattr(function, "__module__", "__main__") not in (None, "__main__")


def pool_for(space, compute, wanted: int) -> tuple[CountingPool | None, bool]:
    """The counting processes to compute ``wanted`` points of ``space`` on with
    ``compute`` (a device family's numbers of a candidate), and whether this call forked
    them (and so closes them, :func:`close_later`); ``(None, False)``: compute here (fewer
    counting processes than :func:`device_pool_from`, a few points, a counting process itself, a ``compute`` that
    cannot be sent to another process, or what :func:`compute_here_when` says)."""
    jobs = rank_jobs()
    if jobs < device_pool_from() or _IN_WORKER or wanted < PARALLEL_FROM or \
            any(here() for here in _HERE_WHEN):
        return None, False
    if not _sendable(compute):
        return None, False
    pool = active_pool([space])
    if pool is not None:
        return pool, False
    return CountingPool([space], jobs, ahead=False), True


def _guarded(c: Candidate, compute):
    # a kernel that cannot be built or read: no value (the caller's NaN), as in one process
    try:
        return (True, compute(c)), None
    except Exception:  # noqa: BLE001
        return (False, None), None


def compute_each(candidates, compute) -> list | None:
    """``(True, compute(c))`` or ``(False, None)`` where it raises, of every candidate
    (points of one factory space), computed on the counting processes; None where
    :func:`pool_for` says here (the caller computes them, one after another).  A point
    whose process died is computed here."""
    from workbench.kernels.candidate import plain_factory_space

    candidates = list(candidates)
    # few counting processes (this 2-core machine's case): nothing to look at
    if rank_jobs() < device_pool_from() or _IN_WORKER or not candidates or \
            not all(isinstance(c, Candidate) for c in candidates):
        return None
    # a worker builds a point's candidate anew (``Candidate.of_point``): only where that
    # is the caller's, as plain_factory_space checks
    space = plain_factory_space(candidates)
    if space is None:
        return None
    pool, forked = pool_for(space, compute, len(candidates))
    if pool is None:
        return None
    results: queue.SimpleQueue = queue.SimpleQueue()
    try:
        for i, c in enumerate(candidates):
            pool.submit(i, space, c.point, _guarded, (compute,), results)
        got = [pool.get(results) for _ in candidates]
    finally:
        if forked:
            close_later(pool)
    out: list = [None] * len(candidates)
    for item in got:
        if isinstance(item, BaseException):
            raise item
        i, found, error = item
        out[i] = _guarded(candidates[i], compute)[0] if error is not None else found
    return out


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
        if jobs > 1 and len(tasks) >= PARALLEL_FROM:
            with CountingPool((), jobs, ahead=False) as pool:
                results: queue.SimpleQueue = queue.SimpleQueue()
                for i in range(len(tasks)):
                    pool._send(i, _count_forked, (i,), results)
                got = [pool.get(results) for _ in tasks]
            for item in got:
                if isinstance(item, BaseException):
                    raise item
        else:
            got = [(i, *count(task, *args)) for i, task in enumerate(tasks)]
    finally:
        _FORKED = ()
    by_task = {i: (found, error) for i, found, error in got}
    return [by_task[i] for i in range(len(tasks))]
