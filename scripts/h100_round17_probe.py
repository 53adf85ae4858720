"""Round 17 of issue #34: the walked rows of ``benchmarks/round17_walk_kernels.py`` timed on
the device (role: calibration microbenchmark; no held-out kernel).

Each kernel and size timed by OpenCL profiling events, two warm-up launches and the median
of ``REPEATS``; one line a point (dtype, cols, runtime or fixed, rows, ms, GB/s of the rows'
bytes).

    python scripts/h100_round17_probe.py > round17-probe.txt
    python scripts/h100_round17_probe.py small   # a quick check on any device
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pyopencl.array as cl_array
from device_probe import REPEATS, header, load_benchmark_module, median_time, profiling_queue


def main() -> None:
    import loopy as lp

    b = load_benchmark_module("round17_walk_kernels")
    small = len(sys.argv) > 1 and sys.argv[1] == "small"
    device, queue = profiling_queue()   # a CPU only for a check
    print(f"# {header(device)}; group {b.GROUP}; median of {REPEATS} after 2 warm-up "
          f"launches; GB/s = rows x cols x itemsize / time")
    print("dtype    cols  cols_is         rows    time_ms     GB/s")
    began = time.perf_counter()
    rng = np.random.default_rng(0)
    for knl, dtype, cols, fixed in b.walk_kernels():
        knl = lp.set_options(knl, no_numpy=True)
        for n in ((1024, 4096) if small else b.ROWS[dtype]):
            x = cl_array.to_device(queue, rng.uniform(0.5, 1.5, (n, cols)).astype(dtype))
            out = cl_array.empty(queue, (n,), np.dtype(dtype))
            args = {"x": x, "out": out, "n": np.int32(n)}
            if not fixed:
                args["cols"] = np.int32(cols)
            t = median_time(knl, queue, args)
            gbs = b.walked_bytes(n, cols, np.dtype(dtype).itemsize) / t * 1e-9
            print(f"{dtype:8s} {cols:4d}  {'fixed' if fixed else 'runtime':8s} {n:9d} "
                  f"{t * 1e3:10.5f} {gbs:8.1f}", flush=True)
            del x, out
    print(f"# {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
