"""Occupancy: how many work groups a multiprocessor holds at once, and in how many
waves a launch runs.

A multiprocessor (SM, compute unit) keeps a group resident until it ends; how many at
once is bounded by its thread slots, its group slots, its register file (registers
are allocated per warp, rounded up to the allocation unit) and its shared memory
(what the group declares, plus what the system reserves per group).  With ``S``
multiprocessors each holding ``k`` groups, ``G`` groups run in
``waves = ceil(G / (S k))``; the last wave holds ``G - (waves - 1) S k`` of the
``S k`` slots (the *tail*).  The figures come from the ``occupancy`` section of a
device description (:mod:`workbench.hardware.description`), each with its source.

Everything here is arithmetic on arrays (one entry per configuration); what a kernel
uses (registers, shared memory) is the caller's: from the compiler's report
(:mod:`.build_info`) or an estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.errors import WorkbenchError


@dataclass(frozen=True)
class OccupancyLimits:
    """A multiprocessor's residency limits and the device's multiprocessor count."""

    compute_units: int
    warp_size: int
    max_threads_per_sm: int
    max_groups_per_sm: int
    registers_per_sm: int
    max_registers_per_thread: int
    register_allocation_unit: int
    shared_bytes_per_sm: int
    max_shared_bytes_per_group: int
    shared_bytes_reserved_per_group: int = 0

    @classmethod
    def of(cls, description) -> OccupancyLimits | None:
        """The limits of a device description; None when it has no ``occupancy``."""
        doc = getattr(description, "occupancy", None)
        if not doc:
            return None
        try:
            figures = {k: int(v["value"]) for k, v in doc.items()}
            return cls(compute_units=int(description.compute_units.value), **figures)
        except (KeyError, TypeError, ValueError) as err:
            raise WorkbenchError(f"the occupancy figures of {description.name!r} are "
                                 f"incomplete or malformed: {err}") from None

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size


@dataclass(frozen=True)
class Occupancy:
    """Per configuration (arrays of one length): what limits residency and the waves."""

    groups_per_sm: np.ndarray     # resident groups per multiprocessor (0: does not fit)
    occupancy: np.ndarray         # resident warps / the multiprocessor's warp slots
    waves: np.ndarray             # ceil(groups / (SMs x groups_per_sm))
    tail_fraction: np.ndarray     # the last wave's share of the device's group slots
    wave_balance: np.ndarray      # waves x slots / groups: >= 1, 1 when every wave is full
    resident_warps: np.ndarray    # warps running at once on the whole device
    limiter: tuple[str, ...]      # "threads", "groups", "registers" or "shared memory"


def occupancy(limits: OccupancyLimits, threads_per_group, groups, *,
              registers_per_thread=None, shared_bytes_per_group=None) -> Occupancy:
    """Residency and waves of launches of ``groups`` groups of ``threads_per_group``
    work items; registers (per work item) and shared bytes (per group) where known:
    an unknown (NaN or None) limit does not bind."""
    threads = np.atleast_1d(np.asarray(threads_per_group, dtype=np.float64))
    groups = np.broadcast_to(np.asarray(groups, dtype=np.float64), threads.shape)
    n = threads.shape

    def given(value):
        return np.full(n, np.nan) if value is None else np.broadcast_to(
            np.asarray(value, dtype=np.float64), n)

    regs, smem = given(registers_per_thread), given(shared_bytes_per_group)
    warps = np.ceil(threads / limits.warp_size)
    by_threads = np.floor(limits.max_warps_per_sm / warps)
    by_groups = np.full(n, float(limits.max_groups_per_sm))
    unit = limits.register_allocation_unit
    regs_per_warp = np.ceil(np.minimum(regs, limits.max_registers_per_thread)
                            * limits.warp_size / unit) * unit
    with np.errstate(divide="ignore", invalid="ignore"):
        by_registers = np.where(np.isfinite(regs_per_warp) & (regs_per_warp > 0),
                                np.floor(limits.registers_per_sm
                                         / (regs_per_warp * warps)), np.inf)
        need = smem + limits.shared_bytes_reserved_per_group
        by_shared = np.where(np.isfinite(smem), np.where(
            smem <= limits.max_shared_bytes_per_group,
            np.floor(limits.shared_bytes_per_sm / need), 0.0), np.inf)
    stacked = np.stack([by_threads, by_groups, by_registers, by_shared])
    per_sm = stacked.min(axis=0)
    names = ("threads", "groups", "registers", "shared memory")
    limiter = tuple(names[i] for i in stacked.argmin(axis=0))
    slots = per_sm * limits.compute_units
    with np.errstate(divide="ignore", invalid="ignore"):
        waves = np.where(slots > 0, np.ceil(groups / slots), np.inf)
        tail = np.where(slots > 0, (groups - (waves - 1) * slots) / slots, np.nan)
        balance = np.where(groups > 0, waves * slots / groups, 1.0)
    return Occupancy(groups_per_sm=per_sm,
                     occupancy=per_sm * warps / limits.max_warps_per_sm,
                     waves=waves, tail_fraction=tail, wave_balance=balance,
                     resident_warps=np.minimum(groups, slots) * warps, limiter=limiter)
