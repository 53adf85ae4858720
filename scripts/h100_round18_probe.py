"""Round 18 of issue #34: loads in flight per work item (``benchmarks/round18_inflight_kernels.py``)
timed on the device (role: calibration microbenchmark; no held-out kernel).

Each kernel and size timed by OpenCL profiling events, two warm-up launches and the median
of ``REPEATS``; one line a point (dtype, layout, loads a work item, group, work items, ms,
GB/s of every byte that crosses DRAM: the k planes read and the output written).

    python scripts/h100_round18_probe.py > round18-probe.txt
    python scripts/h100_round18_probe.py small   # a quick check on any device
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pyopencl.array as cl_array
from device_probe import REPEATS, header, load_benchmark_module, median_time, profiling_queue


def main() -> None:
    import loopy as lp

    b = load_benchmark_module("round18_inflight_kernels")
    small = len(sys.argv) > 1 and sys.argv[1] == "small"
    device, queue = profiling_queue()   # a CPU only for a check
    print(f"# {header(device)}; median of {REPEATS} after 2 warm-up launches; "
          f"GB/s = (k + 1) x work items x itemsize / time")
    print("kernel                          dtype    layout  k  group      items    time_ms     GB/s")
    began = time.perf_counter()
    for knl, dtype, layout, k, group in b.probe_kernels():
        run = lp.set_options(knl, no_numpy=True).executor(queue.context)
        size = np.dtype(dtype).itemsize
        for loaded in ((1 << 22,) if small else b.LOADED_BYTES):
            n = b.elements(k, size, loaded)
            x = cl_array.empty(queue, (k * n,), np.dtype(dtype))
            x.fill(1.0)
            out = cl_array.empty(queue, (n,), np.dtype(dtype))
            if layout == "flat":
                args = {"x": x.reshape(k, n), "out": out, "n": np.int32(n)}
            else:
                m = n // b.COLS
                args = {"x": x.reshape(k, m, b.COLS), "out": out.reshape(m, b.COLS),
                        "m": np.int32(m), "w": np.int32(b.COLS)}
            t = median_time(run, queue, args)
            gbs = (k + 1) * n * size / t * 1e-9
            print(f"{knl.default_entrypoint.name:31s} {dtype:8s} {layout:6s} {k:2d} "
                  f"{group[0]:3d}x{group[1]:<3d} {n:10d} {t * 1e3:10.5f} {gbs:8.1f}", flush=True)
            del x, out
    print(f"# {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
