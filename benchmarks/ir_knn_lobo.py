"""Benchmark: the Lift IR-feature kNN model, leave one benchmark out, on the shipped
H100 tuning spaces.

Each catalog space measured exhaustively in ``sample_data/h100/tuning.sqlite``
(stencil2d, matmul, transpose, at their shipped sizes) is one benchmark: the model
(standardize, PCA to 95 % of the variance, kNN with k = 5 on normalized throughput)
is fitted on the other two and ranks the held-out one.  Prints per held-out space
the correlation of predicted and measured normalized throughput and the runs to
90 % and 95 % of the best in predicted order (expected over ties) against random
search's exact expectation, then every feature's normalized mutual information with
performance per space (Figure 4).  Measured figures only: no GPU needed.

Run: ``.venv/bin/python benchmarks/ir_knn_lobo.py [--store PATH] [--bins 10]``.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

STORE = "sample_data/h100/tuning.sqlite"
SPACES = ("stencil2d", "matmul", "transpose")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=STORE)
    parser.add_argument("--bins", type=int, default=10)
    args = parser.parse_args()

    from workbench.models.ir_features import (
        feature_information,
        information_frame,
        leave_one_benchmark_out,
        lobo_frame,
        space_samples,
    )
    from workbench.tuning import get_space, load_space_evaluations

    began = time.perf_counter()
    frames = []
    for name in SPACES:
        space = get_space(name)
        frames.append(space_samples(space, load_space_evaluations(args.store, space)))
    samples = pd.concat(frames, ignore_index=True)
    loaded = time.perf_counter() - began
    began = time.perf_counter()
    records = leave_one_benchmark_out(samples)
    evaluated = time.perf_counter() - began

    pd.set_option("display.width", 200)
    print(f"store {args.store}: {len(samples)} variants of {len(SPACES)} spaces "
          f"(features and times in {loaded:.2f} s; LOBO in {evaluated:.2f} s)\n")
    table = lobo_frame(records).drop(columns=["input"])
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"\nnormalized mutual information with performance ({args.bins} quantile bins; "
          "sklearn's 2I/(H(X)+H(Y)), twice the paper's R)\n")
    info = information_frame(feature_information(samples, args.bins))
    print(info.to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
