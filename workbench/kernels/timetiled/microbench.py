"""Microbenchmarks of the time model's four measured parameters (section 5.2).

Each is a loopy kernel whose run time is dominated by the operation of interest;
:func:`workbench.tuning.timetiled_microbench.measure_microbenchmarks` times them and
records every timing in the measurement store (kernel ``ttmb.<what>``), with the
counts that turn a time into a parameter in ``extra``.  The parameters themselves are derived from the stored rows
by :func:`workbench.models.tiling.calibrate.calibration_from_measurements`:

* ``transfer`` (L): every group copies a block of words global -> local -> global
  (reversed through local memory, so that each value crosses between lanes), with
  many groups per SM; ``L = t * n_SM / words moved``;
* ``barrier`` / ``nobarrier`` (tau_sync): one group per SM updates its local
  words ``R`` times, with and without a barrier after each update;
  ``tau = (t_barrier - t_nobarrier) / R``;
* ``launches`` (T_sync): ``N`` launches of a copy back to back, as the driver
  launches bands; the recorded time is the mean gap between one launch's end and
  the next one's start, ``(span - sum of the launches' own times) / (N - 1)``;
* ``band`` / ``band_wr`` (C_iter): a stencil's band kernel and its work-removed
  twin (:func:`workbench.kernels.work_removal.remove_work`: the same global loads and
  stores, no arithmetic, no local memory, no barriers).  Their difference is the
  on-chip part of the band, ``w`` tiles of ``t_T`` steps over ``prod (E_i - 2)``
  points, spread over ``n_SM`` SMs of ``n_V`` lanes.  The paper removed the global
  transfers and kept the compute; the twin does the converse, and the difference
  leaves the compute.  The arrays are padded so that no load needs a guard (the
  twin keeps loads but drops conditions);
* ``band_compute`` (C_iter the paper's way, a cross-check): the band kernel without
  global loads and with a store that is never taken (``BandConfig(io=False)``): its
  time is the steps alone;
* ``hex_band`` / ``hex_band_wr`` (L and C_iter of the paper's own scheme, per scheme):
  one launch of a full A row of hexagons (:mod:`.hexagonal`, 1-D hexagonal and 2-D
  hybrid tiles) and its work-removed twin, made the same way as the overlapped pair.
  The twin's time is the row's global traffic (the scheme's L), the difference its
  on-chip part (the scheme's C_iter per stencil), so the hexagonal code's own costs
  (the circular window's indexing, two barriers per row, one group per hexagon) are
  priced with constants measured on that code;
* ``hex_ladder`` / ``hex_ladder_wr`` (the row latency of the resident-latency
  extension, :mod:`workbench.models.tiling.schemes`): one tile shape per scheme, its
  A-row launch on grids cut so that every SM holds exactly ``n`` hexagons (``n`` = 1,
  2, 4, ..): the launch's time against ``n`` is a line whose intercept is what one
  hexagon's chain of rows costs however few share the SM (the per-row latency) and whose
  slope what each more resident hexagon adds (its transfers and compute).  The pairs
  above all hold 3-16 hexagons per SM and move the rows and the words together, so
  they cannot tell the two apart.  The lane-shape ladder (:data:`HEX_LANE_LADDERS`,
  the same kernels) keeps one tile and changes its lane shape: the rows stay, the
  load passes change, which tells a per-row wait from a per-pass one.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import loopy as lp
import numpy as np

from workbench.kernels._util import BENIGN_WARNINGS, LANG_VERSION
from workbench.kernels.timetiled.generator import BandConfig, band_kernel
from workbench.kernels.timetiled.stencils import STENCILS

KERNEL_PREFIX = "ttmb."


class Micro(enum.Enum):
    TRANSFER = "transfer"
    BARRIER = "barrier"
    NOBARRIER = "nobarrier"
    LAUNCHES = "launches"
    BAND = "band"
    BAND_WR = "band_wr"
    BAND_COMPUTE = "band_compute"
    HEX_BAND = "hex_band"
    HEX_BAND_WR = "hex_band_wr"
    HEX_LADDER = "hex_ladder"
    HEX_LADDER_WR = "hex_ladder_wr"

    @property
    def kernel_name(self) -> str:
        return KERNEL_PREFIX + self.value


#: The kinds that launch the hexagonal/hybrid kernel (its array is ``a``).
HEXAGONAL_KINDS = frozenset({Micro.HEX_BAND, Micro.HEX_BAND_WR, Micro.HEX_LADDER,
                             Micro.HEX_LADDER_WR})


@dataclass(frozen=True)
class Microbenchmark:
    """One timed kernel: what it measures, its variant label, its launch shape, and
    the counts that turn its time into a parameter (``facts``)."""

    what: Micro
    variant: str
    build: Callable[[], lp.TranslationUnit]
    arrays: Mapping[str, tuple[int, ...]]      # argument -> shape (float32)
    group_size: tuple[int, ...]
    facts: Mapping[str, float] = field(default_factory=dict)
    launches: int = 1                          # > 1: a back-to-back sequence

    @property
    def output(self) -> str:
        return "a" if self.what in HEXAGONAL_KINDS else "out"


def _make(domains, insns, arrays, temporaries, name, tags) -> lp.TranslationUnit:
    args = [lp.GlobalArg(n, np.float32, shape=s) for n, s in arrays.items()]
    args += [lp.TemporaryVariable(n, np.float32, shape=s,
                                  address_space=lp.AddressSpace.LOCAL)
             for n, s in temporaries.items()]
    knl = lp.make_kernel(domains, insns, args, name=name, lang_version=LANG_VERSION,
                         target=lp.PyOpenCLTarget(),
                         silenced_warnings=list(BENIGN_WARNINGS))
    # an instruction no group index appears in (the barrier loop) still runs per group
    return lp.add_inames_for_unused_hw_axes(lp.tag_inames(knl, tags))


def transfer(n_SM: int, *, words: int = 4096, lanes: int = 256,
             per_sm: int = 64) -> Microbenchmark:
    groups = n_SM * per_sm
    n = groups * words

    def build():
        knl = _make(["{[g, a, b]: 0 <= g < %d and 0 <= a, b < %d}" % (groups, words)],
                    f"""
                    buf[a] = u[g*{words} + a] {{id=load}}
                    out[g*{words} + b] = buf[{words - 1} - b] {{dep=load}}
                    """, {"u": (n,), "out": (n,)}, {"buf": (words,)}, "ttmb_transfer",
                    {"g": "g.0"})
        for iname in ("a", "b"):
            knl = lp.split_iname(knl, iname, lanes, inner_tag="l.0")
        return knl
    return Microbenchmark(Micro.TRANSFER, f"words={words},groups={groups}", build,
                          {"u": (n,), "out": (n,)}, (lanes,),
                          {"words_moved": 2.0 * n, "groups": groups})


def barrier(n_SM: int, with_barrier: bool, *, rounds: int = 4096,
            lanes: int = 256) -> Microbenchmark:
    sync = "... lbarrier {id=sync, dep=upd}" if with_barrier else ""

    def build():
        return _make(["{[g, l]: 0 <= g < %d and 0 <= l < %d}" % (n_SM, lanes),
                      "{[r]: 0 <= r < %d}" % rounds],
                     f"""
                     buf[l] = u[g*{lanes} + l] {{id=init}}
                     for r
                       buf[l] = buf[l]*0.999f + 1.0f {{id=upd, dep=init}}
                       {sync}
                     end
                     out[g*{lanes} + l] = buf[l] {{dep=upd}}
                     """, {"u": (n_SM * lanes,), "out": (n_SM * lanes,)},
                     {"buf": (lanes,)}, "ttmb_barrier", {"g": "g.0", "l": "l.0"})
    what = Micro.BARRIER if with_barrier else Micro.NOBARRIER
    return Microbenchmark(what, f"rounds={rounds},groups={n_SM}", build,
                          {"u": (n_SM * lanes,), "out": (n_SM * lanes,)}, (lanes,),
                          {"rounds": rounds, "groups": n_SM})


def launches(*, count: int = 200, words: int = 1 << 25, lanes: int = 256
             ) -> Microbenchmark:
    """Copies long enough (``words``: 32 Mi by default, about 0.1 ms on an H100) that
    the host enqueues ahead of the device: the gaps are the device's, as between
    a driver's bands, not the host's enqueue rate."""
    def build():
        knl = _make(["{[i]: 0 <= i < %d}" % words], "out[i] = u[i]",
                    {"u": (words,), "out": (words,)}, {}, "ttmb_launch", {})
        return lp.split_iname(knl, "i", lanes, outer_tag="g.0", inner_tag="l.0")
    return Microbenchmark(Micro.LAUNCHES, f"count={count},words={words}", build,
                          {"u": (words,), "out": (words,)}, (lanes,),
                          {"launches": count}, launches=count)


#: Tile configurations of the C_iter benchmarks per dimensionality (tT, tiles,
#: threads) and the grid they run on: baseline-like tiles, enough groups for every SM.
CITER_CONFIGS = {
    1: ((1 << 20,), ((8, (1024,), (256,)), (16, (2048,), (512,)))),
    2: ((2048, 2048), ((4, (16, 128), (2, 64)), (8, (32, 64), (2, 64)),
                       (6, (24, 96), (1, 128)))),
    3: ((192, 192, 192), ((2, (4, 8, 32), (2, 2, 32)), (3, (4, 4, 48), (1, 4, 32)))),
}


def band_pair(stencil: str, t_T: int, tiles, threads, shape) -> list[Microbenchmark]:
    from workbench.kernels.work_removal import remove_work

    cfg = BandConfig(stencil, tuple(shape), t_T, tuple(tiles), tuple(threads),
                     padded=True)
    compute = BandConfig(stencil, tuple(shape), t_T, tuple(tiles), tuple(threads),
                         padded=True, io=False)
    inner = math.prod(e - 2 for e in cfg.extent)
    facts = {"groups": math.prod(cfg.groups), "t_T": t_T, "inner_points": inner,
             "local_bytes": cfg.local_bytes}
    variant = (f"{stencil}:tT={t_T},tS={'x'.join(map(str, tiles))},"
               f"thr={'x'.join(map(str, threads))}")
    arrays = {"u": cfg.array_shape, "out": cfg.array_shape}
    return [Microbenchmark(Micro.BAND, variant, lambda: band_kernel(cfg), arrays,
                           cfg.group_size, {**facts, "stencil_dims": cfg.spec.dims}),
            Microbenchmark(Micro.BAND_WR, variant, lambda: remove_work(band_kernel(cfg)),
                           arrays, cfg.group_size, facts),
            Microbenchmark(Micro.BAND_COMPUTE, variant, lambda: band_kernel(compute),
                           arrays, cfg.group_size, facts)]


def microbenchmarks(n_SM: int, stencils: Sequence[str] | None = None
                    ) -> list[Microbenchmark]:
    """The whole set for a device of ``n_SM`` compute units."""
    found = [transfer(n_SM), barrier(n_SM, True), barrier(n_SM, False), launches()]
    for name in (stencils or list(STENCILS)):
        shape, configs = CITER_CONFIGS[STENCILS[name].dims]
        for t_T, tiles, threads in configs:
            found += band_pair(name, t_T, tiles, threads, shape)
    return found


#: Small band configurations per dimensionality (t_T, tiles, threads, shape): a
#: CPU's run of the whole chain in seconds (``calibrate --set timetiling --quick``).
QUICK_CONFIGS = {1: (2, (256,), (64,), (4096,)), 2: (2, (8, 32), (2, 32), (16, 64)),
                 3: (1, (2, 4, 16), (1, 2, 16), (4, 8, 32))}


def quick_microbenchmarks(n_SM: int, stencils: Sequence[str] | None = None
                          ) -> list[Microbenchmark]:
    """The same kinds at small sizes, one band configuration per stencil (default:
    jacobi2d alone): the mechanism checked on a CPU, not a calibration to trust."""
    found = [transfer(n_SM, words=256, lanes=64, per_sm=4),
             barrier(n_SM, True, rounds=64, lanes=64),
             barrier(n_SM, False, rounds=64, lanes=64),
             launches(count=10, words=4096, lanes=64)]
    for name in (stencils or ["jacobi2d"]):
        found += band_pair(name, *QUICK_CONFIGS[STENCILS[name].dims])
    return found


#: Hexagonal/hybrid configurations per dimensionality (t_T, tiles, threads per axis,
#: axis 0 first) and the problem their one launch is cut from (an A row in the middle
#: of ``T``): the region of the fast tiles of the ``hx_`` baseline sets, on a grid
#: (6144^2; 1-D: 2^21 cells) none of the validation problems has.
HEX_CONFIGS = {
    1: (((1 << 21,), 256), ((16, (256,), (128,)), (32, (512,), (128,)),
                           (64, (1024,), (256,)))),
    2: (((6144, 6144), 48), ((6, (4, 256), (2, 128)), (8, (2, 256), (2, 128)),
                            (12, (3, 384), (2, 128)), (4, (8, 128), (2, 64)))),
}


def _global_nosync(knl: lp.TranslationUnit, array: str) -> lp.TranslationUnit:
    """The twin's instructions on ``array`` need no global barrier among themselves,
    as the band's (:data:`.hexagonal.NOSYNC`, whose ids the twin renames)."""
    entry = knl.default_entrypoint
    touch = {i.id for i in entry.instructions
             if array in i.read_dependency_names() | set(i.assignee_var_names())}
    insns = [i.copy(no_sync_with=frozenset((x, "global") for x in touch))
             if i.id in touch else i for i in entry.instructions]
    return knl.with_kernel(entry.copy(instructions=insns))


def hex_pair(stencil: str, t_T: int, tiles, threads, shape, T: int, *,
             kinds: tuple[Micro, Micro] = (Micro.HEX_BAND, Micro.HEX_BAND_WR),
             suffix: str = "") -> list[Microbenchmark]:
    """One launch (a full A row, in the middle of ``T``) of the hexagonal/hybrid
    kernel and its work-removed twin; ``facts``: what the scheme's formulas need."""
    from workbench.kernels.timetiled.hexagonal import HexConfig, hexagonal_kernel
    from workbench.kernels.work_removal import remove_work

    cfg = HexConfig(stencil, tuple(shape), int(T), int(t_T), tuple(tiles), tuple(threads))
    launch = 2 * (cfg.T // cfg.t_T // 2) + 1           # odd: an A row, whole hexagons

    def band():
        return lp.fix_parameters(hexagonal_kernel(cfg), b=launch)

    def twin():
        return _global_nosync(remove_work(band()), "a")

    per = cfg.per_tile()
    facts = {"groups": cfg.tiles_in("A"), "t_T": cfg.t_T, "t_S1": cfg.tiles[0],
             "inner": cfg.tiles[1] if cfg.dims == 2 else 1, "sub_tiles": cfg.sub_tiles,
             "loads": per["loads"], "stores": per["stores"], "points": per["points"],
             "launch": launch, "local_bytes": cfg.local_bytes, "stencil_dims": cfg.dims,
             "shape": list(cfg.shape), "T": cfg.T, "threads": math.prod(cfg.threads)}
    arrays = {"a": cfg.array_shape}
    label = cfg.label + suffix
    return [Microbenchmark(kinds[0], label, band, arrays, cfg.group_size, facts),
            Microbenchmark(kinds[1], label, twin, arrays, cfg.group_size, facts)]


def hex_microbenchmarks(stencils: Sequence[str] | None = None) -> list[Microbenchmark]:
    """The hexagonal/hybrid pairs of every 1-D and 2-D stencil (default: all)."""
    found = []
    for name in (stencils or [n for n, s in STENCILS.items() if s.dims in HEX_CONFIGS]):
        (shape, T), configs = HEX_CONFIGS[STENCILS[name].dims]
        for t_T, tiles, threads in configs:
            found += hex_pair(name, t_T, tiles, threads, shape, T)
    return found


#: Small hexagonal configurations per dimensionality: the mechanism on a CPU.
QUICK_HEX_CONFIGS = {1: (4, (64,), (32,), (2048,), 16),
                     2: (4, (2, 32), (1, 32), (64, 64), 16)}


def quick_hex_microbenchmarks(stencils: Sequence[str] | None = None
                              ) -> list[Microbenchmark]:
    found = []
    for name in (stencils or ["jacobi1d", "jacobi2d"]):
        found += hex_pair(name, *QUICK_HEX_CONFIGS[STENCILS[name].dims])
    return found


#: The ladders of the row latency (module docstring): a stencil, its tile (t_T, tiles,
#: threads), the other axes' sizes, ``T``, and the hexagons per SM of its rungs (at
#: most the tile's concurrency ``k`` on the H100, bound by threads and registers: 16
#: for the 1-D tile, 5 and 11 for the 2-D ones).
HEX_LADDERS = (
    ("jacobi1d", (32, (512,), (128,)), (), 256, (1, 2, 4, 8, 16)),
    ("jacobi2d", (8, (2, 256), (2, 128)), (6144,), 48, (1, 2, 3, 4, 5)),
    ("jacobi2d", (4, (8, 128), (2, 64)), (6144,), 48, (1, 2, 4, 8)),
)


def ladder_extent(t_T: int, t_S1: int, per_sm: int, n_SM: int) -> int:
    """``S1`` whose A row has exactly ``per_sm * n_SM`` hexagons (:class:`HexConfig`'s
    ``tiles_in("A") = ceil((S1 + h - 1) / P)``, ``P = 2 t_S1 + t_T - 2``)."""
    return per_sm * n_SM * (2 * t_S1 + t_T - 2) - t_T // 2 + 1


def hex_ladder(n_SM: int, ladders: Sequence[tuple] = HEX_LADDERS) -> list[Microbenchmark]:
    """The rungs (band and twin each) of the row-latency ladders of a device of
    ``n_SM`` compute units; variants end in ``,per_sm=<n>``."""
    found = []
    for stencil, (t_T, tiles, threads), rest, T, rungs in ladders:
        for n in rungs:
            shape = (ladder_extent(t_T, tiles[0], n, n_SM), *rest)
            pair = hex_pair(stencil, t_T, tiles, threads, shape, T,
                            kinds=(Micro.HEX_LADDER, Micro.HEX_LADDER_WR),
                            suffix=f",per_sm={n}")
            found += [replace(b, facts={**b.facts, "per_sm": n}) for b in pair]
    return found


#: The lane-shape ladder (issue 34): one tile per dimensionality under several lane
#: shapes, at 1 and 2 hexagons per SM (1-D: 1).  A (sub-)tile keeps its rows (``t_T``)
#: and its words, its load passes change (1-D, tT 32, tS 512: 544 passes at 32 lanes to
#: 64 at 512; 2-D, tT 8, tS 2x256: 80 at 4x64 to 280 at 1x64), so the twins separate a
#: per-row wait from a per-pass one.  The 2x128 and 128-lane shapes repeat a rung of
#: :data:`HEX_LADDERS` in the same call.
HEX_LANE_LADDERS = tuple(
    [("jacobi1d", (32, (512,), (b,)), (), 256, (1,)) for b in (32, 64, 128, 256, 512)]
    + [("jacobi2d", (8, (2, 256), lanes), (6144,), 48, (1, 2))
       for lanes in ((1, 64), (1, 128), (1, 256), (2, 32), (2, 64), (2, 128), (4, 64))])

#: A small ladder per dimensionality: the mechanism on a CPU (pocl's ``n_SM``).
QUICK_HEX_LADDERS = (("jacobi1d", (4, (64,), (32,)), (), 16, (1, 2)),
                     ("jacobi2d", (4, (2, 32), (1, 32)), (64,), 16, (1, 2)))
