"""Measurements joined with their kernels' properties: the table every model fits on."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np
import pandas as pd

from workbench.kernels import get_kernel
from workbench.measure.store import Measurement
from workbench.properties import Granularity, kernel_properties

META_COLUMNS = ("kernel", "variant", "dtype", "group_size", "params", "role", "time_s",
                "device")


def build_dataset(measurements: Iterable[Measurement], *,
                  granularity: Granularity | str = Granularity.WORKITEM,
                  subgroup_size: int | None = None) -> pd.DataFrame:
    """One row per successful measurement: metadata columns plus one column per property.

    Properties are extracted once per (kernel, variant, dtype, group size) and
    evaluated for all of that build's sizes at once.
    """
    groups: dict[tuple, list[Measurement]] = defaultdict(list)
    for m in measurements:
        if m.time_s is None:
            continue
        k = m.key
        groups[k.kernel, k.variant, k.dtype, k.group_size].append(m)

    frames = []
    for (kernel, variant, dtype, group), ms in groups.items():
        spec = get_kernel(kernel)
        props = kernel_properties(spec, variant=variant, dtype=dtype, group_size=group,
                                  granularity=granularity, subgroup_size=subgroup_size)
        params = {p: np.array([m.key.params_dict[p] for m in ms]) for p in props.parameters}
        values = props.evaluate(params)
        frame = pd.DataFrame({f.name: np.asarray(v, dtype=np.float64).reshape(-1)
                              if np.ndim(v) else np.full(len(ms), float(v))
                              for f, v in values.items()})
        frame.insert(0, "kernel", kernel)
        frame.insert(1, "variant", variant)
        frame.insert(2, "dtype", dtype)
        frame.insert(3, "group_size", "x".join(map(str, group)))
        frame.insert(4, "params", [",".join(f"{a}={b}" for a, b in m.key.params)
                                   for m in ms])
        frame.insert(5, "role", spec.role.value)
        frame.insert(6, "time_s", [m.time_s for m in ms])
        frame.insert(7, "device", [m.device.device for m in ms])
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=list(META_COLUMNS))
    data = pd.concat(frames, ignore_index=True, sort=False)
    feature_cols = [c for c in data.columns if c not in META_COLUMNS]
    data[feature_cols] = data[feature_cols].fillna(0.0)
    return data


def feature_columns(data: pd.DataFrame) -> list[str]:
    return [c for c in data.columns if c not in META_COLUMNS]
