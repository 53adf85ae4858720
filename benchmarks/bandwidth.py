"""Benchmark: memory bandwidth per level (DRAM, L2, L1) next to a vendor copy.

Runs the loopy/OpenCL kernels of ``workbench.measure.bandwidth`` on a device and,
when CuPy is importable (NVIDIA machines), CuPy's device-to-device copy in the same
run, counting read plus write bytes.  Prints JSON; ``--out`` also writes it.

    python benchmarks/bandwidth.py --device NVIDIA --out bandwidth.json
"""

from __future__ import annotations

import argparse
import json
import time

from workbench.measure import find_device, library_versions, open_device
from workbench.measure.bandwidth import cache_sweep, default_set, dram_stream, run
from workbench.measure.provenance import host_name, utc_now_iso


def cupy_copy(nbytes: int, runs: int = 30, discard: int = 4) -> dict | None:
    try:
        import cupy as cp
    except ImportError:
        return None
    a = cp.ones(nbytes // 4, dtype=cp.float32)
    b = cp.empty_like(a)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(runs):
        start.record()
        cp.copyto(b, a)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) * 1e-3)
    best = min(times[discard:])
    return {"level": "vendor copy", "kernel": "cupy.copyto", "bytes": 2 * nbytes,
            "time_s": best, "raw_times_s": times,
            "bandwidth_GBps": 2 * nbytes / best / 1e9, "cupy": cp.__version__}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device")
    parser.add_argument("--small", action="store_true", help="CPU-sized arrays")
    parser.add_argument("--out")
    args = parser.parse_args()
    device = find_device(args.device)
    _, queue = open_device(device)
    benches = (dram_stream(1 << 22), cache_sweep("l2", 1 << 14, 1 << 16, 8),
               cache_sweep("l1", 1 << 14, 1024, 16)) if args.small \
        else default_set(device.compute_units)
    began = time.perf_counter()
    results = [run(b, queue) for b in benches]
    vendor = None if args.small else cupy_copy(1 << 30)
    if vendor:
        results.append(vendor)
    report = {"schema": "workbench.bandwidth", "schema_version": 1,
              "device": device.identity.to_dict(), "compute_units": device.compute_units,
              "library_versions": library_versions(), "host": host_name(),
              "timestamp": utc_now_iso(), "wall_s": time.perf_counter() - began,
              "results": results}
    text = json.dumps(report, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    for r in results:
        print(f"{r['level']:<12} {r['kernel']:<16} {r['bandwidth_GBps']:10.1f} GB/s "
              f"({r['bytes'] / 1e6:.1f} MB in {r['time_s'] * 1e3:.3f} ms)")


if __name__ == "__main__":
    main()
