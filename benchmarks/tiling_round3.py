"""Round 3 of the resident-latency extension (issue 34, item 4): the lane-pass form
(a compute latency per lane pass, registers per point) beside the two-term form, on
every measured hexagonal/hybrid point, and its picks.

    python benchmarks/tiling_round3.py [--plan FILE] [--picks N] [--store S ...]

Per problem (jacobi1d 2^20 and the four 2-D stencils at 4096^2 and 8192^2), for the
two-term form (``resident-rows-passes``), the lane-pass form
(``resident-lane-passes``) and its two halves (registers per point alone, the lane-pass
compute alone): the RMSE near the best and Spearman over the baseline set, as
``benchmarks/tiling_side_by_side.py`` computes them (a measured point's own registers,
read from its build log, bound ``k``); the price each form gives the best baseline
point and the round-2 picks (predicted / measured); the point each form ranks first
among *all* measured points of the problem (baselines and every call's picks) against
the best baseline; and each form's own picks over the whole feasible space (registers
estimated per point), how many of them were measured already, and the best of those.
``--plan`` writes the picks not yet measured (with the best baseline point) as the
plan of ``scripts/h100_hexagonal_round3.sh``.  Constants: microbenchmarks and ladders
only (:func:`benchmarks.tiling_side_by_side.resident_calibration`); no GPU, about a
minute.
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

H100 = ROOT / "sample_data" / "h100"
STORES = [H100 / f"{n}.sqlite" for n in ("hexagonal", "hexagonal-8192", "hexagonal-resident",
                                          "hexagonal-lanes", "hexagonal-round3")]
BASE = "resident-rows-passes"
LANE = "resident-lane-passes"


def variants(cal):
    """The forms compared: name -> (form, calibration)."""
    out = {"two-term": (BASE, cal), "lane-pass": (LANE, cal)}
    for scheme in ("hexagonal", "hybrid"):
        key = f"{scheme}+{LANE}"
        if key not in cal.schemes:
            return out
    regs_only = {k: replace(v, lane_pass=0.0) if k.endswith(LANE) else v
                 for k, v in cal.schemes.items()}
    lanes_only = {k: replace(v, register_fit=()) if k.endswith(LANE) else v
                  for k, v in cal.schemes.items()}
    out["registers only"] = (LANE, replace(cal, schemes=regs_only))
    out["lane passes only"] = (LANE, replace(cal, schemes=lanes_only))
    return out


def measured_points(stores) -> pd.DataFrame:
    """Every measured hexagonal/hybrid point of the stores, with its campaign's kind
    (``baseline``, ``chosen``, ``best-baseline``, ``chosen-<form>``)."""
    from workbench.measure.store import MeasurementStore
    from workbench.measure.store.compressed import resolve_store_path
    from workbench.models.tiling import measured_frame

    frames = []
    for path in stores:
        found = resolve_store_path(path)
        if found is None:
            continue
        with MeasurementStore.open(found, create=False, readonly=True) as store:
            for c in store.campaigns():
                if not c.name.startswith("tune/hx_"):
                    continue
                f = measured_frame(store.measurements(campaign=c.name, status=None))
                f["kind"], f["store"] = c.name.split("/")[2], Path(str(path)).name
                frames.append(f)
    return pd.concat(frames, ignore_index=True)


def model_of(form, cal, dims):
    from workbench.models.tiling import TilingModel
    from workbench.models.tiling.schemes import Scheme

    return TilingModel().ready(device_model="h100", calibration=cal, form=form,
                               scheme=Scheme.paper(dims).value,
                               registers=dict(cal.provenance.get("registers_per_item")
                                              or {}))


def own_picks(model, stencil, sizes_text, count):
    """The form's picks: the feasible space's points within 10 % of its minimum that
    the generator builds, fastest first, at most ``count``."""
    from workbench.kernels.timetiled import hexspaces
    from workbench.models.tiling import evaluate_grid, feasible_grid, near_minimum, point_labels
    from workbench.models.tiling.points import parse_label
    from workbench.models.tiling.schemes import Scheme

    sizes = parse_label(sizes_text)
    dims = len(sizes) - 1
    frame = evaluate_grid(model, stencil, sizes,
                          feasible_grid(dims, sizes["T"], scheme=Scheme.paper(dims)))
    near = near_minimum(frame, 0.10)
    labels, prices = [], []
    for label, price in zip(point_labels(near, dims), near["T_alg_s"]):
        if hexspaces.feasible(hexspaces.hex_config(stencil, parse_label(label), sizes)):
            labels.append(label)
            prices.append(float(price))
        if len(labels) == count:
            break
    return labels, prices


def evaluate(cal, points: pd.DataFrame, picks: int):
    from scipy import stats

    from benchmarks.tiling_validation import validation_row
    from workbench.models.tiling import compare
    from workbench.models.tiling.points import parse_label

    rows, plans = [], {}
    one = points.drop_duplicates(["stencil", "sizes", "label", "store", "kind"])
    for name, (form, c) in variants(cal).items():
        for (stencil, sizes), part in one.groupby(["stencil", "sizes"], sort=False):
            model = model_of(form, c, len(parse_label(sizes)) - 1)
            base = part[part["kind"] == "baseline"].drop_duplicates("label")
            compared = compare(model, base)
            v = validation_row(stencil, parse_label(sizes), compared)
            # all measured points, each label once at its median over the calls
            every = part.groupby("label", as_index=False).agg(
                measured_s=("measured_s", "median"), registers=("registers", "max"),
                stencil=("stencil", "first"), sizes=("sizes", "first"),
                scheme=("scheme", "first"))
            ranked = compare(model, every)
            ranked = ranked[np.isfinite(ranked["predicted_s"])]
            first = ranked.loc[ranked["predicted_s"].idxmin()]
            best = float(base["measured_s"].min())
            best_label = base.loc[base["measured_s"].idxmin(), "label"]
            at_best = ranked.set_index("label").loc[best_label]
            labels, prices = own_picks(model, stencil, sizes, picks)
            known = ranked.set_index("label")
            measured = [lb for lb in labels if lb in known.index]
            best_pick = (known.loc[measured, "measured_s"].min() if measured else np.nan)
            rows.append({
                "variant": name, "stencil": stencil, "sizes": sizes,
                "rmse_near_best": v["rmse_near_best"], "spearman": v["spearman"],
                "spearman_all_measured": float(stats.spearmanr(
                    ranked["predicted_s"], ranked["measured_s"])[0]),
                "ratio_at_best_baseline": float(at_best["predicted_s"] / at_best["measured_s"]),
                "first_of_measured": first["label"],
                "first_of_measured_faster_pct": 100 * (1 - float(first["measured_s"]) / best),
                "picks": len(labels), "picks_measured": len(measured),
                "best_measured_pick_faster_pct": 100 * (1 - best_pick / best),
                "first_pick": labels[0] if labels else "",
                "first_pick_price_ratio_to_best_baseline": (
                    prices[0] / float(at_best["predicted_s"]) if labels else np.nan)})
            new = [lb for lb in labels if lb not in known.index]
            if name == "lane-pass" and new:
                plans[f"{stencil} {sizes}"] = {"best-baseline": [best_label],
                                               "chosen-lane-passes": new}
    return pd.DataFrame(rows), plans


def register_check(cal, points: pd.DataFrame) -> None:
    """How the register fit (microbenchmark builds only) meets the registers every
    measured point was built with: mean absolute error, bias, correlation, per kind."""
    from workbench.models.tiling.points import TileArrays, parse_label, stencil_dims
    from workbench.models.tiling.schemes import estimated_registers

    one = points.dropna(subset=["registers"]).drop_duplicates(["stencil", "label"])
    for scheme in ("hexagonal", "hybrid"):
        fit = cal.schemes[f"{scheme}+{LANE}"].register_fit
        part = one[one["scheme"] == scheme]
        dims = stencil_dims(part["stencil"].iloc[0])
        tiles = TileArrays.of([parse_label(lb) for lb in part["label"]], dims)
        guess = estimated_registers(fit, tiles.t_T, tiles.t_S[0], tiles.lanes,
                                    tiles.t_S[1] if dims == 2 else None)
        err = guess - part["registers"].to_numpy()
        picks = ~part["kind"].isin(["baseline", "best-baseline"]).to_numpy()
        corr = (np.corrcoef(guess, part["registers"])[0, 1] if np.std(guess) > 0
                else float("nan"))
        print(f"register fit, {scheme}: {len(part)} built points, mean absolute error "
              f"{np.mean(np.abs(err)):.1f}, bias {np.mean(err):+.1f} (picks: "
              f"{np.mean(err[picks]):+.1f} over {int(picks.sum())}), correlation {corr:.2f}; "
              f"built with {int(part['registers'].min())}-{int(part['registers'].max())}")


def main() -> int:
    from benchmarks.tiling_side_by_side import LADDERS, MICROBENCH, resident_calibration

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, nargs="+", default=STORES)
    parser.add_argument("--picks", type=int, default=8)
    parser.add_argument("--plan", type=Path)
    parser.add_argument("--out", type=Path, default=H100 / "tiling-round3.csv.xz")
    args = parser.parse_args()
    cal = resident_calibration(MICROBENCH, LADDERS)
    for key in sorted(k for k in cal.schemes if k.endswith(LANE)):
        c = cal.schemes[key]
        print(f"{key}: L {c.L:.3g}, row {c.row_latency:.3g} s, pass {c.pass_latency:.3g} s, "
              f"lane pass {c.lane_pass:.3g} s, registers fit {c.register_fit}")
    points = measured_points(args.store)
    register_check(cal, points)
    frame, plans = evaluate(cal, points, args.picks)
    frame.to_csv(args.out, index=False)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    show = frame.drop(columns=["first_of_measured", "first_pick"])
    print(show.round(3).to_string(index=False))
    for name, part in frame.groupby("variant", sort=False):
        first = part["first_of_measured_faster_pct"].mean()
        print(f"{name:17s}: pairs with RMSE near best <= 10 %: "
              f"{int((part['rmse_near_best'] <= 0.10).sum())} of {len(part)}; first of the "
              f"measured points vs best baseline, mean {first:+.1f} %; best measured pick, "
              f"mean {part['best_measured_pick_faster_pct'].mean():+.1f} %; picks measured "
              f"{int(part['picks_measured'].sum())} of {int(part['picks'].sum())}")
    if args.plan:
        args.plan.write_text(json.dumps(plans, indent=1) + "\n")
        print(f"written: {args.plan} ({sum(len(v['chosen-lane-passes']) for v in plans.values())}"
              " picks not measured)")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
