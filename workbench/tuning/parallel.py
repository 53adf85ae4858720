"""Preparing points in parallel: code generation and OpenCL builds on every core.

Of the half second a point costs on a GPU, almost all is CPU work (loopy's code
generation, the driver's compiler) and one point after another leaves a many-core
host idle.  :class:`PrebuildPool` runs ``transform``, ``codegen`` and ``build`` of
upcoming points in worker processes, each with its own OpenCL context on the same
device; the main process then only launches and verifies.  The scheduled kernels,
invokers and binaries reach it through loopy's and pyopencl's disk caches, which the
workers fill (so those caches must be on: no ``LOOPY_NO_CACHE``/``PYOPENCL_NO_CACHE``).

Which points are upcoming: an order given up front (exhaustive, random, a time-tiled
campaign), or what the strategy says it will ask for next, told before each point is
measured (:meth:`PrebuildPool.anticipate`, from ``upcoming``: a model-guided search's
next picks).  A guess that turns out wrong costs only a worker's time; a guess no
longer made is cancelled if it has not started.

A point is built once, by whoever claims it first: the main process, when it asks for
a point (or prepares a first pick beside the inputs) that no worker has begun, builds
it in place rather than wait, and the worker that later takes the job skips it.
``concurrent.futures`` cannot say this: a process pool marks a job running as soon as
it is queued for a worker, and at the start of a run the workers are still importing
and opening their contexts (on the H200, in live runs 34 and 35, a model's first
evaluation came 1.4-2.3 s after its inputs, waiting for a first pick no worker had begun).

Each point's costs are still measured one point at a time, inside its worker, so the
recorded costs are those of a sequential tuner (with the caveat that concurrent
builds share the host's caches and memory bandwidth); only the campaign's wall time
shrinks.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Sequence

from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.live import LiveEvaluator, compile_code, prepare_point
from workbench.tuning.space import Point

_WORKER: dict = {}


def _init_worker(space_ref: str, problem: dict, device_index: int,
                 build_options: tuple[str, ...]) -> None:
    from workbench.measure.devices import list_devices, open_device
    from workbench.tuning.catalog import resolve_space

    _WORKER["space"] = resolve_space(space_ref, **problem)
    _WORKER["context"], _ = open_device(list_devices()[device_index])
    _WORKER["options"] = build_options


def _prebuild(label: str) -> tuple[dict[str, float], str]:
    """Prepare and build one point: its costs and build log (the results themselves
    stay in the disk caches)."""
    space = _WORKER["space"]
    prepared = prepare_point(space, space.point(label), _WORKER["context"])
    costs = {k.value: v for k, v in prepared.costs.items()}
    build_log = ""
    if prepared.failure is None:
        seconds, _, build_log, _ = compile_code(_WORKER["context"], prepared.code,
                                                _WORKER["options"])
        costs[Cost.BUILD.value] = seconds
    return costs, build_log


def _claim(claims: str, label: str) -> bool:
    """Whether this process is the first to claim ``label``'s build: the file made
    here exists once, whichever process makes it."""
    name = os.path.join(claims, hashlib.sha1(label.encode()).hexdigest())
    try:
        os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def _build_claimed(claims: str, label: str) -> tuple[dict[str, float], str] | None:
    """A worker's job: :func:`_prebuild`, unless the main process claimed the point
    first and built it in place (None)."""
    if not _claim(claims, label):
        return None
    return _prebuild(label)


def _ready() -> None:
    """Nothing: submitted once per worker, so that every worker starts (imports,
    opens its context) now rather than when the first guess is made."""


class PrebuildPool:
    """Evaluates points whose preparation and build ran ahead in worker processes.

    ``order`` is the order in which points will be asked for, when known up front;
    :meth:`anticipate` adds guesses as the search goes.  A point asked for that no
    worker has begun is prepared in place (module docstring: claims).
    """

    def __init__(self, evaluator: LiveEvaluator, space_ref: str, order: Sequence[Point],
                 device_index: int, workers: int):
        self.evaluator = evaluator
        #: how many guesses :meth:`anticipate` keeps in flight
        self.depth = workers
        space = evaluator.space
        ctx = multiprocessing.get_context("spawn")   # OpenCL contexts do not survive fork
        self.pool = cf.ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_init_worker,
            initargs=(space_ref, dict(space.problem), device_index,
                      evaluator.build_options))
        self._claims = tempfile.mkdtemp(prefix="workbench-prebuild-claims-")
        if not order:
            for _ in range(workers):
                self.pool.submit(_ready)
        self.futures = {p.label: self._submit(p.label) for p in order}
        self._guessed: set[str] = set()     # labels submitted by anticipate
        self._evaluated: set[str] = set()
        self._in_place: set[str] = set()    # labels prepare_ahead built here

    def prepare_inputs(self) -> None:
        self.evaluator.prepare_inputs()

    def _submit(self, label: str) -> cf.Future:
        return self.pool.submit(_build_claimed, self._claims, label)

    def _take_back(self, label: str, future: cf.Future) -> bool:
        """Whether ``label``'s job is this process's now: cancelled, or claimed before
        any worker began it (its worker will skip it)."""
        return future.cancel() or _claim(self._claims, label)

    def prepare_ahead(self, point: Point) -> None:
        """Prepare ``point`` in this process now (:meth:`LiveEvaluator.prepare_ahead`),
        beside the inputs, unless a worker has begun it (a guess made while the
        ranking ran): that build is left to finish, as building it twice would cost
        the host twice and record the second build's cache hits as its costs.  A guess
        no worker has begun is taken back, and :meth:`anticipate` leaves the point out
        from now on."""
        future = self.futures.get(point.label)
        if future is not None:
            if not self._take_back(point.label, future):
                return
            del self.futures[point.label]
            self._guessed.discard(point.label)
        self._in_place.add(point.label)
        self.evaluator.prepare_ahead(point)

    def anticipate(self, points: Sequence[Point]) -> None:
        """The points the search expects to ask for next, likeliest first: each one
        not built yet is submitted; earlier guesses left out are cancelled if no
        worker has started them."""
        wanted = [p for p in points if p.label not in self._evaluated
                  and p.label not in self._in_place][: self.depth]
        keep = {p.label for p in wanted}
        for label in list(self._guessed - keep):
            if self.futures[label].cancel():
                del self.futures[label]
                self._guessed.discard(label)
        for p in wanted:
            if p.label not in self.futures:
                self.futures[p.label] = self._submit(p.label)
                self._guessed.add(p.label)

    def evaluate(self, point: Point) -> Evaluation:
        self._evaluated.add(point.label)
        self._guessed.discard(point.label)
        future = self.futures.pop(point.label, None)
        if point.label in self._in_place or future is None or \
                self._take_back(point.label, future):
            # built here beside the inputs, or no worker began it: no faster to wait
            return self.evaluator.evaluate(point)
        built = future.result()
        if built is None:     # a second job of a label claimed first (never expected)
            return self.evaluator.evaluate(point)
        costs, build_log = built
        evaluation = self.evaluator.evaluate(
            point, {Cost(k): v for k, v in costs.items()}, build_log)
        # the store says which points a worker built: their costs are the worker's,
        # and the run's wall clock paid only what was left of them
        return dataclasses.replace(evaluation, extra={**evaluation.extra,
                                                      "built_ahead": True})

    def close(self) -> None:
        for f in self.futures.values():
            f.cancel()
        self.pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(self._claims, ignore_errors=True)

    def __enter__(self) -> PrebuildPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def counting_pool_ahead(space):
    """The counting processes of a model's ranking of a ``kernel(point)`` space, forked
    and warmed up now, while the device is opened and before any thread runs (a fork
    beside a thread that holds a lock inherits it held); None for other spaces (and
    with one counting process).  ``workbench tune`` and the dashboard's Tuning tab
    call it before a model strategy ranks a space of the user's own; close it after."""
    if getattr(space, "template", None) is not None or \
            getattr(space, "sequence", None) is not None:
        return None
    from workbench.models.candidate_features import warm_up
    from workbench.models.counting_pool import fork_counting_pool

    return fork_counting_pool([space], warm=warm_up)
