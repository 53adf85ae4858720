"""Benchmark: does a tuned variant carry over from one GPU to another?

For every tuning space measured exhaustively in both stores (``workbench tune SPACE
--strategy exhaustive --store ...`` on each device), reports the target device's time
of the source device's best point against the target's own best, and how many target
runs a tuner seeded with the source's results (measuring in the source's order)
needs to reach 95% of the target's best performance, beside the expected runs of
blind random search (workbench/reports/carry_over.py).  Writes ``carry-over.csv``
and ``carry-over.md`` into ``--out``.

Run: ``.venv/bin/python benchmarks/carry_over.py --source sample_data/h100/tuning.sqlite
--target sample_data/h200/tuning-replay.sqlite --out sample_data/h200``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="store of the source device")
    parser.add_argument("--target", required=True, help="store of the target device")
    parser.add_argument("--spaces", default="", help="comma-separated (default: shared)")
    parser.add_argument("--fraction", type=float, default=0.95)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from workbench.reports import to_markdown
    from workbench.reports.carry_over import carry_over_table

    spaces = [s for s in args.spaces.split(",") if s]
    table = carry_over_table(args.source, args.target, spaces, args.fraction)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "carry-over.csv", index=False)
    text = ["# Does a tuned variant carry over?", "",
            f"`benchmarks/carry_over.py --source {args.source} --target {args.target}`, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. slowdown: the "
            "target's time of the source's best point over the target's best; seeded "
            "runs: target measurements in the source's order until one reaches "
            f"{args.fraction:.0%} of the target's best performance.", "",
            to_markdown(table, "{:.4g}")]
    (out / "carry-over.md").write_text("\n".join(text))
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
