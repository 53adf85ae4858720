"""OpenCL devices: what is there, and which one the user means."""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.errors import DeviceError
from workbench.measure.provenance import DeviceIdentity

POCL_PLATFORM = "Portable Computing Language"

# a GPU model number: H100, H200, A100, V100, L40S, MI300X, RTX 4090 ...
_GPU_MODEL = re.compile(r"\b((?:MI|RTX |GTX )?[A-Z]{0,2}\d{2,4}[A-Z]?)\b")


def short_device_name(device: str, platform: str = "", *, limit: int = 14) -> str:
    """A name short enough for a table header: ``"NVIDIA H100 80GB HBM3"`` ->
    ``"H100"``, pocl's ``"pthread-haswell-AMD EPYC 7B13 64-Core Processor"`` ->
    ``"pocl CPU"``; anything else cut to ``limit`` characters (show the full name
    on hover)."""
    name = " ".join(str(device).split())
    if POCL_PLATFORM in platform or re.match(r"(pthread|cpu|basic|tbb)-", name):
        return "pocl CPU"
    if re.search(r"nvidia|geforce|tesla|quadro|radeon|instinct|amd|intel", name, re.I):
        found = _GPU_MODEL.search(name.replace("NVIDIA ", ""))
        if found and not found.group(1).isdigit():
            return found.group(1)
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "\u2026"


@dataclass(frozen=True)
class DeviceInfo:
    """The facts later steps use; ``index`` is the position in :func:`list_devices`."""

    index: int
    platform: str
    name: str
    vendor: str
    driver_version: str
    device_type: str
    compute_units: int
    global_mem_bytes: int
    max_alloc_bytes: int
    local_mem_bytes: int
    max_work_group_size: int
    subgroup_size: int | None

    @property
    def identity(self) -> DeviceIdentity:
        return DeviceIdentity(platform=self.platform, device=self.name,
                              driver=self.driver_version, vendor=self.vendor)

    @property
    def label(self) -> str:
        return f"[{self.index}] {self.name} ({self.platform}, driver {self.driver_version})"


def _subgroup_size(dev) -> int | None:
    import pyopencl as cl

    for attr in ("WARP_SIZE_NV", "WAVEFRONT_WIDTH_AMD"):
        code = getattr(cl.device_info, attr, None)
        if code is not None:
            try:
                return int(dev.get_info(code))
            except cl.Error:
                pass
    return None


def _opencl_devices():
    try:
        import pyopencl as cl
    except ImportError as err:  # pragma: no cover - pyopencl is a dependency
        raise DeviceError(f"pyopencl is not importable: {err}") from err
    try:
        platforms = cl.get_platforms()
    except cl.Error as err:
        raise DeviceError(
            "no OpenCL platform found. Install an ICD, e.g. Debian's pocl-opencl-icd "
            f"(apt-get install pocl-opencl-icd) ({err})") from err
    out = []
    for platform in platforms:
        try:
            devices = platform.get_devices()
        except cl.Error:
            continue
        out.extend((platform, d) for d in devices)
    return out


def list_devices() -> list[DeviceInfo]:
    import pyopencl as cl

    infos = []
    for index, (platform, dev) in enumerate(_opencl_devices()):
        infos.append(DeviceInfo(
            index=index,
            platform=platform.name.strip(),
            name=dev.name.strip(),
            vendor=dev.vendor.strip(),
            driver_version=dev.driver_version.strip(),
            device_type=cl.device_type.to_string(dev.type),
            compute_units=int(dev.max_compute_units),
            global_mem_bytes=int(dev.global_mem_size),
            max_alloc_bytes=int(dev.max_mem_alloc_size),
            local_mem_bytes=int(dev.local_mem_size),
            max_work_group_size=int(dev.max_work_group_size),
            subgroup_size=_subgroup_size(dev),
        ))
    return infos


def find_device(selector: str | int | None = None) -> DeviceInfo:
    """By index, by a case-insensitive substring of "platform device", or the default.

    The default is the pocl CPU device (reproducible anywhere), else the first device.
    """
    devices = list_devices()
    if not devices:
        raise DeviceError("no OpenCL device found; install pocl-opencl-icd or a GPU driver")
    if selector is None or selector == "":
        for d in devices:
            if POCL_PLATFORM in d.platform:
                return d
        return devices[0]
    if isinstance(selector, int) or str(selector).isdigit():
        i = int(selector)
        if not 0 <= i < len(devices):
            raise DeviceError(f"device index {i} out of range 0..{len(devices) - 1}")
        return devices[i]
    wanted = str(selector).lower()
    matches = [d for d in devices if wanted in f"{d.platform} {d.name}".lower()]
    if not matches:
        raise DeviceError(f"no OpenCL device matches {selector!r}; available: "
                          + "; ".join(d.label for d in devices))
    return matches[0]


def open_device(info: DeviceInfo):
    """An OpenCL context and a profiling-enabled queue on the device."""
    import pyopencl as cl

    _, dev = _opencl_devices()[info.index]
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    return ctx, queue
