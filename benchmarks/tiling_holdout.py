"""Round 7 of the resident-latency extension (issue 34, item 4): the RMSE near the best
of every problem from constants that never saw it.

    python benchmarks/tiling_holdout.py [--write-calibration] [--out CSV]
        [--before-round7]

Reads every hexagonal/hybrid store shipped (``sample_data/h100/hexagonal*.sqlite``,
rounds 1-7) and, per problem, scores the lane-rows form on its baseline set (the RMSE
near the best, the mean predicted/measured there, Spearman) with constants fitted four
ways:

* ``shipped``: the constants of ``tiling-calibration-round6.json`` (2-D: round 6's,
  fitted on every measured 2-D point of rounds 1-5; 1-D: the lane-pass form's
  microbenchmark constants, no problem point);
* ``in-sample``: the round-6 fit (2-D: ``problem_fit.lane_rows_constants(...,
  per_launch=True)``; 1-D: round 7's ``problem_fit.hexagonal_constants``) on every
  measured point of every store, each label once (the median of its calls);
* ``leave-one-problem-out``: the same fit without any point of the problem scored;
* ``leave-one-size-out``: the same fit without any point of the problem's size (every
  8192^2 problem out when an 8192^2 problem is scored; the other 1-D sizes alone for a
  1-D problem; none left: no figure).

The goal (issue 34): at most 10 % on at least 7 of the nine pairs (jacobi1d 2^20, four
2-D stencils at 4096^2 and 8192^2); the other sizes are printed as hold-outs.  Beside
each figure: the measured point the constants rank first, against the best baseline.
Where the round-7 calls' stores are shipped (``hexagonal-round7.sqlite``, the new sizes;
``hexagonal-round7-picks.sqlite``, the 1-D picks again), their picks against the best
baseline of the same call (``--before-round7``: the stores of rounds
1-6 alone, as before the round-7 calls).  ``--write-calibration`` writes
``tiling-calibration-round7.json``: the shipped constants, 1-D replaced by the in-sample
1-D fit (what ``scripts/h100_hexagonal_round7.sh`` selects with).  No GPU, about a
minute.  Rounds 8 and 9 score their own fits under these protocols
(:func:`protocol_table`'s ``fit``) and their calls' picks (:func:`calls_picks`):
``benchmarks/tiling_sweep.py`` and ``benchmarks/tiling_widths.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import tiling_round5 as r5  # noqa: E402

H100 = r5.H100
ROUND7 = [H100 / "hexagonal-round7.sqlite", H100 / "hexagonal-round7-picks.sqlite"]
STORES = r5.STORES + [H100 / f"hexagonal-round{n}.sqlite" for n in ("5", "6", "6-nine")
                      ] + ROUND7
SHIPPED = H100 / "tiling-calibration-round6.json"
CALIBRATION_OUT = H100 / "tiling-calibration-round7.json"
NINE_SIZES = ("S1=1048576,T=256", "S1=4096,S2=4096,T=48", "S1=8192,S2=8192,T=48")
PROTOCOLS = ("shipped", "in-sample", "leave-one-problem-out", "leave-one-size-out")


def fitted(base, train: pd.DataFrame, dims: int, where: str):
    """``base`` with the lane-rows constants of ``dims`` fitted on ``train`` (None
    where ``train`` has no point of that many dimensions)."""
    from workbench.models.tiling.problem_fit import hexagonal_constants, lane_rows_constants

    scheme = "hexagonal" if dims == 1 else "hybrid"
    if not (train["scheme"] == scheme).any():
        return None
    if dims == 1:
        return hexagonal_constants(base, train, where=where)
    return lane_rows_constants(base, train, per_launch=True, where=where)


def score(cal, points: pd.DataFrame, stencil: str, sizes: str) -> dict:
    """The RMSE near the best over the problem's baseline set (as rounds 5 and 6
    compute it) and the measured point the constants rank first."""
    from benchmarks.tiling_round3 import model_of
    from benchmarks.tiling_validation import validation_row
    from workbench.models.tiling import compare
    from workbench.models.tiling.points import parse_label

    sz = parse_label(sizes)
    model = model_of(r5.ROWS, cal, len(sz) - 1)
    mine = points[(points["stencil"] == stencil) & (points["sizes"] == sizes)]
    base = mine[mine["kind"] == "baseline"].drop_duplicates("label")
    v = validation_row(stencil, sz, compare(model, base))
    priced = compare(model, r5.one_per_point(mine))
    first = priced.loc[priced["predicted_s"].idxmin()]
    return {"rmse_near_best": v["rmse_near_best"], "near_best": v["near_best"],
            "mean_ratio_near_best": 1 + v["mean_rel_error_near_best"],
            "spearman": v["spearman"], "baseline_points": len(base),
            "first_ranked": first["label"],
            "first_ranked_faster_pct": 100 * (1 - float(first["measured_s"])
                                              / v["best_measured_s"])}


def protocol_table(points: pd.DataFrame, shipped, micro, fit=None) -> pd.DataFrame:
    """Every problem with a baseline set, scored under every protocol (module
    docstring); ``micro``: the microbenchmark calibration the fits start from;
    ``fit(micro, train, dims, where)``: the fit (default :func:`fitted`, round 6's 2-D
    and round 7's 1-D; round 8's: ``benchmarks/tiling_sweep.py``)."""
    fit = fit or fitted
    every = r5.one_per_point(points)
    problems = points.loc[points["kind"] == "baseline", ["stencil", "sizes"]
                          ].drop_duplicates().itertuples(index=False)
    cache, rows = {}, []

    def constants(name, dims, keep):
        if name not in cache:
            cache[name] = fit(micro, every[keep], dims, name)
        return cache[name]

    for stencil, sizes in problems:
        dims = sizes.count("S")
        same = (every["stencil"] == stencil) & (every["sizes"] == sizes)
        sets = {"shipped": shipped,
                "in-sample": constants(f"all {dims}", dims, every.index == every.index),
                "leave-one-problem-out": constants(f"{dims} no {stencil} {sizes}", dims,
                                                   ~same),
                "leave-one-size-out": constants(f"{dims} no {sizes}", dims,
                                                every["sizes"] != sizes)}
        for protocol, cal in sets.items():
            row = {"stencil": stencil, "sizes": sizes, "protocol": protocol,
                   "nine": sizes in NINE_SIZES}
            if cal is None:
                rows.append(row)
                continue
            key = f"{'hexagonal' if dims == 1 else 'hybrid'}+{r5.ROWS}"
            c = cal.schemes[key]
            row.update(score(cal, points, stencil, sizes))
            row.update({"training_points": c.provenance.get("training_points", 0),
                        "C_iter_scale": c.provenance.get("C_iter_scale", np.nan),
                        "gamma": c.lane_rows, "g_ps": c.step_global * 1e12,
                        "g0_us": c.step_launch * 1e6})
            rows.append(row)
    return pd.DataFrame(rows)


def nine_summary(frame: pd.DataFrame) -> list[str]:
    """One line per form and protocol of a :func:`protocol_table` frame (``form``
    added): how many of the nine pairs are within 10 % near the best, the mean and
    the worst."""
    lines = []
    nine = frame[frame["nine"]]
    for (form, protocol), part in nine.groupby(["form", "protocol"], sort=False):
        lines.append(f"{form} {protocol:22s}: pairs of the nine within 10 %: "
                     f"{int((part['rmse_near_best'] <= 0.10).sum())} of "
                     f"{int(part['rmse_near_best'].notna().sum())}, mean "
                     f"{100 * part['rmse_near_best'].mean():.1f} %, worst "
                     f"{100 * part['rmse_near_best'].max():.1f} %")
    return lines


def calls_picks(points: pd.DataFrame, store: Path, new_stores=None,
                pick_kind: str = "chosen-with-builds", builds: Path | None = None
                ) -> pd.DataFrame:
    """A round-7 call's picks against the best baseline of the same call (the best
    baseline point measured again, or, at a size no earlier call measured, the best of
    the baseline set the call measured)."""
    from benchmarks.tiling_round4 import measured

    got = measured(store)
    builds = builds or store.with_name(store.name.replace(".sqlite", "-builds.csv"))
    ranks = pd.read_csv(builds) if builds.exists() else pd.DataFrame(
        columns=["stencil", "sizes", "label", "rank"])
    new_stores = ROUND7 if new_stores is None else new_stores
    seen = set(zip(*[points.loc[~points["store"].isin([p.name for p in new_stores]), c]
                     for c in ("stencil", "sizes", "label")]))
    rows = []
    for (stencil, sizes), part in got.groupby(["stencil", "sizes"], sort=False):
        picks = part[part["kind"] == pick_kind].merge(
            ranks[(ranks["stencil"] == stencil) & (ranks["sizes"] == sizes)][
                ["label", "rank"]], on="label", how="left").sort_values("rank")
        base = part[part["kind"].isin(("best-baseline", "baseline"))]
        if picks.empty or base.empty:
            continue
        best = float(base["measured_s"].min())
        top = picks.loc[picks["measured_s"].idxmin()]
        new = picks[[(stencil, sizes, lb) not in seen for lb in picks["label"]]]
        rows.append({"stencil": stencil, "sizes": sizes,
                     "against": "/".join(sorted(set(base["kind"]))),
                     "best_baseline_ms": 1e3 * best,
                     "best_baseline": base.loc[base["measured_s"].idxmin(), "label"],
                     "best_pick": top["label"], "best_pick_ms": 1e3 * top["measured_s"],
                     "best_pick_measured_before": (stencil, sizes, top["label"]) in seen,
                     "best_pick_faster_pct": 100 * (1 - float(top["measured_s"]) / best),
                     "first_pick_faster_pct": 100 * (1 - float(picks["measured_s"].iloc[0])
                                                     / best),
                     "picks": len(picks), "picks_new": len(new)})
    return pd.DataFrame(rows)


def main() -> int:
    from benchmarks.tiling_round3 import measured_points
    from benchmarks.tiling_side_by_side import LADDERS, MICROBENCH, resident_calibration
    from workbench.measure.store.compressed import resolve_store_path
    from workbench.models.tiling import load_calibration, save_calibration
    from workbench.models.tiling.calibrate import with_scheme_constants

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=H100 / "tiling-holdout.csv.xz")
    parser.add_argument("--write-calibration", action="store_true")
    parser.add_argument("--before-round7", action="store_true")
    args = parser.parse_args()
    stores = [p for p in STORES if not (args.before_round7 and p.name.startswith(
        "hexagonal-round7"))]
    points = measured_points(stores)
    shipped = load_calibration(SHIPPED)
    micro = resident_calibration(MICROBENCH, LADDERS)
    frame = protocol_table(points, shipped, micro)
    frame.to_csv(args.out, index=False)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    pd.set_option("display.max_rows", 200)
    cols = ["stencil", "sizes", "protocol", "training_points", "C_iter_scale", "gamma",
            "g_ps", "g0_us", "baseline_points", "near_best", "rmse_near_best",
            "mean_ratio_near_best", "spearman", "first_ranked_faster_pct"]
    print(frame[cols].round(4).to_string(index=False))
    wide = frame.pivot_table(index=["stencil", "sizes"], columns="protocol",
                             values="rmse_near_best", sort=False)[list(PROTOCOLS)]
    print("RMSE near the best, per problem and protocol:")
    print((100 * wide).round(1).to_string())
    nine = frame[frame["nine"]]
    for protocol in PROTOCOLS:
        part = nine[nine["protocol"] == protocol]
        ok = part["rmse_near_best"] <= 0.10
        print(f"{protocol:22s}: pairs of the nine with RMSE near best <= 10 %: "
              f"{int(ok.sum())} of {int(part['rmse_near_best'].notna().sum())} scored; "
              "the measured point ranked first against the best baseline: "
              f"{part['first_ranked_faster_pct'].mean():+.1f} % on average")
    for store in ROUND7:
        if resolve_store_path(store) is not None and store in stores:
            call = calls_picks(points, store)
            print(f"the picks of {store.name}'s call against the same call's best "
                  "baseline:")
            print(call.round(2).to_string(index=False))
    if args.write_calibration:
        one = fitted(micro, r5.one_per_point(points), 1, "every measured 1-D point "
                     "(each label once, the median of its calls) of the shipped "
                     "hexagonal stores")
        key = f"hexagonal+{r5.ROWS}"
        save_calibration(with_scheme_constants(shipped, {key: one.schemes[key]}),
                         CALIBRATION_OUT)
        print(f"written: {CALIBRATION_OUT} ({key}; the 2-D constants are round 6's)")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
