"""Device-feature inputs of a factory space fitted per structure, as its counts are
(issue #33).

A device-feature family (:mod:`.fma_pairs`, :mod:`.local_features`,
:mod:`.occupancy_features`, :mod:`.reuse_stack_features`' stack and exp/log calls,
:mod:`.held_rereads`, :mod:`.row_walk_features`, :mod:`.function_calls`,
:mod:`.dependent_loads`) analyses every candidate's kernel: the user's factory builds
it once more and loopy preprocesses it, for every point of a ranked space, where the
counts are built at a few probes per structure.  The numbers those families take from
a kernel are counts too (fused pairs, local wavefronts and barriers, registers and
local bytes of the group): within one structure each is a sum of a few monomials in
the numeric knobs.  :func:`per_structure` fits them as the counts are fitted
(:class:`~workbench.models.structure_fit.StructureFit`: probes, checks at the ranges'
ends, splits, and every point computed where a fit fails), so an unprobed point is
never built for them.  A point whose analysis raises is None, and its structure is
computed point by point (its value stays unknown, as before).

With many counting processes (``WORKBENCH_RANK_JOBS``, at least
:func:`~workbench.models.counting_pool.device_pool_from`: 8), the probes of every
structure are computed on them, as the counts are (:func:`~workbench.models.
counting_pool.count_streaming`: the pool forked ahead where there is one, else one
forked for the call): a structure whose probes are in is fitted at once in this process
and its next points sent, so the points a family computes cost the wall time of the
slowest few, not of all (issue #33: on a host of 16 cores, ``chains38``'s families had
run in the ranking's process alone).  The same function computes the same numbers
there; a ``compute`` that cannot be sent to another process (a closure) is computed
here, as before.

Off with ``WORKBENCH_STRUCTURE_COUNTS=off`` (every point computed: the check of
``benchmarks/structure_counts.py``), and for anything but points of one factory space.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from workbench.kernels.candidate import Candidate, plain_factory_space
from workbench.models.structure_counts import structural_knobs, structure_key
from workbench.models.structure_fit import StructureFit

PointValues = Callable[[Candidate], Mapping[str, float]]


def _safe(compute: PointValues, c: Candidate) -> dict[str, float] | None:
    try:
        return {k: float(v) for k, v in compute(c).items()}
    except Exception:  # noqa: BLE001 - a kernel that cannot be built: no value
        return None


def _point_values(c: Candidate, compute: PointValues):
    """One point computed in a counting process: ``(values or None, None)``."""
    return _safe(compute, c), None


def _given(found, error):
    # a point whose process died (``error``) is unknown, as a point whose analysis raised
    return None if error is not None else found


def _compute_fits(space, fits: dict, own: dict, compute: PointValues) -> dict:
    """Run every structure's fit until done: ``structure -> {point: values or None}``
    of the points computed for it (on the counting processes where there are)."""
    from workbench.models.counting_pool import close_later, count_streaming, pool_for

    found: dict = {skey: {} for skey in fits}
    pool, forked = pool_for(space, compute, sum(len(f.wanted()) for f in fits.values()))
    if pool is not None:
        counted: dict = defaultdict(dict)
        failed: dict = defaultdict(dict)
        try:
            count_streaming(pool, {(space, skey): fit for skey, fit in fits.items()},
                            _point_values, (compute,), counted, failed, _given,
                            # no speculation: each fit is given the points it asks
                            # for, as in this process, and no point is built in vain
                            speculate=False)
        finally:
            if forked:
                close_later(pool)
        members = {p: skey for skey, fit in fits.items() for p in fit.points}
        for p, values in counted[space].items():
            if p in members:
                found[members[p]][p] = None if p in failed[space] else values
        return found
    for skey, fit in fits.items():
        while not fit.done:
            todo = [p for p in fit.wanted() if p not in found[skey]]
            if not todo:
                break
            for p in todo:
                found[skey][p] = _safe(compute, own.get(p) or Candidate.of_point(space, p))
            fit.give(found[skey])
    return found


def per_structure(candidates: Sequence[Candidate], compute: PointValues
                  ) -> list[dict[str, float] | None]:
    """``compute(c)`` of every candidate (None where it raises), fitted per structure
    of their factory space where it can be: ``compute`` runs at the probes only."""
    from workbench.models.candidate_features import _lane_knobs, symbolic_counting

    candidates = list(candidates)
    space = plain_factory_space(candidates) if candidates and symbolic_counting() else None
    if space is None:
        return [_safe(compute, c) for c in candidates]
    structural = structural_knobs(space)
    grouped: dict = defaultdict(list)
    for p in space.points():
        grouped[structure_key(p, structural)].append(p)
    asked: dict = defaultdict(list)
    for c in candidates:
        asked[structure_key(c.point, structural)].append(c.point)
    # the caller's candidates where a probe is one: the user's factory builds a
    # candidate's kernel once (``Candidate.spec``) for every family that reads it
    own = {c.point: c for c in candidates}
    fits: dict = {}
    for skey, want in asked.items():
        points = grouped.get(skey) or want
        fit = StructureFit(points, structural, minima=None,
                           lanes=_lane_knobs(space, points))
        if len(set(want)) <= len(fit.wanted()):
            fit = StructureFit(list(dict.fromkeys(want)), structural, per_point="few")
        fits[skey] = fit
    computed = _compute_fits(space, fits, own, compute)
    done: dict = {}
    for skey, want in asked.items():
        fit, found = fits[skey], computed[skey]
        values = fit.values or {}
        for p in want:
            if p in found and found[p] is None:
                done[p] = None          # its analysis raised: unknown, as per point
            elif values.get(p):
                done[p] = values[p]
            else:
                # a fit that ended without a value here (none should): the point's own
                done[p] = found[p] if p in found else _safe(compute, own[p])
    return [done[c.point] for c in candidates]


def fitted_rows(candidates: Sequence[Candidate], compute: PointValues,
                unknown: Iterable[np.ndarray]) -> Iterator[tuple[int, Candidate, dict]]:
    """:func:`~workbench.models.feature_rows.built_rows` with ``compute`` (a flat map of
    numbers) fitted per structure: ``(row, candidate, values)`` of every candidate with
    values, NaN at the rows of ``unknown`` of the others."""
    candidates = list(candidates)
    unknown = tuple(unknown)
    for i, (c, found) in enumerate(zip(candidates, per_structure(candidates, compute))):
        if found is None:
            for values in unknown:
                values[i] = np.nan
            continue
        yield i, c, found
