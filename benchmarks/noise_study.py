"""Benchmark: run-to-run noise of the user-written spaces (issue #23).

The eight spaces of ``examples/spaces/`` were measured exhaustively twice on the
H100 (``sample_data/h100/user-spaces.sqlite`` and ``user-spaces-run2.sqlite``, one
device call, 2026-11-25).  For each space this prints, as a markdown table: whether
the best point is the same in both runs, how much the best time moved, what fraction
of the other run's best each run's best point reaches there, and how many points lie
within 5 % of the best in each run and in both: how much "95 % of the best" depends on
which run is believed.

Run: ``.venv/bin/python benchmarks/noise_study.py [--run1 STORE] [--run2 STORE]``
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))   # this checkout's package, whatever is installed

SPACES = ("matmul_tiled", "stencil2d_5pt", "transpose", "rowsum", "triad",
          "stencil3d_7pt", "heldout_conv1d", "heldout_batched_gemm")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run1", default=str(ROOT / "sample_data/h100/user-spaces.sqlite"))
    parser.add_argument("--run2",
                        default=str(ROOT / "sample_data/h100/user-spaces-run2.sqlite"))
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import numpy as np

    from workbench.tuning import load_space_evaluations, resolve_space
    from workbench.tuning.noise import compare_runs

    print(f"<!-- {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, host "
          f"{platform.node()}: python {' '.join(sys.argv)} -->\n")
    print("| space | points | best, run 1 | best, run 2 | same best | best time moved | "
          "run 1's best in run 2 | run 2's best in run 1 | within 5 %: run 1 / run 2 / "
          "both | median change of a point |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for name in SPACES:
        space = resolve_space(f"{ROOT}/examples/spaces/{name}.py:space")
        r = compare_runs(space.name, load_space_evaluations(args.run1, space),
                         load_space_evaluations(args.run2, space))
        rows.append(r)
        print(f"| {space.name}{' (held out)' if 'heldout' in name else ''} | {r.points} | "
              f"{r.best_1} ({r.best_1_s * 1e3:.4g} ms) | {r.best_2} "
              f"({r.best_2_s * 1e3:.4g} ms) | {'yes' if r.same_best else 'no'} | "
              f"{100 * r.best_change:+.1f} % | {100 * r.best_1_in_run_2:.1f} % | "
              f"{100 * r.best_2_in_run_1:.1f} % | {r.within_95_1} / {r.within_95_2} / "
              f"{r.within_95_both} | {100 * r.median_change:.1f} % |")
    changed = sum(not r.same_best for r in rows)
    print(f"\nThe best point changes in {changed} of {len(rows)} spaces; the best time moves "
          f"by {100 * min(abs(r.best_change) for r in rows):.1f} to "
          f"{100 * max(abs(r.best_change) for r in rows):.1f} % (median "
          f"{100 * float(np.median([abs(r.best_change) for r in rows])):.1f} %). Run 1's "
          f"best point reaches {100 * min(r.best_1_in_run_2 for r in rows):.1f} to "
          f"{100 * max(r.best_1_in_run_2 for r in rows):.1f} % of run 2's best in run 2; "
          f"it is within 5 % of it in "
          f"{sum(r.best_1_in_run_2 >= 0.95 for r in rows)} of {len(rows)} spaces.")


if __name__ == "__main__":
    main()
