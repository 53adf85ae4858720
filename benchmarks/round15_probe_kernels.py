"""The calibration microbenchmarks of round 15 of issue #34, as loopy kernels (role:
calibration microbenchmark; no held-out kernel), timed on the device by
``scripts/h100_round15_probe.py`` and read by ``benchmarks/trig_stencil_prices.py``.

* ``trig_chain``: v <- f(v), ``rounds`` dependent rounds a work item (as round 11's
  ``op_chain``), one load and one store, 2^22 work items in groups of 256 (every SM full:
  a round's throughput is the slope between 16 and 64 rounds). A round (c, d scalars):

  - ``sin``: sin(c v + d), c = 20, d = 25 (arguments 5 to 45, heldout12's range);
  - ``sin_small``: sin(v) (arguments below 2: whether the range reduction's cost moves);
  - ``cos``: cos(c v + d);  ``sincos``: sin(c v + d) + cos(c v + d) (one argument, as a
    Newton step of Kepler's equation: whether the compiler shares the reduction);
  - ``tan``: tan(c v + d), c = 0.1, d = 0.5;  ``atan2``: atan2(v, c), c = 1.5.

* ``stencil``: a 2-D 5-point or 9-point stencil ``out[i, j]`` of ``u``'s neighbours,
  one work item a point, 2-D groups (``split_2d``: g0 along the contiguous axis), over an
  n x n grid of n = 1024 (both arrays fit the H100's 50 MB L2), 4096 (float32 64 MiB a
  grid: just beyond it) and 8192 (well beyond it).
"""

from __future__ import annotations

TRIG_N = 1 << 22
TRIG_GROUP = 256
TRIG_ROUNDS = (16, 64)
#: variant -> (a round's expression of v, its scalars (c, d))
TRIG_ROUNDS_EXPR = {
    "sin": ("sin(c*v + d)", (20.0, 25.0)),
    "sin_small": ("sin(v)", (0.0, 0.0)),
    "cos": ("cos(c*v + d)", (20.0, 25.0)),
    "sincos": ("sin(c*v + d) + cos(c*v + d)", (20.0, 25.0)),
    "tan": ("tan(c*v + d)", (0.1, 0.5)),
    "atan2": ("atan2(v, c)", (1.5, 0.0)),
}
STENCIL_SIZES = (1024, 4096, 8192)
STENCIL_GROUPS = ((32, 8), (16, 16), (64, 4))
STENCIL_POINTS = (5, 9)


def _suffix(dtype: str) -> str:
    return "" if dtype == "float32" else "_f64"


def trig_chain(variant: str, rounds: int, dtype: str = "float32"):
    """``rounds`` dependent rounds of ``TRIG_ROUNDS_EXPR[variant]`` a work item."""
    import loopy as lp
    import numpy as np

    expression, _ = TRIG_ROUNDS_EXPR[variant]
    knl = lp.make_kernel(
        f"{{[i, r]: 0 <= i < n and 0 <= r < {rounds}}}",
        f"""
        for i
            <> v = x[i] {{id=init}}
            for r
                v = {expression} {{id=round, dep=init}}
            end
            y[i] = v {{dep=round}}
        end
        """,
        [lp.GlobalArg("x", np.dtype(dtype), shape=("n",)),
         lp.GlobalArg("y", np.dtype(dtype), shape=("n",)),
         lp.ValueArg("c", np.dtype(dtype)), lp.ValueArg("d", np.dtype(dtype)),
         lp.ValueArg("n", np.int32)],
        name=f"trig_{variant}_r{rounds}{_suffix(dtype)}", lang_version=(2018, 2),
        assumptions="n >= 1")
    return lp.split_iname(knl, "i", TRIG_GROUP, outer_tag="g.0", inner_tag="l.0")


def stencil(points: int, size: int, group: tuple[int, int], dtype: str = "float32"):
    """A 2-D ``points``-point stencil (5: the four edge neighbours; 9: the 3 x 3 box)
    over the interior of an ``n`` x ``n`` grid, one work item a point, groups of
    ``group`` = (g0 along j, the contiguous axis; g1 along i)."""
    import loopy as lp
    import numpy as np

    edges = "u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1]"
    corners = "u[i-1, j-1] + u[i-1, j+1] + u[i+1, j-1] + u[i+1, j+1]"
    expression = f"c0*u[i, j] + c1*({edges})"
    if points == 9:
        expression += f" + c2*({corners})"
    knl = lp.make_kernel(
        "{[i, j]: 1 <= i < n - 1 and 1 <= j < n - 1}",
        f"out[i, j] = {expression}",
        [lp.GlobalArg("u", np.dtype(dtype), shape=("n", "n")),
         lp.GlobalArg("out", np.dtype(dtype), shape=("n", "n")),
         *(lp.ValueArg(c, np.dtype(dtype)) for c in ("c0", "c1", "c2")[:2 + (points == 9)]),
         lp.ValueArg("n", np.int32)],
        name=f"stencil{points}_n{size}_g{group[0]}x{group[1]}{_suffix(dtype)}",
        lang_version=(2018, 2), assumptions="n >= 3")
    knl = lp.split_iname(knl, "i", group[1], outer_tag="g.1", inner_tag="l.1")
    return lp.split_iname(knl, "j", group[0], outer_tag="g.0", inner_tag="l.0")


def trig_kernels():
    """(kernel, dtype, variant, rounds) of every trig chain, in measuring order."""
    return [(trig_chain(v, r, dt), dt, v, r) for dt in ("float32", "float64")
            for v in TRIG_ROUNDS_EXPR for r in TRIG_ROUNDS]


def stencil_kernels():
    """(kernel, dtype, points, size, group) of every stencil, in measuring order."""
    return [(stencil(p, s, g, dt), dt, p, s, g) for dt in ("float32", "float64")
            for p in STENCIL_POINTS for s in STENCIL_SIZES for g in STENCIL_GROUPS]
