"""Benchmark: local-memory trees, scans, barriers and barrier-free local streams on a
device (issue #34, item 3).

Measures the microbenchmarks of :mod:`workbench.kernels.generators.local_trees` and the
2019 set's barrier-only kernel (``barriers_1periter``) into a measurement store, by the
calibration's own protocol (:func:`workbench.measure.campaign.run_configurations`), so
that a fit can read them (``workbench fit --store ... --store THIS``):

* ``local_tree`` (sequential and interleaved addressing) and ``local_scan``: groups of
  32 to 1024 work items, float32 and float64, a launch of many waves at two trip
  counts (per-trip cost) and one group per multiprocessor (a tree level's latency);
* ``local_stream``: groups of 64, 256 and 1024, the first ``act`` lanes active
  (``act`` = the group, half of it, 32, 8 and 1), and all lanes of one group per
  multiprocessor;
* ``barriers_1periter``: groups of 32 to 1024, one group per multiprocessor and four
  full waves.

    python benchmarks/local_trees_microbench.py --device NVIDIA --store trees.sqlite
    python benchmarks/local_trees_microbench.py --small --store /tmp/t.sqlite  # pocl
    python benchmarks/local_trees_microbench.py --table trees.sqlite

With ``--build-info FILE.json`` every build is compiled once more with
``-cl-nv-verbose`` first (registers and shared memory, as ``workbench build-info``
writes them), for the occupancy features.

``--table`` prints every stored point with its time per trip; ``--analyse`` the
figures the local-memory features rest on (per multiprocessor, so the device's SM
count is given: ``--sms 132`` for the H100).
"""

from __future__ import annotations

import argparse

GROUPS = (32, 64, 128, 256, 512, 1024)
STREAM_GROUPS = (64, 256, 1024)


def configurations(compute_units: int, small: bool):
    """(kernel, variant, dtype, group, params) of every point, in measuring order."""
    groups = (32, 64) if small else GROUPS
    many = 2 ** 12 if small else 2 ** 21            # items of the many-wave launches
    for dtype in ("float32", "float64"):
        for kernel, variants, trips, lone_trips in (
                ("local_tree", ("sequential", "interleaved"), (32, 128), 1024),
                ("local_scan", ("hillis_steele",), (16, 64), 512)):
            for variant in variants:
                for g in groups:
                    for iters in (trips if not small else (2, 4)):
                        yield kernel, variant, dtype, g, {"n": many, "iters": iters}
                    yield kernel, variant, dtype, g, {"n": compute_units * g,
                                                      "iters": 4 if small else lone_trips}
        for g in ((64,) if small else STREAM_GROUPS):
            for act in dict.fromkeys((g, g // 2, 32, 8, 1)):
                yield "local_stream", "default", dtype, g, \
                    {"n": many, "iters": 4 if small else 256, "act": act}
            yield "local_stream", "default", dtype, g, \
                {"n": compute_units * g, "iters": 4 if small else 4096, "act": g}
    for g in groups:
        yield "barriers_1periter", "default", "float32", g, \
            {"n": compute_units * g, "iters": 4 if small else 4096}
        yield "barriers_1periter", "default", "float32", g, \
            {"n": 4 * compute_units * 2048 if not small else many,
             "iters": 4 if small else 256}


def measure(device_selector: str | None, store_path: str, small: bool, runs: int,
            build_info: str | None = None) -> None:
    from microbench_campaign import measure_points

    from workbench.measure import find_device

    device = find_device(device_selector)
    measure_points(device, configurations(device.compute_units, small), store_path=store_path,
                   set_name="local_trees", campaign="local-trees", runs=runs,
                   build_info=build_info, command="benchmarks/local_trees_microbench.py")


def table(store_path: str) -> None:
    from workbench.measure.store import MeasurementStore

    with MeasurementStore.open(store_path, create=False, readonly=True) as store:
        rows = [m for m in store.measurements() if m.time_s is not None]
    print(f"{'kernel':<18} {'variant':<13} {'dtype':<8} {'group':>5} "
          f"{'params':<34} {'ms':>10} {'ns/trip':>10}")
    for m in rows:
        params = dict(m.key.params)
        print(f"{m.key.kernel:<18} {m.key.variant:<13} {m.key.dtype:<8} "
              f"{m.key.group_size[0]:>5} "
              f"{','.join(f'{a}={b}' for a, b in m.key.params):<34} "
              f"{m.time_s * 1e3:>10.4f} {m.time_s / params['iters'] * 1e9:>10.2f}")


def _rows(store_path: str):
    from workbench.measure.store import MeasurementStore

    with MeasurementStore.open(store_path, create=False, readonly=True) as store:
        return [(m.key.kernel, m.key.variant, m.key.dtype, m.key.group_size[0],
                 dict(m.key.params), m.time_s) for m in store.measurements()
                if m.time_s is not None]


def analyse(store_path: str, sms: int) -> None:
    """Per multiprocessor: a local warp access's time (all lanes, part of the lanes),
    a barrier's time per warp and per group, and a tree level's latency."""
    from workbench.kernels.generators.local_trees import STREAM_ROWS

    rows = _rows(store_path)
    print("local_stream: ns per active warp's local access per multiprocessor "
          "(2 x rows accesses a trip)")
    for k, _, d, g, p, t in rows:
        if k != "local_stream":
            continue
        groups = p["n"] // g
        warps = groups * -(-p["act"] // 32)
        accesses = warps * p["iters"] * 2 * STREAM_ROWS
        per_sm = max(1.0, groups / sms)
        print(f"  {d:<8} group {g:>5} act {p['act']:>5} groups/SM {per_sm:>7.1f} "
              f"{t * 1e3:8.4f} ms  {t / (accesses / sms) * 1e9:7.3f} ns/access/SM")
    print("barriers_1periter: ns per barrier (one group per SM) and per warp-barrier "
          "per SM (full waves)")
    for k, _, d, g, p, t in rows:
        if k != "barriers_1periter":
            continue
        groups = p["n"] // g
        if groups <= sms:
            print(f"  group {g:>5} ({-(-g // 32):>2} warps), one group per SM: "
                  f"{t / p['iters'] * 1e9:7.2f} ns per barrier")
        else:
            warp_barriers = p["n"] // 32 * p["iters"]
            print(f"  group {g:>5}, {groups} groups: "
                  f"{t / (warp_barriers / sms) * 1e9:7.3f} ns per warp-barrier per SM")
    print("local_tree / local_scan, one group per SM: ns per level (tree: log2 G "
          "levels a trip; scan: log2 G steps of two phases)")
    for k, v, d, g, p, t in rows:
        if k in ("local_tree", "local_scan") and p["n"] // g <= sms:
            levels = g.bit_length() - 1
            print(f"  {k:<11} {v:<13} {d:<8} group {g:>5}: "
                  f"{t / (p['iters'] * levels) * 1e9:7.2f} ns per level")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device")
    parser.add_argument("--store", help="measure into this store")
    parser.add_argument("--small", action="store_true", help="a quick check (pocl)")
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--table", metavar="STORE", help="print a measured store")
    parser.add_argument("--analyse", metavar="STORE", help="print the features' figures")
    parser.add_argument("--sms", type=int, default=132,
                        help="with --analyse: multiprocessors of the device (H100: 132)")
    parser.add_argument("--build-info", metavar="FILE.json",
                        help="also write the builds' registers (NVIDIA)")
    args = parser.parse_args()
    if args.table:
        table(args.table)
        return
    if args.analyse:
        analyse(args.analyse, args.sms)
        return
    if not args.store:
        parser.error("--store is needed to measure")
    measure(args.device, args.store, args.small, args.runs, args.build_info)


if __name__ == "__main__":
    main()
