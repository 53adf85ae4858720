"""The tuning panel's logic without widgets: replay parts and their merging, and the
evaluator wrappers of its live runs (:mod:`workbench.ui.tuning_panel`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from workbench.errors import TuningError, WorkbenchError
from workbench.kernels.base import parse_parameters
from workbench.measure.samples import sample_data_root
from workbench.measure.store import resolve_store_path
from workbench.tuning.catalog import (
    LIFT_SPACES,
    TIMETILED_SPACES,
    format_problem,
    get_space,
    resolve_space,
    space_at_size,
)
from workbench.tuning.replay import ReplayEvaluator
from workbench.ui.session import DATA_LOCK

SOURCE = "tuning"
#: what a run's background thread raised: kept apart from SOURCE, whose messages the
#: run button's own success clears (a thread that failed first lost its message)
RUN_SOURCE = "tuning run"
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


@dataclass(frozen=True)
class SpaceChoice:
    """What the panel tunes: a catalog space by name, or the user's own
    (``FILE.py:VARIABLE``, as ``workbench tune`` takes it) at ``problem`` sizes (none:
    the file's own)."""

    ref: str
    own: bool = False
    problem: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, catalog: str, own: str = "", sizes: str = "") -> SpaceChoice:
        """The choice of the panel's fields: ``own`` (a file's space) before the
        catalog's ``catalog``; ``sizes`` (``m=4096,n=4096``) for ``own`` only."""
        own = own.strip()
        if not own:
            return cls(catalog)
        problem = parse_parameters(sizes) if sizes.strip() else {}
        return cls(own, True, tuple(problem.items()))

    @property
    def key(self) -> tuple:
        """What the panel's kept replays and live views are filed under."""
        return (self.ref, self.own, self.problem)

    @property
    def label(self) -> str:
        """The space in a progress line: a file's by its name, not its whole path (a
        path from a notebook's folder cut the line at a laptop's width)."""
        if not self.own:
            return self.ref
        return Path(self.ref).name + (f" at {format_problem(dict(self.problem))}"
                                      if self.problem else "")

    def space(self, live_size: int | None = None):
        """The space, made as ``workbench tune`` makes it
        (:func:`~workbench.tuning.catalog.resolve_space`); a catalog space at
        ``live_size`` for a live run (:func:`space_at_size`).  A wrong path or name
        raises the command's own error, said from where a relative path is read."""
        if not self.own:
            return get_space(self.ref) if live_size is None else \
                space_at_size(self.ref, live_size)
        try:
            return resolve_space(self.ref, **dict(self.problem))
        except WorkbenchError as err:
            if str(err).startswith("no such file") and not Path(self.ref).is_absolute():
                raise WorkbenchError(f"{err} (a relative path is read from {Path.cwd()}, "
                                     "the working folder: in Jupyter, the notebook's)"
                                     ) from None
            raise


def _checkout_relative(paths: Sequence[Path]) -> list[str]:
    """``paths`` as a user types them here: relative to the working folder (a
    notebook's) where that is shorter."""
    out = []
    for path in paths:
        try:
            relative = os.path.relpath(path)
        except ValueError:     # another drive
            relative = str(path)
        out.append(relative if len(relative) < len(str(path)) else str(path))
    return out


def example_spaces() -> list[str]:
    """The checkout's example spaces of a user (``examples/spaces/*.py:space``, and
    ``examples/kernels/my_space.py:space``), as the own-space field takes them."""
    root = sample_data_root()
    if root is None:
        return []
    examples = root.parent / "examples"
    files = sorted((examples / "spaces").glob("*.py"))
    files += [f for f in (examples / "kernels" / "my_space.py",) if f.is_file()]
    return [f"{path}:space" for path in _checkout_relative(files)]


def space_stores() -> list[str]:
    """The shipped stores of the example spaces' exhaustive measurements
    (``sample_data/*/*-spaces*.sqlite``), for the replay of a space of one's own."""
    root = sample_data_root()
    if root is None:
        return []
    found = sorted(root.glob("*/*-spaces*.sqlite*"))
    return _checkout_relative([p for p in found if resolve_store_path(p) is not None])


def own_replay_stores(store: str, choice: SpaceChoice) -> list[Path]:
    """The store a space of one's own is replayed from (``workbench tune FILE.py:VAR
    --replay STORE``); none given: a TuningError saying how to get one."""
    if not store.strip():
        raise TuningError(
            f"give the store that holds the measurements of {choice.ref} (workbench "
            f"tune {choice.ref} --strategy exhaustive --store STORE measures every "
            "point), or explore it live")
    return [Path(store.strip())]

