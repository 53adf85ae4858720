"""Benchmark: where each structure's base point lands on a space (issue #33, the
reason for ``model-hedge-base``, ``structure-ranking.md`` section 24).

On the H100's exhaustive measurements of each space (no GPU, no model), prints per
space: its points, the share of them within 95 % of the best (what a random draw's
chance is), and for the first structure's base point (what ``model-hedge-base`` and
``model-ei``'s early start measure first; :func:`workbench.tuning.early.structure_probes`)
and the best of all structures' base points: the measured efficiency (best time / its
time) and whether it is within 95 %.

Run: ``python benchmarks/base_points.py --store S.sqlite --spaces a.py:space,...``
(the store decompressed first).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def base_point_rows(ref: str, store: str) -> dict:
    from workbench.tuning import load_space_evaluations, resolve_space
    from workbench.tuning.early import structure_probes

    space = resolve_space(ref)
    measured = load_space_evaluations(store, space)
    times = {label: e.time_s for label, e in measured.items() if e.ok}
    best = min(times.values())
    bases = [probes[0] for probes in structure_probes(space, space.points())]
    eff = [best / times[p.label] if p.label in times else 0.0 for p in bases]
    return {"space": space.name, "points": len(measured), "structures": len(bases),
            "share_within_95": sum(best / t >= 0.95 for t in times.values()) / len(measured),
            "first_base_efficiency": eff[0], "first_base_within_95": eff[0] >= 0.95,
            "best_base_efficiency": max(eff)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--spaces", required=True)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import pandas as pd

    table = pd.DataFrame([base_point_rows(ref, args.store) for ref in args.spaces.split(",")])
    print("command: python " + " ".join(sys.argv))
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
