"""Across several strategy studies' rows: each strategy's geometric-mean time to 95 %
in oracle measurements, against TPE, and its median runs to 95 %.

For the goal "replayed on at least 10 user-style spaces" when the spaces' exhaustive
measurements sit in several stores (one ``benchmarks/strategy_study.py --csv`` per
store).  Run: ``python benchmarks/study_means.py STUDY.csv [STUDY.csv ...]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    import pandas as pd

    from workbench.tuning.study import base_strategy, strategy_means

    paths = sys.argv[1:]
    if not paths or {"-h", "--help"} & set(paths):
        raise SystemExit(__doc__.strip().splitlines()[-1])
    table = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    table["strategy"] = table["strategy"].map(base_strategy)
    print(f"{table['space'].nunique()} spaces from {', '.join(paths)}; geometric means, "
          "median runs to 95 %")
    means = strategy_means(table)[["strategy", "spaces", "oracle_x_95",
                                   "speedup_vs_tpe_95", "median_runs_to_95"]]
    print(means.to_string(index=False, float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
