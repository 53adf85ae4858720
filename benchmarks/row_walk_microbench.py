"""Benchmark: rows walked along one work item (lanes a row apart) and erfc chains on a
device (issue #34, round 10).

Measures the microbenchmarks of :mod:`workbench.kernels.generators.row_walk` into a
measurement store by the calibration's own protocol
(:func:`workbench.measure.campaign.run_configurations`), role ``measurement``;
float32 and float64, groups of 128 and 256:

* ``row_walk`` (sum, fill, copy): 2^14 to 2^20 rows of 16 and 64 entries (from a
  quarter of the device's lanes to many waves: the lines of the resident rows from
  well inside to far beyond L1);
* ``erfc_chain``: 1, 4 and 16 rounds over 2^22 entries.

    python benchmarks/row_walk_microbench.py --device NVIDIA --store r.sqlite \\
        --build-info build-info-row-walk.json
    python benchmarks/row_walk_microbench.py --small --store /tmp/r.sqlite  # pocl
    python benchmarks/row_walk_microbench.py --table r.sqlite
"""

from __future__ import annotations

import argparse

GROUPS = (128, 256)


def configurations(small: bool):
    """(kernel, variant, dtype, group, params) of every point, in measuring order."""
    rows = (2 ** 10,) if small else (2 ** 14, 2 ** 16, 2 ** 18, 2 ** 20)
    groups = (32,) if small else GROUPS
    for dtype in ("float32", "float64"):
        for g in groups:
            for variant in ("sum", "fill", "copy"):
                for cols in (16, 64):
                    for n in rows:
                        yield "row_walk", variant, dtype, g, {"n": n, "cols": cols}
            for rounds in (1, 4, 16):
                yield "erfc_chain", "default", dtype, g, \
                    {"n": 2 ** 12 if small else 2 ** 22, "rounds": rounds}


def measure(device_selector: str | None, store_path: str, small: bool, runs: int,
            build_info: str | None = None) -> None:
    from microbench_campaign import measure_points

    from workbench.measure import find_device

    device = find_device(device_selector)
    measure_points(device, configurations(small), store_path=store_path,
                   set_name="row_walk", campaign="row-walk", runs=runs,
                   build_info=build_info, command="benchmarks/row_walk_microbench.py")


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
