"""An exploration whose points are prepared and measured on a Dask cluster.

The exploration runner (:class:`~workbench.tuning.runner.Explorer`) is unchanged: it
asks the strategy, records each evaluation in the store as it gets it (the client is
the one writer), resumes a killed exploration and applies the budget.  What changes is
the evaluator, :class:`ClusterEvaluator`: each point is a task on a device worker,
preceded where there are CPU workers by a task that transforms it, generates its code
and builds it there.

A strategy whose order is fixed when it starts (exhaustive, random, model-guided,
kNN: it ignores what it is told) is wrapped in :class:`Lookahead`, which hands that
order to the evaluator, so that the points after the current one are already being
prepared and measured on every worker.  Results are still taken, and recorded, in the
strategy's order: the store holds the same rows, in the same sequence, as one device
would write (a result that arrives before those ahead of it waits for them, so a killed
client loses it and the resumed run measures it again: nothing is recorded twice).
An adaptive strategy (TPE) needs each result before choosing the next point, so its
points go to the cluster one at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from workbench.distributed import tasks
from workbench.distributed.cluster import DaskSession
from workbench.distributed.worker import CPU_RESOURCE, DEVICE_RESOURCE
from workbench.measure.store import MeasurementStore, Status
from workbench.tuning.evaluation import Evaluation, space_kernel_name
from workbench.tuning.runner import Budget, ExplorationResult, Explorer, exploration_name
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import Strategy


class ClusterEvaluator:
    """Evaluates points of one space on the cluster's device workers.

    ``schedule(order)`` announces the points to come; up to ``window`` of them are
    then in flight at once (enough to keep every worker busy, few enough that a
    budget that stops the exploration wastes little).  ``skip`` are points that
    will not be asked for (already stored by an earlier run).
    """

    def __init__(self, session: DaskSession, space_ref: str, space: TuningSpace, *,
                 verify: bool = True, build_options: tuple[str, ...] = (), seed: int = 0,
                 window: int | None = None):
        self.session = session
        self.space = space
        self._args = (session.binding, worker_space_ref(space_ref), dict(space.problem))
        self.verify = verify
        self.build_options = tuple(build_options)
        self.seed = seed
        workers = session.workers
        self.window = window or 2 * (len(workers.device_workers) + len(workers.cpu_workers))
        self._order: list[Point] = []
        self._next = 0
        self._futures: dict = {}

    def schedule(self, order: Sequence[Point], skip: set[str] = frozenset()) -> None:
        self._order = [p for p in order if p.label not in skip]
        self._next = 0
        self._top_up()

    def _top_up(self) -> None:
        while len(self._futures) < self.window and self._next < len(self._order):
            point = self._order[self._next]
            self._next += 1
            if point.label not in self._futures:
                # earlier points first: the recorder waits for them in this order
                self._futures[point.label] = self._submit(point, priority=-self._next)

    def _submit(self, point: Point, priority: int = 0):
        client = self.session.client
        binding, space_ref, problem = self._args
        prepared = None
        if self.session.workers.cpu_workers:
            prepared = client.submit(tasks.prepare_point, binding, space_ref, problem,
                                     point.label, self.build_options,
                                     resources={CPU_RESOURCE: 1}, pure=False,
                                     priority=priority)
        return client.submit(tasks.evaluate_point, binding, space_ref, problem,
                             point.label, self.verify, self.build_options, self.seed,
                             prepared, resources={DEVICE_RESOURCE: 1}, pure=False,
                             priority=priority)

    def evaluate(self, point: Point) -> Evaluation:
        from distributed import KilledWorker

        future = self._futures.pop(point.label, None)
        if future is None:
            future = self._submit(point)
        self._top_up()
        try:
            return future.result()
        except KilledWorker as err:
            return Evaluation(point, Status.LAUNCH_FAILED, None, {},
                              log=f"the point killed every worker that ran it ({err})")

    def close(self) -> None:
        for future in self._futures.values():
            future.cancel()
        self._futures.clear()

    def __enter__(self) -> ClusterEvaluator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def worker_space_ref(ref: str) -> str:
    """``FILE.py:VAR`` with FILE absolute: a worker resolves the space itself, from
    another working folder (and, on another host, from a shared file system)."""
    path, sep, var = ref.rpartition(":")
    if sep and path and Path(path).is_file():
        return f"{Path(path).resolve()}:{var}"
    return ref


class Lookahead:
    """A fixed-order strategy whose whole order goes to the evaluator at the start."""

    def __init__(self, strategy: Strategy, evaluator: ClusterEvaluator,
                 skip: Callable[[], set[str]]):
        self.inner = strategy
        self.name = strategy.name
        self.evaluator = evaluator
        self._skip = skip
        self._order: list[Point] = []

    def start(self, space: TuningSpace, points: Sequence[Point]) -> float:
        seconds = self.inner.start(space, points)
        # an ordered strategy's ask does not depend on tell: its order can be read out
        while (point := self.inner.ask()) is not None:
            self._order.append(point)
        self.evaluator.schedule(self._order, self._skip())
        self._order.reverse()
        return seconds

    def ask(self) -> Point | None:
        return self._order.pop() if self._order else None

    def tell(self, evaluation: Evaluation) -> None:
        self.inner.tell(evaluation)


def is_ordered(strategy: Strategy) -> bool:
    """Whether the strategy fixes its order up front (see the module docstring)."""
    return callable(getattr(strategy, "order", None))


def explore(session: DaskSession, space_ref: str, space: TuningSpace, strategy: Strategy,
            *, store: MeasurementStore, budget: Budget = Budget(), seed: int = 0,
            verify: bool = True, build_options: tuple[str, ...] = (),
            on_progress=None, window: int | None = None) -> ExplorationResult:
    """Explore ``space`` on the cluster, recording into ``store`` as
    :class:`Explorer` does on one device (same campaign, same rows, same resume)."""
    device = session.device.identity
    name = exploration_name(space, strategy, seed)

    def stored_labels() -> set[str]:
        # the points an earlier, killed run recorded: the runner takes them from the
        # store, so measuring them ahead would be wasted
        for c in store.campaigns(device.key):
            if c.name == name and c.finished is None:
                return {m.key.variant for m in store.measurements(
                    campaign=c.id, status=None, kernel=space_kernel_name(space))}
        return set()

    with ClusterEvaluator(session, space_ref, space, verify=verify,
                          build_options=build_options, seed=seed,
                          window=window) as evaluator:
        asked = Lookahead(strategy, evaluator, stored_labels) if is_ordered(strategy) \
            else strategy
        return Explorer(space, asked, evaluator, budget=budget, seed=seed, store=store,
                        device=device, name=name).run(on_progress)
