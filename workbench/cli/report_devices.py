"""Which device's measurements ``workbench report`` reads for a model: the model's own,
or, where the store holds another device only (H100 weights on an H200 store: the
cross-device question of Table 2), that device's; and what a store holds, said by
name and count where it holds nothing the report can use."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import DeviceError
from workbench.measure import DeviceIdentity, MeasurementStore


@dataclass(frozen=True)
class DeviceCount:
    device: DeviceIdentity
    successful: int


def store_contents(paths: Sequence[str | Path]) -> list[DeviceCount]:
    """Every device of the stores and its successful measurements, stores summed."""
    counts: dict[str, list] = {}
    for path in paths:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            for device in store.devices():
                entry = counts.setdefault(device.key, [device, 0])
                entry[1] += len(store.measurements(device_key=device.key))
    return [DeviceCount(d, n) for d, n in counts.values()]


def says_contents(paths: Sequence[str | Path]) -> str:
    """``measurements-fp64.sqlite.xz holds 876 successful measurements of NVIDIA H200``."""
    contents = store_contents(paths)
    names = ", ".join(Path(p).name for p in paths)
    if not contents:
        return f"{names} holds no measurements"
    return f"{names} holds " + "; ".join(
        f"{c.successful} successful measurement{'s' if c.successful != 1 else ''} of "
        f"{c.device.device} ({c.device.platform})" for c in contents)


@dataclass(frozen=True)
class ReportDevices:
    """The device the weights were fitted on and the device measured (equal, except
    for a cross-device report)."""

    weights_device: str
    measured: DeviceIdentity

    @property
    def crossed(self) -> bool:
        return bool(self.weights_device) and self.weights_device != self.measured.device

    def says(self, weights: str, stores: Sequence[str | Path]) -> str:
        return (f"weights fitted on {self.weights_device or 'an unnamed device'} "
                f"({weights}); measurements of {self.measured.device} "
                f"({', '.join(Path(p).name for p in stores)})")


def report_devices(model, paths: Sequence[str | Path], selector: str | None
                   ) -> ReportDevices:
    """The model's device where the stores hold its measurements; else the device
    ``selector`` (a name substring) picks, or the stores' only device with successful
    measurements.  Refused, naming what the stores hold, where none fits."""
    contents = [c for c in store_contents(paths) if c.successful]
    weights_device = dict(getattr(model, "device", {}) or {}).get("device", "")
    own = DeviceIdentity.from_dict(model.device).key if getattr(model, "device", None) \
        else None
    if selector:
        hits = [c for c in contents if selector.lower() in
                f"{c.device.platform} {c.device.device} {c.device.key}".lower()]
    else:
        hits = [c for c in contents if c.device.key == own] or contents
    if len(hits) == 1:
        return ReportDevices(weights_device, hits[0].device)
    held = says_contents(paths)
    if not hits:
        wanted = f"no device matching {selector!r}" if selector else \
            "no successful measurements"
        raise DeviceError(f"{held}: {wanted}")
    fitted = weights_device or "no named device"
    raise DeviceError(f"{held}: the weights were fitted on {fitted}; name the device to "
                      "report on with --device")
