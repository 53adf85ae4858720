"""Print a CUDA device's cache and SM facts as JSON (for device descriptions).

Reads CuPy's device attributes and properties; run on the GPU machine:
    python benchmarks/device_facts.py > facts.json
"""

from __future__ import annotations

import json

import cupy as cp

from workbench.measure.provenance import utc_now_iso

dev = cp.cuda.Device(0)
attrs = dev.attributes
props = cp.cuda.runtime.getDeviceProperties(0)
keys = ["MultiProcessorCount", "L2CacheSize", "MaxSharedMemoryPerMultiprocessor",
        "MaxSharedMemoryPerBlockOptin", "MaxThreadsPerMultiProcessor",
        "MaxRegistersPerMultiprocessor", "WarpSize", "ClockRate", "MemoryClockRate",
        "GlobalMemoryBusWidth", "MaxBlocksPerMultiprocessor", "ComputeCapabilityMajor",
        "ComputeCapabilityMinor", "PersistingL2CacheMaxSize"]
facts = {k: attrs.get(k) for k in keys}
name = props["name"]
print(json.dumps({"device": name.decode() if isinstance(name, bytes) else name,
                  "attributes": facts, "cupy": cp.__version__,
                  "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
                  "driver": cp.cuda.runtime.driverGetVersion(),
                  "timestamp": utc_now_iso()}, indent=2))
