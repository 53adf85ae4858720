"""The measuring half of the microbenchmark drivers (``local_trees_microbench.py``,
``reuse_stack_microbench.py``, ``row_walk_microbench.py``): named configurations measured into a store by the
calibration's own protocol (:func:`workbench.measure.campaign.run_configurations`),
role ``measurement``, after an optional ``-cl-nv-verbose`` build of each (registers,
shared memory and stack, as ``workbench build-info`` writes them)."""

from __future__ import annotations

import argparse
import time


def measure_points(device, points, *, store_path: str, set_name: str, campaign: str,
                   runs: int, build_info: str | None, command: str) -> None:
    """Measure ``points`` ((kernel, variant, dtype, group, params) each) on ``device``
    into ``store_path``, printing each point as it is measured."""
    from workbench.kernels import get_kernel
    from workbench.kernels.base import BuildRequest, DType
    from workbench.measure import open_device
    from workbench.measure.campaign import run_configurations
    from workbench.measure.runner import TimingProtocol
    from workbench.measure.store import MeasurementStore

    _, queue = open_device(device)
    configs = [(get_kernel(k), BuildRequest(v, DType.parse(d), (g,)), params,
                {"role": "measurement", "set": set_name})
               for k, v, d, g, params in points]
    began = time.perf_counter()
    if build_info:
        from workbench.measure.builds import PlannedBuild, collect_build_info

        builds = list({(s.name, r): PlannedBuild(s, r) for s, r, _, _ in configs}.values())
        info = collect_build_info(device, builds, options=("-cl-nv-verbose",), jobs=8,
                                  provenance={"command": f"{command} --build-info"})
        info.save(build_info)
        print(f"build info of {len(builds)} builds: {time.perf_counter() - began:.0f} s",
              flush=True)

    def progress(p):
        print(f"{p.done:>4}/{p.planned} {p.key.kernel:<18} {p.key.variant:<13} "
              f"{p.key.dtype:<8} group={p.key.group_size[0]:<5} "
              f"{','.join(f'{a}={b}' for a, b in p.key.params):<32} "
              f"{p.status.value:<6} {(p.time_s or float('nan')) * 1e3:10.4f} ms  "
              f"({time.perf_counter() - began:.0f} s)", flush=True)

    with MeasurementStore.open(store_path) as store:
        timings = run_configurations(
            store, device, queue, configs, name=campaign,
            protocol=TimingProtocol(runs=runs, discard_first=2), on_progress=progress)
    print(f"measured {timings.measured}, failed {timings.failed}, build "
          f"{timings.build_s:.0f} s, runs {timings.run_s:.0f} s, wall "
          f"{time.perf_counter() - began:.0f} s")


def print_table(store_path: str) -> None:
    """Every measured row of a microbenchmark store, one line each."""
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


def microbench_main(description: str, configurations, *, set_name: str, campaign: str,
                    command: str) -> None:
    """A driver's command line: measure ``configurations(small)`` on a device into a
    store (``--store``), or print a measured store (``--table``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--device")
    parser.add_argument("--store", help="measure into this store")
    parser.add_argument("--small", action="store_true", help="a quick check (pocl)")
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--table", metavar="STORE", help="print a measured store")
    parser.add_argument("--build-info", metavar="FILE.json",
                        help="also write the builds' registers and stack (NVIDIA)")
    args = parser.parse_args()
    if args.table:
        print_table(args.table)
        return
    if not args.store:
        parser.error("--store is needed to measure")
    from workbench.measure import find_device

    measure_points(find_device(args.device), configurations(args.small),
                   store_path=args.store, set_name=set_name, campaign=campaign,
                   runs=args.runs, build_info=args.build_info, command=command)
