"""The Lift paper's eight 2D stencil benchmarks (its Table 2) as one tunable template.

Each benchmark is a :class:`StencilBenchmark`: the input grids, which neighbours of
each grid the output reads (offsets within the radius), and the output expression.
Every grid is stored with a ghost border of the stencil's radius ``r``, so the output
point ``(i, j)`` of the ``n x n`` result reads ``grid[i + r + di, j + r + dj]`` and no
guard is needed.

The transformations a tuning space chooses between (the paper's rewrite space,
written as loopy transformations of one template per structure):

* ``launch``: ``2d``: a 2D grid of 2D work groups ``bx x by``; ``1d``: a 1D grid of 1D
  groups ``bx`` over the columns, each work item sweeping every row in sequence (global
  size 1 in dimension 1, the paper's ``mapGlb(0)`` over ``mapSeq``);
* ``cx`` columns and ``cy`` rows per work item, strided by the group's extent (lanes
  stay contiguous: loads coalesce whatever the coarsening);
* ``tile``: ``global`` (every read from global memory, left to the caches) or
  ``local`` (each grid read at a neighbour is fetched with its halo into local memory
  once per group, then read from there);
* ``unroll``: the coarsening loops unrolled by loopy (``unr``) or left as loops;
* ``assign`` (the rewrite spaces of :mod:`workbench.tuning.catalog` only): ``strided``
  as above, or ``blocked``: each work item's ``cx`` columns (and ``cy`` rows) are
  contiguous, Lift's ``split`` mapped onto work items without reordering.  Neighbouring
  lanes then sit ``cx`` columns apart, so a warp's load touches up to ``cx`` times as
  many cache lines (and a local tile's reads stride across banks);
* ``width`` (the rewrite spaces only): 1, or 2 or 4 for Lift's ``asVector``: blocked
  columns read from global memory as ``float2``/``float4`` windows and written as
  vectors (:mod:`.lift_vectors`, which has the aligned layout those loads need).

A grid read only at the centre (Hotspot's power) is read from global memory in every
variant; a grid read at any neighbour gets a tile.  SRAD2 reads its coefficient at
three points and its image at five (Rodinia's ``srad_cuda_2``); the paper's table
counts three.

Templates keep every number symbolic (``L0 = bx``, ``L1 = by``, ``C = cy``,
``X = cx``, the group counts, ``R`` rows swept), so one property or feature
extraction serves every point of a structure.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import loopy as lp
import numpy as np
from loopy.symbolic import parse as loopy_parse
from pymbolic import evaluate as pymbolic_evaluate

from workbench.kernels.tunable.common import Template, symbols, template_kernel
from workbench.kernels.tunable.lift_vectors import vector_template

Offset = tuple[int, int]
#: Reads one grid at an offset from the output point, as loopy or numpy code.
Accessor = Callable[[str, int, int], str]

CROSS: tuple[Offset, ...] = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))
BOX: tuple[Offset, ...] = tuple(itertools.product((-1, 0, 1), repeat=2))
BOX5: tuple[Offset, ...] = tuple(itertools.product(range(-2, 3), repeat=2))
GAUSS_1D = (1.0, 4.0, 6.0, 4.0, 1.0)


@dataclass(frozen=True)
class StencilBenchmark:
    """One benchmark: what it reads and the expression of one output point.

    ``reads`` maps each input grid to the offsets it is read at; ``expression(at)``
    writes the output point with ``at(grid, di, dj)`` standing for a read, so that
    the same text serves loopy (any tile) and the numpy reference.
    """

    name: str
    title: str
    reads: tuple[tuple[str, tuple[Offset, ...]], ...]
    expression: Callable[[Accessor], str]
    rtol: float = 1e-4

    @property
    def radius(self) -> int:
        return max(max(abs(di), abs(dj)) for _, offs in self.reads for di, dj in offs)

    @property
    def grids(self) -> tuple[str, ...]:
        return tuple(g for g, _ in self.reads)

    def offsets(self, grid: str) -> tuple[Offset, ...]:
        return dict(self.reads)[grid]

    @property
    def points_used(self) -> int:
        return len({o for _, offs in self.reads for o in offs})

    def tiled(self, grid: str) -> bool:
        """Whether a local tile holds ``grid`` (it is read at some neighbour)."""
        return any(o != (0, 0) for o in self.offsets(grid))

    def needs_corners(self, grid: str) -> bool:
        return any(di and dj for di, dj in self.offsets(grid))


def _weighted(grid: str, offsets, weight: Callable[[int, int], float]) -> Callable:
    def expression(at: Accessor) -> str:
        return " + ".join(f"{weight(di, dj)!r}*{at(grid, di, dj)}" for di, dj in offsets)
    return expression


def _srad1(at: Accessor) -> str:
    # Rodinia's SRAD kernel 1: the diffusion coefficient from the image's
    # derivatives (the speckle scale q0^2 fixed at 1/16), clamped to [0, 1]
    c = at("img", 0, 0)
    d = [f"({at('img', di, dj)} - {c})" for di, dj in CROSS[1:]]
    g2 = f"(({' + '.join(f'{x}*{x}' for x in d)}) / ({c}*{c}))"
    lap = f"(({' + '.join(d)}) / {c})"
    num = f"(0.5*{g2} - 0.0625*{lap}*{lap})"
    den = f"(1.0 + 0.25*{lap})"
    qsqr = f"({num} / ({den}*{den}))"
    # q0^2 and q0^2 (1 + q0^2) as literals exact in float32: loopy types an inexact
    # one (0.05) as float64 inside fmin/fmax, and the whole expression with it
    return f"fmin(fmax(1.0 / (1.0 + ({qsqr} - 0.0625)/0.06640625), 0.0f), 1.0f)"


def _srad2(at: Accessor) -> str:
    # Rodinia's SRAD kernel 2: the image updated by the coefficient's divergence
    j = at("img", 0, 0)
    c, cs, ce = at("coef", 0, 0), at("coef", 1, 0), at("coef", 0, 1)
    div = (f"{c}*({at('img', -1, 0)} - {j}) + {cs}*({at('img', 1, 0)} - {j}) + "
           f"{c}*({at('img', 0, -1)} - {j}) + {ce}*({at('img', 0, 1)} - {j})")
    return f"{j} + 0.125*({div})"


def _hotspot(at: Accessor) -> str:
    # Rodinia's Hotspot step (step/cap = 0.5, Rx = Ry = 0.1, Rz = 0.00625, ambient 80)
    t = at("temp", 0, 0)
    return (f"{t} + 0.5*({at('power', 0, 0)} + ({at('temp', 1, 0)} + {at('temp', -1, 0)}"
            f" - 2.0*{t})*0.1 + ({at('temp', 0, 1)} + {at('temp', 0, -1)} - 2.0*{t})*0.1"
            f" + (80.0 - {t})*0.00625)")


def _gradient(at: Accessor) -> str:
    dx = f"({at('u', 0, 1)} - {at('u', 0, -1)})"
    dy = f"({at('u', 1, 0)} - {at('u', -1, 0)})"
    return f"sqrt({dx}*{dx} + {dy}*{dy} + 0.0001*{at('u', 0, 0)}*{at('u', 0, 0)})"


def _stencil2d_weight(di: int, dj: int) -> float:
    # SHOC's Stencil2D: centre, cardinal and diagonal weights
    return (0.25, 0.15, 0.05)[abs(di) + abs(dj)]


BENCHMARKS: dict[str, StencilBenchmark] = {b.name: b for b in (
    StencilBenchmark("stencil2d", "SHOC Stencil2D (9-point weighted)", (("u", BOX),),
                     _weighted("u", BOX, _stencil2d_weight)),
    StencilBenchmark("srad1", "Rodinia SRAD kernel 1 (diffusion coefficient)",
                     (("img", CROSS),), _srad1, rtol=1e-3),
    StencilBenchmark("srad2", "Rodinia SRAD kernel 2 (image update)",
                     (("img", CROSS), ("coef", ((0, 0), (1, 0), (0, 1)))), _srad2),
    StencilBenchmark("hotspot2d", "Rodinia Hotspot (temperature step)",
                     (("temp", CROSS), ("power", ((0, 0),))), _hotspot),
    StencilBenchmark("gradient", "Gradient magnitude (central differences)",
                     (("u", CROSS),), _gradient),
    StencilBenchmark("jacobi5", "Jacobi 2D, 5-point", (("u", CROSS),),
                     _weighted("u", CROSS, lambda di, dj: 0.2)),
    StencilBenchmark("jacobi9", "Jacobi 2D, 9-point", (("u", BOX),),
                     _weighted("u", BOX, lambda di, dj: 0.1111111111111111)),
    StencilBenchmark("gaussian", "Gaussian blur, 5x5", (("u", BOX5),),
                     _weighted("u", BOX5, lambda di, dj:
                               GAUSS_1D[di + 2] * GAUSS_1D[dj + 2] / 256.0)),
)}

PARAMETERS_2D = ("G0", "G1", "L0", "L1", "C", "X")
PARAMETERS_1D = ("G0", "L0", "X", "R")


def _unrolled(tags: dict, unroll: bool, *inames: str) -> dict:
    return {**tags, **{i: "unr" for i in inames}} if unroll else tags


def _fill(grid: str, r: int, corners: bool, rows: str, cols: str
          ) -> tuple[list[str], str, list[str], dict[str, str]]:
    """Domains and instructions that copy ``grid``'s tile with its halo of width r
    into ``t_<grid>`` (tile cell (a, b) holds grid[rows + a, cols + b]).

    Every instruction's lanes and loops cover exactly its cells (interior, halo rows,
    halo columns, corners), so it stays affine and loopy counts it exactly."""
    t, ids = f"t_{grid}", []
    domains = [f"{{[f{grid}c, f{grid}x]: 0 <= f{grid}c < C and 0 <= f{grid}x < X}}",
               f"{{[h{grid}a, h{grid}b]: 0 <= h{grid}a, h{grid}b < {r}}}",
               f"{{[h{grid}x]: 0 <= h{grid}x < X}}", f"{{[h{grid}c]: 0 <= h{grid}c < C}}"]
    row_in, col_in = f"f{grid}c*L1 + l1 + {r}", f"f{grid}x*L0 + l0 + {r}"
    lines = [f"{t}[{row_in}, {col_in}] = {grid}[{rows} + {row_in}, {cols} + {col_in}] "
             f"{{id=fill_{grid}, inames=g0:g1:l0:l1:f{grid}c:f{grid}x}}"]
    ids.append(f"fill_{grid}")
    a, b = f"h{grid}a", f"h{grid}b"
    halo_col, halo_row = f"h{grid}x*L0 + l0 + {r}", f"h{grid}c*L1 + l1 + {r}"
    for side, row in (("top", a), ("bottom", f"L1*C + {r} + {a}")):
        lines.append(f"{t}[{row}, {halo_col}] = {grid}[{rows} + {row}, {cols} + {halo_col}]"
                     f" {{id=fill_{grid}_{side}, inames=g0:g1:l0:{a}:h{grid}x}}")
        ids.append(f"fill_{grid}_{side}")
    for side, col in (("left", b), ("right", f"L0*X + {r} + {b}")):
        lines.append(f"{t}[{halo_row}, {col}] = {grid}[{rows} + {halo_row}, {cols} + {col}]"
                     f" {{id=fill_{grid}_{side}, inames=g0:g1:l1:{b}:h{grid}c}}")
        ids.append(f"fill_{grid}_{side}")
    if corners:
        for (vert, row), (horiz, col) in itertools.product(
                (("top", a), ("bottom", f"L1*C + {r} + {a}")),
                (("left", b), ("right", f"L0*X + {r} + {b}"))):
            name = f"fill_{grid}_{vert}_{horiz}"
            lines.append(f"{t}[{row}, {col}] = {grid}[{rows} + {row}, {cols} + {col}]"
                         f" {{id={name}, inames=g0:g1:{a}:{b}}}")
            ids.append(name)
    tags = {a: "l.1", b: "l.0"}
    return domains, "\n".join(lines), ids, tags


def _reading_once(benchmark: StencilBenchmark, i: str, j: str, inames: str,
                  source: Accessor, after: str | None) -> str:
    """Instructions that read each point once into a private value, then write the
    output from those values: the expressions repeat reads (SRAD1 uses its centre
    eleven times), which a compiler would load once and loopy would count each time."""
    lines, reads = [], []

    def value(grid, di, dj):
        name = f"v_{grid}_{di + benchmark.radius}_{dj + benchmark.radius}"
        if name not in reads:
            reads.append(name)
            dep = f", dep={after}" if after else ""
            lines.append(f"<> {name} = {source(grid, di, dj)} "
                         f"{{id=read_{name}, inames={inames}{dep}}}")
        return name

    expression = benchmark.expression(value)
    deps = ":".join(f"read_{name}" for name in reads)
    return "\n".join([*lines, f"out[{i}, {j}] = {expression} {{dep={deps}}}"])


ASSIGNMENTS = ("strided", "blocked")


def _within_group(assign: str, lane: str, step: str, extent: str, count: str) -> str:
    """A work item's ``step``-th element along one dimension of its group's block:
    strided by the group's ``extent`` of lanes, or blocked (``count`` contiguous
    elements per lane)."""
    if assign == "strided":
        return f"{step}*{extent} + {lane}"
    if assign == "blocked":
        return f"{lane}*{count} + {step}"
    raise ValueError(f"unknown assignment {assign!r} (one of {', '.join(ASSIGNMENTS)})")


def template(benchmark: StencilBenchmark, tile: str, launch: str, unroll: bool,
             assign: str = "strided", width: int = 1) -> Template:
    """The template of one structure (``tile``, ``launch``, ``unroll``, ``assign``,
    vector ``width``: above 1, blocked global reads only, :mod:`.lift_vectors`)."""
    if width != 1:
        if assign != "blocked" or tile != "global":
            raise ValueError("vector widths above 1 take blocked columns and global reads")
        return vector_template(benchmark, launch, unroll, width)
    r = benchmark.radius
    dtype = np.float32
    col = _within_group(assign, "l0", "x", "L0", "X")
    row = _within_group(assign, "l1", "c", "L1", "C")
    if launch == "1d":
        if tile != "global":
            raise ValueError("a 1D launch sweeps rows in sequence: only global reads")
        i, j, inames = "i", f"g0*L0*X + {col}", "g0:l0:x:i"
        rows_expr, cols_expr = "R", "G0*L0*X"
        domains = ["{[g0, l0, x, i]: 0 <= g0 < G0 and 0 <= l0 < L0 and 0 <= x < X "
                   "and 0 <= i < R}"]
        params = PARAMETERS_1D
        tags = _unrolled({"g0": "g.0", "l0": "l.0"}, unroll, "x")
    elif launch == "2d":
        i, j = f"g1*L1*C + {row}", f"g0*L0*X + {col}"
        inames = "g0:g1:l0:l1:c:x"
        rows_expr, cols_expr = "G1*L1*C", "G0*L0*X"
        domains = ["{[g0, g1, l0, l1]: 0 <= g0 < G0 and 0 <= g1 < G1 and 0 <= l0 < L0 "
                   "and 0 <= l1 < L1}", "{[c, x]: 0 <= c < C and 0 <= x < X}"]
        params = PARAMETERS_2D
        tags = _unrolled({"g0": "g.0", "g1": "g.1", "l0": "l.0", "l1": "l.1"},
                         unroll, "c", "x")
    else:
        raise ValueError(f"unknown launch {launch!r}")
    args = [lp.GlobalArg(g, dtype, shape=(f"{rows_expr} + {2 * r}", f"{cols_expr} + {2 * r}"))
            for g in benchmark.grids]
    args.append(lp.GlobalArg("out", dtype, shape=(rows_expr, cols_expr)))

    def from_global(grid, di, dj):
        return f"{grid}[{i} + {r + di}, {j} + {r + dj}]"

    if tile == "global":
        insns = _reading_once(benchmark, i, j, inames, from_global, after=None)
    elif tile == "local":
        if launch != "2d":
            raise ValueError("local tiles need a 2D launch")
        rows, cols = "g1*L1*C", "g0*L0*X"
        fills, fill_ids = [], []
        for grid in (g for g in benchmark.grids if benchmark.tiled(g)):
            more, text, ids, more_tags = _fill(grid, r, benchmark.needs_corners(grid),
                                                rows, cols)
            domains += more
            fills.append(text)
            fill_ids += ids
            tags.update(more_tags)
            args.append(lp.TemporaryVariable(
                f"t_{grid}", dtype, shape=(f"L1*C + {2 * r}", f"L0*X + {2 * r}"),
                address_space=lp.AddressSpace.LOCAL))
            if unroll:
                tags.update({f"f{grid}c": "unr", f"f{grid}x": "unr"})

        def from_tile(grid, di, dj):
            if not benchmark.tiled(grid):
                return from_global(grid, di, dj)
            return f"t_{grid}[{row} + {r + di}, {col} + {r + dj}]"

        insns = "\n".join([*fills, f"... lbarrier {{id=filled, dep={':'.join(fill_ids)}}}",
                           _reading_once(benchmark, i, j, inames, from_tile, after="filled")])
    else:
        raise ValueError(f"unknown tile {tile!r}")
    knl = template_kernel(domains, insns, args, params, name=f"lift_{benchmark.name}",
                          tags=tags)
    if launch == "1d":
        knl = lp.prioritize_loops(knl, "i,x")
    return Template(knl, symbols(params))


def bindings(point, n: int) -> dict[str, int]:
    bx, cx = point["bx"], point["cx"]
    width = point.get("vw", 1)
    vectors = {"Q": cx // width} if width > 1 else {}
    if point["launch"] == "1d":
        return {"L0": bx, "X": cx, "G0": n // (bx * cx), "R": n, **vectors}
    by, cy = point["by"], point["cy"]
    return {"L0": bx, "L1": by, "C": cy, "X": cx, "G0": n // (bx * cx),
            "G1": n // (by * cy), **vectors}


def local_bytes(benchmark: StencilBenchmark, point) -> int:
    if point["tile"] != "local":
        return 0
    r, tiles = benchmark.radius, sum(benchmark.tiled(g) for g in benchmark.grids)
    return 4 * tiles * (point["by"] * point["cy"] + 2 * r) * (point["bx"] * point["cx"] + 2 * r)


def make_inputs(benchmark: StencilBenchmark, n: int, rng: np.random.Generator
                ) -> dict[str, np.ndarray]:
    side = n + 2 * benchmark.radius
    inputs = {}
    for grid in benchmark.grids:
        values = rng.random((side, side), dtype=np.float64)
        if benchmark.name == "hotspot2d" and grid == "temp":
            values = 300.0 + 50.0 * values
        elif benchmark.name.startswith("srad") and grid == "img":
            values = 0.5 + values          # SRAD divides by the image: keep it positive
        inputs[grid] = values.astype(np.float32)
    return inputs


def reference(benchmark: StencilBenchmark, inputs: Mapping[str, np.ndarray]
              ) -> dict[str, np.ndarray]:
    """The output computed by numpy in float64 from the same expression text: each
    read becomes a shifted view of its grid, and pymbolic evaluates the text as
    loopy parses it."""
    r = benchmark.radius
    n = inputs[benchmark.grids[0]].shape[0] - 2 * r
    context = {"sqrt": np.sqrt, "fmin": np.minimum, "fmax": np.maximum}

    def view(grid, di, dj):
        name = f"{grid}_{di + r}_{dj + r}"
        context[name] = inputs[grid].astype(np.float64)[r + di:r + di + n, r + dj:r + dj + n]
        return name

    out = pymbolic_evaluate(loopy_parse(benchmark.expression(view)), context)
    return {"out": np.asarray(out, dtype=np.float32)}
