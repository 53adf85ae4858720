"""Round 5 of the resident-latency extension (issue 34, item 4): the lane-rows form,
its constants fitted on the measured picks of rounds 1-4, against the lane-pass form.

    python benchmarks/tiling_round5.py [--store S ...] [--top N] [--update-calibration]
        [--picks-store S] [--picks-builds CSV]

Reads every hexagonal/hybrid store shipped (``sample_data/h100/hexagonal*.sqlite``).
Fits the lane-rows form (:mod:`workbench.models.tiling.problem_fit`) on the measured
2-D picks of every call (campaign kinds ``chosen*``; no baseline-set point, no best
baseline measured again).  Prints, per problem and form (lane-pass: rounds 3-4;
lane-rows: round 5): the RMSE near the best and Spearman over the baseline set (held
out of the fit), the price over the measured time at the best baseline point and
at the measured picks (in-sample for lane-rows), and the form's first ``--top``
points over the whole feasible space (registers estimated per point, as before the
builds): how many were measured already and the best of those against the best
baseline; and, among all measured points of the problem (own registers), the one
the form ranks first against the best baseline.  ``--update-calibration`` writes the
lane-rows constants into the shipped ``tiling-calibration.json`` (what
``scripts/h100_hexagonal_round5.sh`` selects with).  Where that call's store and builds
are shipped (``--picks-store``, ``--picks-builds``), its picks against the best baseline
of the same call, the points no earlier call measured apart.  No GPU, about 15 s.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

H100 = ROOT / "sample_data" / "h100"
STORES = [H100 / f"{n}.sqlite" for n in (
    "hexagonal", "hexagonal-8192", "hexagonal-resident", "hexagonal-lanes",
    "hexagonal-round3", "hexagonal-round4")]
LANE, ROWS = "resident-lane-passes", "resident-lane-rows"
CALIBRATION = H100 / "tiling-calibration.json"


def one_per_point(points: pd.DataFrame) -> pd.DataFrame:
    """Each (stencil, size, label) once: the median of its calls, its registers."""
    return points.groupby(["stencil", "sizes", "label"], as_index=False, sort=False).agg(
        measured_s=("measured_s", "median"), registers=("registers", "max"),
        scheme=("scheme", "first"),
        kinds=("kind", lambda k: "/".join(sorted(set(k)))))


def training_points(points: pd.DataFrame) -> pd.DataFrame:
    """The fit's points: every call's picks (kinds ``chosen*``), never a point of a
    baseline set (those are what the RMSE near the best is computed on)."""
    base = set(zip(*[points.loc[points["kind"] == "baseline", c]
                     for c in ("stencil", "sizes", "label")]))
    picks = points[points["kind"].str.startswith("chosen")]
    keep = [(s, z, lb) not in base for s, z, lb in
            zip(picks["stencil"], picks["sizes"], picks["label"])]
    return one_per_point(picks[keep])


def fitted_calibration(points: pd.DataFrame):
    from benchmarks.tiling_side_by_side import LADDERS, MICROBENCH, resident_calibration
    from workbench.models.tiling.problem_fit import lane_rows_constants

    cal = resident_calibration(MICROBENCH, LADDERS)
    train = training_points(points)
    return lane_rows_constants(
        cal, train, where="the measured picks of the hexagonal stores (campaign kinds "
        "chosen*, points of no baseline set): " + ", ".join(
            f"sample_data/h100/{p.name}.xz" for p in STORES)), train


def evaluate(cal, points: pd.DataFrame, train: pd.DataFrame, top: int) -> pd.DataFrame:
    from benchmarks.tiling_round3 import model_of
    from benchmarks.tiling_validation import validation_row
    from workbench.kernels.timetiled import hexspaces
    from workbench.models.tiling import compare, top_candidates
    from workbench.models.tiling.points import parse_label

    every = one_per_point(points)
    rows = []
    for form in (LANE, ROWS):
        for (stencil, sizes), part in every.groupby(["stencil", "sizes"], sort=False):
            sz = parse_label(sizes)
            model = model_of(form, cal, len(sz) - 1)
            base = points[(points["stencil"] == stencil) & (points["sizes"] == sizes)
                          & (points["kind"] == "baseline")].drop_duplicates("label")
            v = validation_row(stencil, sz, compare(model, base))
            priced = compare(model, part).set_index("label")
            ranked = priced[np.isfinite(priced["predicted_s"])].sort_values("predicted_s")
            best_label = v["best_point"]
            best = float(v["best_measured_s"])
            fit_labels = set(train.loc[(train["stencil"] == stencil)
                                       & (train["sizes"] == sizes), "label"])
            in_fit = priced.loc[priced.index.isin(fit_labels)]
            cands = top_candidates(model, stencil, sz, top, keep=lambda lb, s=stencil, z=sz:
                                   hexspaces.feasible(hexspaces.hex_config(
                                       s, parse_label(lb), z)))
            known = [lb for lb in cands["label"] if lb in priced.index]
            rows.append({
                "form": form, "stencil": stencil, "sizes": sizes,
                "rmse_near_best": v["rmse_near_best"], "spearman": v["spearman"],
                "mean_ratio_near_best": 1 + v["mean_rel_error_near_best"],
                "ratio_at_best_baseline": float(priced.loc[best_label, "predicted_s"]
                                                / best),
                "picks_ratio_median": float(np.median(in_fit["predicted_s"]
                                                      / in_fit["measured_s"]))
                if len(in_fit) else np.nan,
                "first_of_measured": ranked.index[0],
                "first_of_measured_registers": float(ranked["registers"].iloc[0]),
                "first_of_measured_ratio": float(ranked["predicted_s"].iloc[0]
                                                 / ranked["measured_s"].iloc[0]),
                "first_of_measured_faster_pct": 100 * (1 - float(ranked["measured_s"].iloc[0])
                                                       / best),
                "first": cands["label"].iloc[0] if len(cands) else "",
                "top_measured": len(known),
                "first_measured_of_top_faster_pct": (100 * (1 - float(priced.loc[known[0],
                                                                           "measured_s"])
                                                     / best) if known else np.nan),
                "best_of_top_measured_faster_pct": (
                    100 * (1 - float(priced.loc[known, "measured_s"].min()) / best)
                    if known else np.nan)})
    return pd.DataFrame(rows)


def residual_tables(cal, points: pd.DataFrame) -> None:
    """Measured over predicted time of every measured 2-D point (each label once),
    mean per tile height ``tT`` and per lane shape, both forms: what the design of
    round 5 came from (the lane-pass rows) and what is left (the lane-rows rows)."""
    from benchmarks.tiling_round3 import model_of
    from workbench.models.tiling import compare
    from workbench.models.tiling.points import parse_label

    every = one_per_point(points)
    two = every[every["scheme"] == "hybrid"]
    shape = pd.DataFrame([parse_label(lb) for lb in two["label"]], index=two.index)
    for form in (LANE, ROWS):
        got = pd.concat([compare(model_of(form, cal, 2), part)
                         for _, part in two.groupby(["stencil", "sizes"])])
        got = got.join(shape)
        got["ratio"] = got["measured_s"] / got["predicted_s"]
        got["lanes"] = got["by"].astype(int).astype(str) + "x" + got["bx"].astype(str)
        launches = 2 * np.ceil(got["sizes"].map(lambda z: parse_label(z)["T"]) / got["tT"])
        got["missing_per_launch_us"] = 1e6 * (got["measured_s"] - got["predicted_s"]) / launches
        shallow = got[got["tT"] == 2].groupby("sizes")["missing_per_launch_us"].median()
        print(f"{form}: measured less predicted per launch at tT = 2, median: "
              + ", ".join(f"{z} {v:.0f} us" for z, v in shallow.items()))
        for by in ("tT", "lanes"):
            table = got.pivot_table(index="sizes", columns=by, values="ratio",
                                    aggfunc="mean")
            print(f"{form}: measured / predicted, mean per {by} (all measured 2-D points)")
            print(table.round(2).to_string())


def picks_of_the_call(points: pd.DataFrame, store: Path, builds: Path) -> pd.DataFrame:
    """The round-5 call's picks (``scripts/h100_hexagonal_round5.sh``) against the
    best baseline measured in the same call: per problem the best pick, the first pick
    (rank after the builds), and the best of the picks that no earlier call measured
    (the others were measured before, and the 2-D ones among them are in the fit)."""
    from benchmarks.tiling_round4 import measured

    got = measured(store)
    ranks = pd.read_csv(builds)
    seen = set(zip(points["stencil"], points["sizes"], points["label"]))
    rows = []
    for (stencil, sizes), part in got.groupby(["stencil", "sizes"], sort=False):
        base = float(part.loc[part["kind"] == "best-baseline", "measured_s"].min())
        picks = part[part["kind"] == "chosen-with-builds"].merge(
            ranks[(ranks["stencil"] == stencil) & (ranks["sizes"] == sizes)][
                ["label", "rank", "repriced_s"]], on="label")
        picks["faster_pct"] = 100 * (1 - picks["measured_s"] / base)
        picks["before"] = [(stencil, sizes, lb) in seen for lb in picks["label"]]
        new = picks[~picks["before"]]
        best = picks.loc[picks["measured_s"].idxmin()]
        rows.append({"stencil": stencil, "sizes": sizes, "best_baseline_ms": 1e3 * base,
                     "best_pick": best["label"], "best_pick_ms": 1e3 * best["measured_s"],
                     "best_pick_faster_pct": float(best["faster_pct"]),
                     "best_pick_measured_before": bool(best["before"]),
                     "first_pick_faster_pct": float(
                         picks.loc[picks["rank"].idxmin(), "faster_pct"]),
                     "picks": len(picks), "picks_new": len(new),
                     "best_new_pick_faster_pct": (float(new["faster_pct"].max())
                                                  if len(new) else np.nan),
                     "price_over_measured": "/".join(
                         f"{r:.2f}" for r in picks["repriced_s"] / picks["measured_s"])})
    return pd.DataFrame(rows)


def main() -> int:
    from benchmarks.tiling_round3 import measured_points
    from workbench.models.tiling import load_calibration, save_calibration
    from workbench.models.tiling.calibrate import with_scheme_constants

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, nargs="+", default=STORES)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", type=Path, default=H100 / "tiling-round5.csv")
    parser.add_argument("--update-calibration", action="store_true")
    parser.add_argument("--picks-store", type=Path, default=H100 / "hexagonal-round5.sqlite")
    parser.add_argument("--picks-builds", type=Path,
                        default=H100 / "hexagonal-round5-builds.csv.xz")
    args = parser.parse_args()
    points = measured_points(args.store)
    cal, train = fitted_calibration(points)
    c = cal.schemes[f"hybrid+{ROWS}"]
    print(f"lane-rows fit on {len(train)} measured picks (2-D: "
          f"{int((train['scheme'] == 'hybrid').sum())}): gamma {c.lane_rows:.4g} per "
          f"further row of lanes, g {c.step_global:.4g} s per cell and launch, C_iter "
          f"scale {c.provenance['C_iter_scale']:.4f} (" + ", ".join(
              f"{s} {v:.4g}" for s, v in sorted(c.C_iter.items())) + "); rms log error "
          f"{c.provenance['rms_log_error']:.4f}")
    residual_tables(cal, points)
    frame = evaluate(cal, points, train, args.top)
    frame.to_csv(args.out, index=False)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    print(frame.round(3).to_string(index=False))
    for form, part in frame.groupby("form", sort=False):
        print(f"{form:21s}: pairs with RMSE near best <= 10 %: "
              f"{int((part['rmse_near_best'] <= 0.10).sum())} of {len(part)}; measured "
              f"picks priced at (median) {part['picks_ratio_median'].median():.2f} of "
              f"their time; the measured point it ranks first against the best baseline: "
              f"{part['first_of_measured_faster_pct'].mean():+.1f} % on average")
    if args.picks_builds.exists():
        from workbench.measure.store.compressed import resolve_store_path

        if resolve_store_path(args.picks_store) is not None:
            picks = picks_of_the_call(points, args.picks_store, args.picks_builds)
            print("the round-5 call's picks (lane-rows form, selection with builds) "
                  "against the same call's best baseline:")
            print(picks.round(2).to_string(index=False))
            print(f"mean: best pick {picks['best_pick_faster_pct'].mean():+.1f} % "
                  f"({int((picks['best_pick_faster_pct'] > 0).sum())} of {len(picks)} "
                  f"faster), first pick {picks['first_pick_faster_pct'].mean():+.1f} %, "
                  f"best pick no earlier call measured "
                  f"{picks['best_new_pick_faster_pct'].mean():+.1f} % "
                  f"({int(picks['picks_new'].sum())} of {int(picks['picks'].sum())} "
                  "picks new)")
    if args.update_calibration:
        shipped = load_calibration(CALIBRATION)
        keys = [k for k in cal.schemes if k.endswith(ROWS)]
        save_calibration(with_scheme_constants(shipped, {k: cal.schemes[k] for k in keys}),
                         CALIBRATION)
        print(f"written: {CALIBRATION} ({', '.join(sorted(keys))})")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
