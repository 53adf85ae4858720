"""Run-to-run noise of an exhaustively measured space: the same space measured
twice, and how much "95 % of the best" depends on which run is believed.

For each space, :func:`compare_runs` reads both runs' evaluations and gives:
the best point of each run and whether it is the same point; how much the best
time moved; what fraction of run 2's best the point best in run 1 reaches in run 2
(and the other way); how many points lie within 5 % of the best in each run and how
many of them both runs agree on; and the median relative change of a point's time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from workbench.tuning.evaluation import Evaluation


@dataclass(frozen=True)
class RunComparison:
    space: str
    points: int                  # points measured successfully in both runs
    best_1: str
    best_2: str
    best_1_s: float
    best_2_s: float
    best_1_in_run_2: float       # run 2's best time / run 2's time of run 1's best
    best_2_in_run_1: float       # run 1's best time / run 1's time of run 2's best
    within_95_1: int             # points within 5 % of the best, run 1
    within_95_2: int
    within_95_both: int          # within 5 % in both runs
    median_change: float         # median |t2 / t1 - 1| over the points

    @property
    def same_best(self) -> bool:
        return self.best_1 == self.best_2

    @property
    def best_change(self) -> float:
        """Relative change of the best time, run 2 against run 1."""
        return self.best_2_s / self.best_1_s - 1.0

    def as_dict(self) -> dict:
        out = dict(self.__dict__)
        out.update(same_best=self.same_best, best_change=self.best_change)
        return out


def compare_runs(space: str, run_1: Mapping[str, Evaluation],
                 run_2: Mapping[str, Evaluation], target: float = 0.95) -> RunComparison:
    """Two runs' evaluations of one space, by point label (module docstring)."""
    labels = [k for k in run_1 if k in run_2 and run_1[k].ok and run_2[k].ok]
    if not labels:
        raise ValueError(f"{space}: no point measured successfully in both runs")
    t1 = np.array([run_1[k].time_s for k in labels])
    t2 = np.array([run_2[k].time_s for k in labels])
    i1, i2 = int(np.argmin(t1)), int(np.argmin(t2))
    near_1 = t1.min() / t1 >= target - 1e-12
    near_2 = t2.min() / t2 >= target - 1e-12
    return RunComparison(
        space, len(labels), labels[i1], labels[i2], float(t1[i1]), float(t2[i2]),
        float(t2.min() / t2[i1]), float(t1.min() / t1[i2]), int(near_1.sum()),
        int(near_2.sum()), int((near_1 & near_2).sum()),
        float(np.median(np.abs(t2 / t1 - 1.0))))
