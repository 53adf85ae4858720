"""The tuning panel's logic without widgets: replay parts and their merging, and the
evaluator wrappers of its live runs (:mod:`workbench.ui.tuning_panel`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from workbench.errors import TuningError, WorkbenchError
from workbench.measure.samples import sample_data_root
from workbench.measure.store import resolve_store_path
from workbench.tuning.catalog import LIFT_SPACES, TIMETILED_SPACES
from workbench.tuning.replay import ReplayEvaluator
from workbench.ui.session import DATA_LOCK

SOURCE = "tuning"
REPLAY, LIVE = "replay", "live"
#: The strategy checkboxes besides one per model (``model:<label>``).
EXHAUSTIVE, RANDOM, TPE = "exhaustive", "random", "tpe"
#: Rankers learnt from other programs' spaces (Lift's kNN, a boosted-trees ranker).
LEARNED = ("knn", "xgb")
TUNING_STORE = Path("h100") / "tuning.sqlite"
#: The Lift benchmarks' spaces, replayed from their own store.
LIFT_STORE = Path("h100") / "lift.sqlite"
#: The time-tiled stencils' spaces (``tt_*``), replayed from their own store.
TIMETILING_STORE = Path("h100") / "timetiling.sqlite"
SHIPPED_MODELS = {"linear": Path("h100") / "weights-linear.json",
                  "overlap": Path("h100") / "weights-overlap.json"}
#: Models checked at first: the overlap model ranks a space in seconds, not a fraction
DEFAULT_MODELS = ("linear",)
BASE = "base"      # the replay part every view needs: exhaustive order and random search

class Cancelled(WorkbenchError):
    """The user cancelled a replay (raised inside it, caught by the panel)."""


def strategy_key(label: str) -> str:
    """The checkbox of a report row or curve label: ``random (expected)`` ->
    ``random``, ``tpe (mean of 3 seeds)`` -> ``tpe``, ``model:linear`` as is."""
    for key in (RANDOM, TPE):
        if label == key or label.startswith(key + " "):
            return key
    return label


def merge_comparisons(base, parts: Sequence):
    """``base`` (a :class:`~workbench.tuning.study.SpaceComparison`) with the rows and
    curves of ``parts`` (comparisons of the same space) that it lacks, in order: what
    one :func:`compare_strategies` call with every part's models and seeds gives."""
    rows, curves = list(base.rows), list(base.curves)
    known_rows = {r["strategy"] for r in rows}
    known_curves = {c.label for c in curves}
    for part in parts:
        rows += [r for r in part.rows if r["strategy"] not in known_rows]
        curves += [c for c in part.curves if c.label not in known_curves]
        known_rows |= {r["strategy"] for r in part.rows}
        known_curves |= {c.label for c in part.curves}
    return replace(base, rows=rows, curves=curves)


def select_strategies(comparison, keys: Sequence[str]):
    """The comparison restricted to the strategies of ``keys`` (see
    :func:`strategy_key`); random search's curve only with ``random``."""
    keys = set(keys)
    return replace(comparison,
                   rows=[r for r in comparison.rows if strategy_key(r["strategy"]) in keys],
                   curves=[c for c in comparison.curves if strategy_key(c.label) in keys],
                   random_curve=comparison.random_curve if RANDOM in keys else None)


class StoppableReplay(ReplayEvaluator):
    """A replay evaluator that raises :class:`Cancelled` once ``should_stop()``."""

    def __init__(self, space, evaluations, should_stop: Callable[[], bool]):
        super().__init__(space, evaluations)
        self.should_stop = should_stop

    def evaluate(self, point):
        if self.should_stop():
            raise Cancelled("cancelled")
        return super().evaluate(point)


class ReusingEvaluator:
    """Evaluates each point once per live run; later strategies get the same record."""

    def __init__(self, evaluator):
        self.evaluator = evaluator
        self.known: dict[str, object] = {}

    def evaluate(self, point):
        if point.label not in self.known:
            self.known[point.label] = self.evaluator.evaluate(point)
        return self.known[point.label]


class LockedStart:
    """A strategy whose ``start`` (a model's ranking: loopy counts) holds the data lock,
    as the session's loads do."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.name = strategy.name

    def start(self, space, points) -> float:
        with DATA_LOCK:
            return self.strategy.start(space, points)

    def ask(self):
        return self.strategy.ask()

    def tell(self, evaluation) -> None:
        self.strategy.tell(evaluation)


@dataclass
class ReplaySpace:
    space: object
    evaluator: StoppableReplay
    device: str


def shipped_path(relative: Path) -> Path | None:
    root = sample_data_root()
    path = root / relative if root is not None else None
    return path if path is not None and resolve_store_path(path) is not None else None


def replay_stores(name: str, replay_store: Path | None) -> list[Path]:
    """The stores a space's replay reads: the tuning store, with Lift's for its
    spaces; for a time-tiled space its own shipped store (and the tuning store when
    it is not the shipped one: a user's own).  None: a TuningError saying so."""
    if name not in TIMETILED_SPACES:
        if replay_store is None:
            raise TuningError(f"no shipped tuning measurements (sample_data/{TUNING_STORE}):"
                              " explore live instead")
        lift = shipped_path(LIFT_STORE) if name in LIFT_SPACES else None
        return [replay_store] + ([lift] if lift is not None else [])
    stores = [p for p in (shipped_path(TIMETILING_STORE),) if p is not None]
    if replay_store is not None and replay_store != shipped_path(TUNING_STORE):
        stores.append(replay_store)
    if not stores:
        raise TuningError(f"no shipped measurements of {name} here "
                          f"(sample_data/{TIMETILING_STORE}): explore it live instead")
    return stores
