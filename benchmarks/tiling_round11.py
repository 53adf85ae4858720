"""Round 11 of the resident-latency extension (issue 34): a price for sub-tile widths
that are not a multiple of the lanes, and picks on a size no fit saw.

    python benchmarks/tiling_round11.py [--protocols] [--write-calibration]
        [--plan JSON] [--out CSV]

Every hexagonal store of rounds 1-10 is development data (the sizes no fit saw in
rounds 7-10 included: the fits of this round see them).  Prints:

1. near the best (points within 20 % of their problem's best), measured / priced by
   sub-tile width and inner lanes, with the shipped constants (round 7's) and round
   11's in-sample constants (:func:`round11_fit`: round 8's 2-D form, partial last
   rounds, with a bounds-checked compute pass dearer by a fitted share,
   ``SchemeConstants.guarded_pass``);
2. ``--protocols``: the protocols of ``benchmarks/tiling_holdout.py`` (leave one
   problem / one size out) for round 11's form and round 7's form on the same pool
   (written to ``--out``, default ``sample_data/h100/tiling-round11.csv.xz``; about two
   minutes);
3. where the call's store is shipped (``hexagonal-round11.sqlite``): per problem, the
   baseline points measured, the best of them, each constant set's best and first pick
   and the speed-up, the RMSE near the best of both sets over the call's baseline
   points, and the rule fixed before the call (``docs/time-tiling.md``, "Round 11").

``--write-calibration``: ``tiling-calibration-round11.json`` (round 11's in-sample fit;
1-D: round 7's), what the call selects with (written before the call; do not rewrite
it to reproduce the call).  By the rule fixed before the call, its constants are the
shipped ``tiling-calibration.json`` since round 11; "round7 (shipped)" below names the
constants shipped until then (``tiling-calibration-round7.json``).  ``--plan``: the call's baseline order (the prior rule of
round 10).  No GPU.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import tiling_holdout as ho  # noqa: E402
from benchmarks import tiling_round5 as r5  # noqa: E402
from benchmarks import tiling_round10 as r10  # noqa: E402
from benchmarks import tiling_widths as tw  # noqa: E402

H100 = r5.H100
STORES = tw.STORES + [r10.ROUND10]
ROUND11 = H100 / "hexagonal-round11.sqlite"
#: the constants shipped until this round (round 7's; `tiling-calibration.json` then)
SHIPPED = H100 / "tiling-calibration-round7.json"
CALIBRATION_OUT = H100 / "tiling-calibration-round11.json"
KEY = tw.KEY
#: (campaign kind of the picks, constants file), in the order the call measures them
PICK_SETS = (("chosen-round11", CALIBRATION_OUT.name),
             ("chosen-round7", "tiling-calibration-round7.json"))
#: the problems of the call, in order, and the (stencil, size) whose measured whole
#: baseline set orders each one's baseline points fastest-first (round 10's rule: the
#: same stencil at the nearest size measured whole)
PRIOR = {("heat2d", 9216): ("heat2d", 8192), ("laplacian2d", 9216): ("laplacian2d", 8192)}
SIZES = tw.sizes_of
NEAR = 1.2


def round11_fit(micro, train, dims, where):
    """Round 11's fit: 2-D, round 8's form (gamma, ``g``, ``g_0`` and the ``C_iter``
    scale fitted, partial last rounds) with ``guarded_pass`` fitted too; 1-D: round
    7's."""
    from workbench.models.tiling.problem_fit import lane_rows_constants

    if dims == 1:
        return ho.fitted(micro, train, 1, where)
    if not (train["scheme"] == "hybrid").any():
        return None
    return lane_rows_constants(micro, train, per_launch=True, partial_rounds=True,
                               guarded_pass=True, where=where)


def with_shape(frame: pd.DataFrame) -> pd.DataFrame:
    """2-D points with their tile sizes, lanes and ratio to their problem's best."""
    two = frame[frame["sizes"].str.count("S") == 2].reset_index(drop=True)
    shape = two["label"].str.extract(
        r"tT=(\d+),tS1=(\d+),tS2=(\d+),bx=(\d+),by=(\d+)").astype(int)
    shape.columns = ["tT", "tS1", "tS2", "bx", "by"]
    two = pd.concat([two, shape], axis=1)
    two["of_best"] = two["measured_s"] / two.groupby(["stencil", "sizes"])[
        "measured_s"].transform("min")
    return two


def width_table(points: pd.DataFrame, sets: dict) -> pd.DataFrame:
    """1. of the module docstring: mean measured / priced near the best, by width."""
    from benchmarks.tiling_round3 import model_of
    from workbench.models.tiling import compare

    two = with_shape(r5.one_per_point(points))
    for name, cal in sets.items():
        priced = compare(model_of(r5.ROWS, cal, 2), two)
        two[name] = (priced["measured_s"] / priced["predicted_s"]).to_numpy()
    near = two[two["of_best"] <= NEAR]
    table = near.groupby(["tS2", "bx"])[list(sets)].mean()
    table.insert(0, "points", near.groupby(["tS2", "bx"]).size())
    table.insert(1, "guarded", [t % b != 0 for t, b in table.index])
    return table


def write_calibration(points: pd.DataFrame, micro, shipped) -> None:
    from workbench.models.tiling import save_calibration
    from workbench.models.tiling.calibrate import with_scheme_constants

    two = round11_fit(micro, r5.one_per_point(points), 2,
                      "every measured 2-D point (each label once, the median of its "
                      "calls) of the shipped hexagonal stores, rounds 1-10")
    own = two.schemes[KEY]
    own = replace(own, provenance={**own.provenance,
                                   "written": "before the round-11 call",
                                   "derived_by": "python benchmarks/tiling_round11.py "
                                                 "--write-calibration"})
    save_calibration(with_scheme_constants(shipped, {KEY: own}), CALIBRATION_OUT)
    print(f"written: {CALIBRATION_OUT} ({KEY}; 1-D: round 7's)")


def prior_order(points: pd.DataFrame, stencil: str, n: int) -> list[str]:
    """The problem's baseline labels, fastest first by the prior problem's times."""
    saved = dict(r10.PRIOR)
    try:
        r10.PRIOR.clear()
        r10.PRIOR.update(PRIOR)
        return r10.prior_order(points, stencil, n)
    finally:
        r10.PRIOR.clear()
        r10.PRIOR.update(saved)


def plan(points: pd.DataFrame) -> dict:
    """The call's plan (``scripts/h100_hexagonal_round11.sh``): per problem, in order,
    its baseline labels fastest-first by the prior rule; the picks are chosen on the
    device (builds for registers), as rounds 8 and 9 did."""
    return {f"{s} {SIZES(n)}": {"baseline": prior_order(points, s, n)} for s, n in PRIOR}


def protocols(points: pd.DataFrame, shipped, micro) -> pd.DataFrame:
    return pd.concat([
        ho.protocol_table(points, shipped, micro, fit=round11_fit).assign(form="round11"),
        ho.protocol_table(points, shipped, micro).assign(form="round7")], ignore_index=True)


def print_protocols(frame: pd.DataFrame) -> None:
    wide = frame.pivot_table(index=["stencil", "sizes"], columns=["form", "protocol"],
                             values="rmse_near_best", sort=False)
    print("2. RMSE near the best (%), per form and protocol, pool of rounds 1-10:")
    print((100 * wide).round(1).to_string())
    print("\n".join(ho.nine_summary(frame)))


def call_rows(mine: pd.DataFrame, ranks: dict) -> pd.DataFrame:
    """Per problem of the call: the baseline measured, its best, each set's picks."""
    rows = []
    for (stencil, n) in PRIOR:
        part = mine[(mine["stencil"] == stencil) & (mine["sizes"] == SIZES(n))]
        base = part[part["kind"] == "baseline"].drop_duplicates("label")
        row = {"stencil": stencil, "sizes": SIZES(n), "baseline_measured": len(base)}
        if base.empty:
            rows.append(row)
            continue
        best = base.loc[base["measured_s"].idxmin()]
        row.update(best_baseline=best["label"], best_baseline_ms=1e3 * best["measured_s"])
        for kind, _ in PICK_SETS:
            picks = part[part["kind"] == kind]
            if picks.empty:
                continue
            order = ranks.get((kind, stencil, SIZES(n)), [])
            picks = picks.assign(rank=[order.index(lb) if lb in order else 99
                                       for lb in picks["label"]]).sort_values("rank")
            top = picks.loc[picks["measured_s"].idxmin()]
            tag = kind.replace("chosen-", "")
            row.update({f"{tag}_best_pick": top["label"],
                        f"{tag}_best_pick_ms": 1e3 * top["measured_s"],
                        f"{tag}_best_faster_pct": 100 * (1 - top["measured_s"]
                                                         / best["measured_s"]),
                        f"{tag}_first_faster_pct": 100 * (1 - picks["measured_s"].iloc[0]
                                                          / best["measured_s"])})
        rows.append(row)
    return pd.DataFrame(rows)


def call_results(shipped, new) -> None:
    from benchmarks.tiling_round3 import measured_points

    mine = measured_points([ROUND11])
    ranks = {}
    for kind, suffix in (("chosen-round11", ""), ("chosen-round7", "-round7")):
        path = H100 / f"hexagonal-round11-builds{suffix}.csv"
        if path.exists():
            b = pd.read_csv(path)
            for (s, z), part in b[b["picked"]].groupby(["stencil", "sizes"]):
                ranks[(kind, s, z)] = list(part.sort_values("rank")["label"])
    table = call_rows(mine, ranks)
    print("3. the call: per problem, the baseline points measured, their best, each "
          "constant set's best and first pick and the speed-up (1 - pick / best):")
    print(table.round(3).T.to_string())
    rows = []
    for (stencil, n) in PRIOR:
        count = int(((mine["stencil"] == stencil) & (mine["sizes"] == SIZES(n))
                     & (mine["kind"] == "baseline")).sum())
        if count < 8:
            continue
        for name, cal in (("round7 (shipped)", shipped), ("round11", new)):
            rows.append({"stencil": stencil, "sizes": SIZES(n), "constants": name,
                         **ho.score(cal, mine, stencil, SIZES(n))})
    if rows:
        print("   RMSE near the best over the call's baseline points:")
        print(pd.DataFrame(rows).round(4).to_string(index=False))


def main() -> int:
    from benchmarks.tiling_round3 import measured_points
    from benchmarks.tiling_side_by_side import LADDERS, MICROBENCH, resident_calibration
    from workbench.measure.store.compressed import resolve_store_path
    from workbench.models.tiling import calibration_file, load_calibration

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=H100 / "tiling-round11.csv.xz")
    parser.add_argument("--protocols", action="store_true")
    parser.add_argument("--write-calibration", action="store_true")
    parser.add_argument("--plan", type=Path)
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    pd.set_option("display.max_rows", 300)
    shipped = load_calibration(SHIPPED)
    stores = [p for p in STORES if resolve_store_path(p) is not None]
    points = measured_points(stores)
    micro = resident_calibration(MICROBENCH, LADDERS)
    if args.write_calibration:
        write_calibration(points, micro, shipped)
    if args.plan:
        args.plan.write_text(json.dumps(plan(points), indent=1) + "\n")
        print(f"written: {args.plan}")
    new = (load_calibration(CALIBRATION_OUT) if calibration_file(CALIBRATION_OUT).exists()
           else None)
    sets = {"round7 (shipped)": shipped, **({"round11": new} if new else {})}
    print(f"1. near the best (within {NEAR - 1:.0%} of it): measured / priced, by sub-tile "
          "width tS2 and inner lanes bx; guarded: tS2 not a multiple of bx):")
    print(width_table(points, sets).round(3).to_string())
    if new is not None:
        c = new.schemes[KEY]
        print(f"   round 11: guarded_pass {c.guarded_pass:.3f}, gamma {c.lane_rows:.3f}, "
              f"g {c.step_global * 1e12:.2f} ps, g_0 {c.step_launch * 1e6:.1f} us, "
              f"C_iter scale {c.provenance.get('C_iter_scale', np.nan):.3f}")
    if args.protocols:
        frame = protocols(points, shipped, micro)
        frame.to_csv(args.out, index=False)
        print_protocols(frame)
        print(f"written: {args.out}")
    if resolve_store_path(ROUND11) is not None and new is not None:
        call_results(shipped, new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
