"""Round 16 of issue #34: the dependent-lookup chains of
``benchmarks/round16_chain_kernels.py`` timed on the device (role: calibration
microbenchmark; no held-out kernel).

Each kernel and size timed by OpenCL profiling events, two warm-up launches and the
median of ``REPEATS``; one line a point (kernel, dtype, n, ms).

    python scripts/h100_round16_probe.py > round16-probe.txt
    python scripts/h100_round16_probe.py small   # a quick check on any device
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pyopencl.array as cl_array
from device_probe import REPEATS, header, load_benchmark_module, median_time, profiling_queue


def main() -> None:
    import loopy as lp

    b = load_benchmark_module("round16_chain_kernels")
    small = len(sys.argv) > 1 and sys.argv[1] == "small"
    device, queue = profiling_queue()   # a CPU only for a check
    print(f"# {header(device)}; "
          f"group {b.GROUP}; median of {REPEATS} after 2 warm-up launches")
    print("kernel                        dtype          n    time_ms")
    began = time.perf_counter()
    rng = np.random.default_rng(0)
    for knl, dtype, table, steps in b.chain_kernels():
        knl = lp.set_options(knl, no_numpy=True)
        tab = cl_array.to_device(queue, np.sort(rng.uniform(0.0, 1.0, table)).astype(dtype))
        for n in (b.SIZES[dtype][:2] if small else b.SIZES[dtype]):
            x = cl_array.to_device(queue, rng.uniform(0.0, 1.0, n).astype(dtype))
            y = cl_array.empty_like(x)
            t = median_time(knl, queue, {"x": x, "tab": tab, "y": y, "n": np.int32(n)})
            print(f"{knl.default_entrypoint.name:29s} {dtype:8s} {n:9d} {t * 1e3:10.5f}",
                  flush=True)
            del x, y
    print(f"# {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
