"""Predict the block-size study with the extended roofline and compare with measurements.

    python benchmarks/block_study_predict.py --kernel star_stencil --variant nofold \
        --measured sample_data/h100/block-study.sqlite --out predicted.csv

Prints the predicted-best block's measured performance as a fraction of the best
measured, and the Spearman rank correlation of predicted vs measured performance.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from scipy.stats import spearmanr

from workbench.kernels.study import lbm_spec, star_stencil_spec, study_block_sizes
from workbench.measure import MeasurementStore
from workbench.models.roofline import rank_blocks
from workbench.hardware.description import load_device_model

KERNELS = {"star_stencil": (star_stencil_spec, 1024, {"nx": 512, "ny": 512, "nz": 512}),
           "lbm": (lbm_spec, 512, {"nx": 256, "ny": 256, "nz": 256})}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel", choices=sorted(KERNELS), default="star_stencil")
    parser.add_argument("--variant", default="nofold")
    parser.add_argument("--device-model", default="h100")
    parser.add_argument("--measured", required=True)
    parser.add_argument("--out")
    parser.add_argument("--method", default="auto",
                        choices=("auto", "intervals", "enumerate", "isl"),
                        help="footprint method (enumerate and isl imply the paper's "
                             "previous-wave L2 reuse)")
    args = parser.parse_args()
    make_spec, total, params = KERNELS[args.kernel]
    spec = make_spec()
    points = params["nx"] * params["ny"] * params["nz"]
    start, cpu = time.perf_counter(), time.process_time()
    pred = rank_blocks(lambda b: spec.build(spec.request(args.variant, "float64", b)),
                       params, study_block_sizes(total),
                       load_device_model(args.device_model), points=points,
                       method=args.method, skip_errors=False)
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    with MeasurementStore.open(args.measured, create=False, readonly=True) as store:
        ms = [m for m in store.measurements(kernel=spec.name)
              if m.key.variant == args.variant]
    measured = {tuple(m.key.group_size): points / m.time_s / 1e9 for m in ms}
    pred["measured_GLups"] = [measured.get(tuple(b)) for b in
                              zip(pred["X"], pred["Y"], pred["Z"])]
    pred["predicted_GLups"] = pred["lups"] / 1e9
    both = pred.dropna(subset=["measured_GLups", "predicted_GLups"])
    pick = both.sort_values("predicted_GLups", ascending=False).iloc[0]
    best = both["measured_GLups"].max()
    rho = spearmanr(both["predicted_GLups"], both["measured_GLups"]).statistic
    if args.out:
        pred.drop(columns=["block"], errors="ignore").to_csv(args.out, index=False)
    print(f"{spec.name} {args.variant} [{args.method}]: ranked {len(pred)} blocks in {elapsed:.1f} s "
          f"({cpu:.1f} s CPU); "
          f"predicted best {int(pick.X)}x{int(pick.Y)}x{int(pick.Z)} measures "
          f"{pick.measured_GLups:.1f} GLup/s = {pick.measured_GLups / best:.1%} of the best "
          f"measured ({best:.1f}); Spearman {rho:.3f}")
    limiters = pred["limiter"].value_counts().to_dict()
    print(f"limiters: {limiters}")


if __name__ == "__main__":
    main()
