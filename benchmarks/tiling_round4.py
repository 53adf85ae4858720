"""Round 4 of the resident-latency extension (issue 34, item 4): the selection with
builds, measured.

    python benchmarks/tiling_round4.py [--builds CSV] [--store S]

Reads what ``scripts/h100_hexagonal_round4.sh`` recorded: every candidate (the
lane-pass form's first 40 points per problem) with the registers its build reported
and its two prices (the register fit's, its own registers'), and the measured picks
and best baseline.  Prints per problem the build costs, how far the own registers move
the prices, the picks' speed-up against the best baseline measured in the same call
(and against the shipped baseline sets' best), and each pick's price over its
measured time.  No GPU, a few seconds.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

H100 = ROOT / "sample_data" / "h100"


def measured(store_path: Path) -> pd.DataFrame:
    from workbench.measure.store import MeasurementStore
    from workbench.measure.store.compressed import resolve_store_path
    from workbench.models.tiling import measured_frame

    frames = []
    with MeasurementStore.open(resolve_store_path(store_path), create=False,
                               readonly=True) as store:
        for c in store.campaigns():
            f = measured_frame(store.measurements(campaign=c.name, status=None))
            f["kind"] = c.name.split("/")[2]
            frames.append(f)
    return pd.concat(frames, ignore_index=True)


def shipped_best(stencil: str, sizes: str) -> float:
    from workbench.measure.store import MeasurementStore
    from workbench.measure.store.compressed import resolve_store_path

    name = f"tune/hx_{stencil}/baseline/{sizes}"
    for path in (H100 / "hexagonal.sqlite", H100 / "hexagonal-8192.sqlite"):
        found = resolve_store_path(path)
        with MeasurementStore.open(found, create=False, readonly=True) as store:
            ok = [m.time_s for m in store.measurements(campaign=name) if m.time_s]
        if ok:
            return min(ok)
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--builds", type=Path, default=H100 / "hexagonal-round4-builds.csv.xz")
    parser.add_argument("--store", type=Path, default=H100 / "hexagonal-round4.sqlite")
    args = parser.parse_args()
    builds = pd.read_csv(args.builds)
    wall = args.builds.with_name(re.sub(r"-builds\.csv(\.xz)?$", "-build-wall.txt",
                                              args.builds.name))
    print(f"builds: {len(builds)}, failed {int(builds['failure'].notna().sum())}; per point "
          f"code generation {builds['codegen_s'].mean():.2f} s, OpenCL build "
          f"{builds['build_s'].mean():.2f} s (CPU seconds, mean); "
          + (wall.read_text().strip() if wall.exists() else ""))
    points = measured(args.store)
    rows = []
    for (stencil, sizes), part in builds.groupby(["stencil", "sizes"], sort=False):
        got = points[(points["stencil"] == stencil) & (points["sizes"] == sizes)]
        base = float(got.loc[got["kind"] == "best-baseline", "measured_s"].min())
        picks = got[got["kind"] == "chosen-with-builds"].merge(
            part[["label", "estimated_s", "repriced_s", "registers", "rank"]],
            on="label", suffixes=("", "_build"))
        best = picks.loc[picks["measured_s"].idxmin()]
        first = picks.loc[picks["rank"].idxmin()]
        moved = part["repriced_s"] / part["estimated_s"]
        shipped = shipped_best(stencil, sizes)
        rows.append({
            "stencil": stencil, "sizes": sizes,
            "candidates_moved": int((moved > 1.001).sum()),
            "price_rise_max": float(moved.max()),
            "best_baseline_ms": 1e3 * base, "shipped_best_ms": 1e3 * shipped,
            "best_pick": best["label"], "best_pick_ms": 1e3 * float(best["measured_s"]),
            "speedup_pct": 100 * (1 - float(best["measured_s"]) / base),
            "speedup_vs_shipped_pct": 100 * (1 - float(best["measured_s"]) / shipped),
            "first_pick_speedup_pct": 100 * (1 - float(first["measured_s"]) / base),
            "picks_registers": "/".join(str(int(r)) for r in picks["registers_build"]),
            "price_over_measured": "/".join(f"{r:.2f}" for r in
                                            picks["repriced_s"] / picks["measured_s"]),
            "fit_price_over_measured": "/".join(f"{r:.2f}" for r in
                                                picks["estimated_s"] / picks["measured_s"])})
    frame = pd.DataFrame(rows)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    print(frame.round(2).to_string(index=False))
    print(f"mean speed-up of the best pick vs the same call's best baseline: "
          f"{frame['speedup_pct'].mean():+.1f} % (vs the shipped best: "
          f"{frame['speedup_vs_shipped_pct'].mean():+.1f} %); of the first pick: "
          f"{frame['first_pick_speedup_pct'].mean():+.1f} %; problems faster than the "
          f"baseline: {int((frame['speedup_pct'] > 0).sum())} of {len(frame)}")
    ratios = np.concatenate([np.array(r.split("/"), dtype=float)
                             for r in frame["price_over_measured"]])
    print(f"picks' price over measured time (own registers): {ratios.min():.2f}-"
          f"{ratios.max():.2f}, median {np.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
