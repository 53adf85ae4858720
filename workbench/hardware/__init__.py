"""Device descriptions: what the analytical models need to know of a GPU.

A description (:mod:`.description`, a versioned JSON per device under ``data/``)
holds compute units, L1 and L2 capacities, line and sector sizes, L1 banks, bandwidth
per memory level and fitted capacity-miss functions, each figure with its source
("measured", "queried" from the driver, "spec" from a vendor document or paper,
"fitted").  The roofline model (:mod:`workbench.models.roofline`) and the in-situ
model's load-balance feature read them.  Shipped: ``h100`` (measured and queried on
the device) and ``v100`` (from Ernst et al.).

:mod:`.build_info` reads what the compiler decided for a built kernel (registers,
spills, shared memory, from NVIDIA's ``-cl-nv-verbose`` log) and keeps it per
configuration in a versioned file (``workbench build-info``).
"""

from workbench.hardware.build_info import (
    BuildInfoFile,
    BuildKey,
    BuildRecord,
    KernelBuildInfo,
    load_build_info,
    parse_build_log,
)
from workbench.hardware.description import (
    SHIPPED,
    DeviceModel,
    Figure,
    MissFunction,
    load_device_model,
)

__all__ = ["SHIPPED", "BuildInfoFile", "BuildKey", "BuildRecord", "DeviceModel", "Figure",
           "KernelBuildInfo", "MissFunction", "load_build_info", "load_device_model",
           "parse_build_log"]
