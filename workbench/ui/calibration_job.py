"""A calibration campaign in a background thread, reporting snapshots of its progress.

No widgets here: the job measures, keeps count, fits the linear model live (a cheap
refit without bootstrap whenever it reports, so a scatter can show predicted against
measured while rows arrive) and, once done, properly.  Whoever started it gets
:class:`CalibrationSnapshot`s through ``on_update``, in the job's thread, at most every
``update_interval_s`` and always at the end.  Cancelling is cooperative: the campaign
stops before its next configuration, and stays resumable in its store.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from workbench.errors import ModelError, ParameterError
from workbench.kernels import KernelSpec, format_group_size, get_kernel
from workbench.measure import (
    Campaign,
    CampaignSettings,
    DeviceInfo,
    Measurement,
    MeasurementStore,
    Status,
    open_device,
)
from workbench.models import FittedModel, UnifiedLinearModel, build_dataset
from workbench.reports import predictions
from workbench.ui.errors_view import one_line
from workbench.ui.session import DATA_LOCK


class JobState(enum.Enum):
    IDLE = "idle"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    FAILED = "failed"

    @property
    def final(self) -> bool:
        return self in (JobState.FINISHED, JobState.CANCELLED, JobState.FAILED)


@dataclass(frozen=True)
class CalibrationRequest:
    """What to measure, where, and how to fit afterwards."""

    device: DeviceInfo
    store_path: Path
    kernels: tuple[str, ...] = ()            # empty: the whole catalog
    quick: bool = True
    specs: tuple[KernelSpec, ...] | None = None  # explicit kernels instead of names
    name: str | None = None                  # campaign name (resumes if unfinished)
    bootstrap: int = 100                     # resamples for the final fit's intervals
    # measured at six work-group shapes (the test kernels always are, in a quick run):
    # the kernel chosen in the dashboard, so that its heatmap has a cell per shape
    grid_kernels: tuple[str, ...] = ()

    def __post_init__(self):
        if self.bootstrap < 0:
            raise ParameterError(f"bootstrap must be >= 0, got {self.bootstrap}")
        if self.specs is None:
            for name in self.kernels:
                get_kernel(name)  # an unknown name fails here, before anything runs

    @property
    def settings(self) -> CampaignSettings:
        kernels = () if self.specs is not None else self.kernels
        return CampaignSettings.quick(kernels, self.grid_kernels) if self.quick \
            else CampaignSettings(kernels=kernels)

    @property
    def campaign_name(self) -> str:
        if self.name:
            return self.name
        names = [s.name for s in self.specs] if self.specs is not None else self.kernels
        # the kernel list is part of the name: an unfinished campaign of another
        # list would otherwise refuse to resume ("different settings")
        grid = [k for k in self.grid_kernels
                if self.quick and k not in CampaignSettings.quick().grid_kernels]
        return ("ui-quick" if self.quick else "ui-full") + (
            ":" + ",".join(names) if names else "") + (
            ";shapes:" + ",".join(grid) if grid else "")


@dataclass(frozen=True)
class FailedConfiguration:
    """A configuration that did not build or launch, with the last line of its log."""

    kernel: str
    variant: str
    params: str
    group_size: str
    status: str
    reason: str

    @classmethod
    def of(cls, m: Measurement) -> FailedConfiguration:
        lines = [line.strip() for line in m.log.splitlines() if line.strip()]
        return cls(m.key.kernel, m.key.variant,
                   ",".join(f"{k}={v}" for k, v in m.key.params),
                   format_group_size(m.key.group_size), m.status.value,
                   lines[-1] if lines else "")


@dataclass(frozen=True, eq=False)
class CalibrationSnapshot:
    """Where a job stands; ``live`` holds predictions of the rows measured so far."""

    state: JobState
    done: int = 0
    planned: int = 0
    elapsed_s: float = 0.0
    current: str = ""
    measured: int = 0
    failures: tuple[FailedConfiguration, ...] = ()
    live: pd.DataFrame | None = None
    model: FittedModel | None = None
    store_path: Path | None = None
    campaign_id: int | None = None
    error: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def eta_s(self) -> float | None:
        if self.done <= 0 or self.planned <= self.done:
            return None if self.done <= 0 else 0.0
        return self.elapsed_s / self.done * (self.planned - self.done)

    @property
    def label(self) -> str:
        """The progress line; only a completed job's contains the word ``finished``."""
        counts = f"{self.done}/{self.planned}"
        failed = f", {len(self.failures)} failed" if self.failures else ""
        if self.state is JobState.IDLE:
            return "press calibrate to measure"
        if self.state is JobState.RUNNING:
            eta = self.eta_s
            return (f"{counts} configurations{failed}, {self.elapsed_s:.0f} s elapsed, ETA "
                    + (f"{eta:.0f} s" if eta is not None else "...")
                    + (f"; measuring {self.current}" if self.current else ""))
        if self.state is JobState.FINISHED:
            fit = "linear model fitted" if self.model is not None else "no model fitted"
            return (f"finished: {counts} configurations in {self.elapsed_s:.1f} s{failed}; "
                    f"{fit}")
        if self.state is JobState.CANCELLED:
            return (f"cancelled after {counts} configurations{failed}; calibrate again "
                    "with the same store to resume")
        return f"stopped by an error after {counts} configurations: {self.error}"


class CalibrationJob:
    """Runs one :class:`CalibrationRequest` in a daemon thread."""

    def __init__(self, request: CalibrationRequest,
                 on_update: Callable[[CalibrationSnapshot], None] | None = None, *,
                 update_interval_s: float = 0.25, live_fit: bool = True):
        self.request = request
        self.on_update = on_update
        self.update_interval_s = update_interval_s
        self.live_fit = live_fit
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._snapshot = CalibrationSnapshot(JobState.IDLE, store_path=request.store_path)
        self._ok: list[Measurement] = []
        self._failures: list[FailedConfiguration] = []
        self._last_publish = 0.0
        self._live: pd.DataFrame | None = None
        self._live_rows = 0
        self.callback_errors: list[str] = []  # on_update failures, kept for debugging

    # -- control --------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("a calibration job runs once; make a new one")
        self._snapshot = replace(self._snapshot, state=JobState.RUNNING)
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="workbench-calibration")
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the job; True once it has ended."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def snapshot(self) -> CalibrationSnapshot:
        return self._snapshot

    # -- the thread -----------------------------------------------------------------

    def _run(self) -> None:
        request = self.request
        began = time.perf_counter()
        state, error, model, campaign_id, notes = JobState.RUNNING, "", None, None, ()
        progress = {"done": 0, "planned": 0, "current": ""}

        def on_progress(event) -> None:
            progress["done"], progress["planned"] = event.done, max(event.planned, event.done)
            if event.key is not None:
                progress["current"] = f"{event.key.kernel}/{event.key.variant}"

        def publish(final_state=JobState.RUNNING, force=False) -> None:
            now = time.perf_counter()
            if not force and now - self._last_publish < self.update_interval_s:
                return
            self._last_publish = now
            if final_state is JobState.RUNNING and self.live_fit:
                self._refit_live()
            self._publish(CalibrationSnapshot(
                final_state, progress["done"], progress["planned"], now - began,
                progress["current"], len(self._ok), tuple(self._failures), self._live,
                model, request.store_path, campaign_id, error, notes))

        try:
            _, queue = open_device(request.device)
            with MeasurementStore.open(request.store_path) as store:
                campaign = Campaign(store, request.device, queue, request.settings,
                                    name=request.campaign_name, specs=request.specs)
                campaign_id = campaign.campaign_id
                progress["planned"] = campaign.planned_count()
                publish(force=True)
                for m in campaign.iterate(on_progress, should_stop=self._cancel.is_set):
                    if m.status is Status.OK:
                        self._ok.append(m)
                    else:
                        self._failures.append(FailedConfiguration.of(m))
                    publish()
                if campaign.timings.stopped:
                    state = JobState.CANCELLED
                else:
                    store.finish_campaign(campaign_id)
                    stored = store.measurements(campaign=campaign_id)
            if state is JobState.RUNNING:
                model, notes = self._fit(stored)
                state = JobState.FINISHED
                # a kernel whose size search fails records one row per group size
                # instead of one per planned size case: done is the true total
                progress["planned"] = progress["done"]
        except Exception as err:  # noqa: BLE001 - reported in the snapshot, not raised
            state, error = JobState.FAILED, one_line(err)
        finally:
            if not state.final:  # only a BaseException gets here
                state, error = JobState.FAILED, "interrupted"
            if self.live_fit and state is not JobState.FAILED and model is None:
                self._refit_live(blocking=True)
            publish(state, force=True)

    def _fit(self, stored: list[Measurement]) -> tuple[FittedModel | None, tuple[str, ...]]:
        """The linear model on the campaign's rows; a fit that cannot be made is a
        note (too few kernels measured, say), not a failed calibration."""
        with DATA_LOCK:  # (no catch_warnings in a thread: see session.load_session_data)
            data = build_dataset(stored)
            try:
                model = UnifiedLinearModel().fit(
                    data, bootstrap=self.request.bootstrap,
                    device=self.request.device.identity.to_dict(),
                    provenance={"store": str(self.request.store_path),
                                "campaign": self.request.campaign_name})
            except ModelError as err:
                return None, (f"no model fitted: {err}",)
            # the scatter's last word: the final model's predictions of every row
            self._live, self._live_rows = predictions(model, data), len(self._ok)
        return model, ()

    def _refit_live(self, blocking: bool = False) -> None:
        """Predictions of the rows so far by a model fitted on them (no bootstrap)."""
        if len(self._ok) == self._live_rows:
            return
        if not DATA_LOCK.acquire(blocking=blocking):
            return  # another load holds it: measuring goes on, the plot waits
        try:
            rows = list(self._ok)
            data = build_dataset(rows)
            model = UnifiedLinearModel().fit(data, bootstrap=0)
            self._live, self._live_rows = predictions(model, data), len(rows)
        except Exception:  # noqa: BLE001 - too few rows yet, or a rank-deficient start
            pass
        finally:
            DATA_LOCK.release()

    def _publish(self, snapshot: CalibrationSnapshot) -> None:
        self._snapshot = snapshot
        if self.on_update is None:
            return
        try:
            self.on_update(snapshot)
        except Exception as err:  # noqa: BLE001 - a display bug must not stop measuring
            self.callback_errors.append(one_line(err))
