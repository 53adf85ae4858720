"""Benchmark: what one step of a learning search costs on this machine (its own time,
which a replay charges to it besides the points it measures).

Replays ``model-bo`` (scikit-learn's Gaussian process, its hyperparameters optimised
by L-BFGS at every refit), ``model-ei`` (:mod:`workbench.tuning.gp`, a grid of
hyperparameters) and ``bo`` on the six design spaces of ``examples/spaces/`` for
``--steps`` measurements each, and prints each strategy's mean and largest time per
step (``ask`` and ``tell``, as the runner times them) with the machine's load.  The
model is a stand-in (the number of work items per group), so that no ranking runs:
what is timed is the search's own arithmetic (scikit-learn and scipy are imported
first: a process pays their import once).

Run: ``.venv/bin/python benchmarks/guided_step_cost.py [--steps 20]``
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))   # this checkout's package, whatever is installed

DESIGN = ("matmul_tiled", "stencil2d_5pt", "transpose", "rowsum", "triad", "stencil3d_7pt")


class GroupSizeModel:
    """A stand-in model: fewer work items per group, slower."""

    family = "group-size"

    def predict_candidates(self, candidates, **context):
        from workbench.models.prediction import make_predictions

        return make_predictions(candidates, [1.0 / math.prod(c.group_size)
                                             for c in candidates])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from workbench.tuning import ReplayEvaluator, load_space_evaluations, resolve_space
    from workbench.tuning.guided import ModelBO, ModelEI, PlainBO
    from workbench.tuning.replay import replay
    from workbench.tuning.runner import Budget

    print(f"# guided step cost: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, host "
          f"{platform.node()}, {os.cpu_count()} cores, load average at the start "
          + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    print("command: python " + " ".join(sys.argv))
    import scipy.stats  # noqa: F401  - imported before timing: a process pays them once
    import sklearn.gaussian_process  # noqa: F401

    model = GroupSizeModel()
    makers = {"model-bo": lambda: ModelBO(model, "g"), "model-ei": lambda: ModelEI(model, "g"),
              "bo": lambda: PlainBO(seed=0)}
    steps: dict[str, list[float]] = {name: [] for name in makers}
    for name in DESIGN:
        space = resolve_space(f"{ROOT}/examples/spaces/{name}.py:space")
        evaluator = ReplayEvaluator(space, load_space_evaluations(
            ROOT / "sample_data/h100/user-spaces.sqlite", space))
        for label, make in makers.items():
            result = replay(space, evaluator, make(), budget=Budget(evaluations=args.steps))
            steps[label] += result.overhead_s
    print(f"{'strategy':<10} {'steps':>5} {'mean ms':>8} {'max ms':>8}")
    for label, values in steps.items():
        print(f"{label:<10} {len(values):>5} {1e3 * np.mean(values):>8.2f} "
              f"{1e3 * np.max(values):>8.2f}")
    print("load average at the end: " + " ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
