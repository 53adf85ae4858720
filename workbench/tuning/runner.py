"""The exploration runner: a strategy, an evaluator, a budget, and the store.

:class:`Explorer` asks the strategy for points, evaluates them (live on a device, or
replayed from a measured space) and tells the strategy each result, until the
strategy is done or the budget (evaluations, or seconds of tuning cost) is spent.

With a store, every evaluation is committed on its own as it happens (see
:mod:`workbench.tuning.evaluation` for the row), inside a campaign named after the
space, strategy and seed.  A killed exploration resumes like a calibration campaign:
the same call finds the unfinished campaign, replays the strategy, and takes the
points already stored from the store instead of measuring them again.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from workbench.errors import TuningError
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store import RankingCost
from workbench.tuning.costs import Spent, cpu_seconds, ranking_cost, timed
from workbench.tuning.evaluation import (
    Evaluation,
    evaluations_by_label,
    space_kernel_name,
    to_measurement,
)
from workbench.tuning.ranking import CountSources
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import Strategy, upcoming_points


#: how a ranking that ran beside the first evaluations is charged
CHARGINGS = ("overlap", "serial")


@dataclass(frozen=True)
class Budget:
    """When to stop: after ``evaluations`` points, or once the tuning cost (choosing
    plus every point's counted costs) reaches ``seconds``; None: no limit."""

    evaluations: int | None = None
    seconds: float | None = None

    def __post_init__(self):
        if self.evaluations is not None and self.evaluations < 1:
            raise TuningError("an evaluation budget must be at least 1")
        if self.seconds is not None and self.seconds <= 0:
            raise TuningError("a time budget must be positive")


class StopReason(enum.Enum):
    """Why an exploration ended.  The value is what JSON output carries."""

    EXHAUSTED = "exhausted"       # the strategy had no point left to offer
    EVALUATIONS = "evaluations"   # the evaluation budget was spent
    SECONDS = "seconds"           # the tuning-cost budget was spent
    STOPPED = "stopped"           # ``should_stop`` said so (an interrupt, a UI stop)
    REACHED = "reached"           # replay: the target share of the space's best found

    @property
    def finished(self) -> bool:
        """Whether nothing is left to do, so a stored campaign is closed; any other
        reason leaves it resumable."""
        return self is StopReason.EXHAUSTED


@dataclass(frozen=True)
class ExplorationProgress:
    done: int
    total: int                # points in the space
    evaluation: Evaluation
    best_s: float | None
    cost_s: float             # tuning cost so far
    resumed: bool


@dataclass
class ExplorationResult:
    space: str
    strategy: str
    seed: int
    choosing_s: float                     # up-front cost (a model's ranking)
    evaluations: list[Evaluation] = field(default_factory=list)
    overhead_s: list[float] = field(default_factory=list)   # strategy time per point
    stopped_by: StopReason = StopReason.EXHAUSTED
    #: what choosing cost where it ran (elapsed and processor seconds, cores, host):
    #: recorded in the store by a live exploration, read back on a resume
    ranking_cost: RankingCost | None = None
    #: the first evaluations, measured while the ranking ran (:mod:`.early`)
    overlapped: int = 0
    #: where a model's ranking of a ``kernel(point)`` space found its counts (the disk
    #: cache, or counted now); None for a strategy that does not rank, or a templated
    #: space
    counts: CountSources | None = None

    def step_costs(self) -> list[float]:
        return [e.cost_s + o for e, o in zip(self.evaluations, self.overhead_s)]

    def cumulative_cost_s(self, charging: str = "overlap") -> list[float]:
        """The tuning cost after each evaluation.  ``overlap``: the ranking ran beside
        the first :attr:`overlapped` evaluations, so the next one starts once both are
        done; ``serial``: the ranking before every evaluation (the same as ``overlap``
        when nothing overlapped)."""
        if charging not in CHARGINGS:
            raise TuningError(f"charging must be one of {', '.join(CHARGINGS)}")
        out, spent = [], 0.0
        k = self.overlapped if charging == "overlap" else 0
        for i, step in enumerate(self.step_costs()):
            if i == k:
                spent = max(spent, self.choosing_s) if k else spent + self.choosing_s
            spent += step
            out.append(spent)
        return out

    @property
    def cost_s(self) -> float:
        steps = self.cumulative_cost_s()
        if len(self.evaluations) <= self.overlapped:
            return max(steps[-1] if steps else 0.0, self.choosing_s)
        return steps[-1]

    @property
    def serial_cost_s(self) -> float:
        """The cost with the ranking charged before every evaluation."""
        return self.choosing_s + sum(self.step_costs())

    @property
    def best(self) -> Evaluation | None:
        ok = [e for e in self.evaluations if e.ok]
        return min(ok, key=lambda e: e.time_s) if ok else None


def exploration_name(space: TuningSpace, strategy: Strategy, seed: int) -> str:
    return f"tune/{space.name}/{strategy.name}/seed{seed}"


class Explorer:
    #: how often, while the inputs are made, the strategy is asked for its next points
    INPUT_POLL_S = 0.02

    def __init__(self, space: TuningSpace, strategy: Strategy, evaluator, *,
                 budget: Budget = Budget(), seed: int = 0, store=None,
                 device: DeviceIdentity | None = None, name: str | None = None,
                 discard_first: int = 1):
        if store is not None and device is None:
            raise TuningError("recording an exploration needs the device it runs on")
        self.space = space
        self.strategy = strategy
        self.evaluator = evaluator
        self.budget = budget
        self.seed = seed
        self.store = store
        self.device = device
        self.name = name or exploration_name(space, strategy, seed)
        self.discard_first = discard_first

    def _stored(self, campaign: int) -> dict[str, Evaluation]:
        rows = self.store.measurements(campaign=campaign, status=None,
                                       kernel=space_kernel_name(self.space))
        return evaluations_by_label(self.space, rows)

    def run(self, on_progress: Callable[[ExplorationProgress], None] | None = None, *,
            should_stop: Callable[[], bool] | None = None) -> ExplorationResult:
        points = self.space.points()
        campaign, stored = None, {}
        if self.store is not None:
            # the budget is how long to go on, not what is measured: a resumed
            # exploration may be given more
            settings = {"space": self.space.name, "problem": dict(self.space.problem),
                        "strategy": self.strategy.name, "seed": self.seed}
            campaign = self.store.start_campaign(self.name, self.device, settings)
            stored = self._stored(campaign)
        run_began, cpu_began = time.perf_counter(), cpu_seconds()
        # a strategy that ranks while the device measures (:mod:`.early`): its ranking
        # cost is known, and recorded, once the ranking is done
        overlapping = hasattr(type(self.strategy), "overlapped")
        ranking_recorded = False
        choosing, spent = timed(lambda: self.strategy.start(self.space, points))
        cost = ranking_cost(self.strategy, len(points), spent)
        if stored:   # the ranking cost is the one paid when the exploration began
            first = min(stored.values(), key=lambda e: e.extra.get("sequence", 0))
            choosing = float(first.extra.get("choosing_s", choosing))
        if self.store is not None:
            recorded = {c.id: r for c, r in self.store.ranking_costs().items()}
            if campaign not in recorded and not stored and not overlapping:
                self.store.record_ranking_cost(campaign, cost)   # a resume keeps the first
            ranking_recorded = campaign in recorded
            cost = recorded.get(campaign, cost)
        result = ExplorationResult(self.space.name, self.strategy.name, self.seed, choosing,
                                   ranking_cost=cost)
        inputs_s = self._prepare_inputs(set(stored))
        while True:
            if should_stop is not None and should_stop():
                result.stopped_by = StopReason.STOPPED
                result.counts = CountSources.of(getattr(self.strategy, "ranking", None))
                return result
            if self.budget.evaluations is not None and \
                    len(result.evaluations) >= self.budget.evaluations:
                result.stopped_by = StopReason.EVALUATIONS
                break
            if self.budget.seconds is not None and result.cost_s >= self.budget.seconds:
                result.stopped_by = StopReason.SECONDS
                break
            began = time.perf_counter()
            point = self.strategy.ask()
            overhead = time.perf_counter() - began
            early = bool(getattr(self.strategy, "asked_early", False))
            self._overlap(result)
            if point is None:
                break
            resumed = point.label in stored
            self._anticipate(point)
            if resumed:
                evaluation = stored[point.label]
                overhead = float(evaluation.extra.get("strategy_s", overhead))
            else:
                evaluation = self.evaluator.evaluate(point)
                if self.store is not None:
                    extra = {"strategy": self.strategy.name, "strategy_s": overhead,
                             "wall_s": time.perf_counter() - run_began}
                    if early:
                        extra["before_ranking"] = True
                    if not result.evaluations:
                        extra["choosing_s"] = choosing
                        if inputs_s is not None:
                            # the wall the inputs took before any point: every strategy
                            # pays it, and a ranking beside it is hidden by it
                            extra["inputs_s"] = inputs_s
                    if overlapping and not early and not ranking_recorded:
                        # the first point after the ranking: what it cost, and how many
                        # points were measured beside it; its processor seconds include
                        # the host's share of those points
                        extra["ranking_s"] = result.choosing_s
                        extra["measured_before_ranking"] = result.overlapped
                        result.ranking_cost = ranking_cost(
                            self.strategy, len(points),
                            Spent(result.choosing_s, max(0.0, cpu_seconds() - cpu_began)))
                        self.store.record_ranking_cost(campaign, result.ranking_cost)
                        ranking_recorded = True
                    self.store.record(to_measurement(
                        self.space, evaluation, self.device, campaign=campaign,
                        discard_first=self.discard_first,
                        sequence=len(result.evaluations), extra=extra))
            began = time.perf_counter()
            self.strategy.tell(evaluation)
            overhead += time.perf_counter() - began
            result.evaluations.append(evaluation)
            self._overlap(result)
            result.overhead_s.append(overhead)
            if on_progress is not None:
                best = result.best
                on_progress(ExplorationProgress(
                    len(result.evaluations), len(points), evaluation,
                    best.time_s if best else None, result.cost_s, resumed))
        if self.store is not None and result.stopped_by.finished:
            self.store.finish_campaign(campaign)
        # read at the end: a strategy that ranks beside the device has its ranking late
        result.counts = CountSources.of(getattr(self.strategy, "ranking", None))
        return result

    def _prepare_inputs(self, stored: set[str] = frozenset()) -> float | None:
        """A live evaluator makes the space's inputs before the first point is chosen:
        every strategy's first point needs them, and a ranking running beside
        (:mod:`.early`) goes on meanwhile, so its first pick, not an early draw, is
        often what the device measures first.  While another thread makes them, a
        pool that builds ahead is told the strategy's next points, and this thread
        prepares and builds its first point as soon as the strategy knows it from its
        own order (an order's first point; a model's first pick once its ranking is
        done: ``prepare_ahead``), unless a resumed exploration has it ``stored``.
        Returns the seconds the inputs themselves took (None without a live
        evaluator), which the first stored evaluation records."""
        prepare = getattr(self.evaluator, "prepare_inputs", None)
        if prepare is None:
            return None
        took: list[float] = []
        failed: list[BaseException] = []

        def make() -> None:
            began = time.perf_counter()
            try:
                prepare()
            except TuningError:   # (no make_inputs) said where the first point needs them
                pass
            except BaseException as err:  # noqa: BLE001 - raised again in this thread
                failed.append(err)
            took.append(time.perf_counter() - began)

        ahead = getattr(self.evaluator, "anticipate", None)
        first = getattr(self.evaluator, "prepare_ahead", None)
        if ahead is None and first is None:
            make()
        else:
            maker = threading.Thread(target=make, name="workbench-inputs", daemon=True)
            maker.start()
            depth, told, built = int(getattr(self.evaluator, "depth", 1)), None, None
            while maker.is_alive():
                known = [] if first is None or built is not None else \
                    upcoming_points(self.strategy, 1, settled=True)
                if known:
                    built = known[0].label
                # the pool first, so that its workers start on the points after it
                # while this thread builds it
                guess = [] if ahead is None else \
                    [p for p in upcoming_points(self.strategy, depth + 1)
                     if p.label != built][:depth]
                if guess and [p.label for p in guess] != told:
                    ahead(guess)
                    told = [p.label for p in guess]
                if known and built not in stored:
                    try:
                        first(known[0])
                    except Exception:  # noqa: BLE001 - a head start only: evaluate() builds it again and says what fails
                        pass
                    continue
                maker.join(self.INPUT_POLL_S)
            maker.join()
        if failed:
            raise failed[0]
        return took[0] if took else None

    def _anticipate(self, asked: Point) -> None:
        """An evaluator that builds ahead (:class:`~workbench.tuning.parallel.PrebuildPool`)
        hears the points the strategy expects to ask for after ``asked``."""
        ahead = getattr(self.evaluator, "anticipate", None)
        if ahead is None:
            return
        depth = int(getattr(self.evaluator, "depth", 1))
        ahead([p for p in upcoming_points(self.strategy, depth + 1)
               if p.label != asked.label][:depth])

    def _overlap(self, result: ExplorationResult) -> None:
        """A strategy that measures while it ranks (:mod:`.early`): the ranking's cost
        once known, and how many evaluations ran beside it."""
        if hasattr(type(self.strategy), "overlapped"):
            result.overlapped = self.strategy.overlapped
            if self.strategy.choosing_s is not None:
                result.choosing_s = self.strategy.choosing_s
