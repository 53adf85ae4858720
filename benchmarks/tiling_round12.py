"""Round 12 of the resident-latency extension (issue 34): the shipped constants' picks
(round 11's) on the nine fitted problems and at 9216^2, timed beside the best baseline
points with repeats.

    python benchmarks/tiling_round12.py [--plan JSON] [--times CSV]

``--plan``: the call's plan (``scripts/h100_hexagonal_round12.sh``), written before
the call: per problem, in order, the baseline points to time (each problem's 3 fastest
in the shipped stores; at laplacian2d 9216^2, whose set was measured in part, heat2d
9216^2's 3 fastest too) and the registers of earlier calls' builds of the same
stencil, size and label among the first ``TOP`` candidates, so that the call builds
only the rest.

Otherwise, from the call's timings (``sample_data/h100/hexagonal-round12-times.csv``,
xz-compressed in the repository): per problem, every point's time (the minimum of each
round's runs; median over rounds, and the spread of the rounds), the best baseline
point (lowest median), each pick's speed-up ``1 - pick / best baseline`` on the
medians, and the range of the same ratio taken round by round (pick and baseline in the
same round), the best and the first pick; then the means over the nine problems and
over 9216^2.  No GPU; seconds.
"""

from __future__ import annotations

import argparse
import glob
import json
import lzma
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

H100 = ROOT / "sample_data" / "h100"
TIMES = H100 / "hexagonal-round12-times.csv"
BUILDS = H100 / "hexagonal-round12-builds.csv"
TOP = 24
#: the nine fitted problems and the size no fit saw; the call's order is
#: :data:`ORDER` (the 8192^2 problems first: their picks had never all been measured;
#: the cheap 4096^2 and 1-D problems last)
NINE = ([(s, n) for n in (8192, 4096) for s in ("jacobi2d", "heat2d", "laplacian2d",
                                                 "gradient2d")] + [("jacobi1d", 1 << 20)])
UNSEEN = [("heat2d", 9216), ("laplacian2d", 9216)]
ORDER = NINE[:4] + UNSEEN + NINE[4:]
#: where another stencil's baseline joins the contenders (a set measured in part)
ALSO = {("laplacian2d", 9216): ("heat2d", 9216)}


def sizes_of(stencil: str, n: int) -> str:
    return f"S1={n},T=256" if stencil == "jacobi1d" else f"S1={n},S2={n},T=48"


def fastest_baseline(points: pd.DataFrame, stencil: str, sizes: str, k: int = 3):
    part = points[(points["stencil"] == stencil) & (points["sizes"] == sizes)
                  & points["kind"].isin(["baseline", "best-baseline"])]
    return list(part.groupby("label")["measured_s"].min().sort_values().index[:k])


def known_registers(stencil: str, sizes: str, labels) -> dict:
    frames = [pd.read_csv(f) for f in sorted(glob.glob(str(H100 / "hexagonal-*builds*.csv")))
              if "round12" not in f]
    b = pd.concat(frames)
    b = b[(b["stencil"] == stencil) & (b["sizes"] == sizes) & b["registers"].notna()]
    found = b.groupby("label")["registers"].agg(["min", "max"])
    if (found["min"] != found["max"]).any():
        raise ValueError(f"{stencil} {sizes}: builds disagree on registers")
    return {lb: int(found.loc[lb, "min"]) for lb in labels if lb in found.index}


def plan() -> dict:
    from benchmarks import tiling_round11 as r11
    from benchmarks.tiling_round3 import measured_points
    from workbench.kernels.timetiled import hexspaces
    from workbench.measure.store.compressed import resolve_store_path
    from workbench.models.tiling import TilingModel, load_calibration
    from workbench.models.tiling.points import parse_label
    from workbench.models.tiling.schemes import Scheme
    from workbench.models.tiling.selection import top_candidates

    stores = [p for p in r11.STORES + [r11.ROUND11] if resolve_store_path(p) is not None]
    points = measured_points(stores)
    cal = load_calibration(H100 / "tiling-calibration.json")
    out = {}
    for stencil, n in ORDER:
        sizes = sizes_of(stencil, n)
        z = {k: int(v) for k, v in (x.split("=") for x in sizes.split(","))}
        model = TilingModel().ready(
            device_model="h100", calibration=cal, form="resident-lane-rows",
            registers=dict(cal.provenance.get("registers_per_item") or {}),
            scheme=Scheme.paper(len(z) - 1).value)
        top = top_candidates(model, stencil, z, TOP, keep=lambda lb, s=stencil, z=z:
                             hexspaces.feasible(hexspaces.hex_config(s, parse_label(lb), z)))
        base = fastest_baseline(points, stencil, sizes)
        if (stencil, n) in ALSO:
            other = ALSO[(stencil, n)]
            base += [lb for lb in fastest_baseline(points, other[0], sizes_of(*other))
                     if lb not in base]
        out[f"{stencil} {sizes}"] = {"baseline": base, "registers": known_registers(
            stencil, sizes, list(top["label"]))}
    return out


def read_csv(path: Path) -> pd.DataFrame:
    """A CSV, or its ``.xz`` beside it (as the repository ships the call's files)."""
    if path.exists():
        return pd.read_csv(path)
    with lzma.open(f"{path}.xz", "rt") as f:
        return pd.read_csv(f)


def per_round(times: pd.DataFrame) -> pd.DataFrame:
    """Each point's time per round: the minimum of the round's runs."""
    return times.groupby(["stencil", "sizes", "label", "kinds", "round"],
                         as_index=False)["time_s"].min()


def point_table(times: pd.DataFrame) -> pd.DataFrame:
    r = per_round(times)
    g = r.groupby(["stencil", "sizes", "label", "kinds"])["time_s"]
    t = g.agg(median="median", low="min", high="max", rounds="count").reset_index()
    t["spread_pct"] = 100 * (t["high"] - t["low"]) / t["median"]
    t["runs"] = times.groupby(["stencil", "sizes", "label"])["time_s"].count().to_numpy()
    return t


def problem_rows(times: pd.DataFrame, ranks: dict, kind: str = "chosen-shipped"):
    """Per problem: the best baseline, the best and the first pick, speed-ups."""
    r = per_round(times)
    table = point_table(times)
    rows = []
    for (stencil, sizes), part in table.groupby(["stencil", "sizes"], sort=False):
        base = part[part["kinds"].str.contains("baseline")]
        picks = part[part["kinds"].str.contains(kind)]
        if base.empty or picks.empty:
            continue
        best = base.loc[base["median"].idxmin()]
        order = ranks.get((stencil, sizes), [])
        picks = picks.assign(rank=[order.index(lb) if lb in order else 99
                                   for lb in picks["label"]]).sort_values("rank")
        top = picks.loc[picks["median"].idxmin()]
        first = picks.iloc[0]
        rb = r[(r["stencil"] == stencil) & (r["sizes"] == sizes)]

        def paired(label):
            a = rb[rb["label"] == label].set_index("round")["time_s"]
            b = rb[rb["label"] == best["label"]].set_index("round")["time_s"]
            ratio = 100 * (1 - (a / b).dropna())
            return ratio.min(), ratio.max()

        lo, hi = paired(top["label"])
        flo, fhi = paired(first["label"])
        rows.append({
            "stencil": stencil, "sizes": sizes, "best_baseline": best["label"],
            "baseline_ms": 1e3 * best["median"], "baseline_spread_pct": best["spread_pct"],
            "best_pick": top["label"], "pick_ms": 1e3 * top["median"],
            "pick_spread_pct": top["spread_pct"],
            "best_pick_faster_pct": 100 * (1 - top["median"] / best["median"]),
            "best_pick_rounds_pct": f"{lo:+.1f}..{hi:+.1f}",
            "first_pick": first["label"],
            "first_pick_faster_pct": 100 * (1 - first["median"] / best["median"]),
            "first_pick_rounds_pct": f"{flo:+.1f}..{fhi:+.1f}",
            "picks": len(picks), "rounds": int(best["rounds"]),
            "runs_per_point": int(best["runs"])})
    return pd.DataFrame(rows)


def ranks_of(path: Path = BUILDS, kind: str = "chosen-shipped") -> dict:
    if not path.exists() and not Path(f"{path}.xz").exists():
        return {}
    b = read_csv(path)
    b = b[b["picked"] & (b["kind"] == kind)]
    return {(s, z): list(p.sort_values("rank")["label"])
            for (s, z), p in b.groupby(["stencil", "sizes"])}


def summary(rows: pd.DataFrame) -> list[str]:
    out = []
    for name, which in (("nine fitted problems", NINE), ("9216^2 (no fit saw)", UNSEEN)):
        keys = {(s, sizes_of(s, n)) for s, n in which}
        part = rows[[(s, z) in keys for s, z in zip(rows["stencil"], rows["sizes"])]]
        if part.empty:
            continue
        for col in ("best_pick_faster_pct", "first_pick_faster_pct"):
            worst = part.loc[part[col].idxmin()]
            out.append(f"{name}, {col}: mean {part[col].mean():+.1f} %, worst "
                       f"{worst[col]:+.1f} % ({worst['stencil']} {worst['sizes']}), "
                       f"{(part[col] >= 9).sum()} of {len(part)} at least +9 %")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plan", type=Path)
    parser.add_argument("--times", type=Path, default=TIMES)
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    pd.set_option("display.max_rows", 300)
    if args.plan:
        args.plan.write_text(json.dumps(plan(), indent=1) + "\n")
        print(f"written: {args.plan}")
        return 0
    times = read_csv(args.times)
    print("1. every point: median over rounds of each round's minimum, ms; spread = "
          "(slowest - fastest round) / median")
    t = point_table(times)
    t[["median", "low", "high"]] *= 1e3
    print(t.round(4).to_string(index=False))
    rows = problem_rows(times, ranks_of())
    print("\n2. per problem: speed-up = 1 - pick / best baseline (medians); the range "
          "is the same ratio round by round")
    print(rows.round(2).T.to_string())
    print("\n" + "\n".join(summary(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
