"""The 2-D copy probe of issue #34 (``benchmarks/copy2d_probe_kernels.py``) timed on the
device (role: calibration microbenchmark; no held-out kernel).

Each kernel timed by OpenCL profiling events, two warm-up launches and the median of
``REPEATS``; one line a kernel: name, dtype, case, n, group, ms, GB/s (distinct input bytes
plus output bytes over the time) and the ratio of its GB/s to the plain copy's of the same
dtype, n and group.

    python scripts/h100_copy2d_probe.py > copy2d-probe.txt
    python scripts/h100_copy2d_probe.py small   # a quick check on any device
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pyopencl.array as cl_array
from device_probe import REPEATS, header, load_benchmark_module, median_time, profiling_queue


def main() -> None:
    import loopy as lp

    b = load_benchmark_module("copy2d_probe_kernels")
    small = len(sys.argv) > 1 and sys.argv[1] == "small"
    device, queue = profiling_queue()   # a CPU only for a check
    print(f"# {header(device)}; "
          f"pad {b.PAD}; median of {REPEATS} after 2 warm-up launches; "
          f"GB/s = (n^2 input + output elements) x itemsize / time; ratio = GB/s / plain's")
    print("kernel                              dtype    case     n     group  time_ms    GB/s  ratio")
    began = time.perf_counter()
    inputs, plain = {}, {}
    for knl, dtype, case, size, group in b.probe_kernels():
        n = min(size, 256) if small else size
        if (dtype, n) not in inputs:
            inputs.clear()
            inputs[dtype, n] = cl_array.to_device(queue, np.random.default_rng(0).uniform(
                0.0, 1.0, (n, n)).astype(np.float32).astype(dtype))
        out = cl_array.empty(queue, b.output_shape(case, n), np.dtype(dtype))
        knl = lp.set_options(knl, no_numpy=True)
        t = median_time(knl, queue, {"inp": inputs[dtype, n], "out": out, "n": np.int32(n)})
        gbs = b.bytes_moved(case, n, np.dtype(dtype).itemsize) / t * 1e-9
        if case == "plain":
            plain[dtype, n, group] = gbs
        print(f"{knl.default_entrypoint.name:35s} {dtype:8s} {case:8s} {n:5d} "
              f"{group[0]:2d}x{group[1]:<2d} {t * 1e3:8.4f} {gbs:7.1f} "
              f"{gbs / plain[dtype, n, group]:6.3f}", flush=True)
        del out
    print(f"# {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
