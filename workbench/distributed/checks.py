"""Whether a cluster's workers can serve one campaign: checked before any work is sent.

Every device worker must see the requested device, and all of them the same kind
(platform, device, driver: one campaign is one device identity in the store); every
worker must run the client's library versions, since those shape the generated code
and the timings recorded with each row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from workbench.errors import DistributedError, VersionMismatchError, WorkerDeviceError
from workbench.measure.devices import DeviceInfo


@dataclass(frozen=True)
class ClusterWorkers:
    """The workers a campaign uses, by role, and the device they measure on."""

    device: DeviceInfo
    device_workers: tuple[str, ...]
    cpu_workers: tuple[str, ...]


def check_versions(client: Mapping[str, str], workers: Mapping[str, Mapping[str, str]]
                   ) -> None:
    """Raise :class:`VersionMismatchError` naming the first library that differs."""
    for address, versions in sorted(workers.items()):
        for name in sorted(set(client) | set(versions)):
            mine, theirs = client.get(name, "missing"), versions.get(name, "missing")
            if mine != theirs:
                others = sum(1 for v in workers.values() if v.get(name, "missing") != mine)
                raise VersionMismatchError(
                    f"library versions differ: {name} {mine} on the client, {theirs} on "
                    f"worker {address}" + (f" (and {others - 1} more workers)"
                                           if others > 1 else "")
                    + "; install the same environment on every worker")


def check_workers(probes: Mapping[str, Mapping], client_versions: Mapping[str, str],
                  selector: str | None, where: str) -> ClusterWorkers:
    """The roles and device of the probed workers (:func:`.worker.probe` of each)."""
    if not probes:
        raise DistributedError(f"the Dask cluster at {where} has no workers")
    check_versions(client_versions, {a: p["versions"] for a, p in probes.items()})
    devices = {a: p for a, p in probes.items() if p["role"] == "device"}
    if not devices:
        raise DistributedError(
            f"no worker of the Dask cluster at {where} has the resource device=1; start "
            "one per GPU with: dask worker ADDRESS --nthreads 1 --resources device=1")
    wanted = "the default device" if not selector else repr(selector)
    for address, p in sorted(devices.items()):
        if p["error"] is not None:
            raise WorkerDeviceError(f"worker {address} has no OpenCL device matching "
                                    f"{wanted}: {p['error']}")
        if p["nthreads"] != 1:
            raise DistributedError(
                f"device worker {address} runs {p['nthreads']} threads; a device worker "
                "needs --nthreads 1, so that nothing runs beside a timed kernel")
    infos = {a: DeviceInfo(**p["device"]) for a, p in devices.items()}
    kinds = {info.identity.key: (a, info) for a, info in sorted(infos.items())}
    if len(kinds) > 1:
        seen = "; ".join(f"{info.identity} on {a}" for a, info in kinds.values())
        raise WorkerDeviceError(
            f"the device workers see different devices ({seen}); a campaign measures "
            "one kind of device: pick it with --device, or run one cluster per kind")
    device = next(iter(kinds.values()))[1]
    cpus = tuple(sorted(a for a, p in probes.items() if p["role"] == "cpu"))
    return ClusterWorkers(device, tuple(sorted(devices)), cpus)
