"""Vector widths for the Lift stencils: Lift's ``asVector(w)`` rewrite as loopy vector
loads and stores.

A work item owns ``cx`` contiguous columns of ``cy`` rows (the blocked assignment of
:mod:`.lift_stencils`), ``Q = cx / w`` vectors of width ``w``.  For each row it reads,
it loads a *window* of whole vectors into private memory: its own ``Q`` vectors and
``h = ceil(radius / w)`` more on either side for the halo, every one an aligned
``floatw`` load.  The stencil then reads its neighbours as components of the windows
(``win[1].s3``), writes each output component into a private vector and stores the
``Q`` vectors with ``floatw`` stores.  So the halo costs ``2 h`` extra vector loads
per row rather than ``2 r`` scalar ones, and every load is as wide as the rewrite
says, which is what the rewrite trades: fewer, wider memory instructions against
wasted halo lanes and more registers.

Aligned vectors need an aligned layout: each input grid is also given as
``<grid>_aligned``, whose ``n`` interior columns start at column :data:`ALIGN` and
whose rows are ``n + 2 ALIGN`` long (rows keep the ghost border of the radius).
:func:`aligned_inputs` makes it from the ordinary layout; the output is the ordinary
``n x n`` grid seen as ``n x n/w`` vectors.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels.tunable.common import Template, symbols, template_kernel

#: Ghost columns on each side of an aligned grid: a multiple of every vector width
#: and at least every benchmark's radius.
ALIGN = 4
#: The vector widths a point may take (1: scalar, the other templates).
VECTOR_WIDTHS = (1, 2, 4)

PARAMETERS_2D = ("G0", "G1", "L0", "L1", "C", "X", "Q")
PARAMETERS_1D = ("G0", "L0", "X", "Q", "R")


def aligned_name(grid: str) -> str:
    return f"{grid}_aligned"


def aligned_inputs(inputs: dict[str, np.ndarray], radius: int) -> dict[str, np.ndarray]:
    """``<grid>_aligned`` for every grid: the same values, the interior's first column
    at :data:`ALIGN` (extra ghost columns hold zeros and are never read)."""
    out = {}
    for grid, values in inputs.items():
        rows, cols = values.shape
        n = cols - 2 * radius
        aligned = np.zeros((rows, n + 2 * ALIGN), dtype=values.dtype)
        aligned[:, ALIGN - radius:ALIGN + n + radius] = values
        out[aligned_name(grid)] = aligned
    return out


def _halo_vectors(benchmark, grid: str, width: int) -> int:
    reach = max(abs(dj) for _, dj in benchmark.offsets(grid))
    return -(-reach // width)


def vector_template(benchmark, launch: str, unroll: bool, width: int) -> Template:
    """The template of a vectorized structure: blocked columns, global reads,
    ``width``-wide loads and stores (``width`` 2 or 4)."""
    if width not in VECTOR_WIDTHS[1:]:
        raise ValueError(f"vector width {width} is not one of {VECTOR_WIDTHS[1:]}")
    r, dtype = benchmark.radius, np.float32
    if r > ALIGN:
        raise ValueError(f"radius {r} is wider than the aligned ghost of {ALIGN} columns")
    if launch == "2d":
        i = "g1*L1*C + l1*C + c"
        outer, params = "g0:g1:l0:l1:c", PARAMETERS_2D
        rows_expr, cols_expr = "G1*L1*C", "G0*L0*X"
        domains = ["{[g0, g1, l0, l1]: 0 <= g0 < G0 and 0 <= g1 < G1 and 0 <= l0 < L0 "
                   "and 0 <= l1 < L1}", "{[c]: 0 <= c < C}"]
        tags = {"g0": "g.0", "g1": "g.1", "l0": "l.0", "l1": "l.1"}
        if unroll:
            tags["c"] = "unr"
    elif launch == "1d":
        i = "i"
        outer, params = "g0:l0:i", PARAMETERS_1D
        rows_expr, cols_expr = "R", "G0*L0*X"
        domains = ["{[g0, l0, i]: 0 <= g0 < G0 and 0 <= l0 < L0 and 0 <= i < R}"]
        tags = {"g0": "g.0", "l0": "l.0"}
    else:
        raise ValueError(f"unknown launch {launch!r}")
    # the item's first vector of the output; of an aligned grid, ALIGN/width further
    first = "(g0*L0 + l0)*Q"
    domains += ["{[k]: 0 <= k < X}", f"{{[p, w]: 0 <= p < Q and 0 <= w < {width}}}"]
    tags.update({"k": "unr", "p": "unr", "w": "vec"})
    args, lines, loads = [], [], []
    for grid in benchmark.grids:
        args.append(lp.GlobalArg(
            aligned_name(grid), dtype, dim_tags="N1,N0,vec",
            shape=(f"{rows_expr} + {2 * r}", f"({cols_expr} + {2 * ALIGN}) // {width}",
                   width)))
        h = _halo_vectors(benchmark, grid, width)
        q, v = f"q_{grid}", f"v_{grid}"
        domains.append(f"{{[{q}, {v}]: 0 <= {q} < Q + {2 * h} and 0 <= {v} < {width}}}")
        tags.update({q: "unr", v: "vec"})
        for di in sorted({di for di, _ in benchmark.offsets(grid)}):
            window = f"win_{grid}_{di + r}"
            args.append(lp.TemporaryVariable(window, dtype, shape=(f"Q + {2 * h}", width),
                                             dim_tags="c,vec",
                                             address_space=lp.AddressSpace.PRIVATE))
            lines.append(f"{window}[{q}, {v}] = {aligned_name(grid)}[{i} + {r + di}, "
                         f"{first} + {ALIGN // width - h} + {q}, {v}] "
                         f"{{id=load_{window}, inames={outer}:{q}:{v}}}")
            loads.append(f"load_{window}")

    def component(grid, di, dj):
        at = f"k + {dj + _halo_vectors(benchmark, grid, width) * width}"
        return f"win_{grid}_{di + r}[({at}) // {width}, ({at}) % {width}]"

    args.append(lp.TemporaryVariable("res", dtype, shape=("Q", width), dim_tags="c,vec",
                                     address_space=lp.AddressSpace.PRIVATE))
    lines.append(f"res[k // {width}, k % {width}] = {benchmark.expression(component)} "
                 f"{{id=compute, dep={':'.join(loads)}, inames={outer}:k}}")
    lines.append(f"out[{i}, {first} + p, w] = res[p, w] "
                 f"{{id=store, dep=compute, inames={outer}:p:w}}")
    args.append(lp.GlobalArg("out", dtype, dim_tags="N1,N0,vec",
                             shape=(rows_expr, f"{cols_expr} // {width}", width)))
    knl = template_kernel(domains, "\n".join(lines), args, params,
                          name=f"lift_{benchmark.name}", tags=tags)
    # loopy's newer scheduler leaves vector loops to the older one, and says so
    knl = knl.with_kernel(knl.default_entrypoint.copy(silenced_warnings=[
        *knl.default_entrypoint.silenced_warnings, "v1_scheduler_fallback"]))
    if launch == "1d":
        knl = lp.prioritize_loops(knl, "i,k")
    return Template(knl, symbols(params))
