"""Benchmark report: a live campaign's first evaluations, model runs against TPE's.

For a folder of live-run stores (``SPACE-STRATEGY-SEED.sqlite``, as
``scripts/h100_structure_tuning.sh`` writes them), per space and strategy (the mean over
its seeds): how many runs' first point was built beside the inputs
(``built_beside_inputs``), the seconds the inputs took before any point (``inputs_s``),
the wall at which the first evaluation ended (``wall_s``), and that evaluation's
``verify`` and ``codegen`` costs; then the model's first-evaluation wall less TPE's, per
space and on average.  A strategy's name is taken as TPE when it is ``tpe``, else as the
model.

Run: ``python benchmarks/first_evaluations.py RUNS_FOLDER``.
"""

from __future__ import annotations

import glob
import json
import os
import sqlite3
import statistics
import sys


def first_rows(folder: str) -> dict[tuple[str, str], list[dict]]:
    """(space, 'model' or 'tpe') -> the first stored evaluation's extra of each run."""
    out: dict[tuple[str, str], list[dict]] = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.sqlite"))):
        stem = os.path.basename(path)[: -len(".sqlite")]
        space, strategy, _seed = stem.rsplit("-", 2) if "-tpe-" in stem else \
            (stem.split("-", 1)[0], "model", stem.rsplit("-", 1)[1])
        with sqlite3.connect(path) as db:
            rows = [json.loads(e) for (e,) in db.execute("SELECT extra FROM measurements")]
        first = min(rows, key=lambda e: e["sequence"])
        out.setdefault((space, "tpe" if strategy == "tpe" else "model"), []).append(first)
    return out


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    rows = first_rows(sys.argv[1])

    def mean(values):
        values = [v for v in values if v is not None]
        return statistics.mean(values) if values else float("nan")

    print(f"# python benchmarks/first_evaluations.py {sys.argv[1]}")
    print(f"{'space':28s} {'arm':5s} {'runs':>4s} {'beside':>6s} {'inputs s':>8s} "
          f"{'first wall s':>12s} {'verify s':>8s} {'codegen s':>9s}")
    gaps = []
    for space in sorted({s for s, _ in rows}):
        walls = {}
        for arm in ("model", "tpe"):
            got = rows.get((space, arm), [])
            if not got:
                continue
            walls[arm] = mean(e.get("wall_s") for e in got)
            print(f"{space:28s} {arm:5s} {len(got):4d} "
                  f"{sum(bool(e.get('built_beside_inputs')) for e in got):6d} "
                  f"{mean(e.get('inputs_s') for e in got):8.2f} {walls[arm]:12.2f} "
                  f"{mean(e.get('costs_s', {}).get('verify') for e in got):8.3f} "
                  f"{mean(e.get('costs_s', {}).get('codegen') for e in got):9.3f}")
        if len(walls) == 2:
            gaps.append(walls["model"] - walls["tpe"])
            print(f"{'':28s} model's first evaluation ended {gaps[-1]:+.2f} s after TPE's")
    if gaps:
        print(f"on average {statistics.mean(gaps):+.2f} s over {len(gaps)} spaces "
              f"(from {min(gaps):+.2f} to {max(gaps):+.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
