"""Benchmark: the step of a substitution chain on a device (issue #34, item 3).

Times :func:`workbench.kernels.generators.latency.forward_substitution` (one small
lower-triangular system per work item, the solution in a private array: each step loads
an entry of ``L`` and multiplies it into the accumulator with a solution entry an
earlier trip stored) for systems of 8 to 64 rows (``SIZES``), both layouts (``adjacent``:
the systems interleaved, a warp's loads share lines; ``apart``: one system after
another, each lane's load its own line), float32 and float64, at launches of 1 to 64
warps per multiprocessor.  Each point: profiling events, ``--runs`` runs, the first two
discarded, the minimum and the median kept.  Prints one line per point and writes JSON
(``--out``) with the device, library versions, host and date.

    python benchmarks/substitution_microbench.py --device NVIDIA --out subst.json
    python benchmarks/substitution_microbench.py --small          # pocl, a check
    python benchmarks/substitution_microbench.py --analyse subst.json

``--analyse`` prints the time of a chained step per wave against the warps each
multiprocessor runs (what ``substitution_step_ns`` in the ``serial`` floors of a device
description holds; :mod:`workbench.models.recurrence_features` prices a substitution
with it).
"""

from __future__ import annotations

import argparse
import json
import lzma
import statistics
import time

import numpy as np

# Round 6 measured 8, 16 and 32 rows; the ladder steps by about sqrt(2), as even in log
# size as the geometric interpolation of f_substitution_s between sizes is (module
# docstring of workbench.models.substitution_features), up to 64 rows.
SIZES = (8, 12, 16, 24, 32, 48, 64)
WARPS_PER_SM = (1, 4, 8, 16, 32, 64)


def _points(compute_units: int, small: bool, sizes=SIZES):
    """(dtype, layout, size, items, group) of every point."""
    from workbench.kernels.generators.latency import SUBSTITUTION_LAYOUTS

    warps = (1, 4) if small else WARPS_PER_SM
    units = 2 if small else compute_units
    for dtype in ("float32", "float64"):
        for layout in SUBSTITUTION_LAYOUTS:
            for size in sizes:
                for w in warps:
                    yield dtype, layout, size, units * 32 * w, (32 if w == 1 else 128)


def analyse(path: str) -> dict:
    """ns per chained step, by precision, layout and system size: [warps per SM, ns]
    of every launch (one wave each; launch included), as ``substitution_step_ns`` in
    the ``serial`` floors of a device description holds them."""
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt") as f:
        report = json.load(f)
    sms = report["compute_units"]
    out: dict = {}
    for r in report["results"]:
        steps = r["size"] * (r["size"] - 1) // 2
        out.setdefault(r["dtype"], {}).setdefault(r["layout"], {}).setdefault(
            str(r["size"]), []).append([r["items"] // (32 * sms),
                                        round(r["time_s"] / steps * 1e9, 2)])
    return {"step_ns": out, "device": report["device"], "timestamp": report["timestamp"]}


def main() -> None:
    from workbench.kernels.base import entry_kernel
    from workbench.kernels.generators.latency import forward_substitution
    from workbench.measure import find_device, library_versions, open_device
    from workbench.measure.provenance import host_name, utc_now_iso

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device")
    parser.add_argument("--small", action="store_true", help="a quick check (pocl)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--sizes", type=lambda text: tuple(int(v) for v in text.split(",")),
                        default=SIZES, help="system sizes, comma-separated")
    parser.add_argument("--out")
    parser.add_argument("--analyse", metavar="JSON", help="print the step prices")
    args = parser.parse_args()
    if args.analyse:
        print(json.dumps(analyse(args.analyse), indent=1))
        return
    import pyopencl.array as cla

    device = find_device(args.device)
    _, queue = open_device(device)
    began = time.perf_counter()
    executors, results = {}, []
    interrupted = False
    try:
        points = _points(device.compute_units, args.small, args.sizes)
        for dtype, layout, size, items, group in points:
            key = (dtype, layout, size, group)
            if key not in executors:
                program = forward_substitution(dtype, layout, size, group)
                executors[key] = program.executor(queue)
                entry_kernel(program)
            # every entry 1: x = (1, 0, 0, ...), no overflow or denormal in any precision
            lmat = cla.empty(queue, (items * size * size,), np.dtype(dtype))
            lmat.fill(np.dtype(dtype).type(1.0))
            shape = (size, size, items) if layout == "adjacent" else (items, size, size)
            rhs = cla.empty(queue, (items,), np.dtype(dtype))
            rhs.fill(np.dtype(dtype).type(1.0))
            call = {"L": lmat.reshape(shape), "b": rhs, "n": items}
            times = []
            for _ in range(args.runs):
                evt, (out,) = executors[key](queue, **call)
                evt.wait()
                times.append((evt.profile.end - evt.profile.start) * 1e-9)
            kept = times[2:] if len(times) > 3 else times
            checked = float(out[:1].get()[0])
            row = {"kernel": "forward_substitution", "dtype": dtype, "layout": layout,
                   "size": size, "items": items, "group": group, "time_s": min(kept),
                   "median_s": statistics.median(kept), "raw_times_s": times,
                   "x_last": checked}
            results.append(row)
            steps = size * (size - 1) // 2
            print(f"{dtype:<8} {layout:<9} size={size:<3} items={items:<7} group={group:<4} "
                  f"{row['time_s'] * 1e3:10.4f} ms  {row['time_s'] / steps * 1e9:9.3f} ns/step",
                  flush=True)
            del lmat, rhs, call
    except KeyboardInterrupt:  # the device call's time limit: keep what was measured
        interrupted = True
    report = {"schema": "workbench.substitution_microbench", "schema_version": 1,
              "device": device.identity.to_dict(), "compute_units": device.compute_units,
              "library_versions": library_versions(), "host": host_name(),
              "timestamp": utc_now_iso(), "wall_s": time.perf_counter() - began,
              "command": "benchmarks/substitution_microbench.py", "interrupted": interrupted,
              "results": results}
    if args.out:
        with open(args.out, "w") as f:
            f.write(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
