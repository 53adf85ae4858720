"""Registering device features: expression-language features whose values depend on the
device as well as the kernel (occupancy and waves, data volumes per memory level).

A family of such features is one function ``values(candidates, device)`` that returns
every feature of the family for every candidate; :func:`provide_device_features`
registers each name both for measurement rows (grouped by their ``device`` column) and
for candidates predicted on one device.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate
from workbench.models.expressions.feature_values import (
    group_size_tuple,
    parse_params_text,
    provide_candidate_feature,
    provide_row_feature,
)

DeviceValues = Callable[[Sequence[Candidate], str], dict[str, np.ndarray]]


def rows_as_candidates(data) -> list[Candidate]:
    """The candidates of measurement rows (kernel, variant, dtype, group, params)."""
    return [Candidate(k, v, group_size_tuple(g), tuple(sorted(parse_params_text(p).items())),
                      d)
            for k, v, d, g, p in data[["kernel", "variant", "dtype", "group_size",
                                       "params"]].itertuples(index=False)]


def _row_values(name: str, values: DeviceValues):
    def compute(data) -> np.ndarray:
        if "device" not in data.columns:
            raise ModelError(f"{name} needs each row's device (a 'device' column)")
        out = np.full(len(data), np.nan)
        devices = data["device"].astype(str).to_numpy()
        for device in np.unique(devices):
            rows = np.flatnonzero(devices == device)
            out[rows] = values(rows_as_candidates(data.iloc[rows]), device)[name]
        return out
    return compute


def _candidate_values(name: str, values: DeviceValues):
    return lambda candidates, device: values(candidates, device)[name].copy()


def _last_call(values: DeviceValues) -> DeviceValues:
    """``values`` remembering its last candidates and device: a model reads a family's
    features one name after another for the same candidates, and each call would
    otherwise build and analyse every candidate again."""
    last: list = [None]

    def remembered(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
        key = (tuple(candidates), device)
        entry = last[0]
        if entry is not None and entry[0] == key:
            return entry[1]
        out = values(candidates, device)
        last[0] = (key, out)     # one assignment: a reader sees the old or the new pair
        return out
    return remembered


def provide_device_features(names: Iterable[str], values: DeviceValues) -> None:
    """Register ``names`` for rows and candidates, each read from ``values``."""
    once = _last_call(values)
    for name in names:
        provide_row_feature(name, _row_values(name, values))
        provide_candidate_feature(name, _candidate_values(name, once))
