"""Round 6 of the resident-latency extension (issue 34, item 4): the lane-rows form with
a fixed cost per launch, its constants fitted on every measured 2-D point, and a
hold-out size.

    python benchmarks/tiling_round6.py [--top N] [--write-calibration]
        [--picks-store S] [--picks-builds CSV]

Reads every hexagonal/hybrid store of rounds 1-5 (``sample_data/h100/hexagonal*.sqlite``).
Three sets of lane-rows constants, all of the same form (:mod:`workbench.models.tiling.
problem_fit`; ``sweep = 2 K (g_0 + g S1 S2)``):

* ``round5``: round 5's constants (``g_0 = 0``), fitted again as
  ``benchmarks/tiling_round5.py`` fits them (on the picks of rounds 1-4): the shipped
  ``tiling-calibration.json``'s;
* ``launch, picks``: ``g_0`` fitted too, on round 5's training set (the measured 2-D
  picks of rounds 1-4, no baseline-set point): round 5's protocol;
* ``launch, all``: ``g_0`` fitted too, on every measured 2-D point of rounds 1-5,
  baseline sets included, so its figures on the nine problems are in-sample; what
  ``--write-calibration`` writes into ``tiling-calibration-round6.json`` (what
  ``scripts/h100_hexagonal_round6.sh`` selects with).

Prints, per problem and set, what ``benchmarks/tiling_round5.py`` prints (the RMSE near
the best and Spearman over the baseline set, the measured point ranked first against
the best baseline).  Where the round-6 call's store and builds are shipped: its picks
against the best baseline of the same call (the nine problems), and the hold-out size
(6144^2, which no earlier call measured) apart: the RMSE near the best and Spearman of
each set of constants over the measured third of its baseline set, and the picks against
the best of that third.  No GPU, about 20 s.
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

from benchmarks import tiling_round5 as r5  # noqa: E402

H100 = r5.H100
STORES = r5.STORES + [H100 / "hexagonal-round5.sqlite"]
CALIBRATION_OUT = H100 / "tiling-calibration-round6.json"
KEY = f"hybrid+{r5.ROWS}"
HOLDOUT_SIZES = "S1=6144,S2=6144,T=48"


def constant_sets(points: pd.DataFrame):
    """The three sets of lane-rows constants (module docstring), by name."""
    from benchmarks.tiling_side_by_side import LADDERS, MICROBENCH, resident_calibration
    from workbench.models.tiling.problem_fit import lane_rows_constants

    cal = resident_calibration(MICROBENCH, LADDERS)
    picks = r5.training_points(points[points["store"] != "hexagonal-round5.sqlite"])
    every = r5.one_per_point(points)
    names = ", ".join(f"sample_data/h100/{p.name}.xz" for p in STORES)
    return {
        "round5": r5.fitted_calibration(points[points["store"] != "hexagonal-round5.sqlite"]
                                        )[0],
        "launch, picks": lane_rows_constants(
            cal, picks, per_launch=True, where="round 5's training set (measured picks "
            "of rounds 1-4, no baseline-set point)"),
        "launch, all": lane_rows_constants(
            cal, every, per_launch=True, where="every measured 2-D point (baseline sets "
            "and picks, each label once, the median of its calls) of " + names),
    }, picks


def described(name: str, cal) -> str:
    c = cal.schemes[KEY]
    p = c.provenance
    return (f"{name:14s}: gamma {c.lane_rows:.4g}, g {c.step_global:.4g} s per cell and "
            f"launch, g_0 {c.step_launch * 1e6:.1f} us per launch, C_iter scale "
            f"{p.get('C_iter_scale', float('nan')):.4f} (" + ", ".join(
                f"{s} {v * 1e9:.1f} ns" for s, v in sorted(c.C_iter.items())) + "); "
            f"fit on {p.get('training_points')} points, rms log error "
            f"{p.get('rms_log_error', float('nan')):.4f}")


def nine_problems(sets, points, picks, top) -> pd.DataFrame:
    frames = []
    for name, cal in sets.items():
        f = r5.evaluate(cal, points, picks, top)
        f = f[f["form"] == r5.ROWS].drop(columns="form")
        f.insert(0, "constants", name)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def unreached(points: pd.DataFrame, plan: Path, got: pd.DataFrame) -> pd.DataFrame:
    """The problems the round-6 call did not reach (its time ran out): its picks (the
    plan file) with their times from earlier calls where measured (median of those
    calls), against the best baseline of the round-5 call."""
    import json

    from benchmarks.tiling_round4 import measured

    r5call = measured(H100 / "hexagonal-round5.sqlite")
    every = r5.one_per_point(points).set_index(["stencil", "sizes", "label"])
    reached = set(zip(got["stencil"], got["sizes"]))
    rows = []
    for key, kinds in json.loads(plan.read_text()).items():
        stencil, sizes = key.split(" ", 1)
        if (stencil, sizes) in reached:
            continue
        base = r5call[(r5call["stencil"] == stencil) & (r5call["sizes"] == sizes)
                      & (r5call["kind"] == "best-baseline")]["measured_s"].min()
        chosen = kinds["chosen-with-builds"]
        times = [float(every.loc[(stencil, sizes, lb), "measured_s"])
                 if (stencil, sizes, lb) in every.index else np.nan for lb in chosen]
        known = [t for t in times if np.isfinite(t)]
        rows.append({"stencil": stencil, "sizes": sizes, "picks": len(chosen),
                     "measured_before": len(known),
                     "round5_call_best_baseline_ms": 1e3 * base,
                     "best_known_pick_ms": 1e3 * min(known) if known else np.nan,
                     "best_known_pick_faster_pct": 100 * (1 - min(known) / base)
                     if known else np.nan,
                     "first_pick_faster_pct": 100 * (1 - times[0] / base)})
    return pd.DataFrame(rows)


def holdout(sets, got: pd.DataFrame) -> pd.DataFrame:
    """Per hold-out problem and set of constants: RMSE near the best, the mean ratio
    there and Spearman over the measured baseline points; the picks against the best
    of them."""
    from benchmarks.tiling_round3 import model_of
    from benchmarks.tiling_validation import validation_row
    from workbench.models.tiling import compare
    from workbench.models.tiling.points import parse_label

    rows = []
    part = got[got["sizes"] == HOLDOUT_SIZES]
    for (stencil, sizes), one in part.groupby(["stencil", "sizes"], sort=False):
        base = one[one["kind"] == "baseline"].drop_duplicates("label")
        chosen = one[one["kind"] == "chosen-with-builds"]
        if base.empty:
            continue
        best = float(base["measured_s"].min())
        for name, cal in sets.items():
            model = model_of(r5.ROWS, cal, 2)
            v = validation_row(stencil, parse_label(sizes), compare(model, base))
            priced = compare(model, chosen) if len(chosen) else chosen
            rows.append({
                "constants": name, "stencil": stencil, "sizes": sizes,
                "baseline_points": len(base), "near_best": v["near_best"],
                "rmse_near_best": v["rmse_near_best"],
                "mean_ratio_near_best": 1 + v["mean_rel_error_near_best"],
                "spearman": v["spearman"], "best_baseline_ms": 1e3 * best,
                "best_baseline": v["best_point"],
                "picks": len(chosen),
                "best_pick_ms": 1e3 * float(chosen["measured_s"].min()) if len(chosen)
                else np.nan,
                "best_pick_faster_pct": 100 * (1 - float(chosen["measured_s"].min()) / best)
                if len(chosen) else np.nan,
                "picks_price_over_measured": "/".join(
                    f"{r:.2f}" for r in priced["predicted_s"] / priced["measured_s"])
                if len(chosen) else ""})
    return pd.DataFrame(rows)


def main() -> int:
    from benchmarks.tiling_round3 import measured_points
    from benchmarks.tiling_round4 import measured
    from workbench.models.tiling import load_calibration, save_calibration
    from workbench.models.tiling.calibrate import with_scheme_constants
    from workbench.measure.store.compressed import resolve_store_path

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", type=Path, default=H100 / "tiling-round6.csv")
    parser.add_argument("--write-calibration", action="store_true")
    parser.add_argument("--picks-store", type=Path, default=H100 / "hexagonal-round6.sqlite")
    parser.add_argument("--picks-builds", type=Path,
                        default=H100 / "hexagonal-round6-builds.csv.xz")
    args = parser.parse_args()
    points = measured_points(STORES)
    sets, picks = constant_sets(points)
    for name, cal in sets.items():
        print(described(name, cal))
    frame = nine_problems(sets, points, picks, args.top)
    frame.to_csv(args.out, index=False)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    print(frame.round(3).to_string(index=False))
    for name, part in frame.groupby("constants", sort=False):
        print(f"{name:14s}: pairs with RMSE near best <= 10 %: "
              f"{int((part['rmse_near_best'] <= 0.10).sum())} of {len(part)}; the measured "
              f"point it ranks first against the best baseline: "
              f"{part['first_of_measured_faster_pct'].mean():+.1f} % on average")
    if args.picks_builds.exists() and resolve_store_path(args.picks_store) is not None:
        got = measured(args.picks_store)
        nine = got[got["sizes"] != HOLDOUT_SIZES]
        call = r5.picks_of_the_call(points, args.picks_store, args.picks_builds)
        call = call[call["sizes"] != HOLDOUT_SIZES]
        print("the round-6 call's picks (lane-rows form, 'launch, all' constants, "
              "selection with builds) against the same call's best baseline:")
        print(call.round(2).to_string(index=False))
        print(f"mean: best pick {call['best_pick_faster_pct'].mean():+.1f} % "
              f"({int((call['best_pick_faster_pct'] > 0).sum())} of {len(call)} faster), "
              f"first pick {call['first_pick_faster_pct'].mean():+.1f} %, best pick no "
              f"earlier call measured {call['best_new_pick_faster_pct'].mean():+.1f} % "
              f"({int(call['picks_new'].sum())} of {int(call['picks'].sum())} picks new; "
              f"{len(nine)} points of these problems measured)")
        # the plan written beside the call's builds (its problems, reached or not)
        plan = args.picks_builds.with_name(
            re.sub(r"-builds\.csv(\.xz)?$", "-plan.json", args.picks_builds.name))
        rest = unreached(points, plan, got) if plan.exists() else pd.DataFrame()
        if len(rest):
            print("the problems the call did not reach: its picks, measured by earlier "
                  "calls, against the round-5 call's best baseline:")
            print(rest.round(2).to_string(index=False))
            both = pd.concat([call["best_pick_faster_pct"],
                              rest["best_known_pick_faster_pct"]])
            print(f"all nine, best pick (this call where reached, earlier calls "
                  f"elsewhere): {both.mean():+.1f} % ({len(both.dropna())} problems)")
        held = holdout(sets, got)
        if len(held):  # a call of the nine problems alone measured no hold-out
            print(f"the hold-out ({HOLDOUT_SIZES}, never measured before the call; every "
                  "third point of its baseline set):")
            print(held.round(3).to_string(index=False))
            held.to_csv(args.out.with_name("tiling-round6-holdout.csv"), index=False)
    if args.write_calibration:
        shipped = load_calibration(r5.CALIBRATION)
        own = sets["launch, all"].schemes
        keys = [k for k in own if k.endswith(r5.ROWS)]
        save_calibration(with_scheme_constants(shipped, {k: own[k] for k in keys}),
                         CALIBRATION_OUT)
        print(f"written: {CALIBRATION_OUT} ({', '.join(sorted(keys))})")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
