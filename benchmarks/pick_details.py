"""Benchmark: the model's three spread first picks, the best point and the first
structure's base point of a space, each with its parameters, measured and predicted time
(issue #33, ``structure-ranking.md`` section 28 (b): why a first pick misses), with what
measuring it costs in measurements of the best point, and the
rank correlation of predicted and measured times over the space.

Run: ``python benchmarks/pick_details.py STORE=a.py:space [STORE=b.py:space ...]``
(stores decompressed first; model ``linear-nn-residency``).
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="pick-details-")
    warnings.filterwarnings("ignore")
    import numpy as np
    from scipy.stats import spearmanr

    from strategy_study import _model
    from workbench.tuning import load_space_evaluations, resolve_space
    from workbench.tuning.early import structure_probes
    from workbench.tuning.guided import ModelEI
    from workbench.tuning.ranking import rank_space

    model = _model("linear-nn-residency")
    print("command: python " + " ".join(sys.argv))
    for arg in sys.argv[1:]:
        store, ref = arg.split("=", 1)
        space = resolve_space(ref)
        points = space.points()
        measured = load_space_evaluations(store, space)
        times = {label: e.time_s for label, e in measured.items() if e.ok}
        best = min(times.values())
        oracle = min((e for e in measured.values() if e.ok), key=lambda e: e.time_s).cost_s
        ranking = rank_space(model, space, points)
        strategy = ModelEI(model, "m", ranking=ranking)
        strategy.start(space, points)
        predicted = {c.point.label: t for c, t in zip(ranking.candidates, ranking.predicted_s)}
        fastest = min((p for p in points if p.label in times), key=lambda p: times[p.label])
        rows = [(f"pick{k + 1}", points[int(i)]) for k, i in enumerate(strategy.order[:3])]
        rows += [("best", fastest), ("base", structure_probes(space, points)[0][0])]
        print(f"== {space.name}, knobs {', '.join(space.tune_params)}")
        for name, p in rows:
            t = times.get(p.label, math.inf)
            print(f"  {name:6s} efficiency {best / t:.2f}, measured {t * 1e3:.4f} ms, predicted "
                  f"{predicted[p.label] * 1e3:.4f} ms, its measurement "
                  f"{measured[p.label].cost_s / oracle:.2f} oracle: {p.as_dict()}")
        both = [p.label for p in points
                if p.label in times and np.isfinite(predicted[p.label])]
        rho = spearmanr([predicted[x] for x in both], [times[x] for x in both]).correlation
        print(f"  rank correlation of predicted and measured times: {rho:.2f}")


if __name__ == "__main__":
    main()
