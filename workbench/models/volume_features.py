"""Data-volume features of the expression language: the bytes a launch moves per
memory level, from the access model of the extended roofline (Ernst et al.,
:mod:`workbench.models.roofline`), so that the 2019 expression models can price a
kernel by the bytes that reach each level rather than by its access counts.

Names (device features: the volumes need the device's caches, from its shipped
description):

* ``f_dram_bytes``: DRAM <-> L2 bytes of the whole launch (loads and stores, per wave
  of concurrent blocks with L2 reuse between waves, the description's fitted miss
  functions applied): what the roofline's DRAM limiter divides by the bandwidth;
* ``f_l2_bytes``: L2 <-> L1 bytes of the whole launch (the sectors of every block's
  loads and stores, L1 capacity misses applied): what the L2 limiter reads.

A candidate the address model cannot read (an index that is not affine, say) has no
value (NaN).  Each configuration costs about a tenth of a CPU second, so values are
kept per candidate and device for the life of the process.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import VOLUME_FEATURES

_KNOWN: dict[tuple[str, Candidate], tuple[float, float]] = {}


@functools.lru_cache(maxsize=16)
def _roofline_of_device(device: str):
    from workbench.hardware.description import SHIPPED, load_device_model
    from workbench.models.roofline.family import FittedRoofline

    for shipped in SHIPPED:
        description = load_device_model(shipped)
        if description.name == device:
            return FittedRoofline(description)
    return None


def volume_values(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
    """``f_dram_bytes`` and ``f_l2_bytes`` of every candidate on ``device``."""
    candidates = list(candidates)
    roofline = _roofline_of_device(device)
    if roofline is None:
        raise ModelError(f"the volume features need the caches of {device!r}: no shipped "
                         "device description has that name")
    todo = list(dict.fromkeys(c for c in candidates if (device, c) not in _KNOWN))
    for c, volumes in zip(todo, roofline.volumes(todo)):
        _KNOWN[device, c] = ((np.nan, np.nan) if volumes is None
                             else (volumes.dram_bytes, volumes.l2_bytes))
    values = np.array([_KNOWN[device, c] for c in candidates],
                      dtype=np.float64).reshape(-1, 2)
    return {"f_dram_bytes": values[:, 0], "f_l2_bytes": values[:, 1]}


provide_device_features(VOLUME_FEATURES, volume_values)
