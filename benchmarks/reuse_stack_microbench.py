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
import time

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
    from workbench.kernels import get_kernel
    from workbench.kernels.base import BuildRequest, DType
    from workbench.measure import find_device, open_device
    from workbench.measure.campaign import run_configurations
    from workbench.measure.runner import TimingProtocol
    from workbench.measure.store import MeasurementStore

    device = find_device(device_selector)
    _, queue = open_device(device)
    configs = [(get_kernel(k), BuildRequest(v, DType.parse(d), (g,)), params,
                {"role": "measurement", "set": "reuse_stack_chains"})
               for k, v, d, g, params in configurations(small)]
    began = time.perf_counter()
    if build_info:
        from workbench.measure.builds import PlannedBuild, collect_build_info

        builds = list({(s.name, r): PlannedBuild(s, r) for s, r, _, _ in configs}.values())
        info = collect_build_info(
            device, builds, options=("-cl-nv-verbose",), jobs=8,
            provenance={"command": "benchmarks/reuse_stack_microbench.py --build-info"})
        info.save(build_info)
        print(f"build info of {len(builds)} builds: {time.perf_counter() - began:.0f} s",
              flush=True)

    def progress(p):
        print(f"{p.done:>4}/{p.planned} {p.key.kernel:<17} {p.key.variant:<8} "
              f"{p.key.dtype:<8} group={p.key.group_size[0]:<4} "
              f"{','.join(f'{a}={b}' for a, b in p.key.params):<24} "
              f"{p.status.value:<6} {(p.time_s or float('nan')) * 1e3:10.4f} ms  "
              f"({time.perf_counter() - began:.0f} s)", flush=True)

    with MeasurementStore.open(store_path) as store:
        timings = run_configurations(
            store, device, queue, configs, name="reuse-stack-chains",
            protocol=TimingProtocol(runs=runs, discard_first=2), on_progress=progress)
    print(f"measured {timings.measured}, failed {timings.failed}, build "
          f"{timings.build_s:.0f} s, runs {timings.run_s:.0f} s, wall "
          f"{time.perf_counter() - began:.0f} s")


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
