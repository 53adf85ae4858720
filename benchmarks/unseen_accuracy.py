"""Benchmark: how well each model predicts kernels no fit has seen, floors included.

Every successful measurement of the given stores (by default the shipped unseen
kernels of the H100) is predicted through the one prediction entry
(:func:`workbench.models.prediction.predict`, physical floors applied) by each model,
and compared with its measured time.  Printed per model: the geometric mean and the
worst relative error over all points, the share within 25%, the geometric mean per
kernel (the worst kernel named), and how many of the model's own times lay below a
physical floor (the floor lifted them; after it none can).

Run: ``.venv/bin/python benchmarks/unseen_accuracy.py [--store S ...]
[--model LABEL=FILE ...] [--csv OUT.csv]`` (labels ``roofline`` need no file).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import defaultdict

import numpy as np
import pandas as pd

DEFAULT_MODELS = {
    "default (overlap-fp64)": "sample_data/h100/weights-overlap-fp64.json",
    "linear-fp64": "sample_data/h100/weights-linear-fp64.json",
    "roofline": None,
}


def _model(path):
    from workbench.models import get_family, load_model

    return get_family("roofline").ready(device_model="h100") if path is None \
        else load_model(path)


def measured_candidates(stores):
    """One candidate per measured configuration (the latest measurement wins)."""
    from workbench.kernels.candidate import Candidate
    from workbench.measure.store import MeasurementStore

    latest = {}
    for path in stores:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            for m in store.measurements():
                if m.time_s is None:
                    continue
                k = m.key
                latest[(k.kernel, k.variant, k.dtype, tuple(k.group_size), k.params)] = \
                    m.time_s
    cands = [Candidate(kernel, variant, group, params, dtype)
             for (kernel, variant, dtype, group, params) in latest]
    return cands, np.array(list(latest.values()))


def evaluate(model, candidates, measured) -> pd.DataFrame:
    from workbench.models.prediction import predict

    result = predict(model, candidates)
    raw = result.raw_seconds if result.raw_seconds is not None else result.seconds
    return pd.DataFrame({
        "kernel": [c.kernel_name for c in candidates],
        "dtype": [c.dtype for c in candidates],
        "config": [c.label + " " + ",".join(f"{a}={b}" for a, b in c.params)
                   for c in candidates],
        "measured_s": measured, "predicted_s": result.seconds, "model_s": raw,
        "below_floor": [b is not None for b in (result.broken or (None,) * len(raw))],
        "rel_error": np.abs(result.seconds - measured) / measured})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", action="append",
                        help="stores of kernels no model was fitted on "
                             "(default: sample_data/h100/unseen.sqlite)")
    parser.add_argument("--model", action="append", metavar="LABEL=FILE")
    parser.add_argument("--csv", help="write every point's prediction here")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from workbench.models.contract import geometric_mean

    stores = args.store or ["sample_data/h100/unseen.sqlite"]
    models = DEFAULT_MODELS if not args.model else {
        label: (None if path in ("", "roofline") else path)
        for label, _, path in (m.partition("=") for m in args.model)}
    candidates, measured = measured_candidates(stores)
    print(f"{len(candidates)} measured configurations of "
          f"{len({c.kernel_name for c in candidates})} kernels in {', '.join(stores)}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{'model':<24} {'geomean':>8} {'worst':>8} {'<=25%':>6} {'worst kernel':>28} "
          f"{'kernels>25%':>11} {'below floor':>11}")
    frames = []
    for label, path in models.items():
        frame = evaluate(_model(path), candidates, measured)
        frame.insert(0, "model", label)
        frames.append(frame)
        per_kernel = defaultdict(list)
        for (k, d), e in zip(zip(frame["kernel"], frame["dtype"]), frame["rel_error"]):
            per_kernel[f"{k}/{d}"].append(e)
        kernel_means = {k: geometric_mean(v) for k, v in per_kernel.items()}
        worst_kernel = max(kernel_means, key=kernel_means.get)
        err = frame["rel_error"].to_numpy()
        print(f"{label:<24} {geometric_mean(err):>8.1%} {np.nanmax(err):>8.1%} "
              f"{np.mean(err <= 0.25):>6.0%} "
              f"{worst_kernel + f' {kernel_means[worst_kernel]:.0%}':>28} "
              f"{sum(v > 0.25 for v in kernel_means.values()):>5}/{len(kernel_means):<5} "
              f"{int(frame['below_floor'].sum()):>11}", flush=True)
    if args.csv:
        pd.concat(frames).to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
