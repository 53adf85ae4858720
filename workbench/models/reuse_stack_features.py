"""Three things the sector pricing and the operation counts do not see, as features of
the expression language (issue #34, round 7).

* ``f_l1_load_hit_share`` and ``f_l1_load_miss_share`` (device features, 0 to 1): of
  the global load sectors the sector features count (``f_mem_access_global_load_
  sectors``: what a launch's warps request, companions at a constant offset sharing
  theirs), the share that L1 serves and the share it passes on to L2 (Ernst et al.'s
  compulsory L2 -> L1 load volume with L1 capacity misses, :class:`~workbench.models.
  roofline.metrics.L2L1Volume`, at most all of them).  Neighbouring work items that read the same or overlapping data
  without a local-memory prefetch (a windowed filter, a matrix every item reads)
  request many sectors that L1 already holds.  A model multiplies a load-sector count
  by each share to price the two apart.  Where the address model cannot read a
  kernel, every sector is taken as a miss (the sector pricing as it was).
* ``f_stack_sectors`` (per sub-group): the accesses to private arrays that live on the
  stack, in the 32-byte sectors a warp's access moves when its lanes' words are
  adjacent (the element size in bytes per warp access).  A private array indexed by
  a loaded value (a key, a pointer) cannot be kept in registers, which are not
  indexable; every access to it, its zeroing and its final reads included, is then a
  local-memory (stack) load or store.  The compiler's build-info shows the stack
  bytes (``keyed_bucket_sums``: 64 bytes in float32).
* ``f_op_float32_explog`` and ``f_op_float64_explog`` (per sub-group): calls of the
  exponential and logarithm functions.  loopy counts every function as one
  ``special`` operation; an exponential or a logarithm in float64 is a long sequence
  of double-precision instructions, many times a square root's cost.  A model adds
  them at a price of their own, learnt from ``explog_chain``.

The microbenchmarks that exercise each are in
:mod:`workbench.kernels.generators.reuse_stack_chains`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import REUSE_STACK_FEATURES
from workbench.models.device_structure import fitted_rows
from workbench.models.private_stack import stack_and_explog

_SUBGROUP = 32
_SHARES: dict[tuple[str, Candidate], float] = {}


def l1_load_hit_share(candidates: Sequence[Candidate], device: str) -> np.ndarray:
    """The share of requested global load sectors that L1 serves (0 where the address
    model cannot read a candidate)."""
    from workbench.models.volume_features import _roofline_of_device

    roofline = _roofline_of_device(device)
    todo = [c for c in dict.fromkeys(candidates) if (device, c) not in _SHARES]
    if roofline is not None and todo:
        from workbench.models.roofline.family import _in_parallel

        entry = functools.partial(_hit_share_entry, roofline)
        for c, share in zip(todo, _in_parallel(roofline, todo, entry)):
            _SHARES[device, c] = share
    return np.array([_SHARES.get((device, c), 0.0) for c in candidates], dtype=np.float64)


def _requested_sectors(candidate: Candidate) -> float:
    """The global load sectors the sector features count for ``candidate`` (every
    dtype; companions at a constant offset sharing their sectors)."""
    from workbench.models.expressions.feature_values import kernel_feature_values

    name = "f_mem_access_global_load_sectors"
    _, values = kernel_feature_values(
        candidate.spec, [name], candidate.params_dict, variant=candidate.variant,
        dtype=str(candidate.dtype), group_size=candidate.group_size, subgroup_size=_SUBGROUP)
    return float(values[name])


def _hit_share_entry(roofline, candidate: Candidate) -> float:
    from workbench.errors import BarvinokMissingError, WorkbenchError

    try:
        inputs = roofline._one(candidate).inputs
        requested = 32.0 * _requested_sectors(candidate)
    except BarvinokMissingError:
        raise
    except (WorkbenchError, ValueError):
        return 0.0
    if not requested > 0:
        return 0.0
    misses = inputs.l2_l1.load_sectors_bytes * inputs.blocks
    return float(min(1.0, max(0.0, 1.0 - misses / requested)))


def l1_share_values(candidates: Sequence[Candidate], device: str
                    ) -> dict[str, np.ndarray]:
    """``f_l1_load_hit_share`` and ``f_l1_load_miss_share`` of every candidate on
    ``device`` (the address model's volumes: about a tenth of a CPU second each, so
    apart from the cheap counts below)."""
    hit = l1_load_hit_share(list(candidates), device)
    return {"f_l1_load_hit_share": hit, "f_l1_load_miss_share": 1.0 - hit}


def _stack_numbers(candidate: Candidate) -> dict[str, float]:
    sectors, calls = stack_and_explog(candidate)
    return {"sectors": sectors, "calls": calls}


def stack_explog_values(candidates: Sequence[Candidate], device: str
                        ) -> dict[str, np.ndarray]:
    """``f_stack_sectors`` and ``f_op_<dtype>_explog`` of every candidate (NaN where a
    candidate cannot be built); the same on every device."""
    candidates = list(candidates)
    stack = np.zeros(len(candidates))
    explog = {"float32": np.zeros(len(candidates)), "float64": np.zeros(len(candidates))}
    # counts of the kernel: fitted per structure of a factory space (issue #33)
    for i, c, found in fitted_rows(candidates, _stack_numbers, (stack,)):
        stack[i] = found["sectors"]
        if str(c.dtype) in explog:
            explog[str(c.dtype)][i] = found["calls"]
    return {"f_stack_sectors": stack, "f_op_float32_explog": explog["float32"],
            "f_op_float64_explog": explog["float64"]}


def reuse_stack_values(candidates: Sequence[Candidate], device: str
                       ) -> dict[str, np.ndarray]:
    """Every feature of this module for every candidate on ``device``."""
    candidates = list(candidates)
    return {**l1_share_values(candidates, device),
            **stack_explog_values(candidates, device)}


L1_SHARE_FEATURES = ("f_l1_load_hit_share", "f_l1_load_miss_share")
provide_device_features(L1_SHARE_FEATURES, l1_share_values)
provide_device_features(tuple(f for f in REUSE_STACK_FEATURES if f not in L1_SHARE_FEATURES),
                        stack_explog_values)
