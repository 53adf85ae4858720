"""Measurements joined with their kernels' properties: the table every model fits on."""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DeviceError, ModelError, UnknownNameError, WorkbenchWarning
from workbench.kernels import KernelSpec, get_kernel
from workbench.kernels.candidate import Candidate
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store import Measurement, MeasurementStore
from workbench.properties import Granularity, kernel_properties

META_COLUMNS = ("kernel", "variant", "dtype", "group_size", "params", "role", "time_s",
                "device")


@dataclass(frozen=True)
class Row:
    """One configuration to put in a dataset; ``time_s`` is None for a pure prediction.

    ``kernel`` is a catalog name or the spec of a kernel outside the catalog (a user's
    kernel, a tuning-space point)."""

    kernel: str | KernelSpec
    variant: str
    dtype: str
    group_size: tuple[int, ...]
    params: tuple[tuple[str, int], ...]
    time_s: float | None = None
    device: str = ""


def build_frame(rows: Iterable[Row], *, granularity: Granularity | str = Granularity.WORKITEM,
                subgroup_size: int | None = None, keep_order: bool = False) -> pd.DataFrame:
    """Metadata columns plus one column per property, for catalog configurations.

    Properties are extracted once per (kernel, variant, dtype, group size) and
    evaluated for all of that build's sizes at once; rows come grouped by build, or
    in the order given with ``keep_order``.
    """
    rows = list(rows)
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[r.kernel, r.variant, r.dtype, r.group_size].append(i)

    frames = []
    skipped = []
    for (kernel, variant, dtype, group), positions in groups.items():
        rs = [rows[i] for i in positions]
        if isinstance(kernel, KernelSpec):
            spec = kernel
        else:
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
        frame.insert(0, "kernel", spec.name)
        frame.insert(1, "variant", variant)
        frame.insert(2, "dtype", dtype)
        frame.insert(3, "group_size", "x".join(map(str, group)))
        frame.insert(4, "params", [",".join(f"{a}={b}" for a, b in r.params) for r in rs])
        frame.insert(5, "role", spec.role.value)
        frame.insert(6, "time_s", [np.nan if r.time_s is None else r.time_s for r in rs])
        frame.insert(7, "device", [r.device for r in rs])
        frame.index = positions
        frames.append(frame)
    if skipped:
        warnings.warn(f"left out measurements of kernels that are not in the catalog: "
                      f"{', '.join(sorted(set(skipped)))}", WorkbenchWarning, stacklevel=2)
    if not frames:
        return pd.DataFrame(columns=list(META_COLUMNS))
    data = pd.concat(frames, sort=False)
    data = (data.sort_index() if keep_order else data).reset_index(drop=True)
    feature_cols = [c for c in data.columns if c not in META_COLUMNS]
    data[feature_cols] = data[feature_cols].fillna(0.0)
    return data


def candidate_frame(candidates: Sequence[Candidate], *,
                    granularity: Granularity | str = Granularity.WORKITEM,
                    subgroup_size: int | None = None, device: str = "",
                    measured: Mapping[Candidate, float] | None = None) -> pd.DataFrame:
    """A dataset frame of candidates, one row each, in the order given."""
    measured = measured or {}
    rows = [Row(c.kernel, c.variant, c.dtype, tuple(c.group_size), c.params,
                measured.get(c), device) for c in candidates]
    frame = build_frame(rows, granularity=granularity, subgroup_size=subgroup_size,
                        keep_order=True)
    if len(frame) != len(rows):
        raise ModelError("some candidates' kernels are not in the catalog; pass their "
                         "KernelSpec (workbench.kernels.spec_from_loopy) instead of a name")
    frame.insert(0, "candidate", [c.label for c in candidates])
    return frame


def build_dataset(measurements: Iterable[Measurement], *,
                  granularity: Granularity | str = Granularity.WORKITEM,
                  subgroup_size: int | None = None) -> pd.DataFrame:
    """One row per successful measurement (see :func:`build_frame`)."""
    rows = [Row(m.key.kernel, m.key.variant, m.key.dtype, m.key.group_size, m.key.params,
                m.time_s, m.device.device)
            for m in measurements if m.time_s is not None]
    return build_frame(rows, granularity=granularity, subgroup_size=subgroup_size)


def feature_columns(data: pd.DataFrame) -> list[str]:
    return [c for c in data.columns if c not in META_COLUMNS and c != "candidate"]


def store_device(store: MeasurementStore, selector: str | None = None) -> DeviceIdentity:
    """The store's one device matching ``selector`` (a case-insensitive substring of
    "platform device key"), or its only device when no selector is given."""
    devices = store.devices()
    if not devices:
        raise DeviceError(f"store {store.path} holds no measurements yet")
    hits = [d for d in devices if selector is None
            or selector.lower() in f"{d.platform} {d.device} {d.key}".lower()]
    if len(hits) != 1:
        listing = "; ".join(d.key for d in devices)
        raise DeviceError(("several devices are in the store; name one: " if hits else
                           f"no device in the store matches {selector!r}: ") + listing)
    return hits[0]


def load_store_dataset(path: str | Path, device: str | None = None, *,
                       campaign: int | str | None = None,
                       granularity: Granularity | str = Granularity.WORKITEM,
                       subgroup_size: int | None = None) -> pd.DataFrame:
    """The dataset (:func:`build_dataset`) of one device's successful measurements in
    a store, opened read-only; ``device`` as in :func:`store_device`."""
    with MeasurementStore.open(path, create=False, readonly=True) as store:
        key = store_device(store, device).key
        measurements = store.measurements(device_key=key, campaign=campaign)
    return build_dataset(measurements, granularity=granularity,
                         subgroup_size=subgroup_size)


#: The roles a fit may train on; "unseen" kernels never are (they judge accuracy).
TRAINABLE_ROLES = ("measurement", "test")


def train_on_roles(data: pd.DataFrame, roles: Sequence[str]) -> pd.DataFrame:
    """``data`` with the rows of ``roles`` marked as training rows.

    Fits train on the rows whose role is "measurement" (the paper's protocol, section
    4.3). A model meant to predict new kernels can learn from the test kernels too;
    their Table 1 is then in-sample, and leave-one-kernel-out validation
    (``workbench validate``) is the honest figure for them.
    """
    from workbench.errors import ParameterError

    unknown = [r for r in roles if r not in TRAINABLE_ROLES]
    if unknown:
        raise ParameterError(f"cannot train on role {unknown[0]!r}: choose from "
                             + ", ".join(TRAINABLE_ROLES)
                             + " (unseen kernels are never fitted on)")
    out = data.copy()
    out.loc[out["role"].isin(list(roles)), "role"] = "measurement"
    return out
