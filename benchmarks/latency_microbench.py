"""Benchmark: serial work and memory-level parallelism on a device (issue #34, item 1).

Times the latency microbenchmarks of :mod:`workbench.kernels.generators.latency` at
launch sizes from one work item to 64 warps per multiprocessor: a dependent fused
multiply-add chain (float32, float64), a dependent-load chase through arrays sized
for L1, L2 and DRAM, and a column sum (coalesced loads feeding a dependent add).
Each point: profiling events, ``--runs`` runs, the first two discarded, the minimum
and the median kept.  Prints one line per point and writes JSON (``--out``) with the
device, library versions, host and date.

    python benchmarks/latency_microbench.py --device NVIDIA --out latency.json
    python benchmarks/latency_microbench.py --small          # pocl, a check
    python benchmarks/latency_microbench.py --analyse latency.json
    python benchmarks/latency_microbench.py --check latency.json [--model FILE ...]

``--analyse`` prints the figures the serial floor reads (``serial`` in the ``floors``
of a device description, :mod:`workbench.models.floors`) from a measured file: the
dependent FMA's time, one work item's time per global access from cache and from
DRAM, and the column sum's bytes per second per multiprocessor against the warps
each one runs (Little's law).  ``--check`` predicts the one-work-item checks (and the
one-item and one-warp microbenchmark points) with shipped models, floors applied,
next to their measured times.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def _points(compute_units: int, small: bool):
    """(kernel, dtype, items, group, params) of every point."""
    warp = 32
    if small:
        launches = ((1, 1), (32, 32), (128, 32))
    else:
        # one item, one warp, one warp per SM, 4, 16 and 64 warps per SM
        launches = ((1, 1), (warp, warp), (compute_units * warp, warp),
                    (compute_units * warp * 4, warp), (compute_units * warp * 16, warp),
                    (compute_units * warp * 64, 128))
    steps_fma = (2 ** 10, 2 ** 14) if small else (2 ** 16, 2 ** 20)
    for dtype in ("float32", "float64"):
        for items, group in launches:
            for steps in steps_fma:
                yield "fma_chain", dtype, items, group, {"n": items, "steps": steps}
    chase_sizes = (2 ** 10, 2 ** 16) if small else (2 ** 10, 2 ** 20, 2 ** 27)
    for size in chase_sizes:            # 4 KiB (L1), 4 MiB (L2), 512 MiB (DRAM)
        for items, group in launches:
            steps = (2 ** 10 if small else 2 ** 14) if items <= 32 * compute_units \
                else (2 ** 8 if small else 2 ** 11)
            yield "pointer_chase", "int32", items, group, \
                {"n": items, "steps": steps, "length": size}
    for dtype in ("float32", "float64"):
        for items, group in launches:
            # about 128 MiB of float32 from 32 items on; one item: 4 MiB (L2) too
            total = 2 ** 16 if small else 2 ** 25
            cases = [max(1, total // items)]
            if items == 1 and not small:
                cases = [2 ** 20, 2 ** 25]
            for steps in cases:
                yield "column_sum", dtype, items, group, {"n": items, "steps": steps}
    for dtype in ("float32", "float64"):
        for n in ((16, 32) if small else (64, 128, 256)):
            yield "sequential_matmul", dtype, 1, 1, {"n": n, "steps": n ** 3}
        for n in ((2 ** 10,) if small else (2 ** 16, 2 ** 20)):
            yield "sequential_axpy", dtype, 1, 1, {"n": n, "steps": n}


def _build(kernel: str, dtype: str, group: int):
    from workbench.kernels.generators import latency

    if kernel == "fma_chain":
        return latency.fma_chain(dtype, group)
    if kernel == "pointer_chase":
        return latency.pointer_chase(group)
    if kernel.startswith("sequential_"):
        return getattr(latency, kernel)(dtype)
    return latency.column_sum(dtype, group)


def _arguments(kernel, dtype, params, queue, rng, cache):
    import pyopencl.array as cla

    n = params["n"]
    if kernel == "fma_chain":
        np_dtype = np.dtype(dtype)
        x0 = cla.to_device(queue, rng.random(n).astype(np_dtype))
        # alpha < 1: x stays bounded, never denormal or infinite
        return {"x0": x0, "alpha": np_dtype.type(0.999), "beta": np_dtype.type(0.5)}
    if kernel == "pointer_chase":
        from workbench.kernels.generators.latency import chase_cycle

        size = params["length"]
        if ("chase", size) not in cache:
            cache.clear()
            cache[("chase", size)] = cla.to_device(queue, chase_cycle(size, rng))
        start = rng.integers(0, size, n).astype(np.int32)
        return {"nxt": cache[("chase", size)], "start": cla.to_device(queue, start)}
    if kernel == "sequential_matmul":
        a = cla.to_device(queue, rng.random((n, n)).astype(dtype))
        return {"a": a, "b": a, "c": cla.empty_like(a)}
    if kernel == "sequential_axpy":
        x = cla.to_device(queue, rng.random(n).astype(dtype))
        return {"x": x, "y": x.copy(), "alpha": np.dtype(dtype).type(0.5)}
    steps = params["steps"]
    a = cla.empty(queue, (steps, n), np.dtype(dtype))
    a.fill(np.dtype(dtype).type(1.0))
    return {"a": a}


#: global accesses of the one-work-item checks of size n: loads, stores
_CHECK_ACCESSES = {"sequential_matmul": lambda n: (2 * n ** 3, n ** 2),
                   "sequential_axpy": lambda n: (2 * n, n)}


def read_report(path: str) -> dict:
    """A file this script wrote: ``X.json``, or ``X.json.xz`` read through xz (named so,
    or named ``X.json`` where only ``X.json.xz`` exists: sample_data ships
    ``latency-microbench.json`` compressed to keep the tracked tree small, issue #25)."""
    from workbench.shipped_files import read_shipped_text

    return json.loads(read_shipped_text(path))


def analyse(path: str) -> dict:
    """The serial floor's figures from a file this script wrote (module docstring)."""
    report = read_report(path)
    rows, sms = report["results"], report["compute_units"]
    per_step = [(r, r["time_s"] / r["params"]["steps"]) for r in rows]
    fma = {d: min(t for r, t in per_step if r["kernel"] == "fma_chain" and r["dtype"] == d
                  and r["items"] <= 32) for d in ("float32", "float64")}
    cached = {}
    for r, t in per_step:
        if r["kernel"] in _CHECK_ACCESSES:
            loads, stores = _CHECK_ACCESSES[r["kernel"]](r["params"]["n"])
            cached[f"{r['kernel']} {r['dtype']} n={r['params']['n']}"] = \
                r["time_s"] / (loads + stores)
        if r["kernel"] == "column_sum" and r["items"] == 1 and \
                r["params"]["steps"] * 8 < 50 * 2 ** 20:
            cached[f"column_sum {r['dtype']} (L2)"] = t
    dram = {r["dtype"]: t for r, t in per_step if r["kernel"] == "column_sum"
            and r["items"] == 1 and r["params"]["steps"] * 4 > 100 * 2 ** 20}
    per_sm = {}
    for r, t in per_step:
        if r["kernel"] == "column_sum" and r["items"] == 32:
            width = 4 if r["dtype"] == "float32" else 8
            per_sm[f"{r['dtype']} one warp alone"] = 32 * width / t / 1e9
        if r["kernel"] == "column_sum" and r["items"] >= sms * 32:
            width = 4 if r["dtype"] == "float32" else 8
            per_sm[f"{r['dtype']} {r['items'] // (32 * sms)} warps/SM"] = \
                r["items"] * width / t / sms / 1e9
    return {"dependent_fma_ns": {d: v * 1e9 for d, v in fma.items()},
            "access_ns_cached": {k: v * 1e9 for k, v in cached.items()},
            "access_ns_dram": {d: v * 1e9 for d, v in dram.items()},
            "column_sum_GBps_per_sm": per_sm, "device": report["device"],
            "timestamp": report["timestamp"]}


def check(path: str, models: list[str]) -> None:
    """Measured against predicted, for every point of at most one warp."""
    import warnings

    from workbench.kernels import spec_from_loopy
    from workbench.kernels.candidate import Candidate
    from workbench.models import load_model
    from workbench.models.prediction import predict

    warnings.filterwarnings("ignore")
    rows = [r for r in read_report(path)["results"] if r["items"] <= 32]
    candidates = []
    for r in rows:
        spec = spec_from_loopy(_build(r["kernel"], r["dtype"], r["group"]),
                               name=r["kernel"])
        params = {k: v for k, v in r["params"].items() if k in spec.parameters}
        candidates.append(Candidate.of(spec, params))
    print(f"{'kernel':<18} {'dtype':<8} {'items':>5} {'params':<28} {'measured ms':>11}"
          + "".join(f" {m.rsplit('/', 1)[-1][:24]:>24}" for m in models))
    results = [predict(load_model(m), candidates) for m in models]
    for i, r in enumerate(rows):
        shown = ",".join(f"{k}={v}" for k, v in r["params"].items() if k != "n" or
                         r["kernel"].startswith("sequential_"))
        cells = "".join(f" {res.seconds[i] * 1e3:>12.4g} ({res.floors[i].bound.value[:7]:>7})"
                        f"{'':>2}" for res in results)
        print(f"{r['kernel']:<18} {r['dtype']:<8} {r['items']:>5} {shown:<28} "
              f"{r['time_s'] * 1e3:>11.4g}{cells}")


def main() -> None:
    from workbench.kernels.base import entry_kernel
    from workbench.measure import find_device, library_versions, open_device
    from workbench.measure.provenance import host_name, utc_now_iso

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device")
    parser.add_argument("--small", action="store_true", help="a quick check (pocl)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out")
    parser.add_argument("--analyse", metavar="JSON", help="print the floor's figures")
    parser.add_argument("--check", metavar="JSON", help="predicted against measured")
    parser.add_argument("--model", action="append", help="with --check (default: the "
                        "shipped overlap-fp64 and linear-fp64 models)")
    args = parser.parse_args()
    if args.check:
        check(args.check, args.model or ["sample_data/h100/weights-overlap-fp64.json",
                                         "sample_data/h100/weights-linear-fp64.json"])
        return
    if args.analyse:
        print(json.dumps(analyse(args.analyse), indent=1))
        return
    device = find_device(args.device)
    _, queue = open_device(device)
    rng = np.random.default_rng(34)
    began = time.perf_counter()
    executors, cache, results = {}, {}, []
    for kernel, dtype, items, group, params in _points(device.compute_units, args.small):
        key = (kernel, dtype, group)
        if key not in executors:
            program = _build(*key)
            executors[key] = program.executor(queue)
            entry_kernel(program)
        inputs = _arguments(kernel, dtype, params, queue, rng, cache)
        call = {**{k: v for k, v in params.items() if k != "steps" or
                    not kernel.startswith("sequential_")}, **inputs}
        times = []
        for _ in range(args.runs):
            evt, _ = executors[key](queue, **call)
            evt.wait()
            times.append((evt.profile.end - evt.profile.start) * 1e-9)
        kept = times[2:] if len(times) > 3 else times
        row = {"kernel": kernel, "dtype": dtype, "items": items, "group": group,
               "params": params, "time_s": min(kept), "median_s": statistics.median(kept),
               "raw_times_s": times}
        results.append(row)
        steps = params["steps"]
        print(f"{kernel:<14} {dtype:<8} items={items:<7} group={group:<4} "
              f"{', '.join(f'{k}={v}' for k, v in params.items() if k != 'n'):<26} "
              f"{row['time_s'] * 1e3:10.4f} ms  {row['time_s'] / steps * 1e9:9.3f} ns/step",
              flush=True)
    report = {"schema": "workbench.latency_microbench", "schema_version": 1,
              "device": device.identity.to_dict(), "compute_units": device.compute_units,
              "library_versions": library_versions(), "host": host_name(),
              "timestamp": utc_now_iso(), "wall_s": time.perf_counter() - began,
              "command": "benchmarks/latency_microbench.py", "results": results}
    if args.out:
        with open(args.out, "w") as f:
            f.write(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
