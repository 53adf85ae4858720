"""Benchmark: ranking the first structure alone, and where the model's pick in it lands
(issue #33, ``structure-ranking.md`` section 28: "rank a sample first").

Per space, in this process with caches empty (one process for all the spaces; they share
no kernel): the wall time to rank only the first structure's points (``R0``, in
measurements of the best point), the measured efficiency (best / its time) of the
model's best-predicted point in that structure and of its second, and of the first
structure's base point (what ``model-hedge-base`` measures at once), and the share of the
first structure's points within 95 %.  Run: ``python benchmarks/first_structure_picks.py
STORE=a.py:space,... [STORE=...]`` (stores decompressed first).
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> None:
    warnings.filterwarnings("ignore")
    import numpy as np

    from strategy_study import _model, warm_up
    from workbench.models.structure_counts import structural_knobs, structure_key
    from workbench.tuning import load_space_evaluations, resolve_space
    from workbench.tuning.early import structure_probes
    from workbench.tuning.ranking import rank_space

    model = _model("linear-nn-residency")
    warm_up({"model": model})
    print(f"command: python {' '.join(sys.argv)}\nload " +
          ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    for arg in sys.argv[1:]:
        store, refs = arg.split("=", 1)
        for ref in refs.split(","):
            os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="first-structure-")
            space = resolve_space(ref)
            points = space.points()
            measured = load_space_evaluations(store, space)
            times = {label: e.time_s for label, e in measured.items() if e.ok}
            best = min(times.values())
            oracle = min((e for e in measured.values() if e.ok), key=lambda e: e.time_s).cost_s

            def eff(p):
                return best / times[p.label] if p.label in times else 0.0

            knobs = structural_knobs(space)
            groups: dict = {}
            for p in points:
                groups.setdefault(structure_key(p, knobs), []).append(p)
            first = next(iter(groups.values()))
            began = time.perf_counter()
            ranking = rank_space(model, space, first)
            r0 = time.perf_counter() - began
            predicted = {c.point.label: t for c, t in zip(ranking.candidates,
                                                          ranking.predicted_s)}
            order = sorted(first, key=lambda p: predicted[p.label]
                           if np.isfinite(predicted[p.label]) else math.inf)
            base = structure_probes(space, points)[0][0]
            second = eff(order[1]) if len(order) > 1 else 0.0
            print(f"{space.name:24s} structures {len(groups):2d} first {len(first):3d} points, "
                  f"R0 {r0:5.2f} s = {r0 / oracle:5.2f} oracle; pick {eff(order[0]):.2f}, "
                  f"second {second:.2f}, base {eff(base):.2f}; first structure's share "
                  f"within 95 % {np.mean([eff(p) >= 0.95 for p in first]):.2f}", flush=True)


if __name__ == "__main__":
    main()
