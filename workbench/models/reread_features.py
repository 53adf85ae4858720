"""A work item's second pass over data beyond L2, as features of the expression language
(issue #34, round 8).

``f_dram_reread_float32_sectors`` and ``f_dram_reread_float64_sectors`` (device
features, 32-byte sectors of the whole launch; 4-byte integers go with float32): the
DRAM sectors of a work item's re-reads of global data it read in an earlier loop.  An
RMS normalisation reads its row once for the sum of squares and again for the scaled
copy; the sector features count the array's distinct sectors once (its access-to-
footprint ratio is 2, and the DRAM price of such accesses fitted to zero on a catalog
whose repeated reads are its neighbours', served by L1 and L2).  Whether the second
read finds the data in L2 depends on what the device read in between: every resident
work item's first pass.  The feature is

    re-read accesses x element bytes / 32 x miss(distance / L2 bytes),

with ``distance`` = resident work items (compute units x groups per SM x group size,
at most the launch) x the bytes one work item's first pass reads of the array, and
``miss`` the device description's L2 reuse miss function (Ernst et al., fitted to
Nsight Compute volumes of the block-size study: 0 below about 0.3 of L2, 0.86 from
0.8 of it on).  A re-read is a load of the same element in a loop that does not enclose
the first one: the same index once the later loop's inames are renamed to the
earlier's.  Two loads in one loop (``x[k]*x[k]``, or a maximum and a minimum over the
same row) are one read.  0 for every catalog kernel; a model prices the sectors at
its DRAM load price (``p_ldd*f_dram_reread_float32_sectors``), which the catalog fits.

``f_dram_stream_s`` (a device feature, in seconds): the time the bytes that must cross
the DRAM interface take at the bandwidth measured on the device (its shipped
``bandwidth.json``, as ``workbench explain`` reads it, or the package's copy of it; 3,015
GB/s on the H100, a loopy copy of four elements a work item): the footprint beyond what L2 can
keep between timed runs (``footprint - L2 bytes``, as the physical DRAM floor counts
it) plus the re-reads above, in bytes.  Not fitted: a model takes the larger (smooth
maximum) of its sum and this time, as it does with the substitution chain.  A
kernel streaming data beyond L2 is bound by DRAM, which a sum of per-sector prices
fitted on a catalog whose data mostly stay in L2 prices at L2's rate.  0 where the
footprint fits in L2 and nothing is re-read, and where the footprint cannot be
counted.  ``f_dram_peak_stream_s`` is the same bytes at the DRAM peak of the device
description's floors (3,352 GB/s on the H100): the catalog's own DRAM
microbenchmarks (``global_access``, ``vector_scale_add`` in float64) run up to 9%
faster than the measured copy's 3,015 GB/s allows, so only the peak keeps the time
below every catalog measurement (at most 0.98 of it).  ``f_dram_inflight_s`` (round 18) is
``f_dram_stream_s`` at the share of that bandwidth a stream with the launch's bytes a work
item in flight reaches (:mod:`workbench.models.inflight`: one float32 value in and one out a
work item reaches 0.785 of it in 1-D groups, 0.716 in 2-D groups).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import cache_context, provide_device_features
from workbench.models.expressions.features import REREAD_FEATURES
from workbench.models.feature_rows import built_rows
from workbench.properties.symbolic import count_at

_SECTOR = 32
#: the most neighbour loads a work item of round 15's stencils makes (the 9-point one): a
#: loop of at most as many steps is a stencil's neighbours, not a window walked (round 19)
STENCIL_POINTS = 9
_ITEM_BYTES = {"float32": 4, "float64": 8, "int32": 4}




def _global_loads(knl):
    """(instruction order, array, index, sequential inames, all inames) of every global
    load subscript, reductions' inames included."""
    import loopy as lp

    from workbench.models.parallelism import sequential_inames
    from workbench.models.private_stack import walk_expression

    arrays = {a.name: a for a in knl.args if isinstance(a, lp.ArrayArg)}
    sequential = sequential_inames(knl)
    out = []
    for order, insn in enumerate(knl.instructions):
        expr = getattr(insn, "expression", None)
        if expr is None:
            continue
        found = []

        def on_sub(sub, red, found=found):
            name = getattr(sub.aggregate, "name", None)
            if name in arrays:
                index = sub.index if isinstance(sub.index, tuple) else (sub.index,)
                found.append((name, index, frozenset(red)))
        walk_expression(expr, lambda *_: None, on_sub)
        for name, index, red in dict.fromkeys(found):
            inames = frozenset(insn.within_inames) | red
            out.append((order, name, index, inames & sequential, inames))
    return out, arrays


def _same_element(first, later) -> bool:
    """Whether ``later`` reads ``first``'s elements in a loop of its own: equal indices
    once some pairing renames the later loop's inames to the earlier's."""
    from pymbolic import var
    from pymbolic.mapper.substitutor import substitute

    _, array, index, seq, _ = first
    _, array2, index2, seq2, _ = later
    if array != array2 or not seq or seq & seq2 or len(seq) != len(seq2):
        return False
    for pairing in itertools.permutations(sorted(seq)):
        renamed = tuple(substitute(i, {a: var(b) for a, b in zip(sorted(seq2), pairing)})
                        for i in index2)
        if renamed == tuple(index):
            return True
    return False


@functools.lru_cache(maxsize=512)
def _rereads(spec, request):
    """Per re-read: (re-read accesses, first pass's accesses, work items of the first
    pass's instruction, element bytes), polynomials of the size parameters at
    work-item granularity; empty where no load re-reads an earlier loop's data."""
    from loopy.statistics import count_inames_domain

    from workbench.kernels.base import entry_kernel
    from workbench.models.private_stack import item_size

    knl = entry_kernel(spec.build(request))
    loads, arrays = _global_loads(knl)
    out = []
    taken: set[int] = set()
    for i, first in enumerate(loads):
        for j in range(i + 1, len(loads)):
            later = loads[j]
            if j in taken or not _same_element(first, later):
                continue
            taken.add(j)
            hardware = first[4] - first[3]
            out.append((count_inames_domain(knl, later[4]),
                        count_inames_domain(knl, first[4]),
                        count_inames_domain(knl, hardware),
                        item_size(arrays[first[1]], request)))
    return tuple(out)


def reread_accesses(candidate: Candidate) -> tuple[tuple[float, float, float, int], ...]:
    """(re-read accesses, first-pass accesses, work items, element bytes) of each of
    ``candidate``'s re-reads (none: an empty tuple)."""
    params = candidate.params_dict
    return tuple((min(count_at(a, params), count_at(b, params)), count_at(b, params),
                  count_at(c, params), size)
                 for a, b, c, size in _rereads(candidate.spec, candidate.request()))


def _device(device: str):
    from workbench.hardware.description import SHIPPED, load_device_model

    for shipped in SHIPPED:
        description = load_device_model(shipped)
        if description.name == device:
            return description
    return None


def reread_values(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
    """``f_dram_reread_<dtype>_sectors`` of every candidate on ``device`` (NaN where a
    candidate cannot be built; 0 on a device without an L2 reuse miss function)."""
    from workbench.models.occupancy_features import occupancy_values

    candidates = list(candidates)
    n = len(candidates)
    out = {"float32": np.zeros(n), "float64": np.zeros(n)}
    description = _device(device)
    miss = None if description is None else description.miss_functions.get("l2_reuse")
    found = [None] * n
    for i, _, accesses in built_rows(candidates, reread_accesses, out.values()):
        found[i] = accesses
    todo = [i for i, f in enumerate(found) if f]
    if not todo or miss is None:
        return {f"f_dram_reread_{k}_sectors": v for k, v in out.items()}
    groups_per_sm = occupancy_values([candidates[i] for i in todo], device)["f_groups_per_sm"]
    units = float(description.compute_units.value)
    l2 = float(description.l2_bytes.value)
    for i, per_sm in zip(todo, groups_per_sm):
        group = float(np.prod(candidates[i].group_size))
        resident = units * np.nan_to_num(per_sm, nan=1.0) * group
        for rereads, first, items, size in found[i]:
            per_item = first / max(items, 1.0) * size
            distance = min(items, resident) * per_item
            sectors = rereads * size / _SECTOR * float(miss(distance / l2))
            out["float64" if size == 8 else "float32"][i] += sectors
    return {f"f_dram_reread_{k}_sectors": v for k, v in out.items()}


def _measured_dram_Bps(device: str) -> float | None:
    """The DRAM bandwidth of ``device``'s ``bandwidth.json`` (the first by folder name, as
    ``workbench explain`` reads it): the checkout's ``sample_data``, else the copy the
    package carries, so that an installed wheel predicts what the checkout does."""
    from workbench.models.packaged import measured_bandwidth_documents

    for _, document in measured_bandwidth_documents(device):
        for result in document.get("results", []):
            if result.get("level") == "dram" and result.get("bandwidth_GBps"):
                return float(result["bandwidth_GBps"]) * 1e9
    return None


@functools.lru_cache(maxsize=512)
def _loads_walk_a_window(spec, request) -> bool:
    """Whether a global load's index steps along a sequential loop (a window each work
    item walks: an autocorrelation's sum over its lags' window).  Such a kernel's loads
    read its footprint many times over, but the re-reads come from L1 over the loop's
    steps, not from the neighbours' loads of the same instant that round 15's stencils
    (no loop: each work item's five or nine neighbour loads) measured (round 19).  A
    loop of at most :data:`STENCIL_POINTS` steps of constant length is not a window."""
    from workbench.kernels.base import entry_kernel
    from workbench.models.parallelism import sequential_inames
    from workbench.models.row_walk_features import _arrays_and_local_axes, _subscripts
    from loopy.symbolic import get_dependencies

    knl = entry_kernel(spec.build(request))
    arrays, _ = _arrays_and_local_axes(knl)
    sequential = {n for n in sequential_inames(knl) if not _short_loop(knl, n)}
    for insn in knl.instructions:
        for direction, _name, index, red in _subscripts(insn, arrays):
            loops = (frozenset(insn.within_inames) | red) & sequential
            if direction == "load" and loops & get_dependencies(index):
                return True
    return False


def _short_loop(knl, iname: str) -> bool:
    """A loop of constant length no longer than :data:`STENCIL_POINTS` (the compiler
    unrolls it into neighbour loads, as heldout13's depthwise_causal_conv's four taps)."""
    try:
        return int(knl.get_constant_iname_length(iname)) <= STENCIL_POINTS
    except Exception:  # noqa: BLE001 - a length that depends on the sizes
        return False


def _loads_walk_a_window_or_none(candidate: Candidate) -> bool:
    try:
        return _loads_walk_a_window(candidate.spec, candidate.request())
    except Exception:  # noqa: BLE001 - a kernel that cannot be built: the rule as before
        return False


def dram_stream_values(candidates: Sequence[Candidate], device: str
                       ) -> dict[str, np.ndarray]:
    """``f_dram_stream_s`` and ``f_dram_peak_stream_s`` of every candidate on ``device``
    (0 on a device without a measured DRAM bandwidth or floors; NaN where a candidate
    cannot be built)."""
    from workbench.models.candidate_features import (
        FOOTPRINT_BYTES,
        FootprintRef,
        candidate_feature_values,
    )
    from workbench.models.floors import floors_of_device

    from workbench.models.expressions.features import (
        StandardFeature,
        parse_feature,
        parse_feature_ref,
    )
    from workbench.models.inflight import REREAD_RATIO, is_two_d, stencil_share, stream_share

    candidates = list(candidates)
    out = np.zeros(len(candidates))
    floors, bandwidth = floors_of_device(device), _measured_dram_Bps(device)
    if floors is None or not bandwidth or not candidates:
        return {"f_dram_stream_s": out, "f_dram_peak_stream_s": out.copy(),
                "f_dram_inflight_s": out.copy(), "f_dram_stencil_stream_s": out.copy(),
                "f_dram_neighbour_stream_s": out.copy(), "f_dram_gather_stream_s": out.copy(),
                "f_dram_neighbour_gather_stream_s": out.copy()}
    loads = {d: f"f_mem_access_global_{d}_load" for d in _ITEM_BYTES}
    counted, errors = candidate_feature_values(
        candidates, [FootprintRef(), StandardFeature("f_thread_groups",
                                                     parse_feature("f_thread_groups")),
                     *(parse_feature_ref(n) for n in loads.values())])
    counted_footprint = np.asarray(counted[FOOTPRINT_BYTES], dtype=float)
    footprint = np.nan_to_num(counted_footprint, nan=0.0)
    items = np.array([float(counted["f_thread_groups"][i]) * float(np.prod(c.group_size or (1,)))
                      for i, c in enumerate(candidates)])
    per_item = np.where(items > 0, footprint / np.where(items > 0, items, 1.0), np.nan)
    share = np.array([stream_share(per_item[i], is_two_d(c.group_size))
                      for i, c in enumerate(candidates)])
    loaded = sum(np.nan_to_num(np.asarray(counted[n], dtype=float)) * _ITEM_BYTES[d]
                 for d, n in loads.items())
    rereading = [is_two_d(c.group_size) and loaded[i] >= REREAD_RATIO * footprint[i] > 0
                 for i, c in enumerate(candidates)]
    stencil = np.array([stencil_share(per_item[i]) if rereading[i] else share[i]
                        for i in range(len(candidates))])
    # round 19: a kernel whose loads walk a window re-reads from L1, at a stream's rate
    neighbour = np.array([stencil[i] if rereading[i] and not _loads_walk_a_window_or_none(c)
                          else share[i] for i, c in enumerate(candidates)])
    rereads = reread_values(candidates, device)
    reread_bytes = _SECTOR * (rereads["f_dram_reread_float32_sectors"]
                              + rereads["f_dram_reread_float64_sectors"])
    beyond = np.maximum(0.0, footprint - floors.l2_bytes) + reread_bytes
    beyond[[e is not None for e in errors]] = np.nan
    gathered = _gather_stream_s(candidates, counted_footprint, items, floors.l2_bytes,
                                bandwidth, reread_bytes)
    gathered[[e is not None for e in errors]] = np.nan
    at_gathers = np.isfinite(counted_footprint) | np.isnan(gathered)
    return {"f_dram_stream_s": beyond / bandwidth,
            "f_dram_peak_stream_s": beyond / floors.dram_peak_Bps,
            "f_dram_inflight_s": beyond / (bandwidth * share),
            "f_dram_stencil_stream_s": beyond / (bandwidth * stencil),
            "f_dram_neighbour_stream_s": beyond / (bandwidth * neighbour),
            "f_dram_gather_stream_s": np.where(at_gathers, beyond / (bandwidth * stencil),
                                               gathered),
            "f_dram_neighbour_gather_stream_s": np.where(
                at_gathers, beyond / (bandwidth * neighbour), gathered)}


def _gather_stream_s(candidates, counted_footprint, items, l2_bytes, bandwidth, reread_bytes):
    """Round 21: where a candidate's footprint is not countable (a gather), its affine
    subscripts' footprint beyond L2 (:mod:`workbench.models.gather_footprint`) and the
    re-reads beyond L2 at the
    in-flight share of its bytes a work item, as ``f_dram_inflight_s`` prices a countable
    footprint (the stencil test, loaded bytes over footprint bytes, cannot be read where
    the gathered elements are not counted); NaN where the footprint is countable.
    ``f_dram_gather_stream_s`` is ``f_dram_stencil_stream_s`` and
    ``f_dram_neighbour_gather_stream_s`` is ``f_dram_neighbour_stream_s`` with it."""
    from workbench.models.gather_footprint import affine_footprint_bytes
    from workbench.models.inflight import is_two_d, stream_share

    out = np.full(len(candidates), np.nan)
    for i, c in enumerate(candidates):
        if np.isfinite(counted_footprint[i]) or not items[i] > 0:
            continue
        affine = np.nan_to_num(affine_footprint_bytes(c), nan=0.0)
        share = stream_share(affine / items[i], is_two_d(c.group_size))
        out[i] = (max(0.0, affine - l2_bytes) + reread_bytes[i]) / (bandwidth * share)
    return out


provide_device_features(REREAD_FEATURES[:2], reread_values)
provide_device_features(REREAD_FEATURES[2:], dram_stream_values)
# the DRAM stream is priced at the bandwidth measured in the checkout's sample data (or
# the package's copy): part of the disk cache's key, as the code is
cache_context(lambda device: f"dram={_measured_dram_Bps(device)!r}")
