"""Every strategy on one measured space, side by side: the tuning report's data.

For an exhaustively measured space this replays (:mod:`workbench.tuning.replay`):

* ``exhaustive``: the space's order, and the cost of measuring everything;
* ``random``: the exact expectation over all orderings (:mod:`.metrics`);
* ``model:<label>``: each given fitted model's ranking, measured in predicted order
  (the ranking runs here, its cost measured on this machine);
* any other strategy given by name and factory (``knn``, ``xgb``: rankings learnt
  from other programs), replayed the same way, its choosing cost counted;
* every replay stops once it has found the space's best: the curves end there.
* ``tpe``: optuna's TPE, over several seeds (mean runs and seconds; a seed that never
  reaches a target counts as the whole space).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.tuning.metrics import (
    TARGETS,
    Curve,
    curve,
    exhaustive_cost,
    optimum,
    random_curve,
    random_reach,
)
from workbench.tuning.replay import ReplayEvaluator, replay
from workbench.tuning.space import TuningSpace
from workbench.tuning.strategies import Exhaustive, ModelGuided, OptunaTPE, Strategy


@dataclass
class SpaceComparison:
    """Rows (one per strategy) and curves of one space."""

    space: str
    points: int
    best_s: float
    best_point: str
    exhaustive_s: float
    rows: list[dict] = field(default_factory=list)
    curves: list[Curve] = field(default_factory=list)
    random_curve: np.ndarray | None = None
    random_cost_per_run: float = 0.0

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)


def _row(space: str, strategy: str, reach: Mapping[float, tuple[float, float] | None],
         choosing_s: float, **extra) -> dict:
    row = {"space": space, "strategy": strategy, "choosing_s": choosing_s}
    for t in TARGETS:
        r = reach.get(t)
        key = f"{round(t * 100)}"
        row[f"runs_to_{key}"] = math.nan if r is None else r[0]
        row[f"seconds_to_{key}"] = math.nan if r is None else r[1]
    row.update(extra)
    return row


def compare_strategies(space: TuningSpace, evaluator: ReplayEvaluator,
                       models: Mapping[str, object] = (), *, tpe_seeds: int = 10,
                       strategies: Mapping[str, Callable[[], Strategy]] = ()
                       ) -> SpaceComparison:
    measured = evaluator.measured
    best = optimum(measured)
    best_point = min((e for e in measured if e.ok), key=lambda e: e.time_s).point.label
    comparison = SpaceComparison(space.name, len(measured), best, best_point,
                                 exhaustive_cost(measured))
    ex = curve(replay(space, evaluator, Exhaustive(), until=1.0), best)
    comparison.curves.append(ex)
    comparison.rows.append(_row(space.name, "exhaustive", {t: ex.reach(t) for t in TARGETS},
                                0.0, seconds_all=comparison.exhaustive_s))
    comparison.rows.append(_row(space.name, "random (expected)",
                                {t: random_reach(measured, t) for t in TARGETS}, 0.0))
    comparison.random_curve = random_curve(measured, len(measured))
    comparison.random_cost_per_run = comparison.exhaustive_s / len(measured)
    for label, model in dict(models).items():
        result = replay(space, evaluator, ModelGuided(model, label), until=1.0)
        c = curve(result, best)
        comparison.curves.append(c)
        comparison.rows.append(_row(space.name, f"model:{label}",
                                    {t: c.reach(t) for t in TARGETS}, c.choosing_s,
                                    ms_per_variant=1e3 * c.choosing_s / len(measured)))
    for label, make in dict(strategies).items():
        c = curve(replay(space, evaluator, make(), until=1.0), best)
        comparison.curves.append(Curve(label, c.fraction, c.cost_s, c.choosing_s))
        comparison.rows.append(_row(space.name, label, {t: c.reach(t) for t in TARGETS},
                                    c.choosing_s,
                                    ms_per_variant=1e3 * c.choosing_s / len(measured)))
    if tpe_seeds:
        reaches: dict[float, list[tuple[float, float]]] = {t: [] for t in TARGETS}
        for seed in range(tpe_seeds):
            c = curve(replay(space, evaluator, OptunaTPE(seed=seed), seed=seed, until=1.0),
                      best)
            if seed == 0:
                comparison.curves.append(Curve("tpe", c.fraction, c.cost_s, 0.0))
            for t in TARGETS:
                reaches[t].append(c.reach(t) or (len(measured), float(c.cost_s[-1])))
        comparison.rows.append(_row(
            space.name, f"tpe (mean of {tpe_seeds} seeds)",
            {t: (float(np.mean([r[0] for r in v])), float(np.mean([r[1] for r in v])))
             for t, v in reaches.items()}, 0.0))
    return comparison


def strategy_means(table: pd.DataFrame) -> pd.DataFrame:
    """Per strategy (model labels kept, TPE's seed count dropped), the geometric mean
    across spaces of its time to 95 % against random search and against exhaustive
    measurement: the figures of the tuning goal."""
    from workbench.tuning.metrics import geometric_mean

    rows = []
    for strategy, part in table.groupby("strategy", sort=False):
        rows.append({"strategy": strategy, "spaces": len(part),
                     "speedup_vs_random_95": geometric_mean(part["speedup_vs_random_95"]),
                     "speedup_vs_exhaustive_95": geometric_mean(
                         part["speedup_vs_exhaustive_95"])})
    return pd.DataFrame(rows)


def summary(comparisons: Sequence[SpaceComparison]) -> pd.DataFrame:
    """All spaces' rows, with each strategy's time to 95 % against random and
    exhaustive measurement of the same space."""
    frames = []
    for c in comparisons:
        f = c.frame()
        rnd = f.loc[f["strategy"] == "random (expected)", "seconds_to_95"].iloc[0]
        f["speedup_vs_random_95"] = rnd / f["seconds_to_95"]
        f["speedup_vs_exhaustive_95"] = c.exhaustive_s / f["seconds_to_95"]
        f.insert(1, "points", c.points)
        frames.append(f)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
