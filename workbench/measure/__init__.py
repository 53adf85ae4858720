"""Devices, the timing protocol, campaigns and the durable measurement store."""

from workbench.measure.campaign import Campaign, CampaignSettings, Progress
from workbench.measure.devices import (
    DeviceInfo,
    find_device,
    list_devices,
    open_device,
    short_device_name,
)
from workbench.measure.provenance import DeviceIdentity, library_versions
from workbench.measure.runner import KernelRunner, TimingProtocol
from workbench.measure.store import (
    ConfigKey,
    Measurement,
    MeasurementStore,
    Status,
    default_store_path,
)

__all__ = [
    "Campaign", "CampaignSettings", "ConfigKey", "DeviceIdentity", "DeviceInfo",
    "KernelRunner", "Measurement", "MeasurementStore", "Progress", "Status",
    "TimingProtocol", "default_store_path", "find_device", "library_versions",
    "list_devices", "open_device", "short_device_name",
]
