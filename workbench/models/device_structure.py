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
    done: dict = {}
    for skey, want in asked.items():
        points = grouped.get(skey) or want
        fit = StructureFit(points, structural, minima=None,
                           lanes=_lane_knobs(space, points))
        if len(set(want)) <= len(fit.wanted()):
            fit = StructureFit(list(dict.fromkeys(want)), structural, per_point="few")
        found: dict = {}
        while not fit.done:
            todo = [p for p in fit.wanted() if p not in found]
            if not todo:
                break
            for p in todo:
                found[p] = _safe(compute, own.get(p) or Candidate.of_point(space, p))
            fit.give(found)
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
