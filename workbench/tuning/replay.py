"""Replaying strategies on an exhaustively measured space, without a device.

As Kernel Tuner's simulation mode does: every point of the space was measured once
(``workbench tune SPACE --strategy exhaustive``), with its costs; a replayed
exploration asks the strategy for points and answers from those records, costs
included, so that every strategy's curve comes from the same measurements.  A
model-guided strategy's ranking runs for real here; its cost is measured on this
machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from workbench.errors import TuningError
from workbench.measure.store import MeasurementStore
from workbench.tuning.evaluation import Evaluation, evaluations_by_label, space_kernel_name
from workbench.tuning.runner import Budget, ExplorationResult, Explorer, StopReason
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import Strategy


class ReplayEvaluator:
    """Answers every point of a space from its recorded evaluation."""

    def __init__(self, space: TuningSpace, evaluations: Mapping[str, Evaluation]):
        self.space = space
        self.evaluations = dict(evaluations)
        missing = [p.label for p in space.points() if p.label not in self.evaluations]
        if missing:
            raise TuningError(
                f"space {space.name!r} is not measured exhaustively: {len(missing)} of "
                f"{len(space.points())} points have no record (e.g. {missing[0]}); "
                "replay needs them all")

    def evaluate(self, point: Point) -> Evaluation:
        return self.evaluations[point.label]

    @property
    def measured(self) -> list[Evaluation]:
        return [self.evaluations[p.label] for p in self.space.points()]


def load_space_evaluations(paths: Sequence[str | Path] | str | Path, space: TuningSpace,
                           device: str | None = None) -> dict[str, Evaluation]:
    """The latest record of every point of ``space`` in the stores (one device)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: dict[str, Evaluation] = {}
    devices = set()
    for path in paths:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            rows = [m for m in store.measurements(kernel=space_kernel_name(space),
                                                  status=None)
                    # the same space measured at another size, or on another device
                    if m.key.params_dict == dict(space.problem)
                    and (not device or device.lower() in m.device.device.lower())]
            devices.update(m.device.device for m in rows)
            out.update(evaluations_by_label(space, rows))
    if len(devices) > 1:
        raise TuningError(f"the stores hold space {space.name!r} for several devices "
                          f"({', '.join(sorted(devices))}); name one")
    if not out:
        raise TuningError(f"no measurement of space {space.name!r} at "
                          f"{dict(space.problem)} in {', '.join(map(str, paths))}")
    return out


def replay(space: TuningSpace, evaluator: ReplayEvaluator, strategy: Strategy, *,
           seed: int = 0, budget: Budget = Budget(), until: float | None = None
           ) -> ExplorationResult:
    """One replayed exploration (nothing is written).

    ``until``: stop once the best found reaches this fraction of the space's best
    (1.0: the best itself), which replay knows; the curve beyond it says nothing
    more about runs or time to a target, and a sampler such as TPE slows down as
    its history grows.
    """
    explorer = Explorer(space, strategy, evaluator, budget=budget, seed=seed)
    if until is None:
        return explorer.run()
    best = min(e.time_s for e in evaluator.measured if e.ok)
    found = [float("inf")]

    def track(progress) -> None:
        if progress.best_s is not None:
            found[0] = progress.best_s

    result = explorer.run(track, should_stop=lambda: best / found[0] >= until - 1e-12)
    if result.stopped_by is StopReason.STOPPED:
        result.stopped_by = StopReason.REACHED
    return result
