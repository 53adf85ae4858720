"""The loopy kernel of one time band: every work group advances its tile t_T steps.

Tiling scheme: overlapped (ghost-zone) time tiles, not the paper's hexagonal /
hybrid hexagonal-classic tiles.  A hexagon's domain is affine, but the HHC schedule
staggers two tile rows per band with a pitch of ``2 t_S + t_T`` and needs inter-tile
data exchange through global memory along oblique faces; its tiles are not boxes, so
each group's loads and loop bounds would be unions of pieces that loopy can only
express as separate instructions per face, and the prism/slab sub-tiles of 2-D and
3-D add a sequential, skewed inner loop with reuse between consecutive sub-tiles.  We
chose the scheme whose tiles are boxes in every dimension, whose every tile of a band
is independent (one launch per band), and whose loads and stores are rectangles
(coalesced on the contiguous axis): the price is redundant computation in the halo.

Per group (tile of ``t_S1 x ... x t_Sd`` output points, ``E_i = t_Si + 2 t_T``):

1. load the box ``E_1 x ... x E_d`` (tile plus a halo of ``t_T`` cells, radius 1
   per step) from global memory into local buffer 0; cells beyond the array load 0
   and are never read by a result;
2. ``t_T`` times: update the inner box ``[1, E_i - 1)`` from one local buffer into
   the other (double buffering: one barrier per step protects both the read after
   write and the write after read), keeping cells outside the grid's interior (the
   fixed boundary layer and beyond) unchanged; after step ``s`` the cells
   ``[s, E_i - s)`` are exact, so after ``t_T`` steps the tile is;
3. store the tile (``t_S1 x ... x t_Sd`` points) into the output array.

Every step computes the whole inner box (not the shrinking trapezoid): the lanes are
mapped once onto the box, and a trapezoid would leave them idle rather than save
cycles.  The section-4 quantities for this shape are in
:mod:`workbench.models.tiling.overlapped`.

Threads: ``threads[i]`` lanes along axis ``i`` (the last axis, contiguous in
memory, is lane axis 0); each phase's loops are split by those extents, with guards
where an extent does not divide the box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import loopy as lp
import numpy as np
import pymbolic.primitives as prim
from pymbolic.mapper import IdentityMapper
from pymbolic.mapper.stringifier import StringifyMapper

from workbench.errors import ParameterError
from workbench.kernels._util import BENIGN_WARNINGS, LANG_VERSION
from workbench.kernels.timetiled.stencils import Stencil, get_stencil

#: Per-group local memory every configuration stays within (OpenCL's common limit).
LOCAL_MEMORY_LIMIT = 48 * 1024
_AXES = "ijk"


@dataclass(frozen=True)
class BandConfig:
    """One time-tiled kernel: a stencil on an interior grid ``shape`` (the arrays
    have one more boundary cell on each side), ``t_T`` steps per band, tile sizes
    ``tiles`` and lanes ``threads`` per axis (axis 0 first, as numpy's)."""

    stencil: str
    shape: tuple[int, ...]
    t_T: int
    tiles: tuple[int, ...]
    threads: tuple[int, ...]
    dtype: str = "float32"
    #: arrays padded by ``t_T - 1`` more cells per side, so that every load is in
    #: bounds without a guard (microbenchmarks: their work-removed twin keeps loads
    #: but drops conditions)
    padded: bool = False
    #: False: no global loads, no stores that happen (the tile starts from its cell
    #: indices; a result is stored only if it exceeds 1e30, which none does): the
    #: on-chip steps alone, the paper's C_iter microbenchmark
    io: bool = True

    def __post_init__(self):
        st = get_stencil(self.stencil)
        for what, v in (("shape", self.shape), ("tiles", self.tiles),
                        ("threads", self.threads)):
            if len(v) != st.dims:
                raise ParameterError(f"{self.stencil} is {st.dims}-D: {what} needs "
                                     f"{st.dims} values, got {len(v)}")
            if any(int(x) < 1 for x in v):
                raise ParameterError(f"{what} must be positive, got {v}")
        if self.t_T < 1:
            raise ParameterError(f"t_T must be at least 1, got {self.t_T}")
        if self.dtype not in ("float32", "float64"):
            raise ParameterError(f"unsupported dtype {self.dtype!r}")

    @property
    def spec(self) -> Stencil:
        return get_stencil(self.stencil)

    @property
    def extent(self) -> tuple[int, ...]:
        """The local box per axis: tile plus a halo of ``t_T`` cells on each side."""
        return tuple(t + 2 * self.t_T * self.spec.radius for t in self.tiles)

    @property
    def groups(self) -> tuple[int, ...]:
        return tuple(math.ceil(s / t) for s, t in zip(self.shape, self.tiles))

    @property
    def group_size(self) -> tuple[int, ...]:
        """OpenCL's order: lane axis 0 first (the contiguous, last numpy axis)."""
        return tuple(reversed(self.threads))

    @property
    def pad(self) -> int:
        return self.t_T - 1 if self.padded else 0

    @property
    def array_shape(self) -> tuple[int, ...]:
        return tuple(n + 2 + 2 * self.pad for n in self.shape)

    @property
    def local_bytes(self) -> int:
        return 2 * math.prod(self.extent) * np.dtype(self.dtype).itemsize

    @property
    def label(self) -> str:
        return (f"{self.stencil}:tT={self.t_T},tS={'x'.join(map(str, self.tiles))},"
                f"thr={'x'.join(map(str, self.threads))}")


class _Typed(IdentityMapper):
    """Neighbour names to tile subscripts, and every literal to the kernel's dtype."""

    def __init__(self, scalar, subst):
        super().__init__()
        self.scalar, self.subst = scalar, subst

    def map_variable(self, expr):
        return self.subst.get(expr.name, expr)

    def map_constant(self, expr):
        return self.scalar(expr)


class _Text(StringifyMapper):
    """Loopy's text of an update: float32 literals with loopy's ``f`` suffix (a bare
    ``0.2`` is a double there, and makes a conditional's other branch double too)."""

    def map_constant(self, expr, enclosing_prec, *args, **kwargs):
        if isinstance(expr, np.float32):
            return f"{float(expr)!r}f"
        return super().map_constant(expr, enclosing_prec, *args, **kwargs)


def _conj(parts):
    return " and ".join(parts)


def band_kernel(cfg: BandConfig) -> lp.TranslationUnit:
    """The loopy kernel advancing every tile of ``cfg`` by ``t_T`` steps: reads
    ``u``, writes the interior of ``out`` (its boundary layer is the caller's)."""
    st, d, tT = cfg.spec, cfg.spec.dims, cfg.t_T
    ax = _AXES[:d]
    E, S, tS = cfg.extent, cfg.shape, cfg.tiles
    g = [f"g{a}" for a in ax]
    # array index of local cell ``v`` on axis ``n``: the tile starts at interior
    # index g*tS (array index g*tS + 1) and the box tT cells before it
    X = [f"{g[n]}*{tS[n]} + {{v}} - {tT - 1}" for n in range(d)]

    def at(n, v):
        return f"({X[n].format(v=v)})"

    domains = ["{[%s]: %s}" % (", ".join(g), _conj(f"0 <= {g[n]} < {cfg.groups[n]}"
                                                    for n in range(d)))]
    # the load covers the box, the steps its inside (the outer ring has no neighbours)
    for phase, lo, hi in (("a", 0, E), ("p", 1, [e - 1 for e in E])):
        names = [f"{phase}{a}" for a in ax]
        domains.append("{[%s]: %s}" % (", ".join(names), _conj(
            f"{lo} <= {names[n]} < {hi[n]}" for n in range(d))))
    domains.append("{[s]: 0 <= s < %d}" % tT)
    o = [f"o{a}" for a in ax]
    domains.append("{[%s]: %s}" % (", ".join(o), _conj(
        f"0 <= {o[n]} < {tS[n]} and {g[n]}*{tS[n]} + {o[n]} < {S[n]}" for n in range(d))))

    a = [f"a{x}" for x in ax]
    pad = cfg.pad
    fetch = f"u[{', '.join(f'{at(n, a[n])} + {pad}' for n in range(d))}]"
    if not cfg.padded:
        inside_array = _conj(f"{at(n, a[n])} >= 0 and {at(n, a[n])} <= {S[n] + 1}"
                             for n in range(d))
        fetch = f"({fetch} if {inside_array} else 0)"
    if not cfg.io:
        fetch = " + ".join(f"{n + 1}*{a[n]}" for n in range(d))
    load = f"buf[0, {', '.join(a)}] = {fetch} {{id=load}}"

    p = [f"p{x}" for x in ax]
    subst = {name: prim.Subscript(prim.Variable("buf"), (
        prim.Remainder(prim.Variable("s"), 2),
        *(prim.Variable(p[n]) + off[n] for n in range(d))))
        for name, off in st.offsets.items()}
    update = _Text()(_Typed(np.dtype(cfg.dtype).type, subst)(st.parsed))
    interior = _conj(f"{at(n, p[n])} >= 1 and {at(n, p[n])} <= {S[n]}"
                     for n in range(d))
    keep = f"buf[s % 2, {', '.join(p)}]"
    step = (f"buf[(s + 1) % 2, {', '.join(p)}] = ({update} if {interior} else {keep}) "
            "{id=step, dep=load}")
    store = (f"out[{', '.join(f'{g[n]}*{tS[n]} + {o[n]} + {1 + pad}' for n in range(d))}] = "
             f"buf[{tT % 2}, {', '.join(f'{o[n]} + {tT}' for n in range(d))}] "
             "{id=store, dep=step_end}")
    if not cfg.io:   # a data-dependent store the compiler cannot drop, never taken
        result = f"buf[{tT % 2}, {', '.join(f'{o[n]} + {tT}' for n in range(d))}]"
        store = f"if {result} > 1.0e30f\n      {store}\n    end"
    insns = f"""
    {load}
    for s
      {step}
      ... lbarrier {{id=step_end, dep=step}}
    end
    {store}
    """
    dtype = np.dtype(cfg.dtype)
    arrays = cfg.array_shape
    knl = lp.make_kernel(
        domains, insns,
        [lp.GlobalArg("u", dtype, shape=arrays), lp.GlobalArg("out", dtype, shape=arrays),
         lp.TemporaryVariable("buf", dtype, shape=(2, *E),
                              address_space=lp.AddressSpace.LOCAL)],
        name=f"{cfg.stencil}_band", lang_version=LANG_VERSION,
        target=lp.PyOpenCLTarget(), silenced_warnings=list(BENIGN_WARNINGS))
    # the guarded load reads u only inside the array; loopy's bounds check cannot see
    # through the expression-level condition
    knl = lp.set_options(knl, enforce_array_accesses_within_bounds="no_check")
    for n in range(d):
        lane = d - 1 - n
        knl = lp.tag_inames(knl, {g[n]: f"g.{lane}"})
        for phase in ("a", "p", "o"):
            knl = lp.split_iname(knl, f"{phase}{ax[n]}", cfg.threads[n],
                                 inner_tag=f"l.{lane}")
    # without global loads no group index appears in the load: it still runs per group
    return knl if cfg.io else lp.add_inames_for_unused_hw_axes(knl, within="id:load")
