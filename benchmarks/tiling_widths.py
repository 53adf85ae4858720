"""Round 9 of the resident-latency extension (issue 34): what a sub-tile width that is
not a multiple of the lanes costs, and picks on sizes no call measured.

    python benchmarks/tiling_widths.py [--write-calibration] [--plan JSON] [--out CSV]
        [--quick]

Reads ``sample_data/h100/hexagonal-round9.sqlite`` (the width microbenchmark: single
launches of a full A row of the hybrid kernel, jacobi2d, 4 tiles at sub-tile widths
192-320, campaign ``hexagonal-widths``) and every hexagonal store (rounds 1-9).  Prints:

1. the single launches against the lane-rows form's tile part (round 7's shipped 2-D
   constants, sweep removed, partial last rounds), with the inner axis's load passes
   counted whole (rounds 2-8) and in warps (``warp_loads``: the share of a pass's warps
   that have a word to load), and the pass latency that fits the launches; the RMS of
   log(measured / priced), over all and within each tile's series of widths;
2. the protocols of ``benchmarks/tiling_holdout.py`` (in-sample, leave-one-problem-out,
   leave-one-size-out) for round 9's 2-D form (round 8's with load passes counted in
   warps and the pass latency that 1. fits, both fixed; gamma, ``g``, ``g_0`` and the
   ``C_iter`` scale fitted), round 8's and round 7's (1-D: round 7's, unchanged);
3. where the round-9 picks call is shipped (``hexagonal-round9-picks.sqlite``), its
   picks against the best baseline of the same call, and the RMSE near the best of the
   constants fixed before the call on its baseline points.

``--write-calibration``: ``tiling-calibration-round9.json`` (the in-sample fit; 1-D:
round 7's), what ``scripts/h100_hexagonal_round9.sh ... picks`` selects with (written
before the picks call's store existed; do not rewrite it to reproduce the call).
``--plan``: the baseline points the picks call measures.  ``--quick``: 1. only (and
the files asked for).  No
GPU, a few minutes.
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
from benchmarks import tiling_sweep as sw  # noqa: E402

H100 = r5.H100
ROUND9 = H100 / "hexagonal-round9.sqlite"
ROUND9_PICKS = H100 / "hexagonal-round9-picks.sqlite"
STORES = sw.STORES + [ROUND9_PICKS]
#: the constants shipped until round 11 (round 7's; `tiling-calibration.json` then)
SHIPPED = H100 / "tiling-calibration-round7.json"
CALIBRATION_OUT = H100 / "tiling-calibration-round9.json"
KEY = sw.KEY
LANE_PASSES = "hybrid+resident-lane-passes"
#: sizes no call measured before round 9's picks call, per stencil (10240^2: the size
#: whose round-8 picks lost; the stencils' points there are round 8's, none of them a
#: round-9 pick)
HOLDOUT = (("heat2d", 10240), ("laplacian2d", 10240), ("gradient2d", 10240),
           ("jacobi2d", 7168), ("heat2d", 7168), ("laplacian2d", 12288))


def width_launches() -> pd.DataFrame:
    """The width microbenchmark's launches: tile, size, sub-tiles, registers, time."""
    return sw.microbench_launches(ROUND9, "hexagonal-widths", lambda f, lanes: {
        "series": f"tT={f['t_T']},tS1={f['t_S1']},bx={lanes[1]},by={lanes[0]},"
                  f"S={f['shape'][0]}",
        "sub_tiles": int(f["sub_tiles"])})


def tile_part(cal, warps: bool, pass_latency: float | None = None):
    """``cal``'s 2-D lane-rows constants without the sweep, partial last rounds, the
    load passes counted whole or by share, and (given) another pass latency."""
    c = sw.without_sweep(cal, True)
    own = c.schemes[KEY]
    own = replace(own, warp_loads=warps, pass_latency=(
        own.pass_latency if pass_latency is None else float(pass_latency)))
    return replace(c, schemes={**c.schemes, KEY: own})


def within_series(frame: pd.DataFrame, ratio: pd.Series) -> float:
    """RMS of log(ratio) less each series' mean: how well the widths of one tile are
    priced against each other, whatever the series' level."""
    lg = np.log(ratio)
    return float(np.sqrt(np.mean((lg - lg.groupby(frame["series"]).transform("mean")) ** 2)))


def fit_pass_latency(cal, launches: pd.DataFrame) -> float:
    """The pass latency (seconds per load pass) that fits the launches best with
    load passes counted in warps (least squares of log(measured / priced))."""
    from scipy.optimize import least_squares

    def residuals(x):
        return np.log(launches["launch_ms"].to_numpy()
                      / sw.row_prices(tile_part(cal, True, x[0] * 1e-7), launches))

    start = cal.schemes[KEY].pass_latency * 1e7
    return float(least_squares(residuals, (start,), bounds=((0.0,), (20.0,)),
                               diff_step=1e-3).x[0]) * 1e-7


def launch_table(cal) -> tuple[pd.DataFrame, float]:
    """1. of the module docstring: the launches priced three ways, and the fitted pass
    latency."""
    f = width_launches()
    f = f[np.isfinite(sw.row_prices(tile_part(cal, False), f))].reset_index(drop=True)
    latency = fit_pass_latency(cal, f)
    for name, frac, lat in (("whole", False, None), ("warps", True, None),
                            ("warps_fitted", True, latency)):
        f[f"priced_{name}_ms"] = sw.row_prices(tile_part(cal, frac, lat), f)
        f[f"ratio_{name}"] = f["launch_ms"] / f[f"priced_{name}_ms"]
    return f, latency


def with_pass_latency(micro, latency: float):
    """The microbenchmark calibration with the 2-D lane-pass constants' pass latency
    replaced (the lane-rows fit starts from them)."""
    own = micro.schemes[LANE_PASSES]
    return replace(micro, schemes={**micro.schemes, LANE_PASSES: replace(
        own, pass_latency=float(latency))})


def round9_fit(latency: float | None = None):
    """Round 9's 2-D fit: partial last rounds (round 8), load passes counted in warps
    (the pass latency the ladders', or ``latency``), gamma, ``g``, ``g_0`` and the
    ``C_iter`` scale fitted on problem points as in round 6; 1-D: round 7's."""
    from workbench.models.tiling.problem_fit import lane_rows_constants

    def fit(micro, train, dims, where):
        if dims == 1:
            return ho.fitted(micro, train, 1, where)
        if not (train["scheme"] == "hybrid").any():
            return None
        base = micro if latency is None else with_pass_latency(micro, latency)
        return lane_rows_constants(base, train,
                                   per_launch=True, partial_rounds=True,
                                   warp_loads=True, where=where)
    return fit


def sizes_of(n: int) -> str:
    return sw.sizes_of(n)


def plan(points: pd.DataFrame) -> dict:
    """The picks call's baseline points: at 10240^2 the 16 fastest of jacobi2d's whole
    baseline set, for each other stencil (kind ``best-baseline``); at 7168^2 every 4th
    and at 12288^2 every 6th point of the stencil's baseline set (sorted labels)."""
    from workbench.kernels.timetiled import hexspaces

    j = points[(points["stencil"] == "jacobi2d") & (points["sizes"] == sizes_of(10240))
               & (points["kind"] == "baseline")].groupby("label")["measured_s"].median()
    best = list(j.nsmallest(16).index)
    out = {}
    for stencil, n in HOLDOUT:
        if n == 10240:
            out[f"{stencil} {sizes_of(n)}"] = {"best-baseline": best}
        else:
            labels = sorted(p.label for p in hexspaces.hexagonal_space(
                stencil, baseline=1, S1=n, S2=n, T=48).points())
            out[f"{stencil} {sizes_of(n)}"] = {"baseline": labels[::6 if n > 10240 else 4]}
    return out


def holdout_scores(points: pd.DataFrame, sets: dict) -> pd.DataFrame:
    """The RMSE near the best etc. of each constant set on each hold-out problem's
    baseline points measured by the picks call."""
    mine = points[points["store"] == ROUND9_PICKS.name].copy()
    mine.loc[mine["kind"] == "best-baseline", "kind"] = "baseline"
    rows = []
    for stencil, n in HOLDOUT:
        part = mine[(mine["stencil"] == stencil) & (mine["sizes"] == sizes_of(n))]
        count = int((part["kind"] == "baseline").sum())
        if count < 8:
            rows.append({"stencil": stencil, "sizes": sizes_of(n), "baseline_points": count})
            continue
        for name, cal in sets.items():
            rows.append({"stencil": stencil, "sizes": sizes_of(n), "constants": name,
                         **ho.score(cal, mine, stencil, sizes_of(n))})
    return pd.DataFrame(rows)


def main() -> int:
    from benchmarks.tiling_round3 import measured_points
    from benchmarks.tiling_side_by_side import LADDERS, MICROBENCH, resident_calibration
    from workbench.measure.store.compressed import resolve_store_path
    from workbench.models.tiling import load_calibration, save_calibration
    from workbench.models.tiling.calibrate import with_scheme_constants

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=H100 / "tiling-widths.csv.xz")
    parser.add_argument("--write-calibration", action="store_true")
    parser.add_argument("--plan", type=Path)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    pd.set_option("display.max_rows", 300)
    shipped = load_calibration(SHIPPED)
    launches, latency = launch_table(shipped)
    print("1. single launches (one A row, jacobi2d) against the tile part of the shipped "
          "(round 7's) 2-D constants, sweep removed, partial last rounds:")
    cols = ["label", "S", "sub_tiles", "registers", "launch_ms", "priced_whole_ms",
            "ratio_whole", "ratio_warps", "ratio_warps_fitted"]
    print(launches[cols].round(3).to_string(index=False))
    for name in ("whole", "warps", "warps_fitted"):
        r = launches[f"ratio_{name}"]
        print(f"   {name:18s}: RMS of log {np.sqrt(np.mean(np.log(r) ** 2)):.3f}, "
              f"within each tile's widths {within_series(launches, r):.3f}")
    print(f"   pass latency fitted on the launches (warp passes): "
          f"{latency * 1e9:.1f} ns (shipped: {shipped.schemes[KEY].pass_latency * 1e9:.1f})")
    stores = [p for p in STORES if resolve_store_path(p) is not None]
    points = measured_points(stores)
    micro = resident_calibration(MICROBENCH, LADDERS)
    if args.write_calibration:
        two = round9_fit(latency)(micro, r5.one_per_point(points), 2,
                                  "every measured 2-D point (each label once, the median "
                                  "of its calls) of the shipped hexagonal stores, rounds 1-8")
        own = two.schemes[KEY]
        own = replace(own, provenance={**own.provenance, "pass_latency_from": (
            "fitted on the width microbenchmark (hexagonal-round9.sqlite, campaign "
            "hexagonal-widths) with load passes counted in warps: "
            "benchmarks/tiling_widths.py, 1."), "written": "before the round-9 picks call"})
        save_calibration(with_scheme_constants(shipped, {KEY: own}), CALIBRATION_OUT)
        print(f"written: {CALIBRATION_OUT} ({KEY}; 1-D: round 7's)")
    if args.plan:
        args.plan.write_text(json.dumps(plan(points), indent=1) + "\n")
        print(f"written: {args.plan}")
    if args.quick:
        return 0
    frame = pd.concat([
        ho.protocol_table(points, shipped, micro, fit=round9_fit(latency)).assign(
            form="round9"),
        ho.protocol_table(points, shipped, micro, fit=sw.round8_fit()).assign(form="round8"),
        ho.protocol_table(points, shipped, micro).assign(form="round7")], ignore_index=True)
    frame.to_csv(args.out, index=False)
    cols = ["form", "stencil", "sizes", "protocol", "C_iter_scale", "gamma", "g_ps", "g0_us",
            "near_best", "rmse_near_best", "mean_ratio_near_best", "spearman",
            "first_ranked_faster_pct"]
    print("2. the forms under the protocols ('shipped': round 7's constants):")
    print(frame[cols].round(4).to_string(index=False))
    wide = frame.pivot_table(index=["stencil", "sizes"], columns=["form", "protocol"],
                             values="rmse_near_best", sort=False)
    print("RMSE near the best (%), per form and protocol, on the same pool:")
    print((100 * wide).round(1).to_string())
    print("\n".join(ho.nine_summary(frame)))
    if resolve_store_path(ROUND9_PICKS) is not None:
        print("3. the sizes no call measured before the picks call, scored with the "
              "constants fixed before it (round 7's shipped ones and round 9's):")
        print(holdout_scores(points, {"round7 (shipped)": shipped, "round9": load_calibration(
            CALIBRATION_OUT)}).round(4).to_string(index=False))
        for kind, suffix in (("chosen-with-builds", ""), ("chosen-round7", "-round7")):
            call = ho.calls_picks(points, ROUND9_PICKS, new_stores=[ROUND9_PICKS],
                                  pick_kind=kind, builds=H100 / (
                                      f"hexagonal-round9-picks-builds{suffix}.csv"))
            print(f"   the picks call's {kind} against the same call's best baseline:")
            print(call.round(2).to_string(index=False))
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
