"""Does a tuned variant carry over from one GPU to another?

Given one tuning space measured exhaustively on two devices (``workbench tune SPACE
--strategy exhaustive --store ...`` on each), this answers:

* how far the source device's best point is from the target's best, on the target
  (its target time over the target's best time: 1 means the best carried over);
* how many target runs a tuner seeded with the source's results needs to reach a
  given fraction (95%) of the target's best performance, when it measures the points
  in the source's order (fastest on the source first); beside it, what blind random
  search needs on average (an exact expectation, not a simulation);
* how well the two devices' times rank the points alike (Spearman's rho over the
  points both measured).

Everything is read from the stores: the space itself is not rebuilt.  Performance is
1 / time, so "95% of the best" is a time at most the best time / 0.95.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import ParameterError
from workbench.measure import MeasurementStore
from workbench.measure.store import Status

#: A space's measurements are stored under ``tune.<space>`` (see tuning.evaluation).
KERNEL_PREFIX = "tune."


@dataclass(frozen=True)
class SpaceTimes:
    """One device's exhaustive measurement of a space: label -> time (None: failed)."""

    space: str
    problem: tuple[tuple[str, int], ...]
    device: str
    times: Mapping[str, float | None]


def tuned_spaces(store_path: str | Path) -> list[str]:
    """The spaces (``tune.<space>`` kernels) a store holds."""
    with MeasurementStore.open(store_path, create=False, readonly=True) as store:
        kernels = {m.key.kernel for m in store.measurements(status=None)}
    return sorted(k[len(KERNEL_PREFIX):] for k in kernels if k.startswith(KERNEL_PREFIX))


def space_times(store_path: str | Path, space: str) -> SpaceTimes:
    """Every point of ``space`` in the store, its latest record; one device and one
    problem size only (else the question is ill-posed: name a store that has one)."""
    with MeasurementStore.open(store_path, create=False, readonly=True) as store:
        rows = store.measurements(kernel=KERNEL_PREFIX + space, status=None)
    if not rows:
        raise ParameterError(f"{store_path} holds no measurement of space {space!r}")
    devices = {m.device.device for m in rows}
    problems = {tuple(sorted(m.key.params_dict.items())) for m in rows}
    if len(devices) > 1 or len(problems) > 1:
        raise ParameterError(f"{store_path} holds space {space!r} for several devices or "
                             "problem sizes; one of each, please")
    times: dict[str, float | None] = {}
    for m in sorted(rows, key=lambda m: m.timestamp):
        times[m.key.variant] = m.time_s if m.status is Status.OK else None
    return SpaceTimes(space, problems.pop(), devices.pop(), times)


@dataclass(frozen=True)
class CarryOver:
    space: str
    source_device: str
    target_device: str
    points: int                     # measured (ok) on the target
    common: int                     # ok on both devices
    source_best: str
    target_best: str
    target_best_s: float
    source_best_on_target_s: float  # inf where the source's best fails on the target
    fraction: float
    seeded_runs: int                # target runs, in source order, to reach the fraction
    seeded_runs_to_best: int
    random_runs_expected: float     # blind random search, expected runs to the fraction
    qualifying: int                 # points within the fraction of the target's best
    spearman: float

    @property
    def slowdown(self) -> float:
        """The source's best on the target, over the target's best (>= 1)."""
        return self.source_best_on_target_s / self.target_best_s

    def row(self) -> dict:
        return {"space": self.space, "source": self.source_device,
                "target": self.target_device, "points": self.points,
                "common": self.common, "source best": self.source_best,
                "target best": self.target_best,
                "target best (ms)": self.target_best_s * 1e3,
                "source best on target (ms)": self.source_best_on_target_s * 1e3,
                "slowdown": self.slowdown,
                f"seeded runs to {self.fraction:.0%}": self.seeded_runs,
                "seeded runs to best": self.seeded_runs_to_best,
                f"random runs to {self.fraction:.0%} (expected)": self.random_runs_expected,
                f"points within {self.fraction:.0%}": self.qualifying,
                "spearman": self.spearman}


def source_order(source: Mapping[str, float | None], target_labels: Sequence[str]
                 ) -> list[str]:
    """The target's points in the order a seeded tuner measures them: fastest on the
    source first, then those the source could not run or lacks (in label order)."""
    def key(label: str):
        t = source.get(label)
        return (0, t, label) if t is not None else (1, 0.0, label)
    return sorted(target_labels, key=key)


def runs_to_reach(order: Sequence[str], target: Mapping[str, float | None],
                  threshold_s: float) -> int:
    """How many points of ``order`` are measured until one runs within ``threshold_s``
    (a failed point costs a run too)."""
    for i, label in enumerate(order, start=1):
        t = target.get(label)
        if t is not None and t <= threshold_s:
            return i
    raise ParameterError("no point reaches the threshold")   # the best always does


def expected_random_runs(total: int, qualifying: int) -> float:
    """Expected draws without replacement until the first of ``qualifying`` marked
    items among ``total``: (total + 1) / (qualifying + 1)."""
    return (total + 1) / (qualifying + 1)


def carry_over(source: SpaceTimes, target: SpaceTimes, fraction: float = 0.95
               ) -> CarryOver:
    if source.space != target.space or source.problem != target.problem:
        raise ParameterError(f"{source.space} {dict(source.problem)} and {target.space} "
                             f"{dict(target.problem)} are not the same space and size")
    if not 0 < fraction <= 1:
        raise ParameterError("the fraction of the best performance is in (0, 1]")
    ok_source = {k: v for k, v in source.times.items() if v is not None}
    ok_target = {k: v for k, v in target.times.items() if v is not None}
    if not ok_source or not ok_target:
        raise ParameterError(f"space {source.space}: no successful point on one device")
    source_best = min(ok_source, key=ok_source.get)
    target_best = min(ok_target, key=ok_target.get)
    best_s = ok_target[target_best]
    threshold = best_s / fraction
    order = source_order(source.times, list(target.times))
    common = sorted(set(ok_source) & set(ok_target))
    rho = float(pd.Series([ok_source[k] for k in common]).rank().corr(
        pd.Series([ok_target[k] for k in common]).rank())) if len(common) > 2 else np.nan
    qualifying = sum(1 for t in ok_target.values() if t <= threshold)
    return CarryOver(
        space=source.space, source_device=source.device, target_device=target.device,
        points=len(ok_target), common=len(common), source_best=source_best,
        target_best=target_best, target_best_s=best_s,
        source_best_on_target_s=ok_target.get(source_best, float("inf")),
        fraction=fraction, seeded_runs=runs_to_reach(order, target.times, threshold),
        seeded_runs_to_best=runs_to_reach(order, target.times, best_s),
        random_runs_expected=expected_random_runs(len(target.times), qualifying),
        qualifying=qualifying, spearman=rho)


def carry_over_table(source_store: str | Path, target_store: str | Path,
                     spaces: Sequence[str] = (), fraction: float = 0.95) -> pd.DataFrame:
    """One row per space both stores hold (or per space named)."""
    names = list(spaces) or sorted(set(tuned_spaces(source_store))
                                   & set(tuned_spaces(target_store)))
    if not names:
        raise ParameterError(f"{source_store} and {target_store} share no tuned space")
    return pd.DataFrame([carry_over(space_times(source_store, s),
                                    space_times(target_store, s), fraction).row()
                         for s in names])
