"""What choosing costs, measured where it happens: elapsed and processor seconds.

A model's ranking may count a space in several processes (``--jobs``); its
processor seconds are then those of this process plus those of the child processes
it has waited for (``RUSAGE_CHILDREN``: a pool's workers count once the pool is shut
down, which a ranking does before it returns).  Elapsed over processor seconds says
how many cores the ranking kept busy, which is what a replay on another machine
needs to know to charge it fairly.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from workbench.errors import TuningError
from workbench.measure.store import MeasurementStore, RankingCost

T = TypeVar("T")


def cpu_seconds() -> float:
    """Processor seconds of this process and of the children it has waited for."""
    try:
        import resource
    except ImportError:          # not on Unix: this process only
        return time.process_time()
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@dataclass(frozen=True)
class Spent:
    """Elapsed and processor seconds of one piece of work."""

    wall_s: float
    cpu_s: float


def timed(work: Callable[[], T]) -> tuple[T, Spent]:
    """``work()`` and what it cost in elapsed and processor seconds."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    out = work()
    return out, Spent(time.perf_counter() - wall, max(0.0, cpu_seconds() - cpu))


def ranking_cost(strategy, points: int, spent: Spent) -> RankingCost:
    """The record of a strategy's choosing (its ``start``) on this host; ``jobs``: the
    processes it may use, its own ``jobs`` where it has one, else the ranking
    processes of this host (``WORKBENCH_RANK_JOBS`` or every core,
    :func:`~workbench.models.candidate_features.rank_jobs`)."""
    from workbench.models.candidate_features import rank_jobs

    jobs = getattr(strategy, "jobs", None)
    return RankingCost(strategy=strategy.name, points=points, wall_s=spent.wall_s,
                       cpu_s=spent.cpu_s,
                       jobs=int(jobs) if isinstance(jobs, int) and jobs > 0 else rank_jobs(),
                       cpu_count=os.cpu_count() or 1)


class RankingCharge(enum.Enum):
    """What a replay charges a strategy's choosing: its ranking run and timed here,
    now (``measured-now``), or the cost a live exploration of the same space
    recorded where it ran, on the GPU host (``recorded``)."""

    MEASURED_NOW = "measured-now"
    RECORDED = "recorded"

    @classmethod
    def parse(cls, value: str | RankingCharge) -> RankingCharge:
        try:
            return value if isinstance(value, cls) else cls(value)
        except ValueError:
            raise TuningError(f"--ranking-cost is one of "
                              f"{', '.join(c.value for c in cls)}, not {value!r}") from None


def recorded_ranking_costs(stores: Sequence[str | Path], space
                           ) -> dict[str, RankingCost]:
    """The ranking costs live explorations of ``space`` (same name and problem size)
    recorded in ``stores``, by strategy name; of several, the latest."""
    out: dict[str, RankingCost] = {}
    for path in stores:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            for campaign, cost in store.ranking_costs().items():
                settings = campaign.settings
                if settings.get("space") == space.name and \
                        dict(settings.get("problem", {})) == dict(space.problem):
                    out[cost.strategy] = cost
    return out


def describe(cost: RankingCost) -> str:
    """One line of where and how a ranking cost was paid."""
    return (f"{cost.wall_s:.3g} s on {cost.host} ({cost.cpu_s:.3g} CPU s, "
            f"{cost.cores_used:.1f} cores busy, {cost.jobs} of {cost.cpu_count} allowed, "
            f"{cost.timestamp[:10]})")


def charge(recorded: Mapping[str, RankingCost] | None, names: Sequence[str],
           points: int, measured_s: float) -> tuple[float, str]:
    """The choosing seconds to charge a replayed strategy known by ``names`` (its row
    name first) on a space of ``points``, and how they were found.  ``recorded``
    None: the seconds ``measured_s`` measured now; else the first name's recorded
    cost (scaled to ``points`` if it ranked another number), falling back to
    ``measured_s`` when nothing was recorded."""
    here = f"measured now on {_host()}"
    if recorded is None:
        return measured_s, here
    for name in names:
        cost = recorded.get(name)
        if cost is None:
            continue
        seconds = cost.wall_s
        note = f"recorded: {describe(cost)}"
        if cost.points and cost.points != points:
            seconds *= points / cost.points
            note += f", scaled from {cost.points} to {points} points"
        return seconds, note
    return measured_s, f"{here} (no recorded cost)"


def _host() -> str:
    from workbench.measure.provenance import host_name
    return host_name()


__all__ = ["RankingCharge", "Spent", "charge", "describe", "ranking_cost",
           "recorded_ranking_costs", "timed"]
