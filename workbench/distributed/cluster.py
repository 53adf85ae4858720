"""Where the work runs: a local cluster of one worker per GPU, or an existing one.

``local-gpus`` starts a Dask cluster on this host: one device worker per OpenCL device
matching ``--device`` (one thread, the resource ``device=1`` and the device's index in
:data:`~workbench.distributed.worker.DEVICE_ENV`), and CPU workers (``cpu=1``) for
code generation and builds.  ``tcp://HOST:PORT`` connects to a running scheduler whose
workers were started the same way (docs/many-gpus.md shows dask-jobqueue on SLURM and PBS).
Either way the workers are checked (:mod:`.checks`) before any work is sent.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

from workbench.distributed.checks import ClusterWorkers, check_workers
from workbench.distributed.worker import (
    CPU_RESOURCE,
    DEVICE_ENV,
    DEVICE_RESOURCE,
    Binding,
    library_stack,
    probe,
)
from workbench.errors import DistributedError, ParameterError, SchedulerUnreachableError
from workbench.measure.devices import DeviceInfo, find_device, list_devices

LOCAL_GPUS = "local-gpus"
_SCHEMES = ("tcp", "tls")


@dataclass(frozen=True)
class SchedulerSpec:
    """``--scheduler`` and its options, validated.

    ``workers_per_device`` and ``cpu_workers`` shape a ``local-gpus`` cluster (more
    than one worker per device is for tests on a single device: their timings disturb
    each other); ``cpu_workers=None`` takes the cores the device workers leave.
    ``timeout_s`` bounds connecting and waiting for a first worker.
    """

    address: str
    workers_per_device: int = 1
    cpu_workers: int | None = None
    timeout_s: float = 10.0
    dashboard_address: str = ":8787"

    def __post_init__(self):
        if not self.local:
            parts = urlsplit(self.address)
            try:
                port = parts.port
            except ValueError:
                port = None
            if parts.scheme not in _SCHEMES or not parts.hostname or port is None:
                raise ParameterError(f"--scheduler is {LOCAL_GPUS} or tcp://HOST:PORT, not "
                                     f"{self.address!r}")
            if self.workers_per_device != 1 or self.cpu_workers is not None:
                raise ParameterError("--workers-per-device and --cpu-workers shape a "
                                     f"{LOCAL_GPUS} cluster; a running one has its workers")
        if self.workers_per_device < 1:
            raise ParameterError("--workers-per-device must be at least 1")
        if self.cpu_workers is not None and self.cpu_workers < 0:
            raise ParameterError("--cpu-workers must be 0 or more")
        if not self.timeout_s > 0:
            raise ParameterError("--scheduler-timeout must be positive")

    @property
    def local(self) -> bool:
        return self.address == LOCAL_GPUS


@dataclass
class DaskSession:
    """A connected client, the cluster it started (if any) and its checked workers."""

    client: object
    cluster: object | None
    workers: ClusterWorkers
    address: str
    binding: Binding

    @property
    def device(self) -> DeviceInfo:
        return self.workers.device

    @property
    def selector(self) -> str | None:
        return self.binding.selector

    @property
    def dashboard_link(self) -> str | None:
        """The scheduler's dashboard, or None where it serves none."""
        services = self.client.scheduler_info().get("services", {})
        return self.client.dashboard_link if "dashboard" in services else None

    def dashboard_text(self) -> str:
        """The link, and what it needs: without bokeh the page says only that."""
        import importlib.util

        link = self.dashboard_link
        if link is None:
            return "not served by this scheduler"
        if self.cluster is not None and importlib.util.find_spec("bokeh") is None:
            return f"{link} (needs bokeh: pip install 'bokeh>=3.1')"
        return link

    def describe(self) -> str:
        return (f"Dask scheduler {self.address}: {len(self.workers.device_workers)} "
                f"device worker(s) on {self.device.name}, "
                f"{len(self.workers.cpu_workers)} CPU worker(s)")

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()

    def __enter__(self) -> DaskSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def matching_devices(selector: str | None) -> list[DeviceInfo]:
    """Every device of this host that ``--device`` names (one for an index or none).

    Only the first match's platform counts: one GPU can appear under two platforms
    (the vendor's and pocl's CUDA driver), and a campaign measures through one.
    """
    first = find_device(selector)
    if selector is None or str(selector).strip() == "" or str(selector).isdigit():
        return [first]
    wanted = str(selector).lower()
    return [d for d in list_devices() if d.platform == first.platform
            and wanted in f"{d.platform} {d.name}".lower()]


def local_gpus_cluster(spec: SchedulerSpec, selector: str | None):
    """A SpecCluster of Nanny-supervised workers: a killed worker is restarted, and
    the tasks it held go to another."""
    from distributed import Nanny, Scheduler, SpecCluster

    devices = matching_devices(selector)
    device_workers = len(devices) * spec.workers_per_device
    cpus = spec.cpu_workers if spec.cpu_workers is not None else \
        max(1, (os.cpu_count() or 1) - device_workers)
    # memory_limit=0: the workers hold kernels and device buffers, not Dask data, and a
    # nanny that restarts a busy device worker at a memory threshold would lose timings
    workers = {}
    for d in devices:
        for k in range(spec.workers_per_device):
            workers[f"device{d.index}-{k}"] = {"cls": Nanny, "options": {
                "nthreads": 1, "resources": {DEVICE_RESOURCE: 1}, "memory_limit": 0,
                "silence_logs": logging.ERROR,
                "env": {DEVICE_ENV: str(d.index)}}}
    for k in range(cpus):
        workers[f"cpu-{k}"] = {"cls": Nanny, "options": {
            "nthreads": 1, "resources": {CPU_RESOURCE: 1}, "memory_limit": 0,
            "silence_logs": logging.ERROR}}
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": spec.dashboard_address}}
    # Ctrl-C (and timeout -s INT) signal the whole process group; the workers must not
    # die of it mid-task, with a traceback each: the client stops them once it has
    # recorded what came back.  They are spawned ignoring SIGINT, which a new Python
    # process keeps.
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main_thread else None
    try:
        return SpecCluster(workers=workers, scheduler=scheduler,
                           silence_logs=logging.ERROR, name=LOCAL_GPUS)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def open_session(spec: SchedulerSpec, selector: str | None) -> DaskSession:
    """Start or reach the cluster, connect, and check its workers for ``selector``."""
    from distributed import Client

    cluster = local_gpus_cluster(spec, selector) if spec.local else None
    address = cluster.scheduler_address if cluster is not None else spec.address
    try:
        client = Client(address, timeout=spec.timeout_s, set_as_default=False)
    except (OSError, TimeoutError) as err:
        if cluster is not None:
            cluster.close()
        raise SchedulerUnreachableError(
            f"cannot reach the Dask scheduler at {address} within {spec.timeout_s:g} s "
            f"({type(err).__name__}); is it running? ('dask scheduler' prints its "
            "address)") from None
    try:
        try:
            client.wait_for_workers(1, timeout=spec.timeout_s)
        except TimeoutError:
            raise DistributedError(f"no worker joined the Dask cluster at {address} "
                                   f"within {spec.timeout_s:g} s") from None
        try:
            # only the device workers are probed before work starts: a CPU worker still
            # importing loopy would hold every campaign back, and its first task checks
            # its library versions anyway (worker.checked)
            probes = client.run(probe, selector, workers=_device_worker_addresses(client))
        except Exception as err:  # noqa: BLE001 - whatever a worker could not load
            raise DistributedError(
                f"a worker of {address} cannot run the workbench ({type(err).__name__}: "
                f"{str(err).splitlines()[0] if str(err) else ''}); install the client's "
                "environment on every worker") from None
        versions = library_stack()
        probes.update({a: {"role": "cpu", "versions": versions}
                       for a in _cpu_worker_addresses(client)})
        workers = check_workers(probes, versions, selector, address)
        binding = Binding(selector, tuple(sorted(versions.items())),
                          workers.device.identity.key)
    except BaseException:
        client.close()
        if cluster is not None:
            cluster.close()
        raise
    return DaskSession(client, cluster, workers, address, binding)


def _worker_addresses(client, resource: str) -> list[str]:
    workers = client.scheduler_info(n_workers=-1).get("workers", {})
    return sorted(a for a, w in workers.items() if w.get("resources", {}).get(resource))


def _device_worker_addresses(client) -> list[str] | None:
    """The workers holding a device resource, or None (probe them all) if none has one
    yet: the check then says what is missing."""
    return _worker_addresses(client, DEVICE_RESOURCE) or None


def _cpu_worker_addresses(client) -> list[str]:
    return _worker_addresses(client, CPU_RESOURCE)
