"""DRAM volume with L2 reuse across many waves: reuse distances of a wave's data.

The paper (Ernst et al., III-G) lets a wave hit in L2 only on the previous wave's
data, scaled by a capacity-miss ratio of the coverage factor.  That suits the V100's
6 MB L2; the H100's 50 MB L2 holds the data of many waves, and stencils reuse their
halo planes several waves later (a 3-D block grid walks z-slab after z-slab).  Here
each sector of a representative wave gets the *reuse distance* of its last earlier
use: the volume of distinct data the earlier waves touched since (an LRU stack
distance counted in waves, measured in bytes).  A sector first found ``k`` waves
back, with ``D_k`` bytes touched by those ``k`` waves, misses with probability
``R(D_k / L2)``; the paper's sigmoid ``R(x) = a * exp(-b * exp(-c * x))`` is fitted
to measured DRAM volumes (see :func:`fit_reuse_miss`), and without a fit an ideal
LRU cache (``R = 0`` below capacity, 1 above) is assumed.

The sets are unions of contiguous unit ranges (:mod:`workbench.models.roofline.intervals`),
so a wave costs a few thousand ranges, not millions of addresses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: arrays never alias: each gets its own unit-index space this far apart
_ARRAY_SPACING = 1 << 44
#: stop looking back once the earlier waves' data exceeds this many L2 capacities
LOOKBACK_CAPACITIES = 2.0


def merge_ranges(ranges: np.ndarray) -> np.ndarray:
    """Disjoint, sorted inclusive ranges covering the same integers.

    The starts and the ends are sorted each on their own (no argsort, no gather):
    with both sorted, the ``i``-th start opens a new range exactly when it lies past
    the ``i-1`` smallest ends and one more, since then every range that started
    before it has ended.  The union is the same set of integers either way.
    """
    if len(ranges) == 0:
        return np.empty((0, 2), dtype=np.int64)
    first, last = np.sort(ranges[:, 0]), np.sort(ranges[:, 1])
    new = np.empty(len(first), dtype=bool)
    new[0] = True
    np.greater(first[1:], last[:-1] + 1, out=new[1:])
    starts = np.flatnonzero(new)
    out = np.empty((len(starts), 2), dtype=np.int64)
    out[:, 0] = first[starts]
    out[:-1, 1] = last[starts[1:] - 1]
    out[-1, 1] = last[-1]
    return out


def size(merged: np.ndarray) -> int:
    return int((merged[:, 1] - merged[:, 0] + 1).sum()) if len(merged) else 0


def flatten(per_array: dict[str, list[np.ndarray]], arrays: Sequence[str]) -> np.ndarray:
    """One merged range set for all arrays (each shifted into its own space)."""
    parts = [np.concatenate(per_array[a]) + _ARRAY_SPACING * arrays.index(a)
             for a in per_array if per_array[a]]
    return merge_ranges(np.concatenate(parts)) if parts else np.empty((0, 2), np.int64)


@dataclass(frozen=True)
class ReuseProfile:
    """One wave's sectors by reuse distance.

    ``curr_bytes``: the wave's distinct data; ``first_hit_bytes[k-1]``: its data last
    touched ``k`` waves earlier (and by no closer wave); ``distance_bytes[k-1]``:
    the distinct data the ``k`` previous waves touched together.
    """

    wave: int
    curr_bytes: int
    first_hit_bytes: tuple[int, ...]
    distance_bytes: tuple[int, ...]

    def scaled(self, wave: int, curr_bytes: int) -> ReuseProfile:
        """This profile's shape for another wave of ``curr_bytes`` distinct bytes."""
        f = curr_bytes / self.curr_bytes if self.curr_bytes else 0.0
        return ReuseProfile(wave, curr_bytes, tuple(int(round(h * f))
                                                    for h in self.first_hit_bytes),
                            self.distance_bytes)

    def miss_bytes(self, l2_bytes: float, miss_ratio: Callable | None = None) -> float:
        hits = np.asarray(self.first_hit_bytes, dtype=float)
        dist = np.asarray(self.distance_bytes, dtype=float) / l2_bytes
        r = (dist > 1.0).astype(float) if miss_ratio is None else \
            np.asarray(miss_ratio(dist), dtype=float)
        return float(self.curr_bytes - (hits * (1.0 - r)).sum())


def reuse_profile(wave_sets: Callable[[int], np.ndarray], wave: int, unit_bytes: int,
                  l2_bytes: float,
                  lookback: float = LOOKBACK_CAPACITIES) -> ReuseProfile:
    """Reuse distances of ``wave``'s units; ``wave_sets(k)`` gives wave k's merged
    ranges (see :func:`flatten`).

    With ``U_k`` the union of the ``k`` previous waves, the units first found ``k``
    waves back number ``|curr & U_k| - |curr & U_(k-1)|``, and intersections come
    from unions, ``|A & B| = |A| + |B| - |A | B|``: range arithmetic throughout, no
    per-unit work.
    """
    curr = wave_sets(wave)
    n_curr = size(curr)
    hits, dists = [], []
    seen = np.empty((0, 2), dtype=np.int64)
    found_before = 0
    k = wave - 1
    while k >= 0 and found_before < n_curr:
        seen = merge_ranges(np.concatenate([seen, wave_sets(k)]))
        n_seen = size(seen)
        found = n_curr + n_seen - size(merge_ranges(np.concatenate([curr, seen])))
        hits.append((found - found_before) * unit_bytes)
        dists.append(n_seen * unit_bytes)
        found_before = found
        if dists[-1] > lookback * l2_bytes:
            break
        k -= 1
    return ReuseProfile(wave, n_curr * unit_bytes, tuple(hits), tuple(dists))
