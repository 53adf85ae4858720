"""Round 15 of issue #34: the trig chains and 2-D stencils of
``benchmarks/round15_probe_kernels.py`` timed on the device (role: calibration
microbenchmark; no held-out kernel).

Each kernel timed by OpenCL profiling events, two warm-up launches and the median of
``REPEATS``; one line a kernel (name, dtype, ms), trig chains first.

    python scripts/h100_round15_probe.py > round15-probe.txt
    python scripts/h100_round15_probe.py small   # a quick check on any device
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pyopencl.array as cl_array
from device_probe import REPEATS, header, load_benchmark_module, median_time, profiling_queue


def main() -> None:
    import loopy as lp

    b = load_benchmark_module("round15_probe_kernels")
    small = len(sys.argv) > 1 and sys.argv[1] == "small"
    device, queue = profiling_queue()   # a CPU only for a check
    print(f"# {header(device)}; "
          f"trig: n = {b.TRIG_N}, group {b.TRIG_GROUP}; stencils: "
          f"n x n; median of {REPEATS} after 2 warm-up launches")
    print("kernel                        dtype    time_ms")
    began = time.perf_counter()
    n = 4096 if small else b.TRIG_N
    for knl, dtype, variant, _ in b.trig_kernels():
        knl = lp.set_options(knl, no_numpy=True)
        names = {a.name for a in knl.default_entrypoint.args}
        c, d = b.TRIG_ROUNDS_EXPR[variant][1]
        x = cl_array.to_device(queue, np.random.default_rng(0).uniform(
            1.0, 2.0, n).astype(dtype))
        y = cl_array.empty_like(x)
        args = {"x": x, "y": y, "n": np.int32(n), "c": np.dtype(dtype).type(c),
                "d": np.dtype(dtype).type(d)}
        t = median_time(knl, queue, {k: v for k, v in args.items() if k in names})
        print(f"{knl.default_entrypoint.name:29s} {dtype:8s} {t * 1e3:8.4f}", flush=True)
        del x, y
    for knl, dtype, points, size, _ in b.stencil_kernels():
        size = min(size, 256) if small else size
        knl = lp.set_options(knl, no_numpy=True)
        u = cl_array.to_device(queue, np.random.default_rng(0).uniform(
            0.0, 1.0, (size, size)).astype(dtype))
        out = cl_array.zeros_like(u)
        args = {"u": u, "out": out, "n": np.int32(size),
                **{c: np.dtype(dtype).type(w) for c, w in
                   (("c0", 0.5), ("c1", 0.125), ("c2", 0.0625))[:2 + (points == 9)]}}
        t = median_time(knl, queue, args)
        print(f"{knl.default_entrypoint.name:29s} {dtype:8s} {t * 1e3:8.4f}", flush=True)
        del u, out
    print(f"# {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
