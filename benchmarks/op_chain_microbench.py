"""Benchmark: one operation in a dependent chain, per precision, on a device (issue #34,
round 11).

Measures ``op_chain`` (:mod:`workbench.kernels.generators.op_chains`: fma, add, mul,
div, sqrt, exp, log) into a measurement store by the calibration's own protocol
(:func:`workbench.measure.campaign.run_configurations`), role ``measurement``; float32
and float64, groups of 128 and 256; 4, 16 and 64 rounds over 2^22 entries (every SM
full: throughput) and over 2^14 (about one warp a scheduler: latency).

    python benchmarks/op_chain_microbench.py --device NVIDIA --store o.sqlite \\
        --build-info build-info-op-chain.json
    python benchmarks/op_chain_microbench.py --small --store /tmp/o.sqlite  # pocl
    python benchmarks/op_chain_microbench.py --table o.sqlite
"""

from __future__ import annotations

import argparse

GROUPS = (128, 256)
ROUNDS = (4, 16, 64)


def configurations(small: bool):
    """(kernel, variant, dtype, group, params) of every point, in measuring order."""
    from workbench.kernels.generators.op_chains import OP_CHAIN_VARIANTS

    entries = (2 ** 10,) if small else (2 ** 14, 2 ** 22)
    groups = (32,) if small else GROUPS
    for dtype in ("float32", "float64"):
        for g in groups:
            for variant in OP_CHAIN_VARIANTS:
                for n in entries:
                    for rounds in ROUNDS:
                        yield "op_chain", variant, dtype, g, {"n": n, "rounds": rounds}


def measure(device_selector: str | None, store_path: str, small: bool, runs: int,
            build_info: str | None = None) -> None:
    from microbench_campaign import measure_points

    from workbench.measure import find_device

    device = find_device(device_selector)
    measure_points(device, configurations(small), store_path=store_path,
                   set_name="op_chain", campaign="op-chain", runs=runs,
                   build_info=build_info, command="benchmarks/op_chain_microbench.py")


def table(store_path: str) -> None:
    from reuse_stack_microbench import table as print_table
    print_table(store_path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device")
    parser.add_argument("--store", help="measure into this store")
    parser.add_argument("--small", action="store_true", help="a quick check (pocl)")
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--table", metavar="STORE", help="print a measured store")
    parser.add_argument("--build-info", metavar="FILE.json",
                        help="also write the builds' registers and stack (NVIDIA)")
    args = parser.parse_args()
    if args.table:
        table(args.table)
        return
    if not args.store:
        parser.error("--store is needed to measure")
    measure(args.device, args.store, args.small, args.runs, args.build_info)


if __name__ == "__main__":
    main()
