"""Round 14 of issue #34: the access probe's patterns as loopy kernels, timed on the
device (role: calibration microbenchmark; no held-out kernel).

* isolated reads: ``out[i] = inp[S i]`` (benchmarks/scattered_access_prices.py's
  ``read_stride``) for S of 1 to 128 elements, float32 and float64;
* arrays of structures: F values a work item written as ``out[i, k]`` or as F planes
  ``out[k, i]`` (``store_fields``) for F of 2, 3, 4, 9 and 16, float32 and float64.

2^23 work items in groups of 256, each kernel timed by OpenCL profiling events, three
warm-up launches and the median of 15.  Prints one line per kernel.

    python scripts/h100_scattered_probe.py > scattered-probe.txt
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
from pathlib import Path

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array

REPEATS = 15


def _builders():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "scattered_access_prices.py"
    spec = importlib.util.spec_from_file_location("scattered_access_prices", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    import loopy as lp

    b = _builders()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else b.N   # a smaller n: a quick check
    gpus = [d for p in cl.get_platforms() for d in p.get_devices(cl.device_type.GPU)]
    device = (gpus or cl.get_platforms()[0].get_devices())[0]   # a CPU only for a check
    context = cl.Context([device])
    queue = cl.CommandQueue(context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    print(f"# {device.name}, driver {device.driver_version}; loopy {lp.__version__ if hasattr(lp, '__version__') else '?'}, "
          f"pyopencl {cl.VERSION_TEXT}; n = {n}, group {b.GROUP}, median of {REPEATS}")
    print("kernel              dtype    time_ms")
    kernels = []
    for dtype in ("float32", "float64"):
        kernels += [(b.read_stride(s, dtype), dtype, s, 1)
                    for s in (1, 2, 4, 8, 16, 32, 64, 128)]
        for fields in (2, 3, 4, 9, 16):
            kernels += [(b.store_fields(aos, fields, dtype), dtype, 1, fields)
                        for aos in (True, False)]
    for knl, dtype, in_scale, out_scale in kernels:
        knl = lp.set_options(knl, no_numpy=True)
        inp = cl_array.zeros(queue, n * in_scale, dtype)
        out = cl_array.empty(queue, n * out_scale, dtype)
        if out_scale > 1:
            out = out.reshape((n, out_scale) if "aos" in knl.default_entrypoint.name
                              else (out_scale, n))
        times = []
        for k in range(3 + REPEATS):
            event, _ = knl(queue, inp=inp, out=out, n=np.int32(n))
            event.wait()
            if k >= 3:
                times.append((event.profile.end - event.profile.start) * 1e-9)
        name = knl.default_entrypoint.name
        print(f"{name:19s} {dtype:8s} {statistics.median(times) * 1e3:8.4f}", flush=True)
        del inp, out
    sys.stdout.flush()


if __name__ == "__main__":
    main()
