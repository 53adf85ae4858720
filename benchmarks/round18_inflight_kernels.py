"""Loads in flight per work item for round 18 of issue #34, as loopy kernels (role:
calibration microbenchmark; no held-out kernel), timed on the device by
``scripts/h100_round18_probe.py``.

The DRAM stream bound ``f_dram_stream_s`` divides the bytes beyond L2 by the bandwidth of
``bandwidth.json`` (3.02 TB/s on the H100), which ``workbench.measure.bandwidth`` measures
with four loads in flight per work item.  By Little's law the rate a kernel reaches is the
bytes its warps have in flight over the DRAM latency, up to the interface's peak: a kernel
with one float32 load per work item has a quarter of them.  These kernels sum ``k``
independent loads a work item (``k`` planes of one array, each read once) into one store:

* ``flat``: ``out[i] = x[0, i] + ... + x[k-1, i]``, 1-D groups of :data:`GROUP`;
* ``grid``: ``out[r, c] = x[0, r, c] + ... + x[k-1, r, c]``, 2-D groups (g0 along the
  contiguous axis ``c``), rows of :data:`COLS` entries;

``k`` in :data:`LOADS`, float32 and float64, the loaded bytes :data:`LOADED_BYTES` (beyond
the H100's 50 MB L2 many times over).
"""

from __future__ import annotations

LOADS = (1, 2, 4, 8)
GROUP = 256
GRID_GROUPS = ((16, 16), (32, 8))
COLS = 8192
LOADED_BYTES = (1 << 28, 1 << 29)
DTYPES = ("float32", "float64")


def _suffix(dtype: str) -> str:
    return "" if dtype == "float32" else "_f64"


def flat(k: int, dtype: str):
    """``k`` loads a work item, 1-D."""
    import loopy as lp
    import numpy as np

    total = " + ".join(f"x[{j}, i]" for j in range(k))
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", f"out[i] = {total}",
        [lp.GlobalArg("x", np.dtype(dtype), shape=(k, "n")),
         lp.GlobalArg("out", np.dtype(dtype), shape=("n",)), lp.ValueArg("n", np.int32)],
        name=f"inflight_flat_k{k}{_suffix(dtype)}", lang_version=(2018, 2),
        assumptions="n >= 1")
    return lp.split_iname(knl, "i", GROUP, outer_tag="g.0", inner_tag="l.0")


def grid(k: int, dtype: str, group: tuple[int, int]):
    """``k`` loads a work item, 2-D groups ``group`` = (g0 along c, g1 along r)."""
    import loopy as lp
    import numpy as np

    total = " + ".join(f"x[{j}, r, c]" for j in range(k))
    knl = lp.make_kernel(
        "{[r, c]: 0 <= r < m and 0 <= c < w}", f"out[r, c] = {total}",
        [lp.GlobalArg("x", np.dtype(dtype), shape=(k, "m", "w")),
         lp.GlobalArg("out", np.dtype(dtype), shape=("m", "w")),
         lp.ValueArg("m", np.int32), lp.ValueArg("w", np.int32)],
        name=f"inflight_grid_k{k}_g{group[0]}x{group[1]}{_suffix(dtype)}",
        lang_version=(2018, 2), assumptions="m >= 1 and w >= 1")
    knl = lp.split_iname(knl, "r", group[1], outer_tag="g.1", inner_tag="l.1")
    return lp.split_iname(knl, "c", group[0], outer_tag="g.0", inner_tag="l.0")


def probe_kernels():
    """(kernel, dtype, layout, k, group) of every probe kernel, in measuring order."""
    out = []
    for dtype in DTYPES:
        for k in LOADS:
            out.append((flat(k, dtype), dtype, "flat", k, (GROUP, 1)))
            for g in GRID_GROUPS:
                out.append((grid(k, dtype, g), dtype, "grid", k, g))
    return out


def elements(k: int, itemsize: int, loaded: int) -> int:
    """Elements a plane (the launch's work items) for ``loaded`` bytes of loads."""
    return loaded // (k * itemsize)
