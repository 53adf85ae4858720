"""Per group of spaces and over all: each ``+early`` hedge strategy's, ``bo``'s and TPE's
geometric-mean time to 95 % in oracle measurements, against TPE, and median runs to
95 %, from ``benchmarks/strategy_study.py --csv`` files named ``...study-GROUP-...csv``
(``user`` and ``heldout`` together are the 12 older spaces); ``--per-space``: the
oracle measurements of each space too.  The pre-registered comparison of
``structure-ranking.md`` section 38.  Run: ``python benchmarks/study_groups.py
[--per-space] STUDY.csv [STUDY.csv ...]``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    import numpy as np
    import pandas as pd

    from workbench.tuning.metrics import geometric_mean
    from workbench.tuning.study import base_strategy

    args = sys.argv[1:]
    per_space = "--per-space" in args
    paths = [a for a in args if a != "--per-space"]
    if not paths or {"-h", "--help"} & set(paths):
        raise SystemExit(__doc__.strip().splitlines()[-1])
    frames = []
    for path in paths:
        group = re.search(r"study-([a-z0-9]+)-", Path(path).name)
        table = pd.read_csv(path)
        table["group"] = {"user": "older", "heldout": "older"}.get(
            group[1], group[1]) if group else "?"
        frames.append(table)
    table = pd.concat(frames, ignore_index=True)
    table["strategy"] = table["strategy"].map(base_strategy)
    kept = [s for s in table["strategy"].unique() if s in ("tpe", "bo") or
            ("hedge" in s and s.endswith("+early"))]
    table = table[table["strategy"].isin(kept)]
    rows = []
    for key, part in [*table.groupby(["group", "strategy"]),
                      *((("all", s), p) for s, p in table.groupby("strategy"))]:
        rows.append({"group": key[0], "strategy": key[1], "spaces": len(part),
                     "oracle_x_95": geometric_mean(part["oracle_x_95"]),
                     "vs_tpe": geometric_mean(part["speedup_vs_tpe_95"]),
                     "median_runs_to_95": float(np.nanmedian(part["runs_to_95"]))})
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if per_space:
        print(table.pivot_table(index=["group", "space"], columns="strategy",
                                values="oracle_x_95").to_string(
                                    float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
