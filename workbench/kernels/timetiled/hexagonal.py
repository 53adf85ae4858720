"""The paper's own scheme: hexagonal tiles over (time, outermost space axis), and for
2-D stencils classic time skewing along the inner axis (Prajapati et al., sections 3.1
and 4.1-4.2; Grosser et al.'s hybrid hexagonal/classic tiling).

Geometry (``h = t_T / 2``, ``t_T`` even; interior indices, axis 0 is ``x1``).  A
hexagon has ``t_T`` rows (time steps); row ``r`` covers
``x1 in [x0 - g(r), x0 + t_S1 + g(r))`` with ``g(r) = min(r, t_T - 1 - r)``: widths
``t_S1, t_S1 + 2, .., t_S1 + t_T - 2`` growing, then the same shrinking (eq. 9's sum,
``w_tile = t_S1 + t_T - 2``, eq. 4).  Hexagons of one row sit ``P = 2 t_S1 + t_T - 2``
apart; the other row is shifted by ``h`` steps and ``t_S1 + h - 1`` cells and fills
the gaps exactly.  (Eq. 5's pitch ``2 t_S + t_T`` would leave two columns per row
that no tile computes with these widths: we keep eq. 9's widths, the pitch follows.)

Launches: launch ``b = 0 .. 2 T / t_T`` computes one row of hexagons, whose row 0 is
at time ``1 + (b - 1) h`` (B rows for even ``b``, shifted; A rows for odd ``b``);
rows outside ``[1, T]`` are skipped, so the first launch is the top half of a B row
and the last is cut at ``T``.  That is ``N_w = 2 T / t_T + 1`` launches: eq. 3 with
its ``epsilon = 1`` (``T`` a multiple of ``t_T``).  Every hexagon of a launch is
independent; one work group computes one hexagon (``w`` groups per launch).

Memory: the global array ``a`` holds two time levels, ``a[t % 2]`` (as HHC's code
``A[(t+1)%2][i] = f(A[t%2][..])``), updated in place by every launch; the tiling is
legal for the flow dependences, and every reader of ``(t, x)`` precedes ``(t + 2, x)``,
so two levels suffice.  A group keeps its hexagon's two latest rows in local memory,
``buf[2][t_S1 + t_T]`` in 1-D (eq. 4.1's ``M_tile = 2 (t_S + t_T)`` exactly), and in 2-D
``buf[2][t_S1 + t_T][t_S2 + t_T + 1]``, a window circular along ``x2`` (eq. 19's
factors, less one along ``x1``).

2-D: the hexagon times the whole ``x2`` axis (a prism) is swept in ``N_s =
ceil((S2 + t_T - 1) / t_S2)`` sub-tiles (eq. 16's ``ceil((S2 + t_T) / t_S2)`` less
one: the skew spans ``t_T - 1`` cells), skewed: row ``r`` of sub-tile ``s`` covers
``x2 in [s t_S2 - r, (s + 1) t_S2 - r)``, so a point's ``x2 - 1`` neighbour of the
row below belongs to this or the previous sub-tile, still in the window.

Per row ``r`` of a (sub-)tile: **load** from global memory the cells of the row below
that this group did not compute (the whole bottom row; then two cells per side per
growing row and one per side at the widest; the ``x2`` boundary), barrier,
**compute** the row into the other level of ``buf`` and **store** to global memory
the cells some other tile reads (a cell whose three readers of the next row are not
all in this hexagon: the two or four outer cells of the widest and shrinking rows,
the whole top row) and every cell of the last two time steps (the result, both
levels), barrier.  Counted per steady-state (sub-)tile, :func:`HexConfig.per_tile`.

Lanes: ``bx`` along the contiguous (last) axis, ``by`` along ``x1`` (2-D); a row's
loops are split by them, with guards where they do not divide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import loopy as lp
import numpy as np
import pymbolic.primitives as prim
from pymbolic import parse

from workbench.errors import ParameterError
from workbench.kernels._util import BENIGN_WARNINGS, LANG_VERSION
from workbench.kernels.timetiled.generator import LOCAL_MEMORY_LIMIT, _Text, _Typed
from workbench.kernels.timetiled.stencils import Stencil, get_stencil

__all__ = ["LOCAL_MEMORY_LIMIT", "HexConfig", "hexagonal_kernel", "hexagonal_reference",
           "initial_state",
           "run_hexagonal"]


@dataclass(frozen=True)
class HexConfig:
    """One hexagonal (1-D) or hybrid hexagonal/classic (2-D) kernel: a stencil on an
    interior grid ``shape`` (arrays one boundary cell wider per side), ``T`` steps,
    hexagons of height ``t_T`` (even) and base ``tiles[0]``, sub-tiles of
    ``tiles[1]`` along ``x2``; ``threads`` lanes per axis (axis 0 first)."""

    stencil: str
    shape: tuple[int, ...]
    T: int
    t_T: int
    tiles: tuple[int, ...]
    threads: tuple[int, ...]
    dtype: str = "float32"

    def __post_init__(self):
        st = get_stencil(self.stencil)
        if st.dims not in (1, 2):
            raise ParameterError(f"hexagonal tiles are generated for 1-D and 2-D "
                                 f"stencils; {self.stencil} is {st.dims}-D")
        for what, v in (("shape", self.shape), ("tiles", self.tiles),
                        ("threads", self.threads)):
            if len(v) != st.dims:
                raise ParameterError(f"{self.stencil} is {st.dims}-D: {what} needs "
                                     f"{st.dims} values, got {len(v)}")
            if any(int(x) < 1 for x in v):
                raise ParameterError(f"{what} must be positive, got {v}")
        if self.t_T < 2 or self.t_T % 2:
            raise ParameterError(f"hexagons need an even t_T >= 2, got {self.t_T}")
        if self.T < 1 or self.T % self.t_T:
            raise ParameterError(f"T must be a positive multiple of t_T, got T={self.T}, "
                                 f"t_T={self.t_T}")
        if self.dtype not in ("float32", "float64"):
            raise ParameterError(f"unsupported dtype {self.dtype!r}")

    @property
    def spec(self) -> Stencil:
        return get_stencil(self.stencil)

    @property
    def dims(self) -> int:
        return len(self.shape)

    @property
    def h(self) -> int:
        return self.t_T // 2

    @property
    def pitch(self) -> int:
        return 2 * self.tiles[0] + self.t_T - 2

    @property
    def launches(self) -> int:
        """``N_w``: one B row below the first band, then an A and a B row per band."""
        return 2 * (self.T // self.t_T) + 1

    @property
    def groups(self) -> int:
        """Work groups per launch: enough A hexagons to cover ``x1`` at their widest
        (the B row has as many or one fewer non-empty ones)."""
        return math.ceil((self.shape[0] + self.h - 1) / self.pitch)

    def tiles_in(self, phase: str) -> int:
        """Hexagons of an A (``"A"``) or B row that hold an interior cell."""
        S1, tS1, P = self.shape[0], self.tiles[0], self.pitch
        if phase == "A":      # widest row [gP - h + 1, gP + tS1 + h - 1)
            return math.ceil((S1 + self.h - 1) / P)
        return max(0, math.ceil((S1 - tS1) / P))    # widest [gP + tS1, (g + 1) P)

    @property
    def sub_tiles(self) -> int:
        """``N_s``: skewed sub-tiles along ``x2`` per hexagon (1 in 1-D)."""
        if self.dims == 1:
            return 1
        return math.ceil((self.shape[1] + self.t_T - 1) / self.tiles[1])

    @property
    def width(self) -> int:
        """Local cells along ``x1``: the widest row and a halo cell per side."""
        return self.tiles[0] + self.t_T

    @property
    def window(self) -> int:
        """Local cells along ``x2`` (circular): a sub-tile, its skew and halo."""
        return self.tiles[1] + self.t_T + 1 if self.dims == 2 else 1

    @property
    def local_bytes(self) -> int:
        return 2 * self.width * self.window * np.dtype(self.dtype).itemsize

    @property
    def group_size(self) -> tuple[int, ...]:
        return tuple(reversed(self.threads))

    @property
    def array_shape(self) -> tuple[int, ...]:
        return (2, *(n + 2 for n in self.shape))

    def per_tile(self) -> dict[str, int]:
        """What one steady-state (sub-)tile does, as the kernel does it: ``points``
        updated, ``loads`` and ``stores`` of global words, ``barriers``, and
        ``passes``: sum over rows of ``ceil(row / lanes)`` lane passes (a row's
        x1 cells by ``by`` lanes times its x2 cells by ``bx``)."""
        tS1, tT, h = self.tiles[0], self.t_T, self.h
        inner = self.tiles[1] if self.dims == 2 else 1
        rows = [tS1 + 2 * min(r, tT - 1 - r) for r in range(tT)]
        load_x1 = (tS1 + 2) + 4 * (h - 1) + 2        # bottom row, sides, widest
        store_x1 = tS1 + 2 + 4 * (h - 1)              # widest, shrinking sides, top
        halo2 = 2 if self.dims == 2 else 0
        if self.dims == 2:
            bx, by = self.threads[1], self.threads[0]
            passes = sum(math.ceil(w / by) * math.ceil(inner / bx) for w in rows)
            load_passes = sum(math.ceil((w + 2) / by) * math.ceil((inner + 2) / bx)
                              for w in rows)
        else:
            bx = self.threads[0]
            passes = sum(math.ceil(w / bx) for w in rows)
            load_passes = sum(math.ceil((w + 2) / bx) for w in rows)
        return {"points": sum(rows) * inner, "loads": load_x1 * (inner + halo2),
                "stores": store_x1 * inner, "barriers": 2 * tT, "passes": passes,
                "load_passes": load_passes, "rows": tT}

    @property
    def label(self) -> str:
        return (f"{self.stencil}:hex tT={self.t_T},tS={'x'.join(map(str, self.tiles))},"
                f"thr={'x'.join(map(str, self.threads))}")


#: within a launch, a group's global loads and stores touch disjoint cells, and other
#: groups' cells only of earlier launches (module docstring)
NOSYNC = ":".join(f"{w}{t}@global" for w in ("load", "store") for t in "gk")


def _half(cfg: HexConfig, grow: bool, prev: str | None) -> tuple[list[str], list[str], str]:
    """Domains and instructions of the growing (rows ``0 .. h-1``) or shrinking (rows
    ``h .. t_T-1``) half of a hexagon; returns them and the id of the last barrier."""
    st, d, tT, h = cfg.spec, cfg.dims, cfg.t_T, cfg.h
    tS1, S1, T = cfg.tiles[0], cfg.shape[0], cfg.T
    tag = "g" if grow else "k"
    q = f"q{tag}"                        # row within the half, 0 .. h-1
    r = q if grow else f"({h} + {q})"    # row within the hexagon
    gr = q if grow else f"({h - 1} - {q})"   # g(r): cells beyond x0 on each side
    # g(r - 1) and g(r + 1), r within the hexagon (only where they are used)
    g_prev = f"({q} - 1)" if grow else f"({gr} + ({q} > 0))"
    g_next = f"({q} + ({q} < {h - 1}))" if grow else f"({gr} - 1)"
    t = f"(tb + {r})"
    lvl, lvl_prev = f"(({t} + {2 * h}) % 2)", f"(({t} + {2 * h - 1}) % 2)"
    x0 = "x0"
    width = f"{tS1} + 2*{q}" if grow else f"{tS1 + 2 * h - 2} - 2*{q}"
    inner = d == 2
    tS2 = cfg.tiles[1] if inner else 0
    S2 = cfg.shape[1] if inner else 0
    C2 = cfg.window

    li, ci = f"l{tag}", f"c{tag}"
    lk, ck = f"m{tag}", f"n{tag}"
    doms = [f"{{[{q}]: 0 <= {q} < {h}}}",
            f"{{[{li}]: 0 <= {li} < {width} + 2}}", f"{{[{ci}]: 0 <= {ci} < {width}}}"]
    if inner:
        doms += [f"{{[{lk}]: 0 <= {lk} < {tS2 + 2}}}", f"{{[{ck}]: 0 <= {ck} < {tS2}}}"]

    # load: cells of the row below that this group did not compute
    lx1 = f"({x0} - {gr} - 1 + {li})"
    lil = f"({h} - {gr} - 1 + {li})"
    in_array = [f"{lx1} >= -1", f"{lx1} <= {S1}", f"{t} >= 1", f"{t} <= {T}"]
    computed = [f"{r} >= 1", f"{t} >= 2", f"{lx1} >= {x0} - {g_prev}",
                f"{lx1} < {x0} + {tS1} + {g_prev}", f"{lx1} >= 0", f"{lx1} < {S1}"]
    if inner:
        lx2 = f"(s*{tS2} - {r} - 1 + {lk})"
        in_array += [f"{lx2} >= -1", f"{lx2} <= {S2}"]
        computed += [f"{lx2} >= 0", f"{lx2} < {S2}"]
        lsub = f"{lil}, ({lx2} + {tT}) % {C2}"
        gsub = f"{lx1} + 1, {lx2} + 1"
    else:
        lsub, gsub = lil, f"{lx1} + 1"
    load_cond = " and ".join(in_array) + " and not (" + " and ".join(computed) + ")"

    # compute and store
    cx1 = f"({x0} - {gr} + {ci})"
    cil = f"({h} - {gr} + {ci})"
    ok = [f"{t} >= 1", f"{t} <= {T}", f"{cx1} >= 0", f"{cx1} < {S1}"]
    if inner:
        cx2 = f"(s*{tS2} - {r} + {ck})"
        ok += [f"{cx2} >= 0", f"{cx2} < {S2}"]
    lo_n, hi_n = f"({x0} - {g_next})", f"({x0} + {tS1} + {g_next})"
    covered = [f"({cx1} - 1 >= {lo_n} or {cx1} - 1 < 0)", f"{cx1} >= {lo_n}",
               f"{cx1} < {hi_n}", f"({cx1} + 1 < {hi_n} or {cx1} + 1 >= {S1})"]
    if grow:
        store_cond = f"{t} >= {T - 1} or not ({' and '.join(covered)})"
    else:
        store_cond = (f"{t} >= {T - 1} or {q} == {h - 1} or not "
                      f"({' and '.join(covered)})")

    subst = {}
    for name, off in st.offsets.items():
        idx = [parse(lvl_prev), parse(cil) + off[0]]
        if inner:
            idx.append(prim.Remainder(parse(f"{cx2} + {tT + off[1]}"), C2))
        subst[name] = prim.Subscript(prim.Variable("buf"), tuple(idx))
    update = _Text()(_Typed(np.dtype(cfg.dtype).type, subst)(st.parsed))
    if inner:
        csub = f"{lvl}, {cil}, ({cx2} + {tT}) % {C2}"
        cgsub = f"{lvl}, {cx1} + 1, {cx2} + 1"
        loop_l, loop_c = f"{li}, {lk}", f"{ci}, {ck}"
    else:
        csub, cgsub = f"{lvl}, {cil}", f"{lvl}, {cx1} + 1"
        loop_l, loop_c = li, ci
    first_dep = f", dep={prev}" if prev else ""
    insns = [f"""
      for {q}
        for {loop_l}
          if {load_cond}
            buf[{lvl_prev}, {lsub}] = a[{lvl_prev}, {gsub}] {{id=load{tag}{first_dep}, nosync={NOSYNC}}}
          end
        end
        ... lbarrier {{id=bl{tag}, dep=load{tag}}}
        for {loop_c}
          if {" and ".join(ok)}
            <> v{tag} = {update} {{id=up{tag}, dep=bl{tag}}}
            buf[{csub}] = v{tag} {{id=keep{tag}, dep=up{tag}}}
            if {store_cond}
              a[{cgsub}] = v{tag} {{id=store{tag}, dep=up{tag}, nosync={NOSYNC}}}
            end
          end
        end
        ... lbarrier {{id=bc{tag}, dep=keep{tag}:store{tag}}}
      end"""]
    return doms, insns, f"bc{tag}"



def hexagonal_kernel(cfg: HexConfig) -> lp.TranslationUnit:
    """The loopy kernel of one launch (argument ``b``: the launch's number) of
    ``cfg``: updates the two-level array ``a`` in place."""
    tT, h, tS1, d = cfg.t_T, cfg.h, cfg.tiles[0], cfg.dims
    doms = [f"{{[g]: 0 <= g < {cfg.groups}}}"]
    if d == 2:
        doms.append(f"{{[s]: 0 <= s < {cfg.sub_tiles}}}")
    body, prev = [], None
    for grow in (True, False):
        hd, hi, prev = _half(cfg, grow, prev)
        doms += hd
        body += hi
    text = "\n".join(body)
    text = text.replace("x0", f"(g*{cfg.pitch} + (1 - b % 2)*{tS1 + h - 1})")
    text = text.replace("tb", f"(1 + (b - 1)*{h})")
    if d == 2:
        text = f"for s\n{text}\nend"
    dtype = np.dtype(cfg.dtype)
    knl = lp.make_kernel(
        doms, text,
        [lp.GlobalArg("a", dtype, shape=cfg.array_shape), lp.ValueArg("b", np.int32),
         lp.TemporaryVariable("buf", dtype, shape=(2, cfg.width, cfg.window)
                              if d == 2 else (2, cfg.width),
                              address_space=lp.AddressSpace.LOCAL)],
        name=f"{cfg.stencil}_hex", lang_version=LANG_VERSION,
        target=lp.PyOpenCLTarget(), silenced_warnings=list(BENIGN_WARNINGS))
    knl = lp.set_options(knl, enforce_array_accesses_within_bounds="no_check")
    knl = lp.tag_inames(knl, {"g": "g.0"})
    bx = cfg.threads[-1]
    for tag in "gk":
        if d == 2:
            by = cfg.threads[0]
            for name in (f"l{tag}", f"c{tag}"):
                knl = lp.split_iname(knl, name, by, inner_tag="l.1")
            for name in (f"m{tag}", f"n{tag}"):
                knl = lp.split_iname(knl, name, bx, inner_tag="l.0")
        else:
            for name in (f"l{tag}", f"c{tag}"):
                knl = lp.split_iname(knl, name, bx, inner_tag="l.0")
    return knl


def hexagonal_reference(cfg: HexConfig, u: np.ndarray) -> np.ndarray:
    """What ``a`` holds after the whole sequence: level ``T % 2`` the state at ``T``,
    the other level the state at ``T - 1`` (float64)."""
    st = cfg.spec
    prev = st.reference(u, cfg.T - 1)
    last = st.step(prev)
    out = np.empty((2, *u.shape))
    out[cfg.T % 2], out[(cfg.T - 1) % 2] = last, prev
    return out


def initial_state(u: np.ndarray) -> np.ndarray:
    """The two-level array of an initial grid: both levels hold it (the boundary
    layer is read from either)."""
    return np.stack([u, u])


def run_hexagonal(cfg: HexConfig, queue, u: np.ndarray) -> np.ndarray:
    """Every launch of ``cfg`` on ``queue`` from grid ``u`` (with its boundary layer):
    the final two-level array, for checks (timing goes through the sequence
    evaluator)."""
    import pyopencl.array as cla

    knl = hexagonal_kernel(cfg)
    a = cla.to_device(queue, initial_state(u.astype(cfg.dtype)))
    ex = knl.executor(queue.context)
    for b in range(cfg.launches):
        ex(queue, a=a, b=np.int32(b))
    return a.get()
