"""Features that come from the device rather than from the kernel's counts.

* ``f_wr_wall_time``: the measured wall time of the row's *work-removed twin*
  (``<kernel>_wr``: same variant, dtype, group size, sizes and device; see
  :mod:`workbench.kernels.work_removal`).  This is the 2019 paper's in-situ
  measurement of a kernel's own global-memory access pattern: the twin keeps the
  pattern, the loop structure and the launch geometry and drops the on-chip work, so
  its time is the global-memory cost as this device pays it for exactly this pattern
  and work-group shape, effects (partition camping, partial sectors, TLB reach) no
  count-based feature captures.  Its price: the twin must be measured on the target
  device (``workbench calibrate --set work-removed``, with ``--families`` for the
  variant families).
* ``f_cu_balance``: the load imbalance of the last wave of work groups,
  ``CU * ceil(G / CU) / G`` for ``G`` groups on ``CU`` compute units, 1 when the groups
  spread evenly and up to ``CU`` when a few groups leave most units idle.  A
  throughput-bound kernel finishes when its busiest unit does, and that unit runs
  ``ceil(G / CU)`` groups; multiplying the on-chip cost by this factor models it.
  The compute-unit count is the device's (a shipped device description or the local
  OpenCL device of that name).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.measure.store import Measurement

TWIN_TIME = "f_wr_wall_time"
CU_BALANCE = "f_cu_balance"
TWIN_SUFFIX = "_wr"

TwinKey = tuple[str, str, str, str, str, str]   # kernel, variant, dtype, group, params, device


def _params_text(params) -> str:
    return ",".join(f"{a}={b}" for a, b in params)


def twin_key(kernel: str, variant: str, dtype: str, group_size: str, params: str,
             device: str) -> TwinKey:
    return (kernel, variant, dtype, group_size, params, device)


def twin_times(measurements: Iterable[Measurement]) -> dict[TwinKey, float]:
    """Measured times of work-removed kernels, keyed like the rows of their originals.

    The latest measurement of a configuration wins (measurements come oldest first).
    """
    out: dict[TwinKey, float] = {}
    for m in measurements:
        k = m.key
        if m.time_s is None or not k.kernel.endswith(TWIN_SUFFIX):
            continue
        out[twin_key(k.kernel[: -len(TWIN_SUFFIX)], k.variant, k.dtype,
                     "x".join(map(str, k.group_size)), _params_text(k.params),
                     m.device.device)] = float(m.time_s)
    return out


def attach_twin_times(data: pd.DataFrame, twins: Mapping[TwinKey, float]) -> pd.DataFrame:
    """``data`` with a ``f_wr_wall_time`` column (NaN where no twin was measured)."""
    out = data.copy()
    devices = out["device"] if "device" in out else pd.Series([""] * len(out))
    out[TWIN_TIME] = [twins.get(twin_key(k, v, d, g, p, dev), np.nan)
                      for k, v, d, g, p, dev in zip(out["kernel"], out["variant"],
                                                    out["dtype"], out["group_size"],
                                                    out["params"], devices)]
    return out


@functools.lru_cache(maxsize=64)
def compute_units(device: str) -> int:
    """Compute units (SMs, CUs) of a device, by its OpenCL name."""
    from workbench.hardware.description import SHIPPED, load_device_model

    for name in SHIPPED:
        model = load_device_model(name)
        if model.name == device:
            return int(model.compute_units.value)
    try:
        from workbench.measure.devices import list_devices
        for d in list_devices():
            if d.name == device:
                return int(d.compute_units)
    except Exception:  # noqa: BLE001 - no OpenCL here: fall through to the message
        pass
    raise ModelError(f"{CU_BALANCE} needs the compute-unit count of {device!r}: it is "
                     "neither a shipped device description nor an OpenCL device here")


def cu_balance(groups: np.ndarray, units: int) -> np.ndarray:
    groups = np.asarray(groups, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(groups > 0, units * np.ceil(groups / units) / groups, 1.0)
