"""Round 23 of #34: which leave-one-kernel-out folds a candidate moves, and why.

For each model named (default: chains38, chains46, chains47), the choice benchmark's
leave-one-kernel-out (``default_model_choice.loko``: the same data, the same fits, the
anchored fit for chains47) is run, and beside its per-kernel figures this prints

- per held-out kernel and precision, the geometric-mean relative error and the median
  predicted / measured ratio of the held-out points;
- per fold, the launch, group and wave weights each fit took (recorded as the fits run);
- per held-out point, predicted / measured (``--points``);

and first, at the shipped weights of the first model, which training rows the other
models' expressions move (the rows whose prediction changes by more than 0.1 % when only
the expression changes), per kernel and precision.  Writes nothing; its output is kept
in ``sample_data/h100/round23-loko-folds.txt.xz``.

Run: ``python benchmarks/round23_loko_folds.py [--points] [LABEL ...]`` (on the 2-core VM about
70-90 s of CPU a model's LOKO and a minute for its unseen sets; 601 s for round 23's four).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import default_model_choice as choice  # noqa: E402

HELD = ("p_launch", "p_groups", "p_waves")


def training_data(model_file: str) -> pd.DataFrame:
    """The rows every fold of ``model_file``'s LOKO trains on (catalog and extra stores)."""
    from workbench.models import get_family, load_store_dataset
    from workbench.models.validation import ExpressionFit

    spec = get_family("expression").spec(str(choice.ROOT / model_file))
    data = load_store_dataset(choice.STORE, granularity=spec.granularity,
                              subgroup_size=spec.subgroup_size)
    extra = [load_store_dataset(p, granularity=spec.granularity,
                                subgroup_size=spec.subgroup_size)
             for p in choice.EXTRA_STORES.get(model_file, ())]
    data = pd.concat([data, *extra], ignore_index=True, sort=False)
    features = [c for c in data.columns if c.startswith("f_")]
    data[features] = data[features].fillna(0.0)
    return ExpressionFit(spec).prepare(data.reset_index(drop=True))


def moved_rows(labels) -> pd.DataFrame:
    """Per training kernel and precision: how far each other model's expression moves the
    prediction at the first model's shipped weights (min and max ratio - 1)."""
    from workbench.models import get_family, load_model

    first_file, first_weights = choice.CANDIDATES[labels[0]]
    weights = load_model(choice.H100 / first_weights).parameters
    specs = {}
    for label in labels:
        model_file = choice.ANCHORED.get(choice.CANDIDATES[label][0],
                                         (choice.CANDIDATES[label][0],))[0]
        specs[label] = get_family("expression").spec(str(choice.ROOT / model_file))
    data = training_data(first_file)
    for spec in specs.values():
        data = training_data_extend(data, spec)
    base = specs[labels[0]].model.evaluate(
        {f: data[f].to_numpy(float) for f in specs[labels[0]].model.features}, weights)
    out = data[["kernel", "dtype"]].copy()
    out["measured_over_base"] = base / data["time_s"].to_numpy(float)
    for label in labels[1:]:
        value = specs[label].model.evaluate(
            {f: data[f].to_numpy(float) for f in specs[label].model.features},
            {**weights, **{p: weights.get(p, 0.0) for p in specs[label].model.parameters}})
        out[label] = value / base - 1
    table = out.groupby(["kernel", "dtype"]).agg(
        rows=("measured_over_base", "size"), base_ratio=("measured_over_base", "median"),
        **{f"{label}_min": (label, "min") for label in labels[1:]},
        **{f"{label}_max": (label, "max") for label in labels[1:]})
    moved = np.zeros(len(table), dtype=bool)
    for label in labels[1:]:
        moved |= (table[f"{label}_min"].abs() > 1e-3) | (table[f"{label}_max"].abs() > 1e-3)
    return table[moved]


def training_data_extend(data: pd.DataFrame, spec) -> pd.DataFrame:
    from workbench.models.validation import ExpressionFit

    return ExpressionFit(spec).prepare(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", nargs="*", default=["linear-fp64-sectors-chains38",
                                                      "linear-fp64-sectors-chains46",
                                                      "linear-fp64-sectors-chains47"])
    parser.add_argument("--points", action="store_true", help="print every held-out point")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    from workbench.models import geometric_mean
    from workbench.models.expressions import model as expression_model

    print(f"training rows moved by the expression alone, at {args.labels[0]}'s shipped weights "
          "(ratio - 1; base_ratio: predicted / measured of the first model):")
    print(moved_rows(args.labels).round(4).to_string())

    fits = []
    original = expression_model.ExpressionModel.fit

    def recording(self, data, *, model, **kwargs):
        fitted = original(self, data, model=model, **kwargs)
        fits.append({p: fitted.parameters.get(p, np.nan) for p in HELD}
                    | {"rows": len(data), "text": fitted.expression})
        return fitted

    expression_model.ExpressionModel.fit = recording
    rows = training_data(choice.CANDIDATES[args.labels[0]][0])
    for label in args.labels:
        model_file = choice.CANDIDATES[label][0]
        fits.clear()
        start, cpu = time.time(), time.process_time()
        report = choice.loko(model_file)
        print(f"\n== {label}: LOKO {report.cross_kernel_loko:.4f} "
              f"({time.process_time() - cpu:.0f} s CPU, {time.time() - start:.0f} s wall)")
        frame = pd.DataFrame([{"kernel": p.kernel, "variant": p.variant, "params": p.params,
                               "group_size": p.group_size,
                               "ratio": p.loko_predicted_s / p.measured_s,
                               "error": p.loko_rel_error} for p in report.points])
        # the points follow the data's row order kernel by kernel (the LOKO keeps it):
        # their precision is the data's
        frame["dtype"] = np.concatenate([rows.loc[rows["kernel"] == k, "dtype"].to_numpy()
                                         for k in report.kernels])
        per = frame.groupby(["kernel", "dtype"]).agg(
            points=("ratio", "size"), loko=("error", geometric_mean),
            median_ratio=("ratio", "median"), min_ratio=("ratio", "min"),
            max_ratio=("ratio", "max"))
        print(per.round(4).to_string())
        # the fits in call order: the in-sample fit, then one per held-out kernel (an
        # anchored model fits its anchor first each time)
        kernels = ["in-sample", *report.kernels]
        step = len(fits) // len(kernels)
        for kernel, i in zip(kernels, range(0, len(fits), step)):
            held = fits[i + step - 1]
            anchor = fits[i] if step > 1 else None
            line = ", ".join(f"{p} {held[p]:.4e}" if np.isfinite(held[p])
                             else f"{p} held {anchor[p]:.4e}" for p in HELD)
            print(f"  fold {kernel:<18} ({held['rows']} rows): {line}")
        if args.points:
            print(frame.round(4).to_string())
        unseen = choice.unseen_errors(choice.CANDIDATES[label][1])
        print("  unseen (unseen_accuracy): " + "; ".join(
            f"{k} {v['geomean_rel_error']:.4f} (worst {v['worst_kernel']} "
            f"{v['worst_kernel_geomean']:.3f})" for k, v in unseen.items()))
    expression_model.ExpressionModel.fit = original


if __name__ == "__main__":
    main()
