"""Prajapati et al.'s published numbers and ours, row by row: the paper's value
(GTX 980 / Titan X, cited by section, table or equation of the paper, PPoPP '17,
``docs/papers.md``, ``prajapati-time-tiling``; the text the workbench followed has no
page numbers), ours on the H100, the difference and why.

    python benchmarks/tiling_side_by_side.py [--out CSV] [--hex-store S [S ...]]

Ours come from the shipped results of ``benchmarks/tiling_validation.py``
(``sample_data/h100/tiling-{tables,validation,selection}.csv``: overlapped tiles) and,
from the stores of ``scripts/h100_hexagonal.sh`` (``--hex-store``; by default the shipped
``hexagonal.sqlite`` for 4096^2 and jacobi1d and ``hexagonal-8192.sqlite`` for 8192^2,
two device calls), the hexagonal/hybrid tiles' RMSE and selection; without any, those
rows say "not measured".
Nothing is typed in but the paper's numbers.
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
OUT = H100 / "tiling-side-by-side.csv"

#: (quantity, paper's value as printed, paper's number for the difference, where)
PAPER_TABLE2 = [("n_SM", "16 / 24", 24, "Table 2"), ("n_V", "128 / 128", 128, "Table 2"),
                ("M_SM [KB]", "96 / 96", 96, "Table 2"),
                ("R_SM", "65536 / 65536", 65536, "Table 2"),
                ("MTB_SM", "32 / 32", 32, "Table 2")]
PAPER_TABLE3 = [("L [s/GB, device]", "7.36e-3 / 5.42e-3", 5.42e-3, "Table 3"),
                ("tau_sync [s]", "7.96e-10 / 6.74e-10", 6.74e-10, "Table 3"),
                ("T_sync [s]", "9.24e-7 / 9.00e-7", 9.00e-7, "Table 3")]
PAPER_TABLE4 = {"jacobi2d": (3.39e-8, 3.83e-8), "heat2d": (3.68e-8, 4.23e-8),
                "laplacian2d": (3.11e-8, 3.81e-8), "gradient2d": (6.09e-8, 7.60e-8),
                "heat3d": (1.55e-7, 1.64e-7), "laplacian3d": (1.36e-7, 1.44e-7)}
WHY_HW = {"n_SM": "H100 SXM has 132 SMs",
          "M_SM [KB]": "H100: 228 KB shared memory per SM",
          "n_V": "same FP32 lanes per SM", "R_SM": "same register file",
          "MTB_SM": "same resident-block limit"}
WHY_T3 = {"L [s/GB, device]": "HBM3 (~3 TB/s) against GDDR5 (~0.3 TB/s)",
          "tau_sync [s]": "ours is an OpenCL barrier with the loads around it, per "
                          "group on a busy SM; the paper's a bare __syncthreads",
          "T_sync [s]": "OpenCL launch gap through pyopencl, back to back"}


def _row(section, quantity, paper_text, paper_value, ours, why, scheme="overlapped"):
    diff = (ours - paper_value) if np.isfinite(ours) and paper_value is not None else np.nan
    return {"section": section, "quantity": quantity, "scheme": scheme,
            "paper": paper_text, "paper_value": paper_value, "ours": ours,
            "difference": diff, "why": why}


def hardware_rows(tables: pd.DataFrame) -> list[dict]:
    t2 = tables[tables["table"] == "table2"].set_index("parameter")["value"]
    t3 = tables[tables["table"] == "table3"].set_index("parameter")["value"]
    t4 = tables[tables["table"] == "table4"].set_index("stencil")["C_iter [s]"]
    rows = []
    for name, text, value, where in PAPER_TABLE2:
        key = "M_SM" if name.startswith("M_SM") else name
        ours = float(t2[key]) / (1024 if key == "M_SM" else 1)
        rows.append(_row(where, name, text, value, ours, WHY_HW[name]))
    for name, text, value, where in PAPER_TABLE3:
        rows.append(_row(where, name, text, value, float(t3[name]), WHY_T3[name]))
    for stencil, (gtx, titan) in PAPER_TABLE4.items():
        rows.append(_row("Table 4", f"C_iter {stencil} [s]", f"{gtx:.3g} / {titan:.3g}",
                         titan, float(t4.get(stencil, np.nan)),
                         "per lane and point on a faster SM (1.98 GHz, 4th-gen tensor-"
                         "era FP32 pipes); ours also holds the loopy kernel's guards"))
    return rows


def validation_rows(validation: pd.DataFrame, scheme: str) -> list[dict]:
    rows = []
    for r in validation.itertuples(index=False):
        if scheme == "overlapped":
            why = ("redundant halo work and the model's flat C_iter: error grows with tT "
                   "(see the notebook)")
        else:
            # the hexagonal code's own costs: its ranking holds, its scale does not
            why = (f"predicted/measured {r.mean_rel_error_near_best + 1:.2f} on average "
                   f"near the best, Spearman {r.spearman:.2f} over all points: C_iter "
                   "and L are calibrated on the overlapped microbenchmarks, while the "
                   "generated hexagonal code pays its circular-window indexing and two "
                   "barriers per row on every point; the ranking holds, the scale not")
        rows.append(_row("5.3", f"RMSE within 20% of best, {r.stencil} {r.sizes}",
                         "< 10% (every stencil, both GPUs)", 0.10,
                         float(r.rmse_near_best), why, scheme))
    if len(validation):
        rows.append(_row("5.3", "RMSE all points (range)", "45% - 200%", None,
                         float(validation["rmse_all"].max()),
                         f"ours {validation['rmse_all'].min():.0%} - "
                         f"{validation['rmse_all'].max():.0%}: baseline sets of large "
                         "tiles only, short T", scheme))
        met = int((validation["rmse_near_best"] <= 0.10).sum())
        rows.append(_row("5.3", "stencil-size pairs with RMSE <= 10% near best",
                         "all", None, float(met),
                         f"{met} of {len(validation)} (goal: 10 of 12)", scheme))
    return rows


def selection_rows(selection: pd.DataFrame, scheme: str) -> list[dict]:
    rows = [_row("6.2", f"selected vs best baseline, {r.stencil} {r.sizes} [% faster]",
                 "+9% on average, up to +17% (Gradient2D 8192^2: 19.8 s -> 16.5 s)",
                 9.0, float(r.selected_faster_pct),
                 "model's picks measured against the best baseline point", scheme)
            for r in selection.itertuples(index=False)]
    if len(selection):
        rows.append(_row("6.2 / abstract", "selected vs best baseline, mean [% faster]",
                         "+9%", 9.0, float(selection["selected_faster_pct"].mean()),
                         "goal: >= 0 (at least as fast as the best baseline)", scheme))
    return rows


def hex_results(store_path: Path):
    """Validation and selection frames of the hexagonal store (as
    ``benchmarks/tiling_validation.py`` computes them for the overlapped store)."""
    from benchmarks.tiling_validation import model_of, validation_row
    from workbench.measure.store import MeasurementStore
    from workbench.models.tiling import compare, measured_frame
    from workbench.models.tiling.points import parse_label

    _, model = model_of(H100 / "tiling-calibration.json")
    validation, selection = [], []
    with MeasurementStore.open(store_path, create=False, readonly=True) as store:
        names = sorted({c.name for c in store.campaigns()
                        if c.name.startswith("tune/hx_")})
        for name in names:
            _, space, kind, sizes = name.split("/", 3)
            if kind != "baseline":
                continue
            stencil = space[3:]
            base = {m.key.variant: m for m in store.measurements(campaign=name, status=None)}
            chosen_name = f"tune/{space}/chosen/{sizes}"
            chosen = {m.key.variant: m for m in store.measurements(campaign=chosen_name,
                                                                   status=None)}
            frame = compare(model, measured_frame(base.values()))
            if frame.empty:
                continue
            validation.append(validation_row(stencil, parse_label(sizes), frame))
            if chosen:
                picked = measured_frame(chosen.values())
                best_base = float(frame["measured_s"].min())
                selection.append({"stencil": stencil, "sizes": sizes,
                                  "selected_faster_pct": 100.0 * (
                                      1.0 - float(picked["measured_s"].min()) / best_base)})
    return pd.DataFrame(validation), pd.DataFrame(selection)


def side_by_side(hex_stores: list[Path] | None = None) -> pd.DataFrame:
    from workbench.measure.store.compressed import resolve_store_path
    tables = pd.read_csv(H100 / "tiling-tables.csv")
    validation = pd.read_csv(H100 / "tiling-validation.csv")
    selection = pd.read_csv(H100 / "tiling-selection.csv")
    rows = hardware_rows(tables) + validation_rows(validation, "overlapped") + \
        selection_rows(selection, "overlapped")
    scheme = "hexagonal/hybrid"
    found = [resolve_store_path(s) for s in hex_stores or ()]
    found = [s for s in found if s is not None]
    if found:
        frames = [hex_results(s) for s in found]
        hv = pd.concat([v for v, _ in frames], ignore_index=True)
        hs = pd.concat([h for _, h in frames], ignore_index=True)
        rows += validation_rows(hv, scheme) + selection_rows(hs, scheme)
    else:
        rows.append(_row("5.3 / 6.2", "the paper's own scheme on the H100", "measured",
                         None, np.nan, "not measured yet: scripts/h100_hexagonal.sh "
                         "writes the store, --hex-store reads it", scheme))
    return pd.DataFrame(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--hex-store", type=Path, nargs="+",
                        default=[H100 / "hexagonal.sqlite", H100 / "hexagonal-8192.sqlite"])
    args = parser.parse_args()
    frame = side_by_side(args.hex_store)
    frame.to_csv(args.out, index=False)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_colwidth", 60)
    print(frame[["section", "quantity", "scheme", "paper", "ours", "difference"]]
          .to_string(index=False))
    print(f"\nwritten: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
