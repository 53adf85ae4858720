"""The block-size study end to end: predicted vs Nsight-measured volumes, the fitted
capacity-miss functions, and predicted vs measured performance per block shape.

    python benchmarks/block_study_volumes.py [--write-device-model] [--plots DIR]

Inputs (shipped): ``sample_data/h100/ncu-volumes.csv`` (ncu counters of the same loopy
kernels through the CUDA target, ``benchmarks/ncu_volumes.py``) and
``sample_data/h100/block-study.sqlite`` (OpenCL run times).  Steps:

1. estimate every configuration's compulsory volumes (L2 -> L1 sectors, requested
   sectors ``Vup``, allocated lines, DRAM reuse profiles) for the H100 description
   without fitted miss functions;
2. fit ``R_L1(O)`` to the measured L2 -> L1 load volume (paper eq. 5-7) and the L2
   reuse-distance miss function to the measured DRAM read volume, on all
   configurations, and again on all but the star stencil without folding (held out);
3. predict performance with the fits and compare with the measured run times: the
   measured performance of the predicted-best block as a fraction of the best
   measured, and the Spearman correlation, per kernel and variant.

Writes ``block-study-predicted.csv.xz`` and ``block-study-miss-fits.json`` next to the
inputs; ``--write-device-model`` stores the all-data fits in the shipped H100
description; ``--plots`` writes heatmaps and volume scatter plots (HTML).
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from workbench.kernels.study import lbm_spec, star_stencil_spec
from workbench.measure import MeasurementStore
from workbench.hardware.description import load_device_model
from workbench.models.roofline.limiters import (
    estimate_inputs,
    l1_oversubscription,
    roofline,
)
from workbench.models.roofline.miss_fit import VolumeObservation, fit_miss_functions

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
SPECS = {"star_stencil_3d": star_stencil_spec, "lbm_like": lbm_spec}
HELD_OUT = ("star_stencil_3d", "nofold")


def estimate_all(ncu: pd.DataFrame, device) -> list[dict]:
    rows = []
    specs = {k: f() for k, f in SPECS.items()}
    for r in ncu.itertuples():
        spec = specs[r.kernel]
        sizes = {"nx": 512, "ny": 512, "nz": 512} if r.kernel == "star_stencil_3d" \
            else {"nx": 256, "ny": 256, "nz": 256}
        block = (int(r.X), int(r.Y), int(r.Z))
        program = spec.build(spec.request(r.variant, "float64", block))
        inputs = estimate_inputs(program, sizes, device)
        rows.append({"kernel": r.kernel, "variant": r.variant, "X": block[0],
                     "Y": block[1], "Z": block[2], "sizes": sizes, "inputs": inputs,
                     "points": sizes["nx"] * sizes["ny"] * sizes["nz"],
                     "ncu": r._asdict()})
    return rows


def observations(rows) -> list[VolumeObservation]:
    return [VolumeObservation(r["inputs"], r["ncu"]["l2_load_bytes"],
                              r["ncu"]["dram_read_bytes"]) for r in rows]


def predict(rows, device) -> pd.DataFrame:
    out = []
    for r in rows:
        p = roofline(r["inputs"], device, points=r["points"])
        i = p.inputs
        out.append({
            "kernel": r["kernel"], "variant": r["variant"], "X": r["X"], "Y": r["Y"],
            "Z": r["Z"], "limiter": p.limiter.value,
            **{f"t_{lim.value}": t for lim, t in p.times.items()},
            "time": p.time, "lups": p.lups, "predicted_GLups": p.lups / 1e9,
            "pred_l2_load_bytes": i.l2_l1.load_sectors_bytes * i.blocks,
            "pred_l2_store_bytes": i.l2_l1.store_bytes * i.blocks,
            "pred_l1_requested_bytes": i.l2_l1.load_requested_bytes * i.blocks,
            "pred_dram_read_bytes": i.dram.load_bytes,
            "pred_dram_write_bytes": i.dram.store_bytes,
            "l1_oversubscription": l1_oversubscription(i, device),
            "meas_l2_load_bytes": r["ncu"]["l2_load_bytes"],
            "meas_l2_store_bytes": r["ncu"]["l2_store_bytes"],
            "meas_l1_requested_bytes": 32 * r["ncu"]["l1_load_sector_requests"],
            "meas_dram_read_bytes": r["ncu"]["dram_read_bytes"],
            "meas_dram_write_bytes": r["ncu"]["dram_write_bytes"]})
    return pd.DataFrame(out)


def attach_measured(pred: pd.DataFrame) -> pd.DataFrame:
    with MeasurementStore.open(H100 / "block-study.sqlite", create=False,
                               readonly=True) as store:
        ms = store.measurements()
    points = {k: 512 ** 3 if k == "star_stencil_3d" else 256 ** 3 for k in SPECS}
    measured = {(m.key.kernel, m.key.variant, *m.key.group_size):
                points[m.key.kernel] / m.time_s / 1e9 for m in ms}
    pred = pred.copy()
    pred["measured_GLups"] = [measured.get((k, v, x, y, z)) for k, v, x, y, z in
                              zip(pred.kernel, pred.variant, pred.X, pred.Y, pred.Z)]
    return pred


def ranking_summary(pred: pd.DataFrame) -> list[dict]:
    out = []
    for (kernel, variant), g in pred.groupby(["kernel", "variant"], sort=False):
        g = g.dropna(subset=["measured_GLups", "predicted_GLups"])
        pick = g.sort_values(["predicted_GLups"], ascending=False).iloc[0]
        best = g.sort_values("measured_GLups", ascending=False).iloc[0]
        out.append({"kernel": kernel, "variant": variant, "blocks": len(g),
                    "predicted_best": f"{pick.X}x{pick.Y}x{pick.Z}",
                    "its_measured_GLups": round(float(pick.measured_GLups), 2),
                    "best_measured": f"{best.X}x{best.Y}x{best.Z}",
                    "best_measured_GLups": round(float(best.measured_GLups), 2),
                    "fraction_of_best": round(float(pick.measured_GLups
                                                    / best.measured_GLups), 4),
                    "spearman": round(float(spearmanr(g.predicted_GLups,
                                                      g.measured_GLups).statistic), 3)})
    return out


def volume_errors(pred: pd.DataFrame) -> dict:
    def geo(p, m):
        e = np.abs(pred[p] / pred[m] - 1.0)
        return float(np.exp(np.mean(np.log(np.maximum(e, 1e-9)))))
    return {"l2_load": geo("pred_l2_load_bytes", "meas_l2_load_bytes"),
            "l1_requested": geo("pred_l1_requested_bytes", "meas_l1_requested_bytes"),
            "dram_read": geo("pred_dram_read_bytes", "meas_dram_read_bytes"),
            "dram_write": geo("pred_dram_write_bytes", "meas_dram_write_bytes")}


def _print_summary(title, summary, errors):
    print(f"\n{title}")
    print("  volume geomean relative errors: "
          + ", ".join(f"{k} {v:.1%}" for k, v in errors.items()))
    for s in summary:
        print(f"  {s['kernel']:16s} {s['variant']:7s} pick {s['predicted_best']:>9s} "
              f"{s['its_measured_GLups']:6.1f} GLup/s = {s['fraction_of_best']:.1%} of best "
              f"{s['best_measured']} ({s['best_measured_GLups']:.1f}); "
              f"Spearman {s['spearman']:.3f}")


def write_plots(pred: pd.DataFrame, folder: Path) -> None:
    from workbench.reports.heatmaps import (
        limiter_heatmaps,
        performance_heatmap,
        volume_scatter,
    )
    folder.mkdir(parents=True, exist_ok=True)
    for (kernel, variant), g in pred.groupby(["kernel", "variant"], sort=False):
        stem = f"{kernel}-{variant}"
        perf = g.assign(lups=g["predicted_GLups"] * 1e9)
        measured = g[["X", "Y", "Z"]].assign(measured=g["measured_GLups"] * 1e9)
        performance_heatmap(perf, measured, title=f"{kernel} {variant}: predicted and "
                            "measured LUP/s per block (H100)").write_html(
            folder / f"{stem}-performance.html", include_plotlyjs="cdn")
        limiter_heatmaps(g, title=f"{kernel} {variant}: time per limiter [ms]").write_html(
            folder / f"{stem}-limiters.html", include_plotlyjs="cdn")
        for level in ("l2_load", "dram_read"):
            volume_scatter(g.rename(columns={f"pred_{level}_bytes": "predicted"}),
                           g.rename(columns={f"meas_{level}_bytes": "measured"}),
                           value="predicted", title=f"{kernel} {variant}: {level} bytes, "
                           "predicted vs ncu").write_html(
                folder / f"{stem}-{level}-scatter.html", include_plotlyjs="cdn")


def read_ncu_volumes(path: Path = H100 / "ncu-volumes.csv") -> pd.DataFrame:
    """The Nsight Compute volumes: ``X.csv``, or ``X.csv.xz`` where only that exists
    (sample_data ships ``ncu-volumes.csv`` compressed to keep the tracked tree small,
    issue #25; pandas reads xz by the suffix)."""
    from workbench.shipped_files import shipped_path

    return pd.read_csv(shipped_path(path))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write-device-model", action="store_true")
    parser.add_argument("--plots", type=Path)
    parser.add_argument("--reuse-estimates", action="store_true",
                        help="reuse build/block-study-estimates.pkl from an earlier run")
    args = parser.parse_args()
    ncu = read_ncu_volumes()
    base = replace(load_device_model("h100"), miss_functions={})
    start = time.perf_counter()
    cache = ROOT / "build" / "block-study-estimates.pkl"
    if args.reuse_estimates and cache.exists():
        rows = pickle.loads(cache.read_bytes())
    else:
        rows = estimate_all(ncu, base)
        cache.parent.mkdir(exist_ok=True)
        cache.write_bytes(pickle.dumps(rows))
    print(f"estimated {len(rows)} configurations in {time.perf_counter() - start:.0f} s")

    results = {}
    compulsory = attach_measured(predict(rows, base))
    results["compulsory (no capacity misses, ideal LRU L2)"] = (
        ranking_summary(compulsory), volume_errors(compulsory), None)

    train = [r for r in rows if (r["kernel"], r["variant"]) != HELD_OUT]
    fits = {}
    for label, subset in (("all", rows), ("without star_stencil_3d nofold", train)):
        fits[label] = fit_miss_functions(observations(subset), base)
        device = replace(base, miss_functions=fits[label])
        pred = attach_measured(predict(rows, device))
        results[f"fitted on {label}"] = (ranking_summary(pred), volume_errors(pred), pred)

    for title, (summary, errors, _) in results.items():
        _print_summary(title, summary, errors)
    for label, f in fits.items():
        print(f"\nfits ({label}): " + "; ".join(
            f"{k}: a={v.a:.3f} b={v.b:.3f} c={v.c:.3f}" for k, v in f.items()))

    final = results["fitted on all"][2]
    final.to_csv(H100 / "block-study-predicted.csv.xz", index=False)   # xz by the suffix
    doc = {"device": base.name, "created": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
           "command": "python benchmarks/block_study_volumes.py",
           "fits": {label: {k: v.to_json() for k, v in f.items()}
                    for label, f in fits.items()},
           "summaries": {t: {"ranking": s, "volume_errors": e}
                         for t, (s, e, _) in results.items()}}
    (H100 / "block-study-miss-fits.json").write_text(json.dumps(doc, indent=1))
    if args.write_device_model:
        path = ROOT / "workbench" / "hardware" / "data" / "h100.json"
        model = json.loads(path.read_text())
        note = ("fitted by benchmarks/block_study_volumes.py to Nsight Compute volumes of "
                f"the block-size study (sample_data/h100/ncu-volumes.csv), {doc['created']}")
        model["miss_functions"] = {k: {**v.to_json(), "note": note}
                                   for k, v in fits["all"].items()}
        path.write_text(json.dumps(model, indent=2) + "\n")
    if args.plots:
        write_plots(final, args.plots)


if __name__ == "__main__":
    main()
