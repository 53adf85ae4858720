"""Round 16 of issue #34: the dependent-lookup chains of
``benchmarks/round16_chain_kernels.py`` timed on the device (role: calibration
microbenchmark; no held-out kernel).

Each kernel and size timed by OpenCL profiling events, two warm-up launches and the
median of ``REPEATS``; one line a point (kernel, dtype, n, ms).

    python scripts/h100_round16_probe.py > round16-probe.txt
    python scripts/h100_round16_probe.py small   # a quick check on any device
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array

REPEATS = 10


def _builders():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "round16_chain_kernels.py"
    spec = importlib.util.spec_from_file_location("round16_chain_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _time(knl, queue, args) -> float:
    times = []
    for k in range(2 + REPEATS):
        event, _ = knl(queue, **args)
        event.wait()
        if k >= 2:
            times.append((event.profile.end - event.profile.start) * 1e-9)
    return statistics.median(times)


def main() -> None:
    import loopy as lp

    b = _builders()
    small = len(sys.argv) > 1 and sys.argv[1] == "small"
    gpus = [d for p in cl.get_platforms() for d in p.get_devices(cl.device_type.GPU)]
    device = (gpus or cl.get_platforms()[0].get_devices())[0]   # a CPU only for a check
    context = cl.Context([device])
    queue = cl.CommandQueue(context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    print(f"# {device.name}, driver {device.driver_version}; loopy {lp.VERSION}, pyopencl "
          f"{cl.VERSION_TEXT}; group {b.GROUP}; median of {REPEATS} after 2 warm-up launches")
    print("kernel                        dtype          n    time_ms")
    began = time.perf_counter()
    rng = np.random.default_rng(0)
    for knl, dtype, table, steps in b.chain_kernels():
        knl = lp.set_options(knl, no_numpy=True)
        tab = cl_array.to_device(queue, np.sort(rng.uniform(0.0, 1.0, table)).astype(dtype))
        for n in (b.SIZES[dtype][:2] if small else b.SIZES[dtype]):
            x = cl_array.to_device(queue, rng.uniform(0.0, 1.0, n).astype(dtype))
            y = cl_array.empty_like(x)
            t = _time(knl, queue, {"x": x, "tab": tab, "y": y, "n": np.int32(n)})
            print(f"{knl.default_entrypoint.name:29s} {dtype:8s} {n:9d} {t * 1e3:10.5f}",
                  flush=True)
            del x, y
    print(f"# {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
