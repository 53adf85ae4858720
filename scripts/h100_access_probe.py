"""A probe of two access patterns heldout11 showed the default under-prices (issue #34;
docs/default-model.md, "heldout11, the blind set after round 13"), on the device through
pyopencl, outside the model:

* isolated reads: ``out[i] = in[i * S]`` for strides S of 1 to 128 floats; from S = 8 on
  every lane reads a 32-byte sector of its own, so a sector price that does not depend on
  S would give the same time from S = 8 up;
* array-of-structures stores: nine values per item written at stride 9 (``out[9 i + k]``)
  against the same nine values written as nine planes (``out[k n + i]``): the same bytes
  and sectors in the end, partial sectors per store instruction in the first.

Each kernel is run ``REPEATS`` times after a warm-up; the median of the event times is
printed with the bytes each moves.  Usage: ``python scripts/h100_access_probe.py``.
"""

from __future__ import annotations

import statistics
import sys

import numpy as np
import pyopencl as cl

REPEATS = 15
N = 1 << 23
GROUP = 256

SOURCE = """
__kernel void read_stride(__global const float *in, __global float *out, const int s)
{
    const int i = get_global_id(0);
    out[i] = in[(long) i * s] * 2.0f;
}
__kernel void store_aos(__global const float *in, __global float *out)
{
    const int i = get_global_id(0);
    const float v = in[i];
    for (int k = 0; k < 9; ++k)
        out[9 * i + k] = v + (float) k;
}
__kernel void store_soa(__global const float *in, __global float *out, const int n)
{
    const int i = get_global_id(0);
    const float v = in[i];
    for (int k = 0; k < 9; ++k)
        out[k * n + i] = v + (float) k;
}
"""


def timed(queue, kernel, args) -> float:
    kernel(queue, (N,), (GROUP,), *args).wait()
    times = []
    for _ in range(REPEATS):
        event = kernel(queue, (N,), (GROUP,), *args)
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-9)
    return statistics.median(times)


def main() -> None:
    platform = next(p for p in cl.get_platforms() if p.get_devices(cl.device_type.GPU))
    device = platform.get_devices(cl.device_type.GPU)[0]
    context = cl.Context([device])
    queue = cl.CommandQueue(context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    program = cl.Program(context, SOURCE).build()
    mf = cl.mem_flags
    print(f"# {device.name}, driver {device.driver_version}; n = {N}, group {GROUP}, "
          f"median of {REPEATS}")
    out = cl.Buffer(context, mf.READ_WRITE, 4 * 9 * N)
    print("kernel        stride  time_ms  useful_GB/s  sectors_per_s(1e9)  bytes_per_lane_at_3.35TB/s")
    for stride in (1, 2, 4, 8, 16, 32, 64, 128):
        source = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR,
                           hostbuf=np.ones(N * stride, dtype=np.float32))
        t = timed(queue, program.read_stride, (source, out, np.int32(stride)))
        sectors = N * min(stride * 4, 32) / 32
        print(f"read_stride  {stride:6d}  {t * 1e3:7.4f}  {4 * N / t / 1e9:11.1f}  "
              f"{sectors / t / 1e9:18.2f}  {3.35e12 * t / N:10.1f}")
        source.release()
    source = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR,
                       hostbuf=np.ones(N, dtype=np.float32))
    for name, kernel, args in (("store_aos", program.store_aos, (source, out)),
                               ("store_soa", program.store_soa, (source, out, np.int32(N)))):
        t = timed(queue, kernel, args)
        print(f"{name:11s}       9  {t * 1e3:7.4f}  {40 * N / t / 1e9:11.1f}  "
              f"{'':18s}  {3.35e12 * t / N:10.1f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
