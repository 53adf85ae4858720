"""Footprints as unions of contiguous address runs: the fast exact method.

Most GPU array accesses walk memory contiguously along one coordinate: the thread
x index ``tx`` (stride one element), usually joined by the block index ``bx`` with
stride ``blockDim.x``.  For a group of threads, such an access touches one run of
consecutive elements per combination of the *other* coordinates.  Counting distinct
units (bytes, sectors, lines) then needs only the runs, not every address:

1. merge coordinate pairs that form one longer contiguous coordinate: ``a`` in
   ``[0, A)`` and ``b`` whose coefficient is ``A`` times ``a``'s, in the index and in
   every guard (``tx + 32*bx`` becomes one ``x`` over the group's whole x extent);
2. pick a coordinate of element stride +-1 as the run direction; enumerate the others
   (broadcasting), clip each run by the guards (a guard is affine, so it bounds the
   run coordinate from one side per row); an access with no such coordinate (a halo
   column read across lanes) has runs of one element each;
3. turn each run's bytes into an inclusive range of unit indices and count the union
   of all ranges of an array with one sort.

The result equals enumeration and ISL exactly (tests check all three); the cost is
proportional to the number of runs, not of threads.  A guard that is an equality
coupling several coordinates, or more than ``MAX_RUNS`` runs, is not handled here
(None): the caller falls back to enumeration or ISL.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from workbench.models.roofline.address import Access, ThreadGroup, bound_address

# runs are enumerated as numpy arrays; beyond this many per access the caller should
# fall back (enumeration or ISL) rather than allocate without bound
MAX_RUNS = 20_000_000


def _merge_coordinates(index: dict, guards: list[dict], ranges: dict) -> None:
    """Join contiguous coordinate pairs in place (see the module docstring, step 1)."""
    merged = True
    while merged:
        merged = False
        for a in list(ranges):
            lo_a, hi_a = ranges[a]
            if lo_a != 0 or a not in index:
                continue
            span = hi_a
            for b in list(ranges):
                if b == a or b not in index or index[b] != span * index[a]:
                    continue
                if any(g.get(b, 0) != span * g.get(a, 0) for g in guards):
                    continue
                lo_b, hi_b = ranges[b]
                name = f"({a}+{span}*{b})"
                ranges[name] = (span * lo_b, span * hi_b)
                index[name] = index.pop(a)
                index.pop(b)
                for g in guards:
                    ca = g.pop(a, 0)
                    g.pop(b, None)
                    if ca:
                        g[name] = ca
                del ranges[a], ranges[b]
                merged = True
                break
            if merged:
                break


_PREPARED: dict = {}


def _prepared(access: Access, params: tuple[tuple[str, int], ...]):
    """:func:`_prepare`, memoized by object identity (hashing an access walks all of
    its expressions, which costs more than the counting it saves)."""
    key = (id(access), params)
    hit = _PREPARED.get(key)
    if hit is None or hit[0] is not access:
        if len(_PREPARED) > 4096:
            _PREPARED.clear()
        hit = _PREPARED[key] = (access, _prepare(access, params))
    return hit[1]


def _prepare(access: Access, params: tuple[tuple[str, int], ...]):
    """What does not depend on the thread group: the bound address, one-variable
    guards as range limits, the other guards; None if an equality guard couples
    several variables (not handled here)."""
    addr = bound_address(access, dict(params))
    limits: list[tuple[str, int, int]] = []      # (var, lo, hi) half-open limits
    guards, guard_consts = [], []
    for g in addr.guards:
        coeffs = g.expr.coeffs
        d = g.expr.const
        if len(coeffs) == 1:
            (v, c), = coeffs.items()                # c*v + d >= 0  (or == 0)
            if g.equality:
                if d % c:
                    limits.append((v, 0, 0))        # no integer solution: empty
                else:
                    limits.append((v, -d // c, -d // c + 1))
            elif c > 0:
                limits.append((v, -(d // c), np.iinfo(np.int64).max))
            else:
                limits.append((v, np.iinfo(np.int64).min, d // -c + 1))
        elif g.equality:
            return None
        elif coeffs:
            guards.append(tuple(sorted(coeffs.items())))   # hashable: batches key on it
            guard_consts.append(d)
        elif d < 0:
            limits.append(("", 0, 0))               # never true: empty
    return (addr, addr.variables(), tuple(limits), tuple(guards), tuple(guard_consts),
            addr.index.coeffs, addr.index.const, dict(addr.loop_ranges))


def unit_ranges(access: Access, group: ThreadGroup, granularity: int,
                params: Mapping[str, int]) -> np.ndarray | None:
    """Inclusive ``[first, last]`` unit-index ranges of one access over a group,
    shape (runs, 2); None when this method does not apply."""
    prep = _prepared(access, tuple(sorted(params.items())))
    if prep is None:
        return None
    runs = _element_runs(prep, group)
    if runs is None:
        return None
    return _to_units(runs, (prep[6],), access.element_size, access.base_alignment,
                     granularity)


def _consecutive(consts) -> tuple[np.ndarray, np.ndarray]:
    """The distinct index constants as maximal runs of consecutive integers: (firsts,
    lasts)."""
    if len(consts) == 1:
        value = np.asarray(consts, dtype=np.int64)
        return value, value
    values = sorted(set(int(c) for c in consts))
    firsts, lasts = [values[0]], []
    for before, value in zip(values, values[1:]):
        if value != before + 1:
            lasts.append(before)
            firsts.append(value)
    lasts.append(values[-1])
    return np.array(firsts, dtype=np.int64), np.array(lasts, dtype=np.int64)


#: runs fewer than this are left as they are: their later union merges them as cheaply
MERGED_FROM = 256


def _merged(first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Element runs merged where they overlap or follow on (the same elements).  A
    lane's run often overlaps its neighbours' (a window of 16 elements from each
    lane's own first), so a wave of blocks made hundreds of thousands of runs that
    were shifted by every index constant before anything merged them: millions of
    ranges to sort, the most of a roofline ranking of such a space (issue #33)."""
    if len(first) < MERGED_FROM or \
            int((last - first).sum()) + len(first) <= int(last.max() - first.min()) + 1:
        return first, last      # few, or too little in all to overlap much: merged later
    from workbench.models.roofline.reuse import merge_ranges

    merged = merge_ranges(np.stack([first, last], axis=1))
    return merged[:, 0], merged[:, 1]


def _to_units(runs, consts, size: int, base: int, granularity: int) -> np.ndarray:
    """Unit ranges covering the element runs shifted by each index constant in
    ``consts``: the same units as one range per run and constant, fewer ranges (every
    caller takes their union).  The runs are merged first (:func:`_merged`), and a run
    shifted by consecutive constants covers one contiguous span, so each run of
    consecutive constants gives one range per merged run (a 5x5 stencil's 25 loads of
    one array give 5)."""
    first_elem, last_elem = _merged(*runs)
    lows, highs = _consecutive(consts)
    first_byte = base + size * (first_elem.reshape(1, -1) + lows.reshape(-1, 1))
    last_byte = base + size * (last_elem.reshape(1, -1) + highs.reshape(-1, 1)) + size - 1
    g = int(granularity)
    return np.stack([first_byte.ravel() // g, last_byte.ravel() // g], axis=1)


def _element_runs(prep, group: ThreadGroup):
    """First and last element index (before the index constant) of every run."""
    addr, used, limits, guard_list, guard_consts, index_coeffs, index_const, loops = prep
    # a coordinate nothing depends on only repeats the same runs: drop it
    ranges = {v: r for v, r in {**group.ranges(), **loops}.items() if v in used}
    for v, lo, hi in limits:
        if v == "":
            return _EMPTY_RUNS
        a, b = ranges.get(v, (0, 0))
        ranges[v] = (max(a, lo), min(b, hi))
    guards = [dict(g) for g in guard_list]
    guard_consts = list(guard_consts)
    if any(hi <= lo for lo, hi in ranges.values()):
        return _EMPTY_RUNS
    index = dict(index_coeffs)
    _merge_coordinates(index, guards, ranges)
    runs = [v for v in ranges if abs(index.get(v, 0)) == 1]
    if not runs:
        # no coordinate walks memory by one element (a halo column read across
        # lanes): every point is a run of one element, which is enumeration, exact
        # and bounded by MAX_RUNS like any other
        ranges[""], index[""] = (0, 1), 1
        runs = [""]
    run = max(runs, key=lambda v: ranges[v][1] - ranges[v][0])
    others = [v for v in ranges if v != run]
    count = 1
    for v in others:
        count *= ranges[v][1] - ranges[v][0]
    if count > MAX_RUNS:
        return None
    shape = [1] * len(others)
    values = {}
    for axis, v in enumerate(others):
        lo, hi = ranges[v]
        s = list(shape)
        s[axis] = hi - lo
        values[v] = np.arange(lo, hi, dtype=np.int64).reshape(s)
    full = tuple(ranges[v][1] - ranges[v][0] for v in others)

    def partial(coeffs: dict, const: int) -> np.ndarray:
        out = np.full(full, const, dtype=np.int64)
        for v in others:
            c = coeffs.get(v, 0)
            if c:
                out = out + c * values[v]
        return np.broadcast_to(out, full)

    lo = np.full(full, ranges[run][0], dtype=np.int64)
    hi = np.full(full, ranges[run][1] - 1, dtype=np.int64)
    for g, const in zip(guards, guard_consts):
        c = g.get(run, 0)
        rest = partial(g, const)          # guard: c*run + rest >= 0
        if c > 0:
            lo = np.maximum(lo, -np.floor_divide(rest, c))          # ceil(-rest / c)
        elif c < 0:
            hi = np.minimum(hi, np.floor_divide(rest, -c))
        else:
            hi = np.where(rest >= 0, hi, lo - 1)
    keep = hi >= lo
    start = partial(index, 0)[keep]
    lo, hi = lo[keep], hi[keep]
    step = index[run]
    return (start + step * np.where(step > 0, lo, hi),
            start + step * np.where(step > 0, hi, lo))


_EMPTY_RUNS = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))


def union_size(parts: Iterable[np.ndarray]) -> int:
    """Number of integers in the union of inclusive ranges (arrays of shape (k, 2))."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return 0
    r = np.concatenate(parts)
    # starts and ends sorted each on their own, as reuse.merge_ranges does
    first, last = np.sort(r[:, 0]), np.sort(r[:, 1])
    new = np.empty(len(first), dtype=bool)
    new[0] = True
    np.greater(first[1:], last[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:] - 1, len(first) - 1)
    return int((last[ends] - first[starts] + 1).sum())


def footprint_ranges(accesses: Iterable[Access], group: ThreadGroup, granularity: int,
                     params: Mapping[str, int]) -> dict[str, list[np.ndarray]] | None:
    """Per array, the unit ranges of every access; None if any access is not handled.

    Accesses that differ only in the index constant (a stencil's 25 loads of ``u``)
    share their runs: those are computed once and shifted.
    """
    key_params = tuple(sorted(params.items()))
    batches: dict[tuple, list] = {}
    for acc in accesses:
        prep = _prepared(acc, key_params)
        if prep is None:
            return None
        addr, used, limits, guards, guard_consts, coeffs, const, loops = prep
        signature = (acc.array, acc.element_size, acc.base_alignment, used, limits,
                     guards, guard_consts, tuple(sorted(coeffs.items())),
                     tuple(sorted(loops.items())))
        batches.setdefault(signature, [prep, []])[1].append(const)
    out: dict[str, list[np.ndarray]] = {}
    for (array, size, base, *_), (prep, consts) in batches.items():
        runs = _element_runs(prep, group)
        if runs is None:
            return None
        out.setdefault(array, []).append(_to_units(runs, consts, size, base, granularity))
    return out


__all__ = ["unit_ranges", "union_size", "footprint_ranges"]
