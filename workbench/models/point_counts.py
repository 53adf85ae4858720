"""Counting one point of a ``kernel(point)`` factory space: built once, every count the
model and the physical floors read (the work-item counts, the sums over strides, array
and footprint bytes) and the features asked for at another granularity.  Run in the
counting processes of :mod:`workbench.models.counting_pool` (and their
:func:`warm_up`), and by :mod:`workbench.models.candidate_features`, which fits and
caches what it returns."""

from __future__ import annotations

import numpy as np
from loopy.diagnostic import LoopyError

from workbench.errors import BarvinokMissingError, WorkbenchError
from workbench.models.expressions.feature_values import build_feature_values
from workbench.models.factory_memo import memoized_make_kernel
from workbench.models.global_bytes import global_array_bytes, global_footprint_bytes
from workbench.properties import Granularity, extract_properties

#: pseudo-features the physical floors read: the distinct global bytes a kernel
#: touches (its footprint, an ISL count), and its global arrays' whole sizes (cheap, an
#: upper bound of the footprint)
FOOTPRINT_BYTES = "footprint_bytes"
ARRAY_BYTES = "array_bytes"

#: the data types whose global loads and stores (summed over strides) every counted
#: point carries
GLOBAL_ACCESS_DTYPES = ("float32", "float64", "int32")

#: marks a cache entry that holds every work-item count of its point
ALL_COUNTS = "__all_counts__"
#: 1 where a counted point's local barriers were counted, 0 where they were not (the
#: model asked for no barrier feature: no linearization); a count not listed is then
#: zero for every feature but ``f_sync_barrier_local``, which is unknown
BARRIERS_COUNTED = "__barriers_counted__"


def split_footprint(refs):
    counted = [r for r in refs if r.name not in (FOOTPRINT_BYTES, ARRAY_BYTES)]
    return counted, {r.name for r in refs} & {FOOTPRINT_BYTES, ARRAY_BYTES}


def footprint_or_nan(props, params) -> float:
    try:
        return global_footprint_bytes(props, params)
    except Exception:  # noqa: BLE001 - isl errors of non-affine indices: unknown
        return float("nan")


def cache_key(granularity, subgroup_size):
    return (granularity, subgroup_size if granularity is Granularity.SUBGROUP else None)


def all_standard_refs(props):
    from workbench.models.expressions.features import StandardFeature, parse_feature_ref

    # the sums over strides that the floors read (one count each, not listed among the
    # counts): without them here, the floors' call after the model's counts every
    # point a second time
    sums = [parse_feature_ref(f"f_mem_access_global_{d}_{k}")
            for d in GLOBAL_ACCESS_DTYPES for k in ("load", "store")]
    return [StandardFeature(f.name, f) for f in props.counts] + sums


def reads_barriers(refs) -> bool:
    """Whether any of ``refs`` (features asked for) may read the local barriers: the
    barrier count itself, or any feature that is not a plain count (an expression or
    filter, whose parts are not listed here)."""
    from workbench.models.expressions.features import StandardFeature
    from workbench.properties.features import LocalBarriers

    counted, _ = split_footprint(refs)
    return any(not isinstance(r, StandardFeature) or isinstance(r.feature, LocalBarriers)
               for r in counted)


#: What a user's factory point may raise that makes the point fail, not the ranking:
#: the workbench's own refusals, bad values, and loopy refusing a transformation it
#: does not support (``lp.add_prefetch`` on an uneven split raises NotImplementedError).
USER_BUILD_ERRORS = (WorkbenchError, ValueError, KeyError, LoopyError, NotImplementedError)


def count_candidate(c, refs, granularity, subgroup_size):
    """One factory point, built and counted once: the features asked for, and at work-
    item granularity every count, the array bytes and the footprint (what the floors
    and other models read later)."""
    try:
        # the point's kernel as built, not wrapped in a KernelSpec (whose work-group
        # size is read from the raw kernel, a few ms): the properties have it; the
        # user's make_kernel call, the same at every probe, made once
        with memoized_make_kernel(c.space):
            program = c.space.build(c.point)
    except BarvinokMissingError:
        raise
    except USER_BUILD_ERRORS as err:
        return {}, f"{type(err).__name__}: {err}"
    return count_program(program, c.params_dict, refs, granularity, subgroup_size)


def count_program(program, params_dict, refs, granularity, subgroup_size,
                  barriers: bool | None = None):
    """A built program's counts (:func:`count_candidate`), and an error string or None.
    ``barriers``: whether to count the local barriers (default: where ``refs`` may read
    them, :func:`reads_barriers`)."""
    found: dict[tuple, dict[str, float]] = {}
    if barriers is None:
        barriers = reads_barriers(refs)
    try:
        workitem = extract_properties(program, barriers=barriers)
        if not workitem.group_size:
            from workbench.kernels.user import spec_from_loopy
            spec_from_loopy(program)   # refuses a work-group size that is not constant
        params = {k: np.array([v]) for k, v in params_dict.items()}
        wi_values = build_feature_values(workitem, all_standard_refs(workitem), params)
        wi = {k: float(v[0]) for k, v in wi_values.items()}
        wi[ALL_COUNTS] = 1.0          # a count not listed is zero
        wi[BARRIERS_COUNTED] = 1.0 if barriers else 0.0   # ... but the barriers, if 0
        wi[ARRAY_BYTES] = global_array_bytes(program, params_dict)
        # the floors ask for it after the model's features, for the points a DRAM or
        # serial bound may bind: counted now, as one more number of the fit, it spares
        # a second building of those points
        wi[FOOTPRINT_BYTES] = footprint_or_nan(workitem, params_dict)
        found[(Granularity.WORKITEM, None)] = wi
        # another granularity counts the program already prepared, and its barriers
        props = workitem if granularity is Granularity.WORKITEM else extract_properties(
            program, granularity=granularity, subgroup_size=subgroup_size,
            workitem=workitem)
        asked, _ = split_footprint(refs)
        values = build_feature_values(props, asked, params, workitem_props=workitem)
        key = cache_key(granularity, subgroup_size)
        found.setdefault(key, {}).update({k: float(v[0]) for k, v in values.items()})
        return found, None
    except BarvinokMissingError:
        raise
    except USER_BUILD_ERRORS as err:
        return found, f"{type(err).__name__}: {err}"


def warm_up() -> None:
    """Build and count a small tiled, prefetching matrix product as a factory point is
    counted: run by a counting process before any ranking, so that the first use of
    loopy's transformations, counters and ISL (a few tens of ms a process) is paid
    there and not by a ranking's first points."""
    import loopy as lp

    knl = lp.make_kernel("{[i, j, k]: 0 <= i, j, k < 64}",
                         "c[i, j] = sum(k, a[i, k] * b[k, j])",
                         [lp.GlobalArg("a, b", np.float32, shape=(64, 64)),
                          lp.GlobalArg("c", np.float32, shape=(64, 64), is_output=True)],
                         name="warm_up", lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 8, outer_tag="g.1")
    knl = lp.split_iname(knl, "i_inner", 4, outer_tag="ilp", inner_tag="l.1")
    knl = lp.split_iname(knl, "j", 16, outer_tag="g.0", inner_tag="l.0")
    knl = lp.split_iname(knl, "k", 16)
    knl = lp.add_prefetch(knl, "a", ["i_inner_outer", "i_inner_inner", "k_inner"],
                          fetch_outer_inames="i_outer, j_outer, k_outer",
                          default_tag="l.auto")
    try:
        count_program(knl, {}, [], Granularity.WORKITEM, None, barriers=True)
    except BarvinokMissingError:
        pass      # said once by the ranking itself
