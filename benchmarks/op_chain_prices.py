"""Benchmark: the prices of round 11 of issue #34 (one operation in a dependent chain,
per precision), read from the ``op_chain`` measurements.

For every variant and dtype: the throughput slope from 16 to 64 rounds over 2^22
entries (a warp's round, the mean of groups 128 and 256), what the given model's
arithmetic terms already charge a round (the same slope of the ``f_op_*`` terms of its
own account), and the difference (the price on top that a round-11 model adds); and the
latency of a dependent round (the same slope over 2^14 entries, about one warp a
scheduler, in ns a round).

    python benchmarks/op_chain_prices.py sample_data/h100/op-chain.sqlite \\
        sample_data/h100/weights-linear-fp64-sectors-chains13.json
"""

from __future__ import annotations

import argparse
import statistics
import warnings

THROUGHPUT_N = 2 ** 22
LATENCY_N = 2 ** 14
LOW, HIGH = 16, 64


def _charged(model, candidate) -> float:
    """Seconds the model's arithmetic terms charge ``candidate``."""
    from workbench.models.explanation import explain
    return sum(t.seconds for t in explain(model, candidate).terms
               if t.name.startswith("f_op_"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("weights", help="the model whose arithmetic terms a price tops up")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from workbench.kernels.candidate import Candidate
    from workbench.measure.store import MeasurementStore
    from workbench.models.registry import load_model

    model = load_model(args.weights)
    with MeasurementStore.open(args.store, create=False, readonly=True) as store:
        rows = [m for m in store.measurements() if m.time_s is not None]
    times: dict[tuple, float] = {}
    for m in rows:
        p = dict(m.key.params)
        times[m.key.variant, m.key.dtype, m.key.group_size[0], p["n"], p["rounds"]] = m.time_s
    variants = sorted({k[0] for k in times}, key=[k[0] for k in times].index)
    print(f"{'variant':<6} {'dtype':<8} {'measured ps':>12} {'charged ps':>11} "
          f"{'on top ps':>10} {'latency ns':>11}")
    for dtype in ("float32", "float64"):
        for variant in variants:
            slopes, lat = [], []
            for g in (128, 256):
                hi, lo = (times.get((variant, dtype, g, THROUGHPUT_N, r)) for r in (HIGH, LOW))
                if hi is not None and lo is not None:
                    slopes.append((hi - lo) / ((HIGH - LOW) * THROUGHPUT_N / 32))
                hi, lo = (times.get((variant, dtype, g, LATENCY_N, r)) for r in (HIGH, LOW))
                if hi is not None and lo is not None:
                    lat.append((hi - lo) / (HIGH - LOW))
            cands = [Candidate("op_chain", variant, (128,),
                               (("n", THROUGHPUT_N), ("rounds", r)), dtype) for r in (LOW, HIGH)]
            charged = (_charged(model, cands[1]) - _charged(model, cands[0])) \
                / ((HIGH - LOW) * THROUGHPUT_N / 32)
            slope = statistics.mean(slopes)
            print(f"{variant:<6} {dtype:<8} {slope * 1e12:12.2f} {charged * 1e12:11.2f} "
                  f"{(slope - charged) * 1e12:10.2f} {statistics.median(lat) * 1e9:11.2f}")


if __name__ == "__main__":
    main()
