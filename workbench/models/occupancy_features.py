"""Occupancy features of the expression language: residency, waves and the per-warp
chain of a launch on its device (:mod:`workbench.hardware.occupancy`).

Names (device features: their values need the device's residency limits, from the
``occupancy`` section of its shipped description):

* ``f_groups_per_sm``: groups resident on one multiprocessor at once;
* ``f_occupancy``: resident warps over the multiprocessor's warp slots (0 to 1);
* ``f_waves``: ``ceil(G / (SMs x groups_per_sm))`` for ``G`` groups;
* ``f_tail_fraction``: the last wave's share of the device's group slots (1: full);
* ``f_wave_balance``: ``waves x slots / G`` (>= 1; the on-chip cost of the busiest
  slot relative to an even spread, as ``f_cu_balance`` is per compute unit);
* ``f_warp_chain_bytes``: ``waves x`` the global bytes one warp moves (every work
  item's global accesses, item sizes summed, over the launch's warps).  A warp keeps a
  bounded number of requests in flight, so a launch with few warps per
  multiprocessor takes at least a time proportional to this (latency-bound small
  grids: one work item looping over a long column), however idle DRAM is.

What a build uses comes from the compiler's report when a build-info file of the
device is in use (:func:`use_build_info`, or the environment variable
``WORKBENCH_BUILD_INFO``: paths separated by ``os.pathsep``; ``workbench build-info``
writes them): registers per work item and shared memory per group.  Without one,
registers are *estimated* (:func:`estimated_registers`) and shared memory is what
loopy's local temporaries declare.  :func:`resources` says which.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import ModelError
from workbench.hardware.build_info import BuildInfoFile, BuildKey, load_build_info
from workbench.hardware.occupancy import OccupancyLimits, occupancy
from workbench.kernels.candidate import Candidate
from workbench.models.candidate_features import candidate_feature_values
from workbench.models.device_features import cache_context, provide_device_features
from workbench.models.counting_pool import compute_here_when
from workbench.models.device_structure import per_structure
from workbench.models.expressions.features import OCCUPANCY_FEATURES, parse_feature_ref

BUILD_INFO_ENV = "WORKBENCH_BUILD_INFO"

#: registers a kernel needs before its own temporaries (indices, addresses, loop
#: counters): an estimate for when no compiler report is at hand
BASE_REGISTERS = 24

_IN_USE: list[BuildInfoFile] = []


def use_build_info(paths: Sequence[str] | None) -> None:
    """Read registers and shared memory from these build-info files (None or empty:
    estimate them).  Replaces what ``WORKBENCH_BUILD_INFO`` gave."""
    _IN_USE.clear()
    _IN_USE.extend(load_build_info(p) for p in (paths or ()))
    _resources.cache_clear()


def _from_environment() -> None:
    text = os.environ.get(BUILD_INFO_ENV, "")
    if text and not _IN_USE:
        use_build_info([p for p in text.split(os.pathsep) if p])


def build_info_in_use() -> tuple[BuildInfoFile, ...]:
    _from_environment()
    return tuple(_IN_USE)


@dataclass(frozen=True)
class BuildResources:
    """What one build uses, and where each figure came from."""

    threads: int
    registers: float           # per work item; NaN when unknown
    shared_bytes: float        # per group
    source: str                # "compiler" or "estimated"


def estimated_registers(kernel) -> float:
    """A guess at registers per work item from loopy's private temporaries: a base for
    indices and addresses, plus each private temporary's 32-bit words (arrays too, as
    if the compiler kept them in registers), at most the 255 a work item can have."""
    import loopy as lp

    words = 0
    for tv in kernel.temporary_variables.values():
        if tv.address_space != lp.AddressSpace.PRIVATE:
            continue
        try:
            count = math.prod(int(s) for s in (tv.shape or ()))
            words += count * max(1, np.dtype(tv.dtype.numpy_dtype).itemsize // 4)
        except (TypeError, ValueError, AttributeError):
            words += 1
    return float(min(255, BASE_REGISTERS + words))


def _declared_shared_bytes(kernel) -> float:
    import loopy as lp

    total = 0
    for tv in kernel.temporary_variables.values():
        if tv.address_space == lp.AddressSpace.LOCAL:
            try:
                total += math.prod(int(s) for s in tv.shape) * np.dtype(
                    tv.dtype.numpy_dtype).itemsize
            except (TypeError, ValueError, AttributeError):
                return float("nan")
    return float(total)


@functools.lru_cache(maxsize=512)
def _resources(spec, request, device: str) -> BuildResources:
    import loopy as lp

    from workbench.kernels.base import entry_kernel

    # preprocessing resolves the temporaries' address spaces (fetches become local)
    program = lp.preprocess_program(spec.build(request))
    knl = entry_kernel(program)
    _, local = knl.get_grid_size_upper_bounds_as_exprs(program.callables_table)
    threads = math.prod(int(s) for s in local) if local else 1
    key = BuildKey(spec.name, request.variant, request.dtype.value,
                   tuple(request.group_size))
    for info_file in build_info_in_use():
        if info_file.device.get("device") != device:
            continue
        info = info_file.info(key)
        if info is not None:
            return BuildResources(threads, float(info.registers), float(info.shared_bytes),
                                  "compiler")
    return BuildResources(threads, estimated_registers(knl), _declared_shared_bytes(knl),
                          "estimated")


def resources(candidate: Candidate, device: str) -> BuildResources:
    return _resources(candidate.spec, candidate.request(), device)


@functools.lru_cache(maxsize=16)
def limits_of_device(device: str) -> OccupancyLimits | None:
    """The residency limits of a device by its OpenCL name (shipped descriptions)."""
    from workbench.hardware.description import SHIPPED, load_device_model

    for shipped in SHIPPED:
        description = load_device_model(shipped)
        if description.name == device:
            return OccupancyLimits.of(description)
    return None


#: the global accesses per dtype as loads and stores, each the sum over strides that every
#: counted point of a factory space carries (:func:`~workbench.models.point_counts.
#: all_standard_refs`): asked for both directions at once, a count no probe held, a
#: sub-group model's ranking fitted every structure again and built its probes a second
#: time for them (issue #33: 21 of stencil2d_5pt's 96 probes under ``chains38``)
_COUNTS = ("f_thread_groups", "f_mem_access_global_float32_load",
           "f_mem_access_global_float32_store", "f_mem_access_global_float64_load",
           "f_mem_access_global_float64_store")


_LAST: dict = {}


def occupancy_values(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
    """Every occupancy feature of every candidate on ``device`` (NaN where a candidate
    cannot be counted or built).  The last call's answer is kept: a model reads several
    of these features of the same rows one after another."""
    candidates = list(candidates)
    key = (tuple(candidates), device, tuple(id(f) for f in build_info_in_use()))
    if _LAST.get("key") != key:
        _LAST.clear()
        _LAST.update(key=key, values=_occupancy_values(candidates, device))
    return _LAST["values"]


def _or_none(compute, c: Candidate):
    try:
        return compute(c)
    except Exception:  # noqa: BLE001 - a build that fails: no features, as counts
        return None


def _used(c: Candidate, device: str) -> dict[str, float]:
    r = resources(c, device)
    return {"threads": r.threads, "registers": r.registers, "shared": r.shared_bytes}


def _occupancy_values(candidates: list[Candidate], device: str) -> dict[str, np.ndarray]:
    n = len(candidates)
    limits = limits_of_device(device)
    if limits is None:
        raise ModelError(f"the occupancy features need the residency limits of "
                         f"{device!r}: no shipped device description of that name has an "
                         "'occupancy' section")
    counts, errors = candidate_feature_values(
        candidates, [parse_feature_ref(name) for name in _COUNTS])
    threads, regs, smem = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    # the group's threads, registers and local bytes are counts of the kernel: fitted
    # per structure of a factory space (issue #33), not built at every point; a build
    # that fails has no features, as counts.  A compiler's report is read per point.
    # A partial of a module-level function: the counting processes compute it too.
    used = functools.partial(_used, device=device)
    fitted = per_structure(candidates, used) if not build_info_in_use() else \
        [_or_none(used, c) for c in candidates]
    for i, found in enumerate(fitted):
        if errors[i] is not None or found is None:
            continue
        threads[i], regs[i], smem[i] = found["threads"], found["registers"], found["shared"]
    groups = counts["f_thread_groups"]
    occ = occupancy(limits, np.nan_to_num(threads, nan=1.0), np.nan_to_num(groups),
                    registers_per_thread=regs, shared_bytes_per_group=smem)
    global_bytes = 4 * (counts["f_mem_access_global_float32_load"]
                        + counts["f_mem_access_global_float32_store"]) + \
        8 * (counts["f_mem_access_global_float64_load"]
             + counts["f_mem_access_global_float64_store"])
    warps = groups * np.ceil(threads / limits.warp_size)
    with np.errstate(divide="ignore", invalid="ignore"):
        chain = np.where(warps > 0, occ.waves * global_bytes / warps, 0.0)
    bad = ~np.isfinite(threads) | ~np.isfinite(groups)
    out = {"f_groups_per_sm": occ.groups_per_sm, "f_occupancy": occ.occupancy,
           "f_waves": occ.waves, "f_tail_fraction": occ.tail_fraction,
           "f_wave_balance": occ.wave_balance, "f_warp_chain_bytes": chain}
    for name in out:
        out[name] = np.where(bad, np.nan, out[name]).astype(np.float64)
    return out


provide_device_features(OCCUPANCY_FEATURES, occupancy_values)
# registers and shared memory from a compiler's report (read by every family that
# prices registers): such values are not kept in the disk cache, nor read from it
cache_context(lambda device: None if build_info_in_use() else "estimated resources")
# a compiler's report is read at the point (``resources``), by the held-reread and row-walk
# families too; one put in use after the counting processes were forked is not theirs
compute_here_when(build_info_in_use)
