"""Benchmark: global loads served by L1 without a prefetch, a private array indexed by
loaded keys, and exp/log chains on a device (issue #34, round 7).

Measures the microbenchmarks of :mod:`workbench.kernels.generators.reuse_stack_chains`
into a measurement store by the calibration's own protocol
(:func:`workbench.measure.campaign.run_configurations`), role ``measurement``, so that
a fit reads them (``workbench fit --store ... --store THIS``); float32 and float64,
groups of 128 and 256, launches of many waves:

* ``window_filter``: stride 1 and 3, 4, 16 and 64 taps;
* ``broadcast_coeffs``: 8, 32 and 128 columns of the shared matrix;
* ``private_scatter``: 8 and 32 private sums, chunks of 16 and 64 values;
* ``explog_chain``: 1, 4 and 16 rounds.

    python benchmarks/reuse_stack_microbench.py --device NVIDIA --store r.sqlite \\
        --build-info build-info-reuse-stack.json
    python benchmarks/reuse_stack_microbench.py --small --store /tmp/r.sqlite  # pocl
    python benchmarks/reuse_stack_microbench.py --table r.sqlite
"""

from __future__ import annotations

import argparse

GROUPS = (128, 256)


def configurations(small: bool):
    """(kernel, variant, dtype, group, params) of every point, in measuring order."""
    big = (2 ** 12,) if small else (2 ** 22, 2 ** 24)
    groups = (32,) if small else GROUPS
    for dtype in ("float32", "float64"):
        for g in groups:
            for n in big:
                for variant in ("stride1", "stride3"):
                    for taps in (4, 16, 64):
                        yield "window_filter", variant, dtype, g, {"n": n, "taps": taps}
                for m in (8, 32, 128):
                    yield "broadcast_coeffs", "default", dtype, g, {"n": n, "m": m}
                for variant in ("keys8", "keys32"):
                    for chunk in (16, 64):
                        yield "private_scatter", variant, dtype, g, \
                            {"n": n // 16, "chunk": chunk}
                for rounds in (1, 4, 16):
                    yield "explog_chain", "default", dtype, g, \
                        {"n": n // 4, "rounds": rounds}


def measure(device_selector: str | None, store_path: str, small: bool, runs: int,
            build_info: str | None = None) -> None:
    from microbench_campaign import measure_points

    from workbench.measure import find_device

    device = find_device(device_selector)
    measure_points(device, configurations(small), store_path=store_path,
                   set_name="reuse_stack_chains", campaign="reuse-stack-chains", runs=runs,
                   build_info=build_info, command="benchmarks/reuse_stack_microbench.py")


def table(store_path: str) -> None:
    from workbench.measure.store import MeasurementStore

    with MeasurementStore.open(store_path, create=False, readonly=True) as store:
        rows = [m for m in store.measurements() if m.time_s is not None]
    print(f"{'kernel':<17} {'variant':<8} {'dtype':<8} {'group':>5} {'params':<24} "
          f"{'ms':>10}")
    for m in rows:
        print(f"{m.key.kernel:<17} {m.key.variant:<8} {m.key.dtype:<8} "
              f"{m.key.group_size[0]:>5} "
              f"{','.join(f'{a}={b}' for a, b in m.key.params):<24} "
              f"{m.time_s * 1e3:>10.4f}")


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
