"""Round 10 of the resident-latency extension (issue 34): the shipped constants' picks
against the WHOLE baseline set on sizes no fit saw.

    python benchmarks/tiling_round10.py [--plan JSON]

``--plan``: writes the call's plan (``scripts/h100_hexagonal_round10.sh``), fixed
before the call: the shipped (round 7's) constants' picks as round 9's call picked them
(``hexagonal-round9-picks-plan.json``, kind ``chosen-round7``) for jacobi2d and heat2d
at 7168^2 and laplacian2d at 12288^2, then each problem's baseline set (204 points)
ordered fastest-first by the measured times of the same labels at the nearest size
whose whole set is measured (:data:`PRIOR`).  Without ``--plan``: reads
``sample_data/h100/hexagonal-round10.sqlite`` and prints, per problem, the share of the
baseline set measured, its best point, the best pick and the speed-up; where in the
prior order the best baseline point stood; and the RMSE near the best of the shipped
constants (and, for the record, round 9's) over the call's baseline points.  No GPU,
under a minute.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import tiling_holdout as ho  # noqa: E402
from benchmarks import tiling_round5 as r5  # noqa: E402
from benchmarks import tiling_widths as tw  # noqa: E402

H100 = r5.H100
ROUND10 = H100 / "hexagonal-round10.sqlite"
ROUND9_PLAN = H100 / "hexagonal-round9-picks-plan.json"
ROUND9_RANKS = H100 / "hexagonal-round9-picks-builds-round7.csv"
#: the constants shipped until round 11 (round 7's; `tiling-calibration.json` then)
SHIPPED = H100 / "tiling-calibration-round7.json"
ROUND9_CONSTANTS = H100 / "tiling-calibration-round9.json"
PICK_KIND = "chosen-round7"
#: (stencil, size) of each problem, and the (stencil, size) whose measured whole
#: baseline set orders its baseline points (the same stencil at the nearest size
#: measured whole; at 12288^2 only jacobi2d's 10240^2 set is whole)
PRIOR = {("jacobi2d", 7168): ("jacobi2d", 8192), ("heat2d", 7168): ("heat2d", 8192),
         ("laplacian2d", 12288): ("jacobi2d", 10240)}
#: seconds before the call's end at which a baseline stage stops: heat2d 7168^2 leaves
#: the last 30 s to laplacian2d 12288^2's baseline
LEAVE_S = {("jacobi2d", 7168): 0, ("heat2d", 7168): 30, ("laplacian2d", 12288): 0}
SIZES = tw.sizes_of


def prior_order(points: pd.DataFrame, stencil: str, n: int) -> list[str]:
    """The problem's baseline labels, fastest first by the prior problem's times."""
    from workbench.kernels.timetiled import hexspaces

    labels = sorted(p.label for p in hexspaces.hexagonal_space(
        stencil, baseline=1, S1=n, S2=n, T=48).points())
    ps, pn = PRIOR[(stencil, n)]
    prior = points[(points["stencil"] == ps) & (points["sizes"] == SIZES(pn))
                   & (points["kind"] == "baseline")].groupby("label")["measured_s"].median()
    missing = set(labels) - set(prior.index)
    if missing:
        raise SystemExit(f"{ps} {pn}^2 lacks {len(missing)} of {stencil} {n}^2's labels")
    return sorted(labels, key=lambda lb: (prior[lb], lb))


def plan(points: pd.DataFrame) -> dict:
    picked = json.loads(ROUND9_PLAN.read_text())
    stages = []
    for (stencil, n) in PRIOR:
        stages.append({"stencil": stencil, "sizes": {"S1": n, "S2": n, "T": 48},
                       "kind": PICK_KIND, "labels": picked[f"{stencil} {SIZES(n)}"][PICK_KIND],
                       "leave_s": 0})
    for (stencil, n) in PRIOR:
        stages.append({"stencil": stencil, "sizes": {"S1": n, "S2": n, "T": 48},
                       "kind": "baseline", "labels": prior_order(points, stencil, n),
                       "leave_s": LEAVE_S[(stencil, n)]})
    return {"constants": SHIPPED.name, "picks_from": ROUND9_PLAN.name,
            "prior": {f"{s} {SIZES(n)}": f"{ps} {SIZES(pn)}"
                      for (s, n), (ps, pn) in PRIOR.items()}, "stages": stages}


def problem_rows(points: pd.DataFrame, mine: pd.DataFrame) -> pd.DataFrame:
    ranks = pd.read_csv(ROUND9_RANKS)
    rows = []
    for (stencil, n) in PRIOR:
        part = mine[(mine["stencil"] == stencil) & (mine["sizes"] == SIZES(n))]
        base = part[part["kind"] == "baseline"].drop_duplicates("label")
        picks = part[part["kind"] == PICK_KIND].merge(
            ranks[(ranks["stencil"] == stencil) & (ranks["sizes"] == SIZES(n))][
                ["label", "rank"]], on="label", how="left").sort_values("rank")
        row = {"stencil": stencil, "sizes": SIZES(n), "baseline_measured": len(base),
               "picks_measured": len(picks)}
        if not base.empty:
            order = prior_order(points, stencil, n)
            best = base.loc[base["measured_s"].idxmin()]
            row.update(best_baseline=best["label"], best_baseline_ms=1e3 * best["measured_s"],
                       best_prior_rank=order.index(best["label"]) + 1,
                       measured_head=next((i for i, lb in enumerate(order)
                                           if lb not in set(base["label"])), len(order)))
            for k in (16, 32, 64):
                head = base[base["label"].isin(order[:k])]
                if len(head) == k:
                    row[f"best_of_first_{k}_ms"] = 1e3 * head["measured_s"].min()
        if not picks.empty and not base.empty:
            top = picks.loc[picks["measured_s"].idxmin()]
            row.update(best_pick=top["label"], best_pick_ms=1e3 * top["measured_s"],
                       best_pick_faster_pct=100 * (1 - top["measured_s"] / best["measured_s"]),
                       first_pick_faster_pct=100 * (1 - picks["measured_s"].iloc[0]
                                                    / best["measured_s"]))
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> int:
    from benchmarks.tiling_round3 import measured_points
    from workbench.measure.store.compressed import resolve_store_path
    from workbench.models.tiling import load_calibration

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plan", type=Path)
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    stores = [p for p in tw.STORES if resolve_store_path(p) is not None]
    points = measured_points(stores)
    if args.plan:
        args.plan.write_text(json.dumps(plan(points), indent=1) + "\n")
        print(f"written: {args.plan}")
        return 0
    if resolve_store_path(ROUND10) is None:
        raise SystemExit(f"{ROUND10.name}(.xz) is not there: the call has not run")
    mine = measured_points([ROUND10])
    table = problem_rows(points, mine)
    print("1. per problem: the share of the 204-point baseline set measured, its best "
          "point, the shipped constants' best pick (of round 9's call) and the speed-up; "
          "best_prior_rank: where the best point stood in the plan's prior order; "
          "measured_head: how many of the prior order's first points were measured:")
    print(table.round(3).T.to_string())
    scored = mine[mine["kind"].isin(("baseline", PICK_KIND))]
    rows = []
    for (stencil, n) in PRIOR:
        count = int(((scored["stencil"] == stencil) & (scored["sizes"] == SIZES(n))
                     & (scored["kind"] == "baseline")).sum())
        if count < 8:
            rows.append({"stencil": stencil, "sizes": SIZES(n), "baseline_points": count})
            continue
        for name, cal in (("round7 (shipped)", load_calibration(SHIPPED)),
                          ("round9 (record)", load_calibration(ROUND9_CONSTANTS))):
            rows.append({"stencil": stencil, "sizes": SIZES(n), "constants": name,
                         **ho.score(cal, scored, stencil, SIZES(n))})
    print("2. RMSE near the best over the call's baseline points, constants fixed "
          "before the call:")
    print(pd.DataFrame(rows).round(4).to_string(index=False))
    before = points[points["store"].isin(
        ("hexagonal-round9-picks.sqlite", "hexagonal-round9-picks.sqlite.xz"))]
    both = mine.merge(before, on=["stencil", "sizes", "label", "kind"],
                      suffixes=("", "_round9"))
    if not both.empty:
        ratio = both["measured_s"] / both["measured_s_round9"]
        print(f"3. the {len(both)} points round 9's call measured too: this call / round "
              f"9's, median {ratio.median():.3f}, range {ratio.min():.3f}-{ratio.max():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
