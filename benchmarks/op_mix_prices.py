"""Benchmark: round 12 of issue #34: what a round of two or three special functions
costs against the functions' own rounds, and a power's round, from ``op_chain``.

The throughput slope of a warp's round (16 to 64 rounds over 2^22 entries, every SM
full; the mean of groups 128 and 256) of every variant in the given stores; for each
mix (exp_log, exp_sqrt, log_sqrt, exp_log_sqrt) the sum of its functions' rounds alone
and the difference (the mix's price on top of the sum: negative where the functions
overlap); for each pair of independent calls (exp_pair, log_pair) twice the function's
round (equal where a work item's own parallelism does not matter, i.e. the price is
throughput, not latency).

    python benchmarks/op_mix_prices.py op-chain-repeat.sqlite op-mix.sqlite
"""

from __future__ import annotations

import argparse
import statistics
import warnings

from op_chain_prices import HIGH, LOW, THROUGHPUT_N

#: a mix -> the single-function variants whose rounds it combines
MIXES = {"exp_log": ("exp", "log"), "exp_sqrt": ("exp", "sqrt"),
         "log_sqrt": ("log", "sqrt"), "exp_log_sqrt": ("exp", "log", "sqrt"),
         "exp_pair": ("exp", "exp"), "log_pair": ("log", "log")}


def slopes(stores) -> dict[tuple[str, str], float]:
    """{(variant, dtype): a warp's round in seconds, the throughput slope}."""
    from workbench.measure.store import MeasurementStore

    times: dict[tuple, float] = {}
    for path in stores:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            for m in store.measurements():
                if m.time_s is None:
                    continue
                p = dict(m.key.params)
                times[m.key.variant, m.key.dtype, m.key.group_size[0], p["n"],
                      p["rounds"]] = m.time_s
    out: dict[tuple[str, str], float] = {}
    for variant, dtype in {(k[0], k[1]) for k in times}:
        s = [(times[variant, dtype, g, THROUGHPUT_N, HIGH]
              - times[variant, dtype, g, THROUGHPUT_N, LOW])
             / ((HIGH - LOW) * THROUGHPUT_N / 32) for g in (128, 256)
             if (variant, dtype, g, THROUGHPUT_N, HIGH) in times
             and (variant, dtype, g, THROUGHPUT_N, LOW) in times]
        if s:
            out[variant, dtype] = statistics.mean(s)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", help="op_chain stores (singles and mixes)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    s = slopes(args.stores)
    print(f"{'variant':<13} {'dtype':<8} {'round ps':>9} {'sum alone ps':>13} "
          f"{'on top ps':>10} {'on top %':>9}")
    for dtype in ("float32", "float64"):
        for variant in ("exp", "log", "sqrt", "div", "pow", *MIXES):
            if (variant, dtype) not in s:
                continue
            parts = MIXES.get(variant)
            if parts and all((p, dtype) in s for p in parts):
                alone = sum(s[p, dtype] for p in parts)
                top = s[variant, dtype] - alone
                print(f"{variant:<13} {dtype:<8} {s[variant, dtype] * 1e12:9.2f} "
                      f"{alone * 1e12:13.2f} {top * 1e12:10.2f} {top / alone:9.1%}")
            else:
                print(f"{variant:<13} {dtype:<8} {s[variant, dtype] * 1e12:9.2f}")


if __name__ == "__main__":
    main()
