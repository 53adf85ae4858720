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
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "copy2d_probe_kernels.py"
    spec = importlib.util.spec_from_file_location("copy2d_probe_kernels", path)
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
          f"{cl.VERSION_TEXT}; pad {b.PAD}; median of {REPEATS} after 2 warm-up launches; "
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
        t = _time(knl, queue, {"inp": inputs[dtype, n], "out": out, "n": np.int32(n)})
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
