"""The Lift paper's headline figures (NVIDIA Titan Black) beside ours on the H100, row
by row: the paper's number, ours on the paper-sized spaces (``lift_*``), ours on the
rewrite spaces (``lift_rewrites_*``), the difference and why.

    python benchmarks/lift_side_by_side.py [--out sample_data/h100/lift-side-by-side.csv]

Reads what ``benchmarks/lift_exploration.py`` wrote for each space set
(``sample_data/h100/lift-*.csv`` and ``lift-rewrites-*.csv``); no model is fitted here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"
HARD = 30      # the goal counts inputs where random search needs this many runs


def _mean_runs(table: pd.DataFrame, strategy: str) -> float:
    runs = table.loc[table.strategy == strategy, "runs_to_90"]
    return float(runs.mean()) if len(runs) else np.nan


def _figures(prefix: str) -> dict[str, float]:
    lobo = pd.read_csv(H100 / f"{prefix}-lobo.csv")
    explored = pd.read_csv(H100 / f"{prefix}-exploration.csv")
    nmi = pd.read_csv(H100 / f"{prefix}-nmi.csv", index_col="feature")
    knn = lobo[lobo.model == "knn (paper)"]
    rnd = explored[explored.strategy == "random (expected)"].set_index(["space", "input"])
    ex = explored[explored.strategy == "knn"].set_index(["space", "input"])
    hard = rnd.index[rnd.runs_to_90 >= HARD]
    ratio = rnd.seconds_to_90 / ex.seconds_to_90
    ranked = nmi["mean"].sort_values(ascending=False).index
    roofline = H100 / f"{prefix}-exploration-roofline.csv"
    roof = pd.read_csv(roofline) if roofline.is_file() else explored.iloc[:0]
    return {
        "overlap_runs_90": _mean_runs(explored, "model:overlap"),
        "roofline_runs_90": _mean_runs(roof, "model:roofline"),
        "points": float(knn.points.mean()),
        "inputs": float(len(knn)),
        "random_runs_90": float(knn.random_runs_to_90.mean()),
        "knn_runs_90": float(knn.runs_to_90.mean()),
        "knn_runs_90_one": float((knn.runs_to_90 <= 1).mean()),
        "hard_inputs": float(len(hard)),
        "knn_runs_90_hard": float(ex.loc[hard, "runs_to_90"].mean()) if len(hard) else np.nan,
        "runs_saving": float(knn.random_runs_to_90.mean() / knn.runs_to_90.mean()),
        "time_saving": float(np.exp(np.log(ratio).mean())),
        "ranking_s": float(ex.choosing_s.mean()),
        "correlation_lo": float(knn.correlation.min()),
        "correlation_hi": float(knn.correlation.max()),
        "correlation": float(knn.correlation.mean()),
        "top_feature": ranked[0], "second_feature": ranked[1],
        "cache_lines_rank": float(list(ranked).index("cache_lines_per_warp_access") + 1),
    }


ROWS = [
    # quantity, paper's text, paper's value, key, why
    ("design points per program and input", "about 10,000", 10000.0, "points",
     "the paper draws 1,000 rewrites x ~10 thread counts; ours are exhaustive loopy "
     "spaces (the rewrite spaces: a fixed one-in-six sample of 2,666-2,947 valid scalar "
     "points, and of the float2/float4 ones), so that every strategy replays on the same "
     "measurements within the device budget"),
    ("random search, runs to 90 % of the best (mean)", "97", 97.0, "random_runs_90",
     "the H100's 3 TB/s and 50 MB L2 let many shapes reach the bandwidth bound: at 8192^2, "
     "3 to 6 random runs suffice on most benchmarks; the Titan Black (336 GB/s, 1.5 MB L2) "
     "punishes more of its space"),
    ("kNN, runs to 90 % (mean)", "3", 3.0, "knn_runs_90",
     "the paper-sized spaces fail at 512^2 (4 us kernels, near the launch floor, a "
     "handful of near-best points); on the rewrite spaces the kNN needs 1 run at "
     "8192^2 and 1 to 4 at 2048^2, where its first picks are vector variants"),
    ("kNN, share of inputs reaching 90 % in one run", "majority", np.nan, "knn_runs_90_one",
     "at 8192^2 the kNN's first pick is within 10 % of the best on most benchmarks"),
    (f"inputs where random needs >= {HARD} runs", "most", np.nan, "hard_inputs",
     "the goal's condition: few of ours meet it (see the second row)"),
    (f"kNN, runs to 90 % on those inputs (goal <= 5)", "-", np.nan, "knn_runs_90_hard",
     "replayed order; 2, 3, 3 and 1 runs (stencil2d, srad1, jacobi5, gaussian at "
     "2048^2)"),
    ("runs saved against random (ratio of means)", "35x", 35.0, "runs_saving",
     "random needs 3 to 4x fewer runs here than in the paper (second row)"),
    ("time to 90 % against random (geometric mean, every cost counted)", "450x", 450.0,
     "time_saving",
     "a variant costs ~0.45 s to generate, build and run here against seconds for Lift's "
     "compiler there, while ranking a space (IR features of every structure, kNN) costs "
     "seconds: the ranking eats most of what the saved runs would save"),
    ("count-based overlap model (2019), runs to 90 % (mean)", "not in the paper", np.nan,
     "overlap_runs_90",
     "ranks by predicted seconds from op and access counts; worse than random here, and "
     "not replayed on the rewrite spaces"),
    ("roofline (Ernst et al.), runs to 90 % (mean; rewrite spaces at 2048^2 only)",
     "not in the paper", np.nan, "roofline_runs_90",
     "ranks by predicted seconds from data volumes; it ranks the vector variants, the "
     "fastest here, late (their halo lanes count as more data), and its ranking costs "
     "minutes a space on the 2-core machine"),
    ("kNN ranking cost per space [s]", "-", np.nan, "ranking_s",
     "symbolic IR features read once per template structure (10 per rewrite space), "
     "on the 2-core dev machine"),
    ("correlation predicted vs measured, lowest", "0.7", 0.7, "correlation_lo", ""),
    ("correlation predicted vs measured, highest", "0.9", 0.9, "correlation_hi",
     "the kNN orders the bulk of the space as well as the paper's"),
    ("most informative feature (Figure 4)", "cache lines per warp access", np.nan,
     "top_feature", "paper-sized spaces: the global sizes (parallel work, 1D or 2D "
     "launch); rewrite spaces: cache lines per warp access, as in the paper"),
    ("rank of cache lines per warp access (Figure 4)", "1", 1.0, "cache_lines_rank",
     "the paper-sized spaces keep every load coalesced (lanes contiguous), so the "
     "feature barely varies; the rewrite spaces' blocked assignment makes it vary"),
]


def side_by_side() -> pd.DataFrame:
    ours = {"paper-sized spaces": _figures("lift"), "rewrite spaces": _figures("lift-rewrites")}
    rows = []
    for quantity, paper_text, paper_value, key, why in ROWS:
        row = {"quantity": quantity, "paper (Titan Black)": paper_text,
               "paper_value": paper_value}
        for label, figures in ours.items():
            row[f"ours, {label}"] = figures[key]
        value = row["ours, rewrite spaces"]
        row["difference (rewrite spaces - paper)"] = (
            value - paper_value if isinstance(value, float) and np.isfinite(paper_value)
            else np.nan)
        row["why"] = why
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=H100 / "lift-side-by-side.csv")
    args = parser.parse_args()
    table = side_by_side()
    pd.set_option("display.width", 220)
    pd.set_option("display.max_colwidth", 60)
    print(table.drop(columns=["why", "paper_value"]).to_string(index=False,
          float_format=lambda v: f"{v:.3g}"))
    table.to_csv(args.out, index=False)
    print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
