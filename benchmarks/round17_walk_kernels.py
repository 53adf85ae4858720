"""Walked rows for round 17 of issue #34, as loopy kernels (role: calibration
microbenchmark; no held-out kernel), timed on the device by ``scripts/h100_round17_probe.py``.

heldout14 measured a one-work-item-a-row integration of 65-sample rows at about DRAM rate in
float32, half the time that the walked-row price (round 10's ``row_walk``: one L1 wavefront a
128-byte line a cycle per SM, from rows of 16 and 64 entries whose length is a runtime
argument) gives it, and at 1.2-1.8 times its prediction in float64.  These kernels are round
10's ``row_walk`` ``sum`` (``out[i] = sum(c, x[i, c])``, lanes a row apart), one work item a
row, 1-D groups of :data:`GROUP`, with

* ``cols`` 64 or 65: rows 256 or 260 bytes apart in float32 (512 or 520 in float64), a
  power of two against not;
* ``cols`` a runtime argument (as round 10 measured) or fixed in the kernel
  (``lp.fix_parameters``: the loop's trip count known to the compiler, as a row of 65
  samples is).
"""

from __future__ import annotations

COLS = (64, 65)
ROWS = {"float32": (2 ** 20, 2 ** 21), "float64": (2 ** 19, 2 ** 20)}
GROUP = 256
DTYPES = ("float32", "float64")


def walk_kernels():
    """(kernel, dtype, cols, fixed) for every probe kernel; a fixed kernel takes no
    ``cols`` argument."""
    import loopy as lp

    from workbench.kernels import get_kernel

    spec = get_kernel("row_walk")
    for dtype in DTYPES:
        base = spec.build(spec.request("sum", dtype, (GROUP,)))
        for cols in COLS:
            for fixed in (False, True):
                yield (lp.fix_parameters(base, cols=cols) if fixed else base), dtype, cols, fixed


def walked_bytes(n: int, cols: int, itemsize: int) -> int:
    """The rows' bytes (each read once; the row sums' stores left out)."""
    return n * cols * itemsize
