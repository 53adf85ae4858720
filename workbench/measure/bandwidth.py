"""Memory-bandwidth microbenchmarks per level (DRAM, L2, L1), as loopy kernels.

The data-volume model (Ernst et al.) needs the bandwidth of each memory level of a
device.  Each kernel here keeps its working set in one level:

- ``dram``: a stream copy ``b[i] = a[i]`` over arrays far larger than any cache, four
  elements per work item, one group width apart (so each load stays coalesced);
- ``l2``: ``passes`` sweeps over one array small enough for the L2 cache (the first
  sweep brings it in, the rest hit), summed per work item;
- ``l1``: every work group sweeps its own small slice, repeatedly, so the slice
  stays in that compute unit's L1.

Bandwidth is bytes moved by the kernel (as written, not as the hardware may
merge them) over the kernel's profiled time.  Timing uses the project's protocol.
"""

from __future__ import annotations

from dataclasses import dataclass

import loopy as lp
import numpy as np

from workbench.kernels.base import entry_kernel

LANG = (2018, 2)


@dataclass(frozen=True)
class BandwidthKernel:
    level: str
    kernel: object             # loopy TranslationUnit
    params: dict
    bytes_moved: int
    arrays: dict               # name -> element count


def dram_stream(n: int, group: int = 256, per_item: int = 4) -> BandwidthKernel:
    """Each work item copies ``per_item`` elements, ``group`` apart within its group's
    chunk of ``group * per_item``.

    Why not one element per work item: on the H100 that copy reached 2401 GB/s
    against CuPy's 2973 GB/s, since a work item then has a single load in flight;
    four independent loads per work item (unrolled) reached 3024 GB/s in the same
    run (256-wide groups; 2, 4 and 8 per item and 128/256/512-wide groups all gave
    2795-3024 GB/s).  float4 vector loads did worse there (1995-2041 GB/s).  The sizes must
    divide: ``n`` a multiple of ``group * per_item``.
    """
    if n % (group * per_item):
        raise ValueError(f"n={n} must be a multiple of group*per_item={group * per_item}")
    knl = lp.make_kernel("{[i]: 0<=i<n}", "b[i] = a[i]",
                         [lp.GlobalArg("a,b", np.float32, shape=("n",)),
                          lp.ValueArg("n", np.int32)],
                         name="bw_dram_copy", lang_version=LANG,
                         assumptions=f"n>=1 and n mod {group * per_item} = 0")
    knl = lp.split_iname(knl, "i", group * per_item, outer_tag="g.0")
    knl = lp.split_iname(knl, "i_inner", group, outer_tag="unr", inner_tag="l.0")
    return BandwidthKernel("dram", knl, {"n": n}, 2 * 4 * n, {"a": n, "b": n})


def cache_sweep(level: str, total_items: int, slice_elems: int, passes: int,
                group: int = 256) -> BandwidthKernel:
    """Work item (g, l) sums ``passes`` elements of its group's slice (l2: one slice
    shared by all groups; l1: one slice per group), stride 1 across the group."""
    per_group = level == "l1"
    groups = total_items // group
    if slice_elems & (slice_elems - 1):
        raise ValueError("slice_elems must be a power of two (the index wraps with &)")
    # wrap with a mask, not %: an integer modulo per load would cost more than the load
    if per_group:   # each group its own slice: stays in its compute unit's L1
        index = f"g*m + ((l + k*{group}) & (m - 1))"
    else:           # all groups sweep one shared slice: stays in L2
        index = f"(g*{group} + l + k*ng*{group}) & (m - 1)"
    knl = lp.make_kernel(
        f"{{[g, l, k]: 0<=g<ng and 0<=l<{group} and 0<=k<passes}}",
        f"out[g*{group} + l] = sum(k, a[{index}])",
        [lp.GlobalArg("a", np.float32, shape=("asize",)),
         lp.GlobalArg("out", np.float32, shape=(f"ng*{group}",)),
         lp.ValueArg("ng,m,passes,asize", np.int32)],
        name=f"bw_{level}_sweep", lang_version=LANG)
    knl = lp.tag_inames(knl, {"g": "g.0", "l": "l.0"})
    knl = lp.split_iname(knl, "k", 4, inner_tag="unr")
    asize = slice_elems * (groups if per_group else 1)
    params = {"ng": groups, "m": slice_elems, "passes": passes, "asize": asize}
    moved = 4 * groups * group * passes + 4 * groups * group
    return BandwidthKernel(level, knl, params, moved, {"a": asize, "out": groups * group})


def default_set(compute_units: int) -> tuple[BandwidthKernel, ...]:
    """Sizes for a large GPU: 1 GiB streams, a 16 MiB L2 set, 16 KiB L1 slices."""
    items = compute_units * 2048 * 4
    return (dram_stream(1 << 28),
            cache_sweep("l2", items, 4 << 20, 256),
            cache_sweep("l1", items, 4096, 1024))


def run(bench: BandwidthKernel, queue, runs: int = 30, discard: int = 4) -> dict:
    """Time one benchmark (profiling events, first runs discarded, minimum kept)."""
    import pyopencl.array as cla

    knl = entry_kernel(bench.kernel)
    args = dict(bench.params)
    for name, count in bench.arrays.items():
        buf = cla.empty(queue, count, np.float32)
        buf.fill(np.float32(1.0))
        args[name] = buf
    ex = bench.kernel.executor(queue)
    times = []
    for _ in range(runs):
        evt, _ = ex(queue, **args)
        evt.wait()
        times.append((evt.profile.end - evt.profile.start) * 1e-9)
    best = min(times[discard:])
    return {"level": bench.level, "kernel": knl.name, "params": bench.params,
            "bytes": bench.bytes_moved, "time_s": best, "raw_times_s": times,
            "bandwidth_GBps": bench.bytes_moved / best / 1e9}
