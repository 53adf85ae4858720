"""Count features of candidates, for every count-based family alike.

A family names the features it reads (:class:`~workbench.models.expressions.features`
references); this module computes them from what each candidate carries:

* a point of a tuning space with templates: the space's template of the point's
  *structure* is counted once, symbolically in the point's numbers (its group shape
  included, at sub-group granularity too), and the counts are evaluated for every
  point of that structure at once (AFR constraints need footprints, which ISL cannot
  count from a template's products of numbers, so one built point's footprint per
  structure stands for all);
* a point of a space written as a ``kernel(point)`` factory: its structure is
  counted at a few built points and every feature fitted as a sum of monomials in the
  numeric knobs, checked at a further point (:mod:`workbench.models.structure_counts`);
  a structure whose fit does not check out has every point built and counted;
* any other candidate (a catalog kernel, a user's kernel): its kernel's properties
  (:func:`~workbench.properties.kernel_properties`), once per build, evaluated for
  all of that build's size parameters at once.

A candidate whose kernel cannot be counted gets NaN features and an error string;
the others are unaffected.

A built factory point costs tens of milliseconds to count: the points a structure
needs are counted on every core (forked workers, ``WORKBENCH_RANK_JOBS`` sets how
many; 1 counts in this process), and every point's features are remembered per space
in memory and on disk (:mod:`workbench.models.count_cache`), so a second ranking of
the same space, in this session or the next, counts nothing.  Each counted point
carries every count the model and the physical floors read (one pass, not one per
caller).  With several processes the points are counted as results come
(:func:`~workbench.models.counting_pool.count_streaming`): a structure is fitted as
soon as its probes are in and its next points sent at once, and with many processes
idle workers count each structure's likeliest next points, so that no structure waits
for a round of others.  The pool is forked once per call, or ahead and warmed up
(:func:`fork_counting_pool` with :func:`warm_up`: ``workbench tune`` forks it before
it opens the device; a ranking in a thread beside measurements needs one forked
ahead).
:func:`counting_report` says how each structure was counted.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import threading
import weakref
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from workbench.errors import BarvinokMissingError, ModelError, WorkbenchError
from workbench.kernels.candidate import Candidate
from workbench.models import count_cache
from workbench.models.counting_pool import (  # noqa: F401 - CountingPool re-exported
    LOST,
    PARALLEL_FROM,
    CountingPool,
    active_pool,
    close_later,
    count_all,
    count_streaming,
    fork_counting_pool,
    rank_jobs,
)
from workbench.models.expressions.feature_values import build_feature_values
from workbench.models.global_bytes import global_array_bytes
from workbench.models.expressions.features import (
    AccessFilter,
    FeatureRef,
    StandardFeature,
)
from workbench.models.structure_counts import (
    CountMethod,
    StructureCount,
    structural_knobs,
    structure_key,
)
from workbench.models.point_counts import (  # noqa: F401 - constants re-exported
    ALL_COUNTS,
    ARRAY_BYTES,
    BARRIERS_COUNTED,
    FOOTPRINT_BYTES,
    GLOBAL_ACCESS_DTYPES,
    cache_key,
    count_candidate,
    footprint_or_nan,
    split_footprint,
    warm_up,
)
from workbench.models.structure_fit import StructureFit
from workbench.models.structure_share import share_structures
from workbench.properties import Granularity, extract_properties, kernel_properties
from workbench.properties.features import LocalBarriers

def _refuse_sequences(candidates: Sequence[Candidate]) -> None:
    for c in candidates:
        if c.space is not None and getattr(c.space, "sequence", None) is not None:
            raise ModelError(
                f"a point of {c.space.name} is a sequence of launches, and this model "
                "predicts one kernel: rank time-tiled spaces with the tiling model "
                "(--model tiling)")


@functools.lru_cache(maxsize=128)
def _template_workitem_properties(space, structure: tuple, with_footprints: bool):
    """Work-item properties of a space's template, symbolic in every number."""
    template = space.template_for(structure)
    workitem = extract_properties(template.kernel)
    if with_footprints:
        example = next(p for p in space.points() if space.structure_of(p) == structure)
        concrete = extract_properties(space.build(example))
        for array in workitem.access_model.arrays:
            workitem.assume_footprint(concrete.footprint(array))
    return workitem


@functools.lru_cache(maxsize=128)
def _template_subgroup_properties(space, structure: tuple, subgroup_size: int):
    """Sub-group properties of a template, symbolic in the group shape too (the
    sub-groups per group are an expression of it: :mod:`workbench.properties.counting`)."""
    return extract_properties(space.template_for(structure).kernel,
                              granularity=Granularity.SUBGROUP, subgroup_size=subgroup_size)


def _template_values(space, idx: list[int], candidates, refs, granularity, subgroup_size,
                     needs_afr: bool, out: dict, errors: list) -> None:
    refs, footprint = split_footprint(refs)
    refs, model_footprint = _split_template_footprint(refs)
    by_structure: dict[tuple, list[int]] = defaultdict(list)
    for i in idx:
        by_structure[space.structure_of(candidates[i].point)].append(i)
    for structure, members in by_structure.items():
        try:
            workitem = _template_workitem_properties(space, structure, needs_afr)
            props = workitem
            if granularity is Granularity.SUBGROUP:
                props = _template_subgroup_properties(space, structure, subgroup_size)
            bound = [space.bindings(candidates[i].point) for i in members]
            names = set(props.parameters) | set(workitem.parameters)
            params = {s: np.array([b[s] for b in bound]) for s in names}
            values = build_feature_values(props, refs, params, workitem_props=workitem)
            for name in footprint:
                values[name] = np.full(len(members), _structure_bytes(space, structure)[name])
            for name in model_footprint:
                touched = _structure_bytes(space, structure)[FOOTPRINT_BYTES]
                values[name] = np.full(len(members), touched if np.isfinite(touched) else 0.0)
        except BarvinokMissingError:
            raise                 # no candidate can be counted here: say so once
        except (WorkbenchError, ValueError, KeyError, StopIteration) as err:
            for i in members:
                errors[i] = f"{type(err).__name__}: {err}"
            continue
        for name, v in values.items():
            out[name][members] = v


class FootprintRef:
    """Asks for :data:`FOOTPRINT_BYTES` beside the count features."""

    name = FOOTPRINT_BYTES


class ArrayBytesRef:
    """Asks for :data:`ARRAY_BYTES` beside the count features."""

    name = ARRAY_BYTES


def _split_template_footprint(refs):
    """A template's footprint cannot be counted (products of numbers): the model's
    ``f_footprint_bytes`` comes from one built point per structure, as the floors'."""
    from workbench.models.expressions.features import FootprintFeature

    kept = [r for r in refs if not isinstance(r, FootprintFeature)]
    return kept, [r.name for r in refs if isinstance(r, FootprintFeature)]


def _kernel_values(members: list[int], candidates, refs, granularity, subgroup_size,
                   needs_afr: bool, out: dict, errors: list) -> None:
    first = candidates[members[0]]
    refs, footprint = split_footprint(refs)
    try:
        common = dict(variant=first.variant, dtype=first.dtype, group_size=first.group_size)
        if first.space is not None:
            common = dict(variant="default", dtype=first.dtype,
                          group_size=first.spec.fixed_group_size)
        spec = first.spec
        props = kernel_properties(spec, granularity=granularity,
                                  subgroup_size=subgroup_size, **common)
        workitem = props
        if needs_afr and granularity is not Granularity.WORKITEM:
            workitem = kernel_properties(spec, granularity=Granularity.WORKITEM, **common)
        given = [candidates[i].params_dict for i in members]
        names = sorted(set(props.parameters).union(*given))
        missing = [p for p in props.parameters if any(p not in g for g in given)]
        if missing:
            raise ModelError(f"kernel {spec.name!r} needs value(s) for {', '.join(missing)}")
        params = {p: np.array([g[p] for g in given]) for p in names
                  if all(p in g for g in given)}
        values = build_feature_values(props, refs, params, workitem_props=workitem)
        if FOOTPRINT_BYTES in footprint:
            if workitem.granularity is not Granularity.WORKITEM:
                workitem = kernel_properties(spec, **common)
            values[FOOTPRINT_BYTES] = np.array(
                [footprint_or_nan(workitem, candidates[i].params_dict) for i in members])
        if ARRAY_BYTES in footprint:
            program = spec.build(spec.request(**common))
            values[ARRAY_BYTES] = np.array(
                [global_array_bytes(program, candidates[i].params_dict) for i in members])
    except BarvinokMissingError:
        raise
    except (WorkbenchError, ValueError, KeyError) as err:
        for i in members:
            errors[i] = f"{type(err).__name__}: {err}"
        return
    for name, v in values.items():
        out[name][members] = v


@functools.lru_cache(maxsize=128)
def _structure_bytes(space, structure: tuple) -> dict[str, float]:
    """A templated space's footprint and array bytes per structure (its points share
    the problem)."""
    point = next(p for p in space.points() if space.structure_of(p) == structure)
    program = space.build(point)
    return {FOOTPRINT_BYTES: footprint_or_nan(extract_properties(program),
                                               dict(space.problem)),
            ARRAY_BYTES: global_array_bytes(program, dict(space.problem))}


#: features of factory-space points already counted: space -> {(label, granularity,
#: sub-group size): {feature name: value}}, and {label: error} under key None
_POINT_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: how each factory space's structures were last counted: space -> {structure: record}
_REPORTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: from this many counting processes, a structure's fit counts two neighbours per knob
#: in its first round, and idle workers count its likeliest next points (at no wall
#: time)
_SPECULATE_FROM = 8


_BARRIERS = LocalBarriers().name


def _lookup(c, refs, key) -> list | None:
    """A point's asked features from the memory cache, None if any is missing; an
    error string if the point could not be counted.  (Asked of every point of a
    ranking for every feature, after the counting: kept to plain dict lookups.)"""
    per_space = _POINT_CACHE.get(c.space)
    if per_space is None:
        return None
    error = per_space.get(None, {}).get(c.variant)
    if error is not None:
        return error
    wi = per_space.get((c.variant, Granularity.WORKITEM, None), {})
    values = wi if key == (Granularity.WORKITEM, None) else \
        per_space.get((c.variant, *key), {})
    # a work-item count not listed is zero where the point holds every one (but the
    # barriers of a point counted without them)
    zero_if_unlisted = values is wi and bool(wi.get(ALL_COUNTS))
    no_barriers = wi.get(BARRIERS_COUNTED, 1.0) < 0.5      # 0 or 1, fitted or counted
    found = []
    for r in refs:
        v = values.get(r.name)
        if v is None:
            v = wi.get(r.name)
        if v is None:
            if not (zero_if_unlisted and isinstance(r, StandardFeature)) or (
                    no_barriers and r.name == _BARRIERS):
                return None
            v = 0.0
        found.append(v)
    return found


def _remember(space, label: str, found: Mapping[tuple, Mapping[str, float]],
              error: str | None = None) -> None:
    per_space = _POINT_CACHE.setdefault(space, {})
    for k, values in found.items():
        per_space.setdefault((label, *k), {}).update(values)
    if error is not None:
        per_space.setdefault(None, {})[label] = error


def _count_all(tasks: list[Candidate], refs, granularity, subgroup_size) -> list:
    """Build and count candidates on every core: (found, error) per task, in order."""
    return count_all(tasks, count_candidate, refs, granularity, subgroup_size)


def _load_disk(spaces, fingerprints: dict) -> None:
    flush_saves()
    for space in spaces:
        fingerprint = count_cache.space_fingerprint(space)
        fingerprints[space] = fingerprint
        if fingerprint is None:
            continue
        stored, errors = count_cache.load(fingerprint)
        if not stored and not errors:
            continue
        for point in space.points():
            key = count_cache.point_key(point, space.group_size(point))
            if key in stored:
                _remember(space, point.label, {count_cache.grain_key(g): v
                                               for g, v in stored[key].items()})
            if key in errors:
                _remember(space, point.label, {}, errors[key])


def _save_disk(space, fingerprint, counted: dict, errors: dict) -> None:
    if fingerprint is None:
        return
    # a point whose counting process died is not known to be uncountable: a later
    # session counts it again
    lost = {p for p, e in errors.items() if e == LOST}
    errors = {p: e for p, e in errors.items() if p not in lost}
    by_key = {}
    for point, found in counted.items():
        if point in lost:
            continue
        by_key[count_cache.point_key(point, space.group_size(point))] = \
            {count_cache.grain_name(k): dict(v) for k, v in found.items()}
    # written in a thread: the ranking does not wait for sqlite (a later load does)
    path = count_cache.cache_path()
    if path is None:
        return
    saving = threading.Thread(target=count_cache.save, args=(
        fingerprint, by_key, {count_cache.point_key(p, space.group_size(p)): e
                              for p, e in errors.items()}, path))
    saving.start()
    _SAVING.append(saving)


#: writes of counts to the disk cache under way (:func:`_save_disk`)
_SAVING: list = []


def flush_saves() -> None:
    """Wait until every count this process has is written to the disk cache."""
    while _SAVING:
        _SAVING.pop().join()


def _factory_values(idx: list[int], candidates, refs, granularity, subgroup_size,
                    needs_afr: bool, out: dict, errors: list) -> None:
    """Points of factory spaces: from the memory or disk cache, else counted once per
    structure (:mod:`workbench.models.structure_counts`) or, where a structure's fit
    does not check out, point by point; every count on every core."""
    key = cache_key(granularity, subgroup_size)

    def fill(i) -> bool:
        found = _lookup(candidates[i], refs, key)
        if found is None:
            return False
        if isinstance(found, str):
            errors[i] = found
            return True
        for r, v in zip(refs, found):
            out[r.name][i] = v
        return True

    todo = [i for i in idx if not fill(i)]
    if not todo:
        return
    spaces = list(dict.fromkeys(candidates[i].space for i in todo))
    fingerprints: dict = {}
    _load_disk(spaces, fingerprints)
    from_disk = {candidates[i].space for i in todo if _lookup(
        candidates[i], refs, key) is not None}
    todo = [i for i in todo if not fill(i)]
    for space in from_disk:
        _report_cached(space, [candidates[i].point for i in idx
                               if candidates[i].space is space])
    if not todo:
        return
    fits = _fits(todo, candidates)
    counted: dict = defaultdict(dict)          # space -> {point: found}
    failed: dict = defaultdict(dict)           # space -> {point: error}
    _count_fits(fits, counted, failed, (refs, granularity, subgroup_size))
    for (space, _), fit in fits.items():
        if fit.done and fit.method is not CountMethod.PER_POINT:
            for p, values in fit.values.items():
                if p not in failed[space]:
                    counted[space][p] = count_cache.nested_counts(values)
        for skey, n, n_counted, method, reason in fit.report():
            _record(space, skey, n, n_counted, method, reason)
    for space in counted:
        for p, found in counted[space].items():
            _remember(space, p.label, found, failed[space].get(p))
        _save_disk(space, fingerprints.get(space), counted[space], failed[space])
    for i in todo:
        if not fill(i):
            for r in refs:
                out[r.name][i] = np.nan


def _given(found, error):
    return None if error is not None else count_cache.flat_counts(found)


def _given_map(counted: Mapping, failed: Mapping) -> dict:
    """Counted points as a fit takes them: flat counts, or None where counting failed."""
    return {p: (None if p in failed else count_cache.flat_counts(found))
            for p, found in counted.items()}


def _count_fits(fits: dict, counted: dict, failed: dict, args: tuple) -> None:
    """Count what the structures' fits want until each is done: as results come on a
    pool of counting processes (:func:`count_streaming`: one forked ahead and warmed,
    else one forked now, for this call; never a fork per round), or in rounds in this
    process with one counting process or a few points."""
    jobs = rank_jobs()
    wanted = sum(len(fit.wanted()) for fit in fits.values())
    spaces = list(dict.fromkeys(space for space, _ in fits))
    pool, own = active_pool(spaces), False
    if pool is None and jobs > 1 and wanted >= PARALLEL_FROM:
        pool, own = CountingPool(spaces, jobs, ahead=False), True
    if pool is not None:
        try:
            count_streaming(pool, fits, count_candidate, args, counted, failed, _given,
                            speculate=pool.jobs >= _SPECULATE_FROM)
        finally:
            if own:
                close_later(pool)
        return
    refs, granularity, subgroup_size = args
    # each counted point's counts as a fit takes them, flattened once: every round gives
    # every fit all of its space's points, and flattening them all again per fit and
    # round cost 5 % of a ranking of many structures (blind9_xform4: 11 fits, 56 probes)
    given: dict = defaultdict(dict)
    for space in list(counted):
        given[space].update(_given_map(counted[space], failed[space]))
    while True:
        owners = list(dict.fromkeys((space, p) for (space, _), fit in fits.items()
                                    for p in fit.wanted() if p not in counted[space]
                                    and p not in failed[space]))
        if owners:
            tasks = [Candidate.of_point(space, p) for space, p in owners]
            for (space, p), (found, error) in zip(
                    owners, _count_all(tasks, refs, granularity, subgroup_size)):
                counted[space][p] = found
                if error is not None:
                    failed[space][p] = error
                given[space].update(_given_map({p: found}, failed[space]))
        for (space, _), fit in fits.items():
            fit.give(given[space])
        if all(fit.done for fit in fits.values()) or not owners:
            break


#: a load/store pairing feature of the fit (``grain|f_mem_access_global_<dtype>_minls_
#: <class>``): :class:`~workbench.properties.GlobalMinLoadStore`, min(loads, stores) of
#: one class, whose parts are that class's loads and stores
_MIN_LOAD_STORE = re.compile(r"^(?P<head>[^|]*\|f_mem_access_global_[a-z0-9]+)_minls_"
                             r"(?P<cls>[a-z0-9]+)$")


def _load_store_parts(name: str) -> tuple[str, str] | None:
    """The loads and stores whose minimum a fitted feature is (None for any other):
    the fit takes the pairing as their minimum rather than as a sum of monomials,
    which it is not where loads and stores cross (:mod:`structure_counts`)."""
    m = _MIN_LOAD_STORE.match(name)
    if m is None:
        return None
    return (f"{m['head']}_load_{m['cls']}", f"{m['head']}_store_{m['cls']}")


def _fits(todo, candidates) -> dict:
    """Per (space, structure) of the points to count, its :class:`StructureFit` over
    every point of that structure in the space (or over the points asked for only,
    counted one by one, where they are no more than a fit would count)."""
    members: dict = defaultdict(list)
    for i in todo:
        c = candidates[i]
        members[c.space, structure_key(c.point, structural_knobs(c.space))].append(c.point)
    fits = {}
    all_points: dict = {}
    for (space, skey), asked in members.items():
        structural = structural_knobs(space)
        if space not in all_points:
            grouped = defaultdict(list)
            for p in space.points():
                grouped[structure_key(p, structural)].append(p)
            all_points[space] = grouped
        points = all_points[space].get(skey) or asked
        fit = StructureFit(points, structural, speculate=rank_jobs() >= _SPECULATE_FROM,
                           minima=_load_store_parts, lanes=_lane_knobs(space, points))
        if not symbolic_counting():
            fit = StructureFit(asked, structural, per_point=
                               "per-structure counting is off (WORKBENCH_STRUCTURE_COUNTS=off)")
        elif len(asked) <= len(fit.wanted()):
            fit = StructureFit(asked, structural, per_point=
                               f"{len(asked)} point(s) asked for, no more than a fit counts")
        fits[space, skey] = fit
    for space in all_points:
        share_structures(fits, space)
    return fits


def _lane_knobs(space, points) -> tuple[str, ...]:
    """The knobs that are the group's extent along ``lid(0)`` at every one of
    ``points`` (``bx`` of a ``(bx, by)`` group): where one straddles the sub-group
    width, a structure whose fit fails is split at it first (:class:`StructureFit`)."""
    try:
        extents = [space.group_size(p)[0] for p in points]
    except Exception:  # noqa: BLE001 - a user's group-size function: no lane knob
        return ()
    return tuple(k for k, _ in points[0].items
                 if all(p[k] == e for p, e in zip(points, extents)))


def _record(space, skey, points: int, counted: int, method: CountMethod,
            reason: str = "") -> None:
    """A later count of fewer of a structure's points (a floor's footprint, asked of the
    candidates it could bind) adds its builds to the ranking's record, not replaces it."""
    reports, earlier = _REPORTS.setdefault(space, {}), _REPORTS.get(space, {}).get(skey)
    reports[skey] = (dataclasses.replace(earlier, counted=earlier.counted + counted)
                     if earlier is not None and earlier.points > points else
                     StructureCount(space.name, skey, points, counted, method, reason))


def _report_cached(space, points) -> None:
    structural = structural_knobs(space)
    sizes: dict = defaultdict(int)
    for p in points:
        sizes[structure_key(p, structural)] += 1
    for skey, n in sizes.items():
        _record(space, skey, n, 0, CountMethod.CACHED)


def symbolic_counting() -> bool:
    """Whether factory spaces are counted per structure (``WORKBENCH_STRUCTURE_COUNTS``
    ``off`` counts every point, as a check of the fits)."""
    return os.environ.get("WORKBENCH_STRUCTURE_COUNTS", "").strip().lower() not in (
        "off", "0", "no", "false")


def forget_counts(space) -> None:
    """Drop what this process remembers of a space's counts (not the disk cache)."""
    _POINT_CACHE.pop(space, None)
    _REPORTS.pop(space, None)


def remembered_counts(space) -> dict[tuple[str, str], dict[str, float]]:
    """What this process holds of a space's counts: (point label, grain) -> values."""
    return {(k[0], count_cache.grain_name(k[1:])): dict(v)
            for k, v in _POINT_CACHE.get(space, {}).items()
            if k is not None}


def counting_report(space) -> tuple[StructureCount, ...]:
    """How the structures of a factory space were last counted (empty for a templated
    space, or one not ranked yet)."""
    return tuple(_REPORTS.get(space, {}).values())


def candidate_feature_values(candidates: Sequence[Candidate], refs: Sequence[FeatureRef], *,
                             granularity: Granularity | str = Granularity.WORKITEM,
                             subgroup_size: int | None = None
                             ) -> tuple[dict[str, np.ndarray], list[str | None]]:
    """The count features ``refs`` of every candidate, and an error per candidate that
    could not be counted (its features are NaN)."""
    granularity = Granularity(granularity)
    candidates = list(candidates)
    _refuse_sequences(candidates)
    n = len(candidates)
    out = {r.name: np.full(n, np.nan) for r in refs}
    errors: list[str | None] = [None] * n
    needs_afr = any(isinstance(r, AccessFilter) and getattr(r, "afr", None) is not None
                    for r in refs)
    templated: dict[object, list[int]] = defaultdict(list)
    factory_points: list[int] = []
    builds: dict[tuple, list[int]] = defaultdict(list)
    for i, c in enumerate(candidates):
        if c.space is not None and getattr(c.space, "template", None) is not None:
            templated[c.space].append(i)
        elif c.space is not None:
            factory_points.append(i)
        else:
            builds[(c.kernel, c.variant, c.dtype, tuple(c.group_size))].append(i)
    for space, idx in templated.items():
        _template_values(space, idx, candidates, refs, granularity, subgroup_size,
                         needs_afr, out, errors)
    if factory_points:
        _factory_values(factory_points, candidates, refs, granularity, subgroup_size,
                        needs_afr, out, errors)
    for members in builds.values():
        _kernel_values(members, candidates, refs, granularity, subgroup_size, needs_afr,
                       out, errors)
    return out, errors
