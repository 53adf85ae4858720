"""The measuring half of the microbenchmark drivers (``local_trees_microbench.py``,
``reuse_stack_microbench.py``): named configurations measured into a store by the
calibration's own protocol (:func:`workbench.measure.campaign.run_configurations`),
role ``measurement``, after an optional ``-cl-nv-verbose`` build of each (registers,
shared memory and stack, as ``workbench build-info`` writes them)."""

from __future__ import annotations

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
