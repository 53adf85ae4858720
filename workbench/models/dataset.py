"""Measurements joined with their kernels' properties: the table every model fits on."""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.errors import UnknownNameError, WorkbenchWarning
from workbench.kernels import get_kernel
from workbench.measure.store import Measurement
from workbench.properties import Granularity, kernel_properties

META_COLUMNS = ("kernel", "variant", "dtype", "group_size", "params", "role", "time_s",
                "device")


@dataclass(frozen=True)
class Row:
    """One configuration to put in a dataset; ``time_s`` is None for a pure prediction."""

    kernel: str
    variant: str
    dtype: str
    group_size: tuple[int, ...]
    params: tuple[tuple[str, int], ...]
    time_s: float | None = None
    device: str = ""


def build_frame(rows: Iterable[Row], *, granularity: Granularity | str = Granularity.WORKITEM,
                subgroup_size: int | None = None) -> pd.DataFrame:
    """Metadata columns plus one column per property, for catalog configurations.

    Properties are extracted once per (kernel, variant, dtype, group size) and
    evaluated for all of that build's sizes at once.
    """
    groups: dict[tuple, list[Row]] = defaultdict(list)
    for r in rows:
        groups[r.kernel, r.variant, r.dtype, r.group_size].append(r)

    frames = []
    skipped = []
    for (kernel, variant, dtype, group), rs in groups.items():
        try:
            spec = get_kernel(kernel)
        except UnknownNameError:
            skipped.append(kernel)  # e.g. a user kernel measured ad hoc
            continue
        props = kernel_properties(spec, variant=variant, dtype=dtype, group_size=group,
                                  granularity=granularity, subgroup_size=subgroup_size)
        params = {p: np.array([dict(r.params)[p] for r in rs]) for p in props.parameters}
        values = props.evaluate(params)
        frame = pd.DataFrame({f.name: np.asarray(v, dtype=np.float64).reshape(-1)
                              if np.ndim(v) else np.full(len(rs), float(v))
                              for f, v in values.items()})
        frame.insert(0, "kernel", kernel)
        frame.insert(1, "variant", variant)
        frame.insert(2, "dtype", dtype)
        frame.insert(3, "group_size", "x".join(map(str, group)))
        frame.insert(4, "params", [",".join(f"{a}={b}" for a, b in r.params) for r in rs])
        frame.insert(5, "role", spec.role.value)
        frame.insert(6, "time_s", [np.nan if r.time_s is None else r.time_s for r in rs])
        frame.insert(7, "device", [r.device for r in rs])
        frames.append(frame)
    if skipped:
        warnings.warn(f"left out measurements of kernels that are not in the catalog: "
                      f"{', '.join(sorted(set(skipped)))}", WorkbenchWarning, stacklevel=2)
    if not frames:
        return pd.DataFrame(columns=list(META_COLUMNS))
    data = pd.concat(frames, ignore_index=True, sort=False)
    feature_cols = [c for c in data.columns if c not in META_COLUMNS]
    data[feature_cols] = data[feature_cols].fillna(0.0)
    return data


def build_dataset(measurements: Iterable[Measurement], *,
                  granularity: Granularity | str = Granularity.WORKITEM,
                  subgroup_size: int | None = None) -> pd.DataFrame:
    """One row per successful measurement (see :func:`build_frame`)."""
    rows = [Row(m.key.kernel, m.key.variant, m.key.dtype, m.key.group_size, m.key.params,
                m.time_s, m.device.device)
            for m in measurements if m.time_s is not None]
    return build_frame(rows, granularity=granularity, subgroup_size=subgroup_size)


def feature_columns(data: pd.DataFrame) -> list[str]:
    return [c for c in data.columns if c not in META_COLUMNS]
