"""Benchmark: what a live run's first verification costs on a device, step by step.

A live evaluation compares a point's outputs with the numpy reference on the device
(``workbench.tuning.live``: ``max(|have - want| - rtol |want|)``).  On the H200 the first
point's check took 0.43-0.71 s and every later one about 5 ms, even after the check's
kernels were compiled on a few elements beside the inputs.  This times, in a fresh
process: the check on 4 elements (compiling its kernels), then on full-size arrays
(``--elements``) twice, then on a second pair of new full-size arrays; and, in a
second fresh process, the full-size check first, without the small one.

Run: ``python benchmarks/first_check_probe.py [--device NVIDIA] [--elements 16777216]``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time


def _steps(device: str, elements: int, small_first: bool) -> list[tuple[str, float]]:
    import numpy as np
    import pyopencl as cl
    import pyopencl.array as cla

    from workbench.measure.devices import find_device, open_device
    from workbench.tuning.live import check_excess

    context, _ = open_device(find_device(device))
    queue = cl.CommandQueue(context)
    out: list[tuple[str, float]] = []

    def timed(label, step):
        began = time.perf_counter()
        step()
        queue.finish()
        out.append((label, time.perf_counter() - began))

    if small_first:
        tiny = cla.zeros(queue, 4, np.float32)
        timed("check on 4 elements", lambda: check_excess(tiny, tiny, 1e-4).get())
    rng = np.random.default_rng(0)
    host = rng.random(elements, dtype=np.float32)
    arrays = {}
    timed("two full-size arrays to the device",
          lambda: arrays.update(a=cla.to_device(queue, host), b=cla.to_device(queue, host)))
    timed("full-size check, first", lambda: check_excess(arrays["a"], arrays["b"], 1e-4).get())
    timed("full-size check, second", lambda: check_excess(arrays["a"], arrays["b"], 1e-4).get())
    timed("two new full-size arrays to the device",
          lambda: arrays.update(c=cla.to_device(queue, host), d=cla.to_device(queue, host)))
    timed("full-size check on them", lambda: check_excess(arrays["c"], arrays["d"], 1e-4).get())
    timed("one full-size subtraction", lambda: (arrays["a"] - arrays["d"]).finish())
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="NVIDIA")
    parser.add_argument("--elements", type=int, default=2 ** 24)
    parser.add_argument("--child", choices=("small", "full"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_steps(args.device, args.elements, args.child == "small")))
        return 0
    print(f"# {' '.join(sys.argv)}; {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
          f"load {os.getloadavg()[0]:.2f}")
    for child in ("small", "full"):
        done = subprocess.run([sys.executable, __file__, "--device", args.device,
                               "--elements", str(args.elements), "--child", child],
                              capture_output=True, text=True, check=True)
        print(f"fresh process, {'4-element check first' if child == 'small' else 'full-size check first'}"
              f" ({args.elements} float32):")
        for label, seconds in json.loads(done.stdout.strip().splitlines()[-1]):
            print(f"  {label:40s} {seconds * 1e3:9.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
