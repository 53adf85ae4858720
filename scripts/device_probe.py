"""What the calibration probes run on the device share (``h100_round15_probe.py``,
``h100_round16_probe.py``, ``h100_copy2d_probe.py``): their kernel module loaded from
``benchmarks/`` by path (the device copy has no installed package), a profiling queue on the
first GPU (a CPU only for a quick check), and a kernel's median time by OpenCL events."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path

REPEATS = 10
WARM_UP = 2


def load_benchmark_module(name: str):
    """``benchmarks/<name>.py`` as a module."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def profiling_queue():
    """(device, queue): the first GPU, else the first device, with profiling on."""
    import pyopencl as cl

    gpus = [d for p in cl.get_platforms() for d in p.get_devices(cl.device_type.GPU)]
    device = (gpus or cl.get_platforms()[0].get_devices())[0]
    queue = cl.CommandQueue(cl.Context([device]),
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    return device, queue


def header(device) -> str:
    """The device, its driver and the library versions, for a probe's first line."""
    import loopy as lp
    import pyopencl as cl

    return (f"{device.name}, driver {device.driver_version}; loopy {lp.VERSION}, pyopencl "
            f"{cl.VERSION_TEXT}")


def median_time(knl, queue, args) -> float:
    """Seconds: the median of REPEATS launches after WARM_UP, by profiling events (``knl`` a
    kernel, or its executor so that it is compiled once)."""
    times = []
    for k in range(WARM_UP + REPEATS):
        event, _ = knl(queue, **args)
        event.wait()
        if k >= WARM_UP:
            times.append((event.profile.end - event.profile.start) * 1e-9)
    return statistics.median(times)
