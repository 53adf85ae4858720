"""What runs inside a Dask worker: binding to a device, and the tasks themselves.

A *device worker* has the Dask resource ``device=1`` and one thread, so that it runs one
task at a time and no other work disturbs a timing on its device.  It finds its OpenCL
device from :data:`DEVICE_ENV` (an index into :func:`~workbench.measure.list_devices`,
set per worker by ``--scheduler local-gpus``) or, when that is unset, as the first
device matching the client's ``--device`` (a worker started on a batch node that sees
one GPU).  A *CPU worker* has the resource ``cpu=1``: it generates code and builds
ahead of the device workers, and never times anything.

Each worker process keeps its OpenCL queue, kernel runner and evaluators between tasks
(module state: a worker runs in its own process, and a device worker runs one task at
a time), so a kernel built for one task is reused by the next.  The tasks themselves
are in :mod:`.tasks`.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

from workbench.distributed.checks import check_versions
from workbench.errors import DeviceError, WorkbenchError, WorkerDeviceError
from workbench.measure.devices import DeviceInfo, find_device, list_devices, open_device
from workbench.measure.provenance import library_versions
from workbench.measure.runner import KernelRunner

#: The environment variable that binds a device worker to one OpenCL device (its index
#: in ``workbench devices``).
DEVICE_ENV = "WORKBENCH_OPENCL_DEVICE"
#: Dask resources: a device worker holds one ``device``, a CPU worker one ``cpu``.
DEVICE_RESOURCE = "device"
CPU_RESOURCE = "cpu"

#: This process's state, shared with :mod:`.tasks`.
STATE: dict = {}


@dataclass(frozen=True)
class Binding:
    """What every task carries: the client's ``--device`` and library versions.

    The client checks the workers it finds at the start; one that joins later (a batch
    job that started late) is checked by its first task instead.
    """

    selector: str | None
    versions: tuple[tuple[str, str], ...]
    device_key: str = ""    # the identity the checked device workers share



def checked(binding: Binding) -> None:
    """Refuse to work under another library stack than the client's."""
    if STATE.get("checked") == binding.versions:
        return
    from distributed import get_worker

    check_versions(dict(binding.versions), {get_worker().address: library_stack()})
    STATE["checked"] = binding.versions


def worker_device(selector: str | None) -> DeviceInfo:
    """The device this process measures on (see the module docstring)."""
    bound = os.environ.get(DEVICE_ENV, "").strip()
    if not bound:
        return find_device(selector)
    devices = list_devices()
    if not bound.isdigit() or int(bound) >= len(devices):
        raise DeviceError(f"{DEVICE_ENV}={bound} names no device of this host; it has: "
                          + ("; ".join(d.label for d in devices) or "none"))
    device = devices[int(bound)]
    wanted = "" if selector is None else str(selector)
    if wanted and not wanted.isdigit() and \
            wanted.lower() not in f"{device.platform} {device.name}".lower():
        raise DeviceError(f"{DEVICE_ENV}={bound} is {device.label}, which does not "
                          f"match {selector!r}")
    return device


def library_stack() -> dict[str, str]:
    """The versions that must agree between client and workers: those stored with each
    measurement, and Dask's own (a task pickled by one cloudpickle must load in the
    other)."""
    import importlib.metadata as md

    versions = library_versions()
    for dist in ("dask", "distributed", "cloudpickle", "msgpack"):
        try:
            versions[dist] = md.version(dist)
        except md.PackageNotFoundError:
            versions[dist] = "unknown"
    return versions


def probe(selector: str | None, dask_worker=None) -> dict:
    """What the client checks of each worker before sending it work (run by
    ``Client.run``, which passes the worker)."""
    resources = dict(dask_worker.state.total_resources)
    out: dict = {"versions": library_stack(), "device": None, "error": None,
                 "role": "device" if resources.get(DEVICE_RESOURCE) else
                 "cpu" if resources.get(CPU_RESOURCE) else "other",
                 "nthreads": dask_worker.state.nthreads}
    if out["role"] == "device":
        try:
            out["device"] = asdict(worker_device(selector))
        except WorkbenchError as err:
            out["error"] = str(err)
    return out


def device_state(binding: Binding) -> dict:
    """This process's device, queue, runner and evaluators, made by its first task."""
    checked(binding)
    state = STATE.get(("device", binding.selector))
    if state is None:
        device = worker_device(binding.selector)
        if binding.device_key and device.identity.key != binding.device_key:
            from distributed import get_worker
            raise WorkerDeviceError(
                f"worker {get_worker().address} measures on {device.identity}, not on "
                f"the campaign's {binding.device_key}; a campaign measures one kind of "
                "device")
        _, queue = open_device(device)
        state = {"device": device, "runner": KernelRunner(queue), "args": (None, None),
                 "evaluators": {}}
        STATE[("device", binding.selector)] = state
    return state
