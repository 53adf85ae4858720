"""Hardware metrics from address expressions (Ernst et al., sections III-B, E, F, G).

Implemented definitions
-----------------------
**L1 -> register cycles (III-B), ``l1_loads.l1_load_cycles``.** Volta/Ampere deliver
128 B per cycle to a 16-wide *half warp*: a 128 B line is spread over 16 banks of
8 B. A half-warp load instruction needs one cycle per distinct 8 B address in the
most loaded bank ("each additional address per cache bank requires an additional
cycle"): ``cycles = max_bank |{distinct 8 B words w : w mod 16 == bank}|``. Threads
reading the same word (broadcast, or two float32 in one 8 B word) count once. Half
warps are 16 consecutive threads in linear order ``tx + Bx*(ty + By*tz)`` (a
partial last half warp of a block counts as one); threads masked off by guards
do not access memory, a half warp with no active thread costs nothing. Only
*loads* count; the total is the sum over load instructions (every loop iteration
is one executed instruction) and half warps of a thread block, averaged over the
representative blocks given. With a half warp of 16 threads the worst case is 16
cycles (the paper's text says 32 for ``D[threadIdx.x*32]``, which would need 32
threads per group; we follow the mechanism, not that number).

**L2 -> L1 volume per thread block (III-F), :func:`l2_l1_volume`.** The
collaborative group of L1 is one thread block (no sharing between blocks on the
same SM). Loads: compulsory volume ``Vcomp`` = unique footprint of the block in
32 B sectors (transfer granularity), allocation volume ``Valloc`` = unique
footprint in 128 B lines. Stores: L1 is write-through, so every store is passed
on: per store instruction, its own sectors (not merged with other instructions).

**Capacity misses (III-E), :func:`capacity_miss_factor`, :func:`oversubscription`.**
``R(O) = a * exp(-b * exp(-c * O))`` with ``O`` = allocated volume of the blocks
resident on one SM / cache capacity (the text's definition: O < 1 means the
footprint fits; eq. (6) prints the inverse ratio). ``Vcap = R(O) (Vup - Vcomp)``.
a, b, c are arguments: fitting them needs measurements.

**DRAM -> L2 volume per wave (III-G), :func:`dram_volume`.** The grid is cut into
waves of ``blocks_per_wave`` consecutive blocks (launch order, x fastest;
:mod:`workbench.models.roofline.waves`). A wave's volume is its unique 32 B sector
footprint ``Vcurr`` minus what it can hit from the previous wave,
``Voverlap = |curr ∩ prev|``; with an L2 capacity the coverage factor
``C = (Vcache - (Vcurr - Voverlap)) / Vprev`` is reported and an optional
miss-ratio function ``R(C)`` turns ``Voverlap`` partly back into traffic:
``V = Vcurr - (1 - R(C)) Voverlap`` (default ``R = 0``: compulsory only). Loads and
stores are computed separately (stores are cached in L2 and get their own fit in
the paper). Everything goes through ISL, so cost does not grow with the grid.

Still missing
-------------
* fitting ``R(O)`` for L1 and ``R_load(C)``, ``R_store(C)`` for L2 (needs
  measurements), and the requested volume ``Vup`` that ``Vcap`` multiplies;
* device descriptions (SM count, cache sizes, occupancy -> blocks per SM/wave);
* the roofline-style performance prediction from these metrics;
* the block-size study (sweeping ``LaunchConfig.block`` as in the paper's figures).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from workbench.models.roofline.address import (
    Access, Direction, LaunchConfig, ThreadGroup)
from workbench.models.roofline.distinct import distinct
from workbench.models.roofline.footprint import (
    _enumerate_units, _select, card_int, footprint, unit_sets)
from workbench.models.roofline.l1_loads import SECTOR, blocks_list, l1_requested_sectors
from workbench.models.roofline.waves import num_waves, wave_groups

LINE = 128


# {{{ L1 -> registers: bank conflicts per half warp, and the sectors loads request

# in workbench.models.roofline.l1_loads (every instance of a looped load, by classes)

# }}}


# {{{ L2 -> L1 per thread block, capacity misses

@dataclass(frozen=True)
class L2L1Volume:
    """Per-block L2 <-> L1 volumes in bytes (averaged over the blocks asked for).

    ``load_sectors_bytes`` = Vcomp of the loads (32 B sectors), ``load_lines_bytes``
    = Valloc of the loads (128 B lines), ``store_bytes`` = write-through store
    volume (sectors of each store instruction, summed over instructions).
    """

    load_sectors_bytes: float
    load_lines_bytes: float
    store_bytes: float
    load_requested_bytes: float = 0.0   # Vup: sectors requested per warp instruction

    def with_capacity_misses(self, ratio: float) -> L2L1Volume:
        """Loads become ``Vcomp + R * (Vup - Vcomp)`` (paper eq. 7)."""
        from dataclasses import replace
        extra = capacity_miss_volume(ratio, self.load_requested_bytes,
                                     self.load_sectors_bytes)
        return replace(self, load_sectors_bytes=self.load_sectors_bytes + extra)

    @property
    def sectors_bytes(self) -> float:
        """All compulsory L2 <-> L1 traffic at sector granularity (loads + stores)."""
        return self.load_sectors_bytes + self.store_bytes

    @property
    def lines_bytes(self) -> float:
        """Bytes allocated in L1 (128 B lines of the loads)."""
        return self.load_lines_bytes


def l2_l1_volume(accesses: Iterable[Access], launch: LaunchConfig, block=(0, 0, 0),
                 params: Mapping[str, int] | None = None, *, method: str = "auto",
                 sector: int = SECTOR, line: int = LINE) -> L2L1Volume:
    """Compulsory L2 -> L1 volume of one thread block (or the mean over a list)."""
    accesses = list(accesses)
    stores = _select(accesses, Direction.STORE)
    blocks = blocks_list(block)
    ls = ll = st = 0
    for b in blocks:
        group = ThreadGroup.block(launch, *b)
        kw = {"method": method, "params": params}
        ls += sector * sum(footprint(accesses, group, sector, direction="load", **kw
                                     ).values())
        ll += line * sum(footprint(accesses, group, line, direction="load", **kw
                                   ).values())
        st += sector * sum(sum(footprint([acc], group, sector, **kw).values())
                           for acc in stores)
    n = len(blocks)
    requested = sector * l1_requested_sectors(accesses, launch, blocks, params,
                                              sector=sector)
    return L2L1Volume(ls / n, ll / n, st / n, requested)


def capacity_miss_factor(O, a: float, b: float, c: float):
    """Fitted capacity-miss ratio ``R(O) = a * exp(-b * exp(-c * O))`` (paper III-E).

    A sigmoid-like stand-in between ``R ~ 0`` (footprint fits) and ``R -> a``
    (heavily oversubscribed); works on scalars and numpy arrays. a, b, c come from a
    fit against measurements (not done here).
    """
    return a * np.exp(-b * np.exp(-c * np.asarray(O, dtype=float)))


def oversubscription(alloc_bytes_per_block: float, blocks_per_sm: int,
                     cache_bytes: float) -> float:
    """``O`` = allocated lines of the blocks resident on one SM / cache capacity."""
    if cache_bytes <= 0:
        raise ValueError("cache capacity must be positive")
    return alloc_bytes_per_block * blocks_per_sm / cache_bytes


def capacity_miss_volume(ratio: float, v_up: float, v_comp: float) -> float:
    """``Vcap = R * (Vup - Vcomp)`` (paper eq. 7)."""
    return ratio * max(v_up - v_comp, 0.0)

# }}}


# {{{ DRAM -> L2 per wave

@dataclass(frozen=True)
class WaveVolume:
    """One wave's sector volumes in bytes (one direction)."""

    wave: int
    curr_bytes: int          # Vcurr: unique sectors of the wave
    prev_bytes: int          # Vprev: unique sectors of the previous wave (0 for wave 0)
    overlap_bytes: int       # Voverlap: sectors of both
    coverage: float | None   # C = (Vcache - (Vcurr - Voverlap)) / Vprev
    bytes: float             # Vcurr - (1 - R(C)) * Voverlap


@dataclass(frozen=True)
class DramVolume:
    """DRAM -> L2 (loads) and L2 -> DRAM (stores) volume estimates in bytes.

    With ``reuse="l2"`` the representative waves' reuse profiles are kept, as
    ``(weight, profile)`` pairs, so a miss function can be re-applied (or fitted)
    without recomputing the sets: :meth:`with_miss_ratio`.
    """

    load_bytes: float
    store_bytes: float
    waves: int
    exact: bool               # every wave computed, or first/representative/last
    load_waves: tuple[WaveVolume, ...]
    store_waves: tuple[WaveVolume, ...]
    load_profiles: tuple = ()
    store_profiles: tuple = ()
    l2_bytes: float | None = None

    def with_miss_ratio(self, miss_ratio) -> DramVolume:
        """The same launch under another reuse-distance miss function."""
        if not (self.load_profiles or self.store_profiles):
            raise ValueError("no reuse profiles: compute with reuse='l2'")
        from dataclasses import replace

        def total(profiles, unchanged):
            if not profiles:
                return unchanged
            return sum(w * p.miss_bytes(self.l2_bytes, miss_ratio) for w, p in profiles)
        return replace(self, load_bytes=total(self.load_profiles, self.load_bytes),
                       store_bytes=total(self.store_profiles, self.store_bytes))

    @property
    def total_bytes(self) -> float:
        return self.load_bytes + self.store_bytes


def _wave_sets(accesses, launch, blocks_per_wave, wave, params, direction, sector):
    sets: dict = {}
    for group in wave_groups(launch, blocks_per_wave, wave):
        for name, s in unit_sets(accesses, group, sector, params, direction).items():
            sets[name] = sets[name] | s if name in sets else s
    return sets


def _count(sets: dict) -> int:
    return sum(card_int(s.coalesce()) for s in sets.values())


def _wave_units(accesses, launch, blocks_per_wave, wave, params, direction, sector):
    """Enumerated unique sector indices per array of one wave (sorted arrays)."""
    parts: dict = {}
    for group in wave_groups(launch, blocks_per_wave, wave):
        for acc in _select(accesses, direction):
            parts.setdefault(acc.array, []).append(
                _enumerate_units(acc, group, sector, params))
    return {k: distinct(np.concatenate(v)) for k, v in parts.items()}


def _wave_ranges(accesses, launch, blocks_per_wave, wave, params, direction, sector):
    """Per array, the unit ranges of one wave; None if an access is not handled."""
    from workbench.models.roofline.intervals import footprint_ranges
    parts: dict = {}
    for group in wave_groups(launch, blocks_per_wave, wave):
        r = footprint_ranges(_select(accesses, direction), group, sector, params)
        if r is None:
            return None
        for k, v in r.items():
            parts.setdefault(k, []).extend(v)
    return parts


def _max_loop_trips(accesses) -> int:
    """The largest loop trip product of any access (constants in the address model)."""
    most = 1
    for acc in accesses:
        trips = 1
        for _, (lo, hi) in acc.address.loops:
            trips *= max(0, hi - lo)
        most = max(most, trips)
    return most


# A wave's addresses fit comfortably in memory below this many: enumeration is then
# much faster than barvinok's count of unions of many shifted, floor-divided sets.
ENUMERATE_LIMIT = 30_000_000


def _wave_volume(accesses, launch, bpw, wave, params, direction, sector,
                 l2_bytes, miss_ratio, method="isl", cache=None) -> WaveVolume:
    if method == "intervals":
        from workbench.models.roofline.intervals import union_size
        cache = {} if cache is None else cache

        def ranges_of(k):
            if (k, direction) not in cache:
                cache[k, direction] = _wave_ranges(accesses, launch, bpw, k, params,
                                                   direction, sector)
            return cache[k, direction]
        curr_r = ranges_of(wave)
        v_curr = sector * sum(union_size(v) for v in curr_r.values())
        if wave == 0:
            return WaveVolume(0, v_curr, 0, 0, None, float(v_curr))
        prev_r = ranges_of(wave - 1)
        v_prev = sector * sum(union_size(v) for v in prev_r.values())
        # |A & B| = |A| + |B| - |A | B|, per array
        v_over = sector * sum(union_size(curr_r[k]) + union_size(prev_r[k])
                              - union_size(curr_r[k] + prev_r[k])
                              for k in curr_r if k in prev_r)
        return _finish_wave(wave, v_curr, v_prev, v_over, l2_bytes, miss_ratio)
    if method == "enumerate":
        curr_u = _wave_units(accesses, launch, bpw, wave, params, direction, sector)
        v_curr = sector * sum(u.size for u in curr_u.values())
        if wave == 0:
            return WaveVolume(0, v_curr, 0, 0, None, float(v_curr))
        prev_u = _wave_units(accesses, launch, bpw, wave - 1, params, direction, sector)
        v_prev = sector * sum(u.size for u in prev_u.values())
        v_over = sector * sum(np.intersect1d(curr_u[k], prev_u[k], assume_unique=True).size
                              for k in curr_u if k in prev_u)
        return _finish_wave(wave, v_curr, v_prev, v_over, l2_bytes, miss_ratio)
    curr = _wave_sets(accesses, launch, bpw, wave, params, direction, sector)
    v_curr = sector * _count(curr)
    if wave == 0:
        return WaveVolume(0, v_curr, 0, 0, None, float(v_curr))
    prev = _wave_sets(accesses, launch, bpw, wave - 1, params, direction, sector)
    v_prev = sector * _count(prev)
    v_over = sector * _count({k: curr[k] & prev[k] for k in curr if k in prev})
    return _finish_wave(wave, v_curr, v_prev, v_over, l2_bytes, miss_ratio)


def _finish_wave(wave, v_curr, v_prev, v_over, l2_bytes, miss_ratio) -> WaveVolume:
    cov = None
    if l2_bytes is not None and v_prev:
        cov = (l2_bytes - (v_curr - v_over)) / v_prev
    r = float(miss_ratio(cov)) if (miss_ratio is not None and cov is not None) else 0.0
    return WaveVolume(wave, v_curr, v_prev, v_over, cov, v_curr - (1.0 - r) * v_over)


def _dram_volume_reuse(accesses, launch, bpw, params, sector, l2_bytes, miss_ratio,
                       n, exact, cache) -> DramVolume:
    from workbench.models.roofline.reuse import flatten, reuse_profile, size
    arrays = sorted({a.array for a in accesses})
    picks = [(k, 1.0) for k in range(n)] if exact else \
        [(0, 1.0), (n // 2, float(n - 2)), (n - 1, 1.0)]
    out = {}
    for direction in (Direction.LOAD, Direction.STORE):
        if not _select(accesses, direction):
            out[direction] = (0.0, (), ())
            continue
        if direction is Direction.STORE:
            # dirty lines are written back once each; a store only saves DRAM traffic
            # when the same line is written again while still in L2, which for the
            # write-once outputs of these kernels is the previous wave at most (the
            # paper's treatment)
            waves = tuple(_wave_volume(accesses, launch, bpw, k, params, direction,
                                       sector, l2_bytes, None, "intervals", cache)
                          for k, _ in picks)
            total = sum(w * v.bytes for (_, w), v in zip(picks, waves))
            out[direction] = (float(total), waves, ())
            continue

        def sets(k, direction=direction):
            if ("flat", k, direction) not in cache:
                cache["flat", k, direction] = flatten(_wave_ranges(
                    accesses, launch, bpw, k, params, direction, sector), arrays)
            return cache["flat", k, direction]
        if exact:
            profiles = tuple((w, reuse_profile(sets, k, sector, l2_bytes))
                             for k, w in picks)
        else:
            # the last (often partial) wave reuses data as the middle one does: its
            # profile is the middle wave's, scaled to its own volume
            first, mid = (reuse_profile(sets, k, sector, l2_bytes) for k, _ in picks[:2])
            last = mid.scaled(n - 1, sector * size(sets(n - 1)))
            profiles = tuple(zip((w for _, w in picks), (first, mid, last)))
        waves = tuple(WaveVolume(p.wave, p.curr_bytes,
                                 p.distance_bytes[0] if p.distance_bytes else 0,
                                 sum(p.first_hit_bytes), None,
                                 p.miss_bytes(l2_bytes, miss_ratio))
                      for _, p in profiles)
        total = sum(w * p.miss_bytes(l2_bytes, miss_ratio) for w, p in profiles)
        out[direction] = (float(total), waves, profiles)
    return DramVolume(out[Direction.LOAD][0], out[Direction.STORE][0], n, exact,
                      out[Direction.LOAD][1], out[Direction.STORE][1],
                      out[Direction.LOAD][2], out[Direction.STORE][2], l2_bytes)


def dram_volume(accesses: Iterable[Access], launch: LaunchConfig, blocks_per_wave: int,
                params: Mapping[str, int] | None = None, *, sector: int = SECTOR,
                l2_bytes: float | None = None,
                miss_ratio: Callable[[float], float] | None = None,
                max_exact_waves: int = 16, method: str = "auto",
                reuse: str = "previous") -> DramVolume:
    """DRAM volume of a launch from waves of ``blocks_per_wave`` concurrent blocks.

    ``blocks_per_wave`` = SM count x blocks per SM. With at most
    ``max_exact_waves`` waves every wave is computed; otherwise wave 0, one
    representative full wave in the middle (with its predecessor) and the last
    wave, and the middle one stands for all the others. ``l2_bytes`` enables the
    coverage factor; ``miss_ratio(C)`` (e.g. a fitted :func:`capacity_miss_factor`)
    the capacity misses on the previous wave's data.  ``method`` is "isl",
    "enumerate", "intervals" or "auto" (intervals where every access is contiguous
    along some coordinate, else enumerate when a wave has at most
    ``ENUMERATE_LIMIT`` thread accesses, else ISL; all give identical counts).
    ``reuse`` says which earlier data a wave may hit in L2: the ``"previous"`` wave
    only (the paper; ``miss_ratio`` is then a function of the coverage factor), or
    ``"l2"``: data of any earlier wave, by reuse distance (see
    :mod:`workbench.models.roofline.reuse`; ``miss_ratio`` is then a function of reuse
    distance / L2 capacity, an ideal LRU cache without it; intervals method only).
    """
    if reuse not in ("previous", "l2"):
        raise ValueError(f"reuse must be 'previous' or 'l2', got {reuse!r}")
    accesses = list(accesses)
    params = dict(params or {})
    cache: dict = {}
    n = num_waves(launch, blocks_per_wave)
    if method == "auto":
        threads = int(np.prod(launch.block)) * blocks_per_wave
        work = threads * max(1, len(accesses)) * _max_loop_trips(accesses)
        if _wave_ranges(accesses, launch, blocks_per_wave, 0, params, None,
                        sector) is not None:
            method = "intervals"
        else:
            method = "enumerate" if work <= ENUMERATE_LIMIT else "isl"
    if reuse == "l2" and method != "intervals":
        raise ValueError("reuse='l2' needs the intervals method (accesses contiguous "
                         "along some coordinate)")
    exact = n <= max_exact_waves
    if reuse == "l2":
        if l2_bytes is None:
            raise ValueError("reuse='l2' needs l2_bytes")
        return _dram_volume_reuse(accesses, launch, blocks_per_wave, params, sector,
                                  float(l2_bytes), miss_ratio, n, exact, cache)
    out = {}
    for direction in (Direction.LOAD, Direction.STORE):
        if not _select(accesses, direction):
            out[direction] = (0.0, ())
            continue

        def wv(k, direction=direction):
            return _wave_volume(accesses, launch, blocks_per_wave, k, params,
                                direction, sector, l2_bytes, miss_ratio, method,
                                cache)
        if exact:
            waves = tuple(wv(k) for k in range(n))
            total = sum(w.bytes for w in waves)
        else:
            mid = n // 2
            waves = (wv(0), wv(mid), wv(n - 1))
            total = waves[0].bytes + (n - 2) * waves[1].bytes + waves[2].bytes
        out[direction] = (float(total), waves)
    return DramVolume(out[Direction.LOAD][0], out[Direction.STORE][0], n, exact,
                      out[Direction.LOAD][1], out[Direction.STORE][1])

# }}}
