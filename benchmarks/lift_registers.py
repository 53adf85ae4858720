"""How much the compiler's register count says about performance on the Lift rewrite
spaces, beside the IR features of Figure 4 (no GPU needed).

The registers per thread come from the NVIDIA compiler's report in each shipped build
log (``-cl-nv-verbose``, ``sample_data/h100/lift-rewrites.sqlite``); the features and
normalized throughput from ``lift-rewrites-samples.csv.xz``, whose rows follow each space's
points in order.  Per benchmark (both inputs pooled, as in Figure 4), the normalized
mutual information of each with normalized throughput, both binned by 10 quantiles;
and the share of points whose registers cap the H100's occupancy (more than 32 a
thread: 65,536 registers for 2,048 threads an SM).

    python benchmarks/lift_registers.py [--out CSV]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import normalized_mutual_info_score

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.hardware.build_info import registers_of  # noqa: E402
from workbench.models.ir_features.lobo import quantile_bins  # noqa: E402
from workbench.models.ir_features.samples import FEATURES  # noqa: E402
from workbench.tuning.catalog import (  # noqa: E402
    LIFT_REWRITE_SIZES,
    LIFT_REWRITE_SPACES,
    get_space,
)
from workbench.tuning.replay import load_space_evaluations  # noqa: E402

H100 = ROOT / "sample_data" / "h100"
FULL_OCCUPANCY_REGISTERS = 32


def registers_frame(store: Path, samples: pd.DataFrame) -> pd.DataFrame:
    """The samples with each point's registers (NaN where the log has no report)."""
    parts = []
    for name in LIFT_REWRITE_SPACES:
        for n in LIFT_REWRITE_SIZES:
            space = get_space(name, n=n)
            evaluations = load_space_evaluations(store, space)
            part = samples[(samples.benchmark == name) & (samples.input == f"n={n}")].copy()
            points = space.points()
            if len(part) != len(points):
                raise SystemExit(f"{name} n={n}: {len(part)} samples for {len(points)} "
                                 "points; write the samples again (workbench ir-samples)")
            part["registers"] = [registers_of(evaluations[p.label].extra.get(
                "build_log", "")) for p in points]
            part["vw"] = [p["vw"] for p in points]
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


def information(frame: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    rows = {}
    for name, part in frame.dropna(subset=["registers"]).groupby("benchmark", sort=False):
        perf = quantile_bins(part["normalized_throughput"].to_numpy(), bins)
        rows[name] = {f: normalized_mutual_info_score(
            perf, quantile_bins(part[f].to_numpy(dtype=float), bins))
            for f in ("registers", *FEATURES)}
    table = pd.DataFrame(rows)
    table["mean"] = table.mean(axis=1)
    return table.sort_values("mean", ascending=False)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the information table here")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    samples = pd.read_csv(H100 / "lift-rewrites-samples.csv.xz", comment="#")
    frame = registers_frame(H100 / "lift-rewrites.sqlite", samples)
    known = frame["registers"].notna()
    print(f"# registers of {int(known.sum())} of {len(frame)} points (the other build "
          "logs have no compiler report)")
    regs = frame.loc[known, "registers"]
    capped = regs > FULL_OCCUPANCY_REGISTERS
    print(f"registers a thread: {regs.min():.0f} to {regs.max():.0f}, median "
          f"{regs.median():.0f}; above {FULL_OCCUPANCY_REGISTERS} (occupancy capped): "
          f"{100 * capped.mean():.1f} % of the points")
    near = frame[known & (frame["normalized_throughput"] >= 0.9)]
    print(f"points within 10 % of their input's best: {len(near)}, registers "
          f"{near['registers'].min():.0f} to {near['registers'].max():.0f}, "
          f"{100 * (near['registers'] > FULL_OCCUPANCY_REGISTERS).mean():.1f} % capped")
    table = information(frame)
    print("\n## Normalized mutual information with normalized throughput "
          "(registers beside Figure 4's features)\n")
    print(table.round(3).to_string())
    rank = list(table.index).index("registers") + 1
    print(f"\nregisters rank {rank} of {len(table)} by mean NMI")
    if args.out:
        table.rename_axis("feature").to_csv(args.out, float_format="%.4f")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
