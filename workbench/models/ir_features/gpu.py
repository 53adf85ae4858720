"""Features of a variant that decide its speed on a given GPU and that the paper's
Table 1 leaves out, derived from the Table 1 columns and the device's description
(:mod:`workbench.hardware.description`), so that any sample frame has them.

* ``occupancy``: resident warps over a multiprocessor's warp slots, from the group
  size, the local memory per group and the device's residency limits
  (:mod:`workbench.hardware.occupancy`; registers, unknown before a build, do not
  bind);
* ``waves``: the launch's groups over the groups the device holds at once;
* ``tail_fraction``: how full the last wave is (1: full);
* ``output_over_l2``: the bytes the launch writes (work items x global stores x 4)
  over the L2 capacity, a stand-in for the working set: the paper names its absence
  as why its model misses at the smallest and largest inputs (section 8.3).

Coalescing is Table 1's own ``cache_lines_per_warp_access``.
"""

from __future__ import annotations

import enum
import functools

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.hardware.occupancy import OccupancyLimits, occupancy

ITEM_BYTES = 4     # the Lift benchmarks are float32


class GPUFeature(enum.Enum):
    OCCUPANCY = "occupancy"
    WAVES = "waves"
    TAIL_FRACTION = "tail_fraction"
    OUTPUT_OVER_L2 = "output_over_l2"


GPU_FEATURES: tuple[str, ...] = tuple(f.value for f in GPUFeature)


@functools.lru_cache(maxsize=8)
def _device(name: str) -> tuple[OccupancyLimits, float]:
    from workbench.hardware.description import load_device_model

    description = load_device_model(name)
    limits = OccupancyLimits.of(description)
    if limits is None:
        raise ModelError(f"the GPU features need the residency limits of {name!r}: its "
                         "description has no 'occupancy' section")
    return limits, float(description.l2_bytes.value)


def gpu_feature_frame(features: pd.DataFrame, device: str) -> pd.DataFrame:
    """The :class:`GPUFeature` columns of a feature frame's rows on ``device`` (a
    shipped description's name, ``h100``, or a JSON file)."""
    limits, l2_bytes = _device(device)
    local = np.ones(len(features))
    items = np.ones(len(features))
    for k in range(3):
        local = local * np.maximum(features[f"local_size_{k}"].to_numpy(float), 1.0)
        items = items * np.maximum(features[f"global_size_{k}"].to_numpy(float), 1.0)
    groups = np.ceil(items / local)
    occ = occupancy(limits, local, groups,
                    shared_bytes_per_group=features["local_memory_bytes"].to_numpy(float))
    output = items * features["global_stores"].to_numpy(float) * ITEM_BYTES
    return pd.DataFrame({
        GPUFeature.OCCUPANCY.value: occ.occupancy,
        GPUFeature.WAVES.value: np.where(np.isfinite(occ.waves), occ.waves, groups),
        GPUFeature.TAIL_FRACTION.value: np.nan_to_num(occ.tail_fraction, nan=0.0),
        GPUFeature.OUTPUT_OVER_L2.value: output / l2_bytes}, index=features.index)


__all__ = ["GPUFeature", "GPU_FEATURES", "gpu_feature_frame"]
