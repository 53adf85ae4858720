"""The section-4 quantities per tiling scheme, vectorized over tile sizes.

Every function takes tile sizes as numpy arrays (one entry per point) and returns
:class:`TileQuantities`: thousands of points cost a few milliseconds.  Symbols are
the paper's (Table 1); ``d`` is the number of space dimensions, ``S_i`` the interior
sizes, ``T`` the time steps, ``t_T`` and ``t_Si`` the tile sizes, ``n_thr`` the
work items per group.

**Overlapped (ghost-zone) tiles** (what :mod:`workbench.kernels.timetiled` generates;
re-derived here for that shape).  A band of ``t_T`` steps is one launch whose tiles
are all independent, each a box of ``E_i = t_Si + 2 t_T`` cells in local memory:

* ``N_w = ceil(T / t_T)`` wavefronts (bands), ``w = prod ceil(S_i / t_Si)`` tiles each;
* ``m_i = prod E_i`` words read (tile and halo), ``m_o = prod t_Si`` written;
* ``m' = (m_i + m_o) L + 2 tau_sync`` (eq. 8's form);
* ``c = t_T (ceil(prod (E_i - 2) / n_V) C_iter + tau_sync)``: every step updates the
  whole inner box (the redundant halo work included) and ends with one barrier;
* ``M_tile = 2 prod E_i`` words (double buffering);
* ``T_tile(k) = m' + c + (k - 1) max(m', c)`` (eq. 12, ``k = 1`` included) and
  ``T_alg = N_w (T_sync + T_tile(k) ceil(ceil(w / k) / n_SM))`` (eq. 6).

**Hexagonal (1-D)** and **hybrid hexagonal/classic (2-D)** tiles: the paper's
equations 3-19, as :mod:`workbench.kernels.timetiled.hexagonal` generates the scheme
(``h = t_T / 2``, ``t_T`` even, ``K = T / t_T``).  Where the code and the printed
equations differ, the model follows the code, and why:

* ``N_w = 2K + 1`` (eq. 3 with its epsilon = 1, exact for ``T`` a multiple of
  ``t_T``): a half B row below the first band, an A and a B row per band, the last
  cut at ``T``; the first and last launches are the halves of one B row, so the
  work is ``K`` A rows and ``K`` B rows, and ``T_alg = N_w T_sync + K T_tile
  (rounds_A + rounds_B)`` (eq. 6/17 summed over the two kinds of rows);
* pitch ``P = 2 t_S1 + t_T - 2``, not eq. 5's ``2 t_S + t_T``: with eq. 9's row
  widths (``t_S1 .. t_S1 + t_T - 2``, each twice) the other row of hexagons fills the
  gap exactly only at that pitch; ``w_A = ceil((S1 + h - 1) / P)``, ``w_B =
  ceil((S1 - t_S1) / P)`` tiles hold interior cells, ``w`` reported as their mean;
* ``m_i = (t_S1 + 2 t_T)(t_S2 + 2)``: eq. 13 and the two-cell ``x2`` halo every skewed
  sub-tile loads again; ``m_o = (t_S1 + 2 t_T - 2) t_S2``: the cells other tiles
  read (two at the widest row, four per shrinking row, the top row), two fewer per
  ``x2`` column than eq. 13's symmetric ``m_o = m_i``;
* ``c = 2 C_iter sum_j ceil((t_S1 + 2j) t_S2 / n_V) + 2 t_T tau_sync``: eq. 15 with two
  barriers per row (one after the row's loads, one after its update);
* ``M_tile = 2 (t_S1 + t_T)(t_S2 + t_T + 1)`` words (eq. 19 has ``t_S1 + t_T + 1``: the
  widest row and its halo are ``t_S1 + t_T`` cells); 1-D: ``2 (t_S1 + t_T)``, as
  section 4.1;
* sub-tiles per prism ``N_s = ceil((S2 + t_T - 1) / t_S2)`` (eq. 16 has ``S2 +
  t_T``: the skew spans ``t_T - 1`` cells); ``T_prism`` is eq. 16 as printed.

3-D (eqs. 20-30) is not generated: a skewed sweep over two inner axes needs the
``x2`` carry of a whole ``x3`` row of sub-tiles, which a circular window cannot
keep; the scheme raises for it.

**The resident-latency extension** (``Form.RESIDENT_LATENCY``, issue 34; not the
paper's, which stays the default: ``Form.PAPER`` reproduces its tables).  Two changes
to the hexagonal/hybrid equations, both measured on the H100 (``docs/time-tiling.md``):

* the groups an SM actually holds: eq. 16 and eq. 12 charge ``k`` groups sharing
  every SM, but a row of ``w`` hexagons puts at most ``ceil(w / n_SM)`` on one, so
  ``T_tile`` takes ``k_res = min(k, ceil(w / n_SM))`` (A and B rows each their own;
  the rounds, ``ceil(ceil(w / k) / n_SM)``, are the paper's);
* a row latency: every row of a hexagon (1-D) or of a sub-tile (2-D) waits for its
  global loads and two barriers before the next row starts, a chain that the groups
  of one SM wait out side by side, not in turn.  ``T_tile`` gains ``rows * rho`` (1-D:
  ``t_T`` rows; 2-D: ``t_T`` per sub-tile, ``N_s`` sub-tiles in turn) with ``rho =
  lambda + 2 tau_sync``, ``lambda`` the scheme's measured row latency.  The barriers
  are in ``rho``, once per row, and leave ``m'`` and ``c``: ``m' = (m_i + m_o) L``,
  ``c = 2 C_iter sum_j ceil(..)``.

**Its load-pass variant** (``Form.RESIDENT_LOAD_PASSES``): the same, but a row's wait
is ``lambda`` per pass of its load loop, not per row: a lane walks the row's cells (and
its halo) in passes of its group's lanes, ``ceil((w_r + 2) / b_y) ceil((t_S2 + 2) / b_x)``
in 2-D (``ceil((w_r + 2) / b_x)`` in 1-D), each waiting for its load before the next.
The chain of a (sub-)tile is ``lambda sum_r passes_r + 2 t_T tau_sync`` (the sum is
``HexConfig.per_tile()["load_passes"]``); it needs the lanes per axis.  Why: the two
hybrid ladders measure 1.5 and 2.5 us per row but 0.14 and 0.15 us per load pass
(``docs/time-tiling.md``).

**Its two-term variant** (``Form.RESIDENT_ROWS_PASSES``): both waits, ``lambda_row``
per row and ``lambda_pass`` per load pass, ``chain = t_T (lambda_row + 2 tau_sync) +
lambda_pass sum_r passes_r``, the two fitted together on the twins of the pairs, the
row-latency ladders and the lane-shape ladder (one tile under several lane shapes:
the rows stay, the passes change), so that the data choose the unit
(:func:`.calibrate.resident_constants`).

**Its lane-pass variant** (``Form.RESIDENT_LANE_PASSES``, round 3): the two-term chain,
and two changes the round-2 picks showed were missing (``docs/time-tiling.md``, "Round
3"):

* a compute latency per lane pass: a group updates a row in ``ceil(w_r / b_1)
  ceil(t_S2 / b_2)`` passes of its lanes (``HexConfig.per_tile()["passes"]``), one after
  the other, whatever the SM's other groups do; ``c_lane = lambda_lane sum_r passes_r``
  is the least time a group's (sub-)tile computes, and the SM's share,
  ``k_res max(m', c)``, is charged only where it is longer: 2-D ``m' + N_s (max(k_res
  max(m', c), c_lane) + chain)``, 1-D ``m' + max(c + (k_res - 1) max(m', c), c_lane) +
  chain``; ``lambda_lane`` from the lane ladders' bands minus twins at one or two
  groups per SM;
* registers per point: where a point's build is not known, ``k`` takes the registers
  that :func:`register_features`' fit on the microbenchmark builds gives its shape.

**Its lane-rows variant** (``Form.RESIDENT_LANE_ROWS``, round 5): the lane-pass form
and two terms its picks showed were missing (``docs/time-tiling.md``, "Round 5"):

* the compute throughput charges every lane slot of a group's passes, idle lanes
  included, and a pass is dearer the more rows of lanes it spans: ``c = C_iter
  passes n_thr / n_V (1 + gamma (b_1 - 1))`` (2-D; 1-D has one row of lanes);
* a global sweep per launch of a row of hexagons, not overlapped with the tiles:
  ``T_alg += 2 K g prod(S)``; shallow tiles launch more rows.

``gamma``, ``g`` and the form's ``C_iter`` are fitted on measured problem points
(:mod:`.problem_fit`), the rest are the lane-pass form's microbenchmark constants.
Round 7 (1-D, ``SchemeConstants.latency_hidden``): the ``k_res`` groups one SM holds
hide each other's waits; a tile costs the longer of the SM's stream of groups and one
group's own path, ``max(k_res max(m_s, c), m' + max(c, c_lane) + chain)``, where
``m_s = (m_i + m_o) L_overlapped`` moves the tile's words at the overlapped tiles' ``L``
(measured with the grid spread over every SM: a bandwidth) while ``m'`` keeps the
scheme's own ``L`` (measured at a few groups per SM: a latency); the 1-D ``C_iter`` is
fitted (:func:`.problem_fit.hexagonal_constants`).
Round 8 (2-D, ``SchemeConstants.partial_rounds``): a launch's last, partial round costs
a tile at the groups per SM it leaves (:func:`round_costs`).  Round 9 (2-D,
``SchemeConstants.warp_loads``): a load pass along the inner axis costs the share of its
warps that have a word to load (:func:`load_passes`): the two halo words past a sub-tile
as wide as a multiple of its lanes were charged a whole pass.  Round 11 (2-D,
``SchemeConstants.guarded_pass``): a sub-tile width that is not a multiple of the inner
axis's lanes makes every compute pass dearer (:func:`lane_rows_terms`).

So, 1-D: ``T_tile = m' + c + (k_res - 1) max(m', c) + t_T rho``; 2-D: ``m' + N_s (k_res
max(m', c) + t_T rho)`` (``k_res = 1``: ``N_s (m' + c + t_T rho)``);
``T_alg = N_w T_sync + K (T_tile(k_A) rounds_A + T_tile(k_B) rounds_B)``.  Its
constants (``L``, ``lambda``, ``C_iter``) are the scheme's own under the name
``<scheme>+resident-latency`` (:func:`.calibrate.resident_constants`).  The overlapped
tiles have no extension: asked for one, :func:`quantities` says so.

The concurrency ``k`` (eq. 11) is the largest number of groups one SM holds:
``min(M_SM / M_tile, R_SM / R_tile, MTB_SM, threads_SM / n_thr)`` (floors), with
``R_tile = registers per work item x n_thr`` when the registers are known (read
from the driver's build log: :mod:`.registers`), and left out of the minimum when
not, as the paper had to.  A point is feasible (eq. 31) when ``M_tile`` fits a
group's limit, ``n_thr`` a group, and ``k >= 1``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import ModelError
from workbench.models.tiling.machine import TilingCalibration, TilingHardware


#: lanes that issue one instruction together: an NVIDIA warp (the microbenchmarks that set
#: `warp_loads` ran on an H100; AMD's wavefronts are 32 lanes on RDNA, 64 on CDNA)
WARP = 32


class Scheme(enum.Enum):
    OVERLAPPED = "overlapped"
    HEXAGONAL = "hexagonal"      # the paper's, 1-D
    HYBRID = "hybrid"            # the paper's hybrid hexagonal/classic, 2-D and 3-D

    @classmethod
    def paper(cls, dims: int) -> Scheme:
        return cls.HEXAGONAL if dims == 1 else cls.HYBRID


class Form(enum.Enum):
    """Which equations price the hexagonal/hybrid tiles (module docstring)."""

    PAPER = "paper"
    RESIDENT_LATENCY = "resident-latency"
    RESIDENT_LOAD_PASSES = "resident-load-passes"
    RESIDENT_ROWS_PASSES = "resident-rows-passes"
    RESIDENT_LANE_PASSES = "resident-lane-passes"
    RESIDENT_LANE_ROWS = "resident-lane-rows"

    @property
    def needs_lanes(self) -> bool:
        return self in (Form.RESIDENT_LOAD_PASSES, Form.RESIDENT_ROWS_PASSES,
                        Form.RESIDENT_LANE_PASSES, Form.RESIDENT_LANE_ROWS)

    @property
    def per_point_registers(self) -> bool:
        """Whether the form estimates registers per point (the lane-pass form and the
        forms built on it)."""
        return self in (Form.RESIDENT_LANE_PASSES, Form.RESIDENT_LANE_ROWS)

    def constants_key(self, scheme: Scheme) -> str:
        """The name a calibration keeps this form's constants of ``scheme`` under."""
        return scheme.value if self is Form.PAPER else f"{scheme.value}+{self.value}"


@dataclass(frozen=True, eq=False)
class TileQuantities:
    """Section-4 quantities, one entry per point (seconds, words, counts)."""

    scheme: Scheme
    N_w: np.ndarray
    w: np.ndarray
    m_i: np.ndarray
    m_o: np.ndarray
    m_prime: np.ndarray
    c: np.ndarray
    M_tile_bytes: np.ndarray
    k: np.ndarray
    T_tile: np.ndarray
    T_alg: np.ndarray
    feasible: np.ndarray

    def columns(self) -> dict[str, np.ndarray]:
        return {"N_w": self.N_w, "w": self.w, "m_i": self.m_i, "m_o": self.m_o,
                "m_prime_s": self.m_prime, "c_s": self.c, "M_tile_bytes": self.M_tile_bytes,
                "k": self.k, "T_tile_s": self.T_tile, "T_alg_s": self.T_alg,
                "feasible": self.feasible}


@dataclass(frozen=True)
class Problem:
    """Interior sizes ``S`` (axis 0 first) and time steps ``T``."""

    S: tuple[int, ...]
    T: int

    def __post_init__(self):
        if not 1 <= len(self.S) <= 3 or min(self.S) < 1 or self.T < 1:
            raise ModelError(f"a problem needs 1 to 3 positive sizes and T >= 1, got "
                             f"S={self.S}, T={self.T}")


def _ceil_div(a, b):
    return -(-np.asarray(a, dtype=np.int64) // np.asarray(b, dtype=np.int64))


def _concurrency(hw: TilingHardware, M_tile_bytes, n_thr, registers):
    n_thr = np.asarray(n_thr, dtype=np.int64)
    k = np.minimum.reduce([
        hw.M_SM // np.maximum(M_tile_bytes, 1),
        np.full(n_thr.shape, hw.MTB_SM, dtype=np.int64),
        hw.threads_SM // np.maximum(n_thr, 1)])
    if registers is not None:
        regs = np.asarray(registers, dtype=float) * n_thr
        by_regs = np.where(np.isfinite(regs) & (regs > 0),
                           hw.R_SM // np.maximum(np.nan_to_num(regs, nan=1.0), 1.0), k)
        k = np.minimum(k, by_regs.astype(np.int64))
    feasible = (M_tile_bytes <= hw.M_group) & (n_thr <= hw.max_group) & (k >= 1)
    return np.maximum(k, 1), feasible


def _finish(scheme, hw, cal, L, N_w, w, m_i, m_o, c, M_tile_bytes, k, feasible, repeats=1):
    m_prime = (m_i + m_o) * L + 2 * cal.tau_sync
    rounds = _ceil_div(_ceil_div(w, k), hw.n_SM)
    if scheme is Scheme.OVERLAPPED or scheme is Scheme.HEXAGONAL:
        T_tile = m_prime + c + (k - 1) * np.maximum(m_prime, c)
    else:   # eqs. 16, 28-29: a prism/slab of ``repeats`` sub-tiles per group
        T_tile = np.where(k == 1, (m_prime + c) * repeats,
                          m_prime + k * np.maximum(m_prime, c) * repeats)
    T_alg = N_w * cal.T_sync + N_w * T_tile * rounds
    return TileQuantities(scheme, N_w, w, m_i, m_o, m_prime, c, M_tile_bytes, k, T_tile,
                          np.where(feasible, T_alg, np.inf), feasible)


def _hex_sum(first, count, factor, n_V):
    """``sum_{j < count} ceil((first + 2 j) factor / n_V)`` per point (eq. 9's sum)."""
    first, count = np.asarray(first, dtype=np.int64), np.asarray(count, dtype=np.int64)
    j = np.arange(int(count.max(initial=0)), dtype=np.int64)
    x = (first[:, None] + 2 * j[None, :]) * np.asarray(factor, dtype=np.int64)[:, None]
    return np.sum(_ceil_div(x, n_V) * (j[None, :] < count[:, None]), axis=1)


def quantities(scheme: Scheme, problem: Problem, t_T, t_S: Sequence, n_thr,
               hw: TilingHardware, cal: TilingCalibration, stencil: str, *,
               registers=None, word_bytes: int = 4, form: Form = Form.PAPER,
               lanes: Sequence | None = None) -> TileQuantities:
    """The quantities of every point (``t_T``, each ``t_S[i]`` and ``n_thr``: arrays
    of one length; ``registers``: per work item, array or None; ``form``: the paper's
    equations or the resident-latency extension, module docstring)."""
    d = len(problem.S)
    if len(t_S) != d:
        raise ModelError(f"{d}-D problem but {len(t_S)} tile sizes")
    t_T = np.atleast_1d(np.asarray(t_T, dtype=np.int64))
    t_S = [np.broadcast_to(np.asarray(t, dtype=np.int64), t_T.shape) for t in t_S]
    n_thr = np.broadcast_to(np.asarray(n_thr, dtype=np.int64), t_T.shape)
    if form is not Form.PAPER and scheme is Scheme.OVERLAPPED:
        raise ModelError(f"the {form.value} form extends the paper's hexagonal/hybrid "
                         "tiles; overlapped tiles are priced by the paper's equations")
    # the scheme's own L and C_iter where its microbenchmarks measured them
    key = form.constants_key(scheme)
    if form is not Form.PAPER and key not in cal.schemes:
        raise ModelError(f"the calibration of {cal.device!r} has no {key} constants: "
                         "derive them from the row-latency ladder "
                         "(benchmarks/tiling_side_by_side.py --update-calibration)")
    L, _, _ = cal.constants(key)
    C, tau = cal.c_iter(stencil, key), cal.tau_sync
    S, T = problem.S, problem.T
    if scheme is Scheme.OVERLAPPED:
        E = [t + 2 * t_T for t in t_S]
        N_w = _ceil_div(T, t_T)
        w = np.prod([_ceil_div(s, t) for s, t in zip(S, t_S)], axis=0)
        m_i = np.prod(E, axis=0).astype(float)
        m_o = np.prod(t_S, axis=0).astype(float)
        inner = np.prod([e - 2 for e in E], axis=0)
        c = t_T * (_ceil_div(inner, hw.n_V) * C + tau)
        M_tile = 2 * np.prod(E, axis=0) * word_bytes
        k, feasible = _concurrency(hw, M_tile, n_thr, registers)
        return _finish(scheme, hw, cal, L, N_w, w, m_i, m_o, c, M_tile, k, feasible)
    if scheme is Scheme.HEXAGONAL and d != 1 or scheme is Scheme.HYBRID and d != 2:
        raise ModelError(f"the {scheme.value} scheme is for "
                         f"{'1-D' if scheme is Scheme.HEXAGONAL else '2-D'} "
                         f"stencils, not {d}-D")
    own = cal.schemes.get(key)
    latency = (own.row_latency, own.pass_latency) if form is not Form.PAPER else (0.0, 0.0)
    if form.needs_lanes:
        if lanes is None or len(lanes) != d:
            raise ModelError(f"the {form.value} form needs the lanes per axis of every "
                             "point (bx, by)")
        lanes = [np.broadcast_to(np.asarray(x, dtype=np.int64), t_T.shape) for x in lanes]
    if form.per_point_registers:
        if own.register_fit:        # per point; a point's own build where known
            guess = estimated_registers(own.register_fit, t_T, t_S[0], lanes,
                                        t_S[1] if d == 2 else None)
            known = (np.broadcast_to(np.asarray(registers, dtype=float), t_T.shape)
                     if registers is not None else np.full(t_T.shape, np.nan))
            registers = np.where(np.isfinite(known) & (known > 0), known, guess)
        latency = latency + (own.lane_pass,)
    hidden = form is Form.RESIDENT_LANE_ROWS and own.latency_hidden
    if hidden and d != 1:
        raise ModelError(f"the {key} constants hide the row chains, a 1-D term; the 2-D "
                         "form has none")
    if form is Form.RESIDENT_LANE_ROWS:
        latency = latency + (own.lane_rows, own.step_global, own.step_launch,
                             own.guarded_pass)
    partial = form is Form.RESIDENT_LANE_ROWS and own.partial_rounds
    warps = form is Form.RESIDENT_LANE_ROWS and own.warp_loads
    return _hexagonal(scheme, problem, t_T, t_S, n_thr, hw, cal, L, C, tau, registers,
                      word_bytes, form, latency, lanes, hidden, partial, warps)


def load_passes(t_T, t_S1, lanes, inner=None, warps: bool = False):
    """Passes of a (sub-)tile's load loops, summed over its rows (the load-pass form,
    module docstring): ``2 sum_{j < t_T/2} ceil((t_S1 + 2 j + 2) / b_1) [ceil((t_S2 + 2)
    / b_2)]``; ``lanes`` per axis, axis 0 first.  ``warps`` (round 9): a pass along the
    inner axis costs the share of its warps (32 lanes) that have a word to load, the
    inner axis's passes ``ceil((t_S2 + 2) / 32) 32 / b_2`` (``b_2 >= 32``; the width
    microbenchmark: the two halo words past a 256-wide sub-tile cost about a quarter of
    a pass of 128 lanes, a warp's share, not a whole pass)."""
    t_T, t1 = np.asarray(t_T, dtype=np.int64), np.asarray(t_S1, dtype=np.int64)
    h = np.maximum(t_T // 2, 1)
    j = np.arange(int(h.max(initial=1)), dtype=np.int64)
    along = _ceil_div((t1[:, None] + 2 * j[None, :] + 2), np.asarray(lanes[0])[:, None])
    total = 2 * np.sum(along * (j[None, :] < h[:, None]), axis=1)
    if inner is not None:
        inner_passes = _ceil_div(np.asarray(inner) + 2, lanes[1])
        if warps:           # a warp with no word to load skips the pass
            b2 = np.asarray(lanes[1])
            inner_passes = np.where(b2 >= WARP, _ceil_div(np.asarray(inner) + 2, WARP)
                                    * WARP / b2, inner_passes)
        total = total * inner_passes
    return total


def row_chain(form: Form, latency, t_T, t_S1, lanes, inner, tau, warps: bool = False):
    """The chain of a (sub-)tile's rows in a resident form (module docstring);
    ``latency``: ``(row_latency, pass_latency)`` of the form's constants;
    ``warps``: :func:`load_passes`'s."""
    per_row, per_pass = latency
    if form is Form.RESIDENT_LATENCY:
        return t_T * (per_row + 2 * tau)
    # the two-term chain (rows-passes and its lane-pass variant)
    passes = load_passes(t_T, t_S1, lanes, inner, warps)
    if form is Form.RESIDENT_LOAD_PASSES:       # its one latency is kept as row_latency
        return per_row * passes + 2 * t_T * tau
    return t_T * (per_row + 2 * tau) + per_pass * passes


def compute_passes(t_T, t_S1, lanes, inner=None):
    """Lane passes of a (sub-)tile's updates, summed over its rows (the lane-pass form,
    module docstring): ``2 sum_{j < t_T/2} ceil((t_S1 + 2 j) / b_1) [ceil(t_S2 /
    b_2)]``, as ``HexConfig.per_tile()["passes"]``; ``lanes`` per axis, axis 0 first."""
    t_T, t1 = np.asarray(t_T, dtype=np.int64), np.asarray(t_S1, dtype=np.int64)
    h = np.maximum(t_T // 2, 1)
    j = np.arange(int(h.max(initial=1)), dtype=np.int64)
    along = _ceil_div(t1[:, None] + 2 * j[None, :], np.asarray(lanes[0])[:, None])
    total = 2 * np.sum(along * (j[None, :] < h[:, None]), axis=1)
    if inner is not None:
        total = total * _ceil_div(inner, lanes[1])
    return total


def lane_rows_terms(C, t_T, t_S1, lanes, inner, n_thr, n_V: int, K, S, lane_rows: float,
                    step_global: float, step_launch: float = 0.0,
                    guarded_pass: float = 0.0):
    """The lane-rows form's compute throughput and global sweep (module docstring):
    ``c = C_iter passes n_thr / n_V (1 + gamma (b_1 - 1))`` per (sub-)tile, every lane
    slot of the group's passes charged, idle or not, and dearer the more rows of lanes
    a group spans (2-D; 1-D has one); ``sweep = 2 K (g_0 + g prod(S))``, a fixed cost
    and the grid once per launch of a row of hexagons, not overlapped with the tiles
    (``g_0``, ``step_launch``: round 6; 0 in round 5's constants).  Round 11
    (``guarded_pass``, 2-D): a sub-tile whose width is not a multiple of its lanes along
    the inner axis checks every compute pass's lanes against the width (a multiple needs
    no check), and each pass costs ``1 + guarded_pass`` times as much."""
    c = C * compute_passes(t_T, t_S1, lanes, inner) * np.asarray(n_thr) / n_V
    if inner is not None:
        c = c * (1.0 + lane_rows * (np.asarray(lanes[0]) - 1))
        if guarded_pass:
            c = c * (1.0 + guarded_pass * (np.asarray(inner) % np.asarray(lanes[1]) != 0))
    return c, 2 * K * (step_launch + step_global * float(np.prod(S)))


def register_features(t_T, t_S1, lanes, inner=None) -> np.ndarray:
    """Columns the register fit of the lane-pass form weighs (one row per point): 1,
    ``log2`` of the widest row's passes along axis 0 and (2-D) along axis 1, loops
    the compiler unrolls further the fewer passes they take."""
    t_T, t1 = np.asarray(t_T, dtype=np.int64), np.asarray(t_S1, dtype=np.int64)
    cols = [np.ones(t_T.shape), np.log2(_ceil_div(t1 + t_T, lanes[0]))]
    if inner is not None:
        cols.append(np.log2(_ceil_div(np.asarray(inner) + 2, lanes[1])))
    return np.stack(cols, axis=1).astype(float)


def estimated_registers(fit, t_T, t_S1, lanes, inner=None):
    """Registers per work item from a register fit (``(coefficients..., low, high)``:
    the fit and the range of the builds it was fitted on, which it stays inside)."""
    *coef, low, high = fit
    return np.clip(register_features(t_T, t_S1, lanes, inner) @ np.asarray(coef),
                   low, high)


def _hexagonal(scheme, problem, t_T, t_S, n_thr, hw, cal, L, C, tau, registers, word_bytes,
               form=Form.PAPER, latency=(0.0, 0.0), lanes=None, hidden=False,
               partial=False, warps=False):
    """The paper's scheme as :mod:`workbench.kernels.timetiled.hexagonal` generates it
    (module docstring: where it departs from the printed equations, and why)."""
    S, T = problem.S, problem.T
    even = (t_T % 2 == 0) & (t_T >= 2)
    h = np.maximum(t_T // 2, 1)
    t1 = t_S[0]
    K = _ceil_div(T, t_T)
    N_w = 2 * K + 1                                               # eq. 3, epsilon = 1
    P = 2 * t1 + t_T - 2                                          # eq. 5's pitch, fixed
    w_A = _ceil_div(S[0] + h - 1, P)
    w_B = np.maximum(_ceil_div(np.maximum(S[0] - t1, 0), P), 0)
    if len(S) == 2:
        t2 = t_S[1]
        inner, halo = t2, 2
        repeats = _ceil_div(S[1] + t_T - 1, t2)                   # eq. 16, skew t_T - 1
        M_tile = 2 * (t1 + t_T) * (t2 + t_T + 1) * word_bytes     # eq. 19 less one x1 cell
    else:
        inner, halo = np.ones_like(t1), 0
        repeats = np.ones_like(t1)
        M_tile = 2 * (t1 + t_T) * word_bytes                      # section 4.1, exactly
    m_i = ((t1 + 2 * t_T) * (inner + halo)).astype(float)         # eq. 13 and the x2 halo
    m_o = ((t1 + 2 * t_T - 2) * inner).astype(float)              # outer cells, top row
    # eq. 15: rows t1, t1 + 2, .., t1 + t_T - 2, each twice; two barriers per row
    k, feasible = _concurrency(hw, M_tile, n_thr, registers)
    if form is not Form.PAPER:
        inner_arg = t_S[1] if len(S) == 2 else None
        chain = row_chain(form, latency[:2], t_T, t1, lanes, inner_arg, tau, warps)
        c_lane = (latency[2] * compute_passes(t_T, t1, lanes, inner_arg)
                  if form.per_point_registers else None)
        c = 2 * C * _hex_sum(t1, h, inner, hw.n_V)
        sweep = 0.0
        if form is Form.RESIDENT_LANE_ROWS:
            c, sweep = lane_rows_terms(C, t_T, t1, lanes, inner_arg, n_thr, hw.n_V, K,
                                       S, *latency[3:7])
        return _resident_latency(scheme, len(S), K, N_w, w_A, w_B, m_i, m_o, M_tile, k,
                                 feasible & even, repeats, c, chain, hw, cal, L, c_lane,
                                 sweep, hidden, partial)
    c = 2 * C * _hex_sum(t1, h, inner, hw.n_V) + 2 * t_T * tau
    m_prime = (m_i + m_o) * L + 2 * cal.tau_sync
    if len(S) == 1:                                               # eq. 12
        T_tile = m_prime + c + (k - 1) * np.maximum(m_prime, c)
    else:                                                         # eq. 16
        T_tile = np.where(k == 1, (m_prime + c) * repeats,
                          m_prime + k * np.maximum(m_prime, c) * repeats)
    rounds = _ceil_div(_ceil_div(w_A, k), hw.n_SM) + _ceil_div(_ceil_div(w_B, k), hw.n_SM)
    # K A rows and K B rows of full hexagons (the first and last launches are the two
    # halves of one B row), N_w launch gaps
    T_alg = N_w * cal.T_sync + K * T_tile * rounds
    w = (w_A + w_B) / 2
    return TileQuantities(scheme, N_w, w, m_i, m_o, m_prime, c, M_tile, k, T_tile,
                          np.where(feasible & even, T_alg, np.inf), feasible & even)


def resident(w, k, n_SM: int):
    """``k_res = min(k, ceil(w / n_SM))``, at least 1: the groups one SM holds."""
    return np.maximum(np.minimum(k, _ceil_div(np.maximum(w, 1), n_SM)), 1)


def resident_tile(dims: int, k_res, m_prime, c, chain, repeats, c_lane=None,
                  streamed=None):
    """``T_tile`` of the resident-latency form (module docstring); ``chain``: the rows'
    latency of one (sub-)tile, ``t_T rho``; ``c_lane``: the lane-pass form's least
    compute time of one group's (sub-)tile; ``streamed`` (1-D, round 7): the tile's
    words at the streaming ``L``, given where the SM's groups hide each other's waits:
    the tile costs the longer of the SM's stream of groups and one group's own path."""
    lane = 0.0 if c_lane is None else c_lane
    if dims == 1 and streamed is not None:
        return np.maximum(k_res * np.maximum(streamed, c),
                          m_prime + np.maximum(c, lane) + chain)
    if dims == 1:
        return (m_prime + np.maximum(c + (k_res - 1) * np.maximum(m_prime, c), lane)
                + chain)
    return np.where(k_res == 1, (m_prime + np.maximum(c, lane) + chain) * repeats,
                    m_prime + (np.maximum(k_res * np.maximum(m_prime, c), lane) + chain)
                    * repeats)


def round_costs(w, k, n_SM: int, tile_at):
    """One launch of ``w`` groups, ``k`` per SM at most, priced round by round (round
    8): the full rounds of ``k n_SM`` groups at ``tile_at(k)``, and a last, partial
    round of ``r`` groups at ``tile_at(ceil(r / n_SM))``, the groups per SM it leaves
    (the GPU hands the leftover groups to the SMs as the full rounds end)."""
    w, k = np.asarray(w, dtype=np.int64), np.asarray(k, dtype=np.int64)
    slots = np.maximum(k, 1) * n_SM
    full = w // slots
    rest = w - full * slots
    last = np.maximum(_ceil_div(rest, n_SM), 1)
    return full * tile_at(np.maximum(k, 1)) + np.where(rest > 0, tile_at(last), 0.0)


def _resident_latency(scheme, dims, K, N_w, w_A, w_B, m_i, m_o, M_tile, k, feasible,
                      repeats, c, chain, hw, cal, L, c_lane=None, sweep=0.0,
                      hidden=False, partial=False):
    m_prime = (m_i + m_o) * L
    streamed = (m_i + m_o) * cal.L if hidden else None    # the overlapped tiles' L
    k_A, k_B = resident(w_A, k, hw.n_SM), resident(w_B, k, hw.n_SM)
    tile_A = resident_tile(dims, k_A, m_prime, c, chain, repeats, c_lane, streamed)
    tile_B = resident_tile(dims, k_B, m_prime, c, chain, repeats, c_lane, streamed)
    rounds_A = _ceil_div(_ceil_div(w_A, k), hw.n_SM)
    rounds_B = _ceil_div(_ceil_div(w_B, k), hw.n_SM)
    if partial:
        def tile_at(k_res):
            return resident_tile(dims, k_res, m_prime, c, chain, repeats, c_lane, streamed)
        row_A = round_costs(w_A, k, hw.n_SM, tile_at)
        row_B = round_costs(w_B, k, hw.n_SM, tile_at)
    else:
        row_A, row_B = tile_A * rounds_A, tile_B * rounds_B
    T_alg = N_w * cal.T_sync + K * (row_A + row_B) + sweep
    # k: the concurrency (eq. 11), as the paper's form reports it; T_tile: an A row's
    return TileQuantities(scheme, N_w, (w_A + w_B) / 2, m_i, m_o, m_prime, c, M_tile, k,
                          tile_A, np.where(feasible, T_alg, np.inf), feasible)
