"""A calibration campaign spread over a Dask cluster, the client the one writer.

The client plans as :class:`~workbench.measure.campaign.Campaign` does (same kernels,
cases, group sizes and skip of stored configurations, the same resumable campaign row)
and sends each device-bound step to a device worker: the overhead kernel first (its
time sets the size search's threshold), then one size search per kernel, variant and
dtype whose exponent is not yet stored, and one task per configuration.  Each result
is committed by the client as it arrives, so a killed client loses only what was in
flight, and the same command resumes; a task of a killed worker is run again on
another (Dask reschedules it), and its one result is recorded once.

A configuration that keeps killing its workers (a crashing driver) ends as
``LAUNCH_FAILED`` with Dask's message, as a launch failure would, and the campaign
goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from workbench.distributed import tasks
from workbench.distributed.cluster import DaskSession
from workbench.distributed.worker import CPU_RESOURCE, DEVICE_RESOURCE
from workbench.kernels import BuildRequest, DType, KernelSpec
from workbench.measure.campaign import (
    OVERHEAD_KERNEL,
    Campaign,
    CampaignSettings,
    Progress,
)
from workbench.measure.runner import ConfigurationFailed
from workbench.measure.store import Measurement, MeasurementStore, Status


class DistributedCampaign(Campaign):
    """The client side: the plan and the store of a campaign, its work on a cluster.

    The queue of a local campaign is absent here (None): every step that needs the
    device runs on a worker.
    """

    def __init__(self, session: DaskSession, store: MeasurementStore,
                 settings: CampaignSettings = CampaignSettings(), name: str = "calibration",
                 specs: tuple[KernelSpec, ...] | None = None):
        super().__init__(store, session.device, None, settings, name=name, specs=specs)
        self.session = session
        self._tasks: dict = {}     # future -> what it computes
        self._builds: dict = {}    # (kernel, request) -> its build on a CPU worker
        self._count = 0            # configurations done or found stored
        self._planned = 0
        self._began = time.perf_counter()
        self._on_progress: Callable[[Progress], None] | None = None

    def iterate(self, on_progress: Callable[[Progress], None] | None = None, *,
                should_stop: Callable[[], bool] | None = None) -> Iterator[Measurement]:
        """Record and yield each configuration as its result comes back."""
        from distributed import as_completed

        self._planned = self.planned_count()
        self._count = 0
        self._began = time.perf_counter()
        self._on_progress = on_progress
        pending = as_completed(loop=self.session.client.loop)
        try:
            # CPU workers build every kernel ahead, in the campaign's order; each
            # device task waits for its kernel's build (a Dask dependency)
            for spec, request in self.builds_ahead():
                self._built(spec, request)
            units = self._units()
            overhead = [u for u in units if u[0].name == OVERHEAD_KERNEL]
            for spec, dtype, variant in overhead:
                self._submit_cases(pending, spec, dtype, variant, spec.default_p)
            overhead_s = []
            yield from self._drain(pending, should_stop, overhead_s)
            if self.timings.stopped:
                return
            threshold = min(overhead_s) if overhead_s else self._stored_overhead()
            for spec, dtype, variant in units:
                if spec.name == OVERHEAD_KERNEL:
                    continue
                p = self._p_recorded.get((spec.name, variant, dtype))
                if p is not None:
                    self._submit_cases(pending, spec, dtype, variant, p)
                    continue
                request = spec.request(variant, dtype, self.group_sizes(spec)[-1])
                future = self.session.client.submit(
                    tasks.choose_exponent, self.session.binding, self.settings, spec,
                    request, threshold, self._built(spec, request),
                    resources={DEVICE_RESOURCE: 1}, pure=False)
                self._tasks[future] = ("size", spec, dtype, variant)
                pending.add(future)
            yield from self._drain(pending, should_stop, [])
        finally:
            for future in [*self._tasks, *self._builds.values()]:
                future.cancel()
            self._tasks.clear()
            self._builds.clear()

    # -- planning -----------------------------------------------------------------------

    def _units(self) -> list[tuple[KernelSpec, str, str]]:
        return [(spec, dtype, variant) for spec in self.specs()
                for dtype in self.settings.dtypes if DType(dtype) in spec.dtypes
                for variant in spec.variants]

    def _built(self, spec: KernelSpec, request: BuildRequest):
        """The future of this kernel's build on a CPU worker (0.0 without CPU workers:
        the device worker builds it itself)."""
        if not self.session.workers.cpu_workers:
            return 0.0
        key = (spec.name, request)
        future = self._builds.get(key)
        if future is None:
            future = self._builds[key] = self.session.client.submit(
                tasks.build_ahead, self.session.binding, spec, request,
                resources={CPU_RESOURCE: 1}, pure=False, priority=-len(self._builds))
        return future

    def _submit_cases(self, pending, spec: KernelSpec, dtype: str, variant: str,
                      p: int) -> None:
        for t, params in enumerate(self._cases(spec, variant, p)):
            for g in self.case_group_sizes(spec, t):
                if self._key(spec, variant, dtype, params, g) in self._done:
                    self.timings.skipped += 1
                    self._count += 1
                    continue
                request = spec.request(variant, dtype, g)
                extra = {"p": p, "t": t, "role": spec.role.value}
                # above the size searches: a kernel under way is finished first, so that
                # a worker keeps one case's buffers for its group sizes
                future = self.session.client.submit(
                    tasks.measure_configuration, self.session.binding, spec, request,
                    params, self.settings.protocol, self.campaign_id, extra,
                    self._built(spec, request),
                    resources={DEVICE_RESOURCE: 1}, pure=False, priority=1)
                self._tasks[future] = ("measure", spec, request, params, extra)
                pending.add(future)

    # -- results ------------------------------------------------------------------------

    def _drain(self, pending, should_stop, overhead_s: list[float]
               ) -> Iterator[Measurement]:
        for future in pending:
            if should_stop is not None and should_stop():
                self.timings.stopped = True
                return
            task = self._tasks.pop(future)
            if task[0] == "size":
                yield from self._sized(pending, future, *task[1:])
                continue
            m = self._result(future, *task[1:])
            if m.key.kernel == OVERHEAD_KERNEL and m.time_s is not None:
                overhead_s.append(m.time_s)
            self._count += 1
            self._report(m)
            yield m

    def _sized(self, pending, future, spec: KernelSpec, dtype: str, variant: str
               ) -> Iterator[Measurement]:
        try:
            found = future.result()
        except _killed_worker() as err:
            found = {"p": None, "stage": "launch", "log": _killed_log(err), "probe_s": 0.0}
        self.timings.probe_s += found["probe_s"]
        if found["p"] is not None:
            self._submit_cases(pending, spec, dtype, variant, found["p"])
            return
        failure = ConfigurationFailed(found["stage"], found["log"])
        for m in self._fail_all(spec, variant, dtype, self.group_sizes(spec), failure):
            self._count += 1
            self._report(m, failure.stage + " failed")
            yield m

    def _result(self, future, spec, request, params, extra) -> Measurement:
        try:
            result = future.result()
        except _killed_worker() as err:
            key = self._key(spec, request.variant, request.dtype.value, params,
                            request.group_size)
            m = Measurement.failed(key, Status.LAUNCH_FAILED, _killed_log(err),
                                   device=self.device.identity,
                                   discard_first=self.settings.protocol.discard_first,
                                   campaign=self.campaign_id, extra=extra)
        else:
            m = tasks.measurement_from_wire(result["measurement"])
            self.timings.build_s += result["build_s"]
            self.timings.run_s += result["run_s"]
        self.store.record(m)
        self._done.add(m.key)
        if m.status is Status.OK:
            self.timings.measured += 1
        else:
            self.timings.failed += 1
        return m

    def _report(self, m: Measurement, message: str = "") -> None:
        if self._on_progress is not None:
            self._on_progress(Progress(self._count, self._planned, m.key, m.status,
                                       m.time_s, message,
                                       time.perf_counter() - self._began))


def _killed_worker():
    from distributed import KilledWorker
    return KilledWorker


def _killed_log(err: Exception) -> str:
    return (f"the task killed every worker that ran it ({err}); a kernel that crashes "
            "the driver or runs out of host memory does that")
