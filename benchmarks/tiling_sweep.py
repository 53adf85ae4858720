"""Round 8 of the resident-latency extension (issue 34): the 2-D sweep from a
microbenchmark, partial last rounds, and picks on sizes no call measured.

    python benchmarks/tiling_sweep.py [--write-calibration] [--plan JSON] [--out CSV]

Reads ``sample_data/h100/hexagonal-round8.sqlite`` (the sweep microbenchmark: single
launches of a full A row of the hybrid kernel, jacobi2d, 4 tiles on 5 grids, campaign
``hexagonal-sweep``) and every hexagonal store (rounds 1-8).  Prints:

1. the single launches against the lane-rows form's tile part (round 6's 2-D constants
   with the sweep removed), every round at full price (rounds 5-7) and with the last,
   partial round priced at the groups per SM it leaves (``partial_rounds``);
2. the sweep: what a row of hexagons costs inside a problem's launch sequence beyond
   the same launch alone (problem points with a microbenchmark's tile, size and
   registers' ``k``), and ``g_0 + g S1 S2`` fitted to those differences;
3. the protocols of ``benchmarks/tiling_holdout.py`` (in-sample, leave-one-problem-out,
   leave-one-size-out) for round 8's 2-D form: the sweep of 2. fixed, partial rounds,
   gamma and the ``C_iter`` scale fitted (1-D: round 7's, unchanged);
4. where the round-8 picks call is shipped, its picks against the best baseline of the
   same call, and the RMSE near the best on its hold-out baseline sets.

``--write-calibration``: ``tiling-calibration-round8.json`` (the in-sample fit, round
7's 1-D constants), what ``scripts/h100_hexagonal_round8.sh ... picks`` selects with (the
shipped file was written at commit c9c7139, before the picks call's store existed; with
that store in the pool the fit moves, so do not rewrite it to reproduce the call).
``--plan``: the baseline points the picks call measures.  No GPU, about a minute.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import tiling_holdout as ho  # noqa: E402
from benchmarks import tiling_round5 as r5  # noqa: E402

H100 = r5.H100
ROUND8 = H100 / "hexagonal-round8.sqlite"
ROUND8_PICKS = H100 / "hexagonal-round8-picks.sqlite"
STORES = ho.STORES + [ROUND8, ROUND8_PICKS]
SHIPPED = H100 / "tiling-calibration-round7.json"
CALIBRATION_OUT = H100 / "tiling-calibration-round8.json"
KEY = f"hybrid+{r5.ROWS}"
#: sizes no call measured before round 8's picks call, per stencil
HOLDOUT = (("heat2d", 10240), ("gradient2d", 10240), ("laplacian2d", 10240),
           ("jacobi2d", 5120), ("jacobi2d", 12288))


def sizes_of(n: int) -> str:
    return f"S1={n},S2={n},T=48"


def microbench_launches(store_path, campaign: str, more=None) -> pd.DataFrame:
    """A hexagonal microbenchmark's launches: tile, size, registers, time, and the
    fields ``more(facts, lanes)`` adds (``lanes``: the group's ``(by, bx)``)."""
    from workbench.measure.store import MeasurementStore
    from workbench.measure.store.compressed import resolve_store_path

    rows = []
    with MeasurementStore.open(resolve_store_path(store_path), create=False,
                               readonly=True) as store:
        for m in store.measurements(campaign=campaign):
            f = m.extra["facts"]
            lanes = m.key.variant.split("thr=")[1].split(",")[0].split("x")
            regs = re.search(r"Used (\d+) registers", m.extra.get("build_log", ""))
            rows.append({"label": f"tT={f['t_T']},tS1={f['t_S1']},tS2={f['inner']},"
                                  f"bx={lanes[1]},by={lanes[0]}",
                         "S": int(f["shape"][0]), "groups": int(f["groups"]),
                         "registers": float(regs.group(1)) if regs else np.nan,
                         "launch_ms": 1e3 * min(m.raw_times_s),
                         **(more(f, lanes) if more else {})})
    return pd.DataFrame(rows)


def sweep_launches() -> pd.DataFrame:
    """The sweep microbenchmark's launches: tile, size, registers, time."""
    return microbench_launches(ROUND8, "hexagonal-sweep")


def row_prices(cal, frame: pd.DataFrame) -> np.ndarray:
    """The lane-rows form's price of one row of hexagons of each point (its problem's
    ``T_alg`` less the launch gaps, over its ``2K`` rows), with the point's registers."""
    from benchmarks.tiling_round3 import model_of
    from workbench.models.tiling.points import TileArrays, parse_label
    from workbench.models.tiling.selection import problem_of

    model = model_of(r5.ROWS, cal, 2)
    out = []
    for r in frame.itertuples(index=False):
        sizes = {"S1": r.S, "S2": r.S, "T": 48}
        p = parse_label(r.label)
        q = model.quantities("jacobi2d", problem_of(sizes, 2), TileArrays.of([p], 2),
                             registers=np.array([r.registers], dtype=float))
        rows = 2 * (48 // p["tT"])
        out.append((float(q.T_alg[0]) - (rows + 1) * cal.T_sync) / rows * 1e3)
    return np.array(out)


def without_sweep(cal, partial: bool):
    c = cal.schemes[KEY]
    return replace(cal, schemes={**cal.schemes, KEY: replace(
        c, step_global=0.0, step_launch=0.0, partial_rounds=partial)})


def launch_table(cal6) -> pd.DataFrame:
    f = sweep_launches()
    for name, partial in (("full_rounds_ms", False), ("partial_rounds_ms", True)):
        f[name] = row_prices(without_sweep(cal6, partial), f)
    f["measured_over_full"] = f["launch_ms"] / f["full_rounds_ms"]
    f["measured_over_partial"] = f["launch_ms"] / f["partial_rounds_ms"]
    return f


def sweep_differences(launches: pd.DataFrame, points: pd.DataFrame) -> pd.DataFrame:
    """Problem points (jacobi2d) with a microbenchmark's tile and size whose registers
    give the same ``k``: a row's share of the measured sequence less the single launch."""
    from workbench.models.tiling.points import parse_label

    every = r5.one_per_point(points)
    every = every[every["stencil"] == "jacobi2d"]
    launches = launches.assign(sizes=[sizes_of(s) for s in launches["S"]])
    j = launches.merge(every[["sizes", "label", "measured_s", "registers"]],
                       on=["sizes", "label"], suffixes=("_launch", ""))

    def k_of(regs, label, groups):
        """(groups per SM, rounds) of the A row on the H100 (2048 threads, 64 Ki
        registers, 228 KiB of local memory per SM)."""
        p = parse_label(label)
        threads = p["bx"] * p["by"]
        local = 2 * (p["tS1"] + p["tT"]) * (p["tS2"] + p["tT"] + 1) * 4
        k = min(2048 // threads, 65536 // (int(regs) * threads), 32, (228 * 1024) // local)
        return min(k, -(-groups // 132)), -(-groups // (k * 132))

    same = [np.isfinite(a) and np.isfinite(b) and k_of(a, lb, w) == k_of(b, lb, w)
            for a, b, lb, w in zip(j["registers_launch"], j["registers"], j["label"],
                                   j["groups"])]
    j = j[same].copy()
    j["rows"] = [2 * (48 // parse_label(lb)["tT"]) for lb in j["label"]]
    j["row_in_sequence_ms"] = 1e3 * j["measured_s"] / j["rows"]
    j["extra_us"] = 1e3 * (j["row_in_sequence_ms"] - j["launch_ms"])
    j["cells_M"] = j["S"].astype(float) ** 2 / 1e6
    return j


def fit_sweep(diff: pd.DataFrame) -> tuple[float, float]:
    """``(g_0, g)`` in seconds (per launch, per cell and launch), least squares."""
    a = np.c_[np.ones(len(diff)), diff["cells_M"].to_numpy() * 1e6]
    (g0, g), *_ = np.linalg.lstsq(a, diff["extra_us"].to_numpy() * 1e-6, rcond=None)
    return float(g0), float(g)


def round8_fit(sweep=None):
    """The fit of round 8's 2-D form: partial last rounds, and gamma, the ``C_iter``
    scale, ``g`` and ``g_0`` fitted as in round 6 (``sweep``: ``(g_0, g)`` fixed
    instead, only gamma and the scale fitted); 1-D: round 7's."""
    from workbench.models.tiling.problem_fit import lane_rows_constants

    def fit(micro, train, dims, where):
        if dims == 1:
            return ho.fitted(micro, train, 1, where)
        if not (train["scheme"] == "hybrid").any():
            return None
        return lane_rows_constants(micro, train, per_launch=sweep is None, sweep=sweep,
                                   partial_rounds=True, where=where)
    return fit


def holdout_scores(points: pd.DataFrame, round7, round8) -> pd.DataFrame:
    """The RMSE near the best etc. of both constant sets on each hold-out problem's
    baseline points measured by the picks call (at 10240^2 the 8 fastest points of
    jacobi2d's set: every one is near the best, so the RMSE there is over those)."""
    mine = points[points["store"] == ROUND8_PICKS.name].copy()
    mine.loc[mine["kind"] == "best-baseline", "kind"] = "baseline"
    rows = []
    for stencil, n in HOLDOUT:
        part = mine[(mine["stencil"] == stencil) & (mine["sizes"] == sizes_of(n))]
        if (part["kind"] == "baseline").sum() < 8:
            rows.append({"stencil": stencil, "sizes": sizes_of(n), "baseline_points":
                         int((part["kind"] == "baseline").sum())})
            continue
        for name, cal in (("round7 (shipped)", round7), ("round8", round8)):
            rows.append({"stencil": stencil, "sizes": sizes_of(n), "constants": name,
                         **ho.score(cal, mine, stencil, sizes_of(n))})
    return pd.DataFrame(rows)


def plan(points: pd.DataFrame) -> dict:
    """The picks call's baseline points: at 10240^2 the 8 fastest of jacobi2d's whole
    baseline set, for each other stencil; at 12288^2 every 6th, at 5120^2 every 4th
    point of jacobi2d's baseline set (sorted labels)."""
    from workbench.kernels.timetiled import hexspaces

    j = points[(points["stencil"] == "jacobi2d") & (points["sizes"] == sizes_of(10240))
               & (points["kind"] == "baseline")].groupby("label")["measured_s"].median()
    best = list(j.nsmallest(8).index)
    out = {}
    for stencil, n in HOLDOUT:
        if n == 10240:
            out[f"{stencil} {sizes_of(n)}"] = {"best-baseline": best}
        else:
            labels = sorted(p.label for p in hexspaces.hexagonal_space(
                stencil, baseline=1, S1=n, S2=n, T=48).points())
            out[f"{stencil} {sizes_of(n)}"] = {"baseline": labels[::6 if n > 10240 else 4]}
    return out


def main() -> int:
    from benchmarks.tiling_round3 import measured_points
    from benchmarks.tiling_side_by_side import LADDERS, MICROBENCH, resident_calibration
    from workbench.measure.store.compressed import resolve_store_path
    from workbench.models.tiling import load_calibration, save_calibration
    from workbench.models.tiling.calibrate import with_scheme_constants

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=H100 / "tiling-sweep.csv.xz")
    parser.add_argument("--write-calibration", action="store_true")
    parser.add_argument("--plan", type=Path)
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    pd.set_option("display.max_rows", 300)
    stores = [p for p in STORES if resolve_store_path(p) is not None]
    points = measured_points(stores)
    cal6 = load_calibration(H100 / "tiling-calibration-round6.json")
    launches = launch_table(cal6)
    print("1. single launches (one A row) against the tile part of round 6's 2-D "
          "constants, sweep removed:")
    print(launches.round(3).to_string(index=False))
    for col in ("measured_over_full", "measured_over_partial"):
        print(f"   {col}: RMS of log {np.sqrt(np.mean(np.log(launches[col]) ** 2)):.3f}")
    diff = sweep_differences(launches, points)
    g0, g = fit_sweep(diff)
    print("2. a row inside a problem's sequence less the same launch alone:")
    print(diff[["label", "S", "registers_launch", "registers", "launch_ms",
                "row_in_sequence_ms", "extra_us"]].round(3).to_string(index=False))
    print(f"   sweep = g_0 + g S1 S2 per launch: g_0 = {g0 * 1e6:.1f} us, "
          f"g = {g * 1e12:.3f} ps per cell (round 6's fit: 37.8 us, 1.81 ps)")
    micro = resident_calibration(MICROBENCH, LADDERS)
    shipped = load_calibration(SHIPPED)
    frame = pd.concat([
        ho.protocol_table(points, shipped, micro, fit=round8_fit()).assign(form="round8"),
        ho.protocol_table(points, shipped, micro, fit=round8_fit((g0, g))).assign(
            form="round8, microbenchmark sweep"),
        ho.protocol_table(points, shipped, micro).assign(form="round7")], ignore_index=True)
    frame.to_csv(args.out, index=False)
    cols = ["form", "stencil", "sizes", "protocol", "C_iter_scale", "gamma", "g_ps", "g0_us",
            "near_best", "rmse_near_best", "mean_ratio_near_best", "spearman",
            "first_ranked_faster_pct"]
    print("3. round 8's form under the protocols ('shipped': round 7's constants):")
    print(frame[cols].round(4).to_string(index=False))
    wide = frame.pivot_table(index=["stencil", "sizes"], columns=["form", "protocol"],
                             values="rmse_near_best", sort=False)
    print("RMSE near the best (%), round 8's form (its sweep fitted, or fixed from 2.), "
          "round 7's (2-D: round 6's), on the same pool:")
    print((100 * wide).round(1).to_string())
    nine = frame[frame["nine"]]
    for (form, protocol), part in nine.groupby(["form", "protocol"], sort=False):
        print(f"{form} {protocol:22s}: pairs of the nine within 10 %: "
              f"{int((part['rmse_near_best'] <= 0.10).sum())} of "
              f"{int(part['rmse_near_best'].notna().sum())}")
    if resolve_store_path(ROUND8_PICKS) is not None:
        print("5. the sizes no call measured before the picks call, scored with the "
              "constants fixed before it (round 7's shipped ones and round 8's):")
        print(holdout_scores(points, shipped, load_calibration(CALIBRATION_OUT)
                             ).round(4).to_string(index=False))
        for kind in ("chosen-with-builds", "chosen-round7"):
            call = ho.calls_picks(points, ROUND8_PICKS, new_stores=[ROUND8_PICKS],
                                  pick_kind=kind, builds=H100 / (
                                      "hexagonal-round8-picks-builds.csv"
                                      if kind == "chosen-with-builds" else
                                      "hexagonal-round8-picks-builds-round7.csv"))
            print(f"4. the picks call's {kind} against the same call's best baseline:")
            print(call.round(2).to_string(index=False))
    if args.write_calibration:
        two = round8_fit()(micro, r5.one_per_point(points), 2,
                                  "every measured 2-D point (each label once, the median "
                                  "of its calls) of the shipped hexagonal stores, rounds 1-8")
        save_calibration(with_scheme_constants(shipped, {KEY: two.schemes[KEY]}),
                         CALIBRATION_OUT)
        print(f"written: {CALIBRATION_OUT} ({KEY}; 1-D: round 7's)")
    if args.plan:
        args.plan.write_text(json.dumps(plan(points), indent=1) + "\n")
        print(f"written: {args.plan}")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
