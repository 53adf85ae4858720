"""The calibration launcher: measures in the background while the notebook stays
usable, with a progress bar, an ETA, a cancel button, a live predicted-vs-measured
scatter and the list of configurations that failed.  When the campaign is done it
fits the linear model and hands store and model to the session, so the weights,
explorer and heatmap panels show the new data without another click."""

from __future__ import annotations

import html
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import DeviceError
from workbench.kernels import KernelSpec
from workbench.measure import DeviceInfo, find_device
from workbench.ui.calibration_job import (
    CalibrationJob,
    CalibrationRequest,
    CalibrationSnapshot,
    JobState,
)
from workbench.ui.errors_view import ErrorArea
from workbench.ui.html_table import render_table
from workbench.ui.in_turn import handle_in_turn
from workbench.ui.session import DeviceChoice, Session, resolve_device, available_devices

SOURCE = "calibration"
START = "calibration setup"


class CalibrationPanel(widgets.VBox):
    """Calibrate an OpenCL device into a store (a temporary one unless named).

    The device is ``device`` when given (an OpenCL index, a name substring or a
    :class:`DeviceInfo`), else the session's device when it can be measured, else the
    default device (pocl's CPU device).  ``specs`` measures those kernel specs instead
    of catalog names (tests use it for a kernel that fails to build).
    """

    def __init__(self, session: Session | None = None, *, device=None,
                 store: str | Path | None = None, kernels: Sequence[str] = (),
                 quick: bool = True, specs: Sequence[KernelSpec] | None = None,
                 bootstrap: int = 100, update_interval_s: float = 0.25,
                 errors: ErrorArea | None = None):
        self.session = session if session is not None else Session()
        self.errors = errors if errors is not None else ErrorArea()
        self._device = device
        self._specs = tuple(specs) if specs is not None else None
        self._bootstrap = bootstrap
        self._interval = update_interval_s
        self._temporary_store: Path | None = None
        self.job: CalibrationJob | None = None

        self.device_label = widgets.HTML()
        self.device_label.add_class("wb-calibration-device")
        # what the calibration does with a kernel of the user's own: nothing (a newcomer
        # calibrated with theirs picked and looked for it in every tab)
        self.chosen_note = widgets.HTML()
        self.chosen_note.add_class("wb-calibration-chosen")
        self.kernels = widgets.Text(value=",".join(kernels), description="kernels",
                                    placeholder="all of the catalog")
        self.kernels.add_class("wb-calibration-kernels")
        self.quick = widgets.Checkbox(value=quick, description="quick (few runs and sizes)",
                                      indent=False)
        self.quick.add_class("wb-calibration-quick")
        self.store = widgets.Text(value=str(store) if store else "", description="store",
                                  placeholder="a temporary store",
                                  layout=widgets.Layout(width="420px"))
        self.store.add_class("wb-calibration-store")
        self.calibrate_button = widgets.Button(description="calibrate", button_style="primary",
                                               icon="play")
        self.calibrate_button.add_class("wb-calibrate-button")
        self.cancel_button = widgets.Button(description="cancel", button_style="warning",
                                            icon="stop", disabled=True)
        self.cancel_button.add_class("wb-cancel-button")
        self.progress = widgets.IntProgress(value=0, min=0, max=1, description="progress")
        self.progress.add_class("wb-progress")
        self.progress_label = widgets.Label(value=CalibrationSnapshot(JobState.IDLE).label)
        self.progress_label.add_class("wb-progress-label")
        self.scatter = _scatter_figure()
        self.scatter.add_class("wb-scatter")
        self.failures = widgets.HTML()
        self.failures.add_class("wb-failures")

        children = [self.device_label, self.chosen_note,
                    widgets.HBox([self.kernels, self.quick]), self.store,
                    widgets.HBox([self.calibrate_button, self.cancel_button]),
                    widgets.HBox([self.progress, self.progress_label]),
                    self.scatter, self.failures]
        if errors is None:
            children.append(self.errors)
        super().__init__(children)
        self.add_class("wb-calibration-panel")

        # the job reports its own errors under SOURCE from its thread, possibly before
        # this click handler returns; a success here must not clear those
        self.calibrate_button.on_click(self.errors.guard(START, lambda _: self.start()))
        self.cancel_button.on_click(self.errors.guard(SOURCE, lambda _: self.cancel()))
        self.session.observe(self.errors.guard(SOURCE, lambda _: self._show_device()),
                             names="device")
        self.session.observe(self.errors.guard(SOURCE, lambda _: self._show_chosen()),
                             names=["selection", "user_kernels"])
        with self.errors.catching(SOURCE):
            self._show_device()
            self._show_chosen()
        handle_in_turn(self, self.session.lock)

    # -- the public API --------------------------------------------------------------

    def start(self) -> CalibrationJob:
        """Start measuring (raises on bad input; the button's callback shows it)."""
        if self.job is not None and self.job.running:
            raise DeviceError("a calibration is already running; cancel it first")
        names = tuple(k.strip() for k in self.kernels.value.split(",") if k.strip())
        chosen = self.session.selection
        request = CalibrationRequest(
            device=self.target_device(), store_path=self._store_path(), kernels=names,
            quick=self.quick.value, specs=self._specs, bootstrap=self._bootstrap,
            grid_kernels=(chosen.name,) if chosen is not None else ())
        self.errors.clear(SOURCE)   # the previous run's message
        self.job = CalibrationJob(request, self._apply, update_interval_s=self._interval)
        self.progress.value, self.progress.max = 0, 1
        self.progress.bar_style = ""
        self.failures.value = ""
        self._plot(None)
        self.calibrate_button.disabled, self.cancel_button.disabled = True, False
        self.progress_label.value = "starting..."
        self.job.start()
        return self.job

    def cancel(self) -> None:
        """Stop before the next configuration (what is measured stays stored)."""
        if self.job is not None and self.job.running:
            self.job.cancel()
            self.cancel_button.disabled = True
            self.progress_label.value = "cancelling after the current configuration..."

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the running job (for scripts and tests); True once it has ended."""
        return self.job.join(timeout) if self.job is not None else True

    def target_device(self) -> DeviceInfo:
        """The OpenCL device a calibration measures (see the class docstring)."""
        if self._device is not None:
            choice = resolve_device(self._device, available_devices())
            if choice is None or choice.opencl is None:
                raise DeviceError(f"{self._device!r} is not an OpenCL device of this machine")
            return choice.opencl
        device = self.session.device
        if device is not None and device.opencl is not None:
            return device.opencl
        return find_device()

    # -- helpers --------------------------------------------------------------------

    def _store_path(self) -> Path:
        if self.store.value.strip():
            return Path(self.store.value.strip()).expanduser()
        if self._temporary_store is None:
            # one per panel: a cancelled calibration resumes on the next click
            folder = Path(tempfile.mkdtemp(prefix="workbench-calibration-"))
            self._temporary_store = folder / "measurements.sqlite"
        return self._temporary_store

    def _show_device(self) -> None:
        chosen = self.session.device
        try:
            target = self.target_device()
        except DeviceError as err:
            self.device_label.value = f"<i>cannot measure here: {html.escape(str(err))}</i>"
            self.calibrate_button.disabled = True
            return
        note = ""
        if chosen is not None and not chosen.measurable:
            note = (f" (the chosen device, {html.escape(chosen.device_name)}, is shipped "
                    "data: it cannot be measured here)")
        self.device_label.value = f"measures on <b>{html.escape(target.label)}</b>{note}"
        if self.job is None or not self.job.running:
            self.calibrate_button.disabled = False

    def _show_chosen(self) -> None:
        chosen = self.session.selection
        if chosen is None or chosen.name not in self.session.user_kernels:
            self.chosen_note.value = ""
            return
        sizes = ",".join(f"{k}={v}" for k, v in chosen.params)
        self.chosen_note.value = (
            f"<i>your kernel <b>{html.escape(chosen.name)}</b> is not measured by a "
            "calibration, which times the catalog's kernels at the sizes it knows; time "
            "it on this device from a terminal: <code>workbench measure "
            f"FILE.py:{html.escape(chosen.name)} --param {html.escape(sizes)}</code></i>")

    def _apply(self, snapshot: CalibrationSnapshot) -> None:
        """The job's report, in the job's thread (widget state syncs from any thread)."""
        self.progress.max = max(snapshot.planned, snapshot.done, 1)
        self.progress.value = snapshot.done
        if snapshot.failures:
            self.failures.value = ("<b>failed configurations</b> (the campaign went on)"
                                   + render_table(pd.DataFrame(
                                       [asdict(f) for f in snapshot.failures])))
        self._plot(snapshot.live)
        if not snapshot.state.final:
            self.progress_label.value = snapshot.label
            return
        self.calibrate_button.disabled, self.cancel_button.disabled = False, True
        self.progress.bar_style = {JobState.FINISHED: "success",
                                   JobState.CANCELLED: "warning"}.get(snapshot.state, "danger")
        if snapshot.state is JobState.FAILED:
            self.errors.show(snapshot.error, SOURCE)
        elif snapshot.notes:
            self.errors.show("; ".join(snapshot.notes), SOURCE)
        else:
            self.errors.clear(SOURCE)
        if snapshot.state is JobState.FINISHED:
            with self.errors.catching("calibration results"):
                self.session.device = DeviceChoice.of_opencl(self.job.request.device)
                self.session.use_data(snapshot.store_path, snapshot.model, wait=True)
        # last, so that whoever waits for "finished" finds the other panels updated
        self.progress_label.value = snapshot.label

    def _plot(self, live: pd.DataFrame | None) -> None:
        with self.scatter.batch_update():
            for trace, role in zip(self.scatter.data[:2], ("measurement", "test")):
                rows = live[live["role"] == role] if live is not None else None
                if rows is None or rows.empty:
                    trace.x, trace.y, trace.text = [], [], []
                    continue
                trace.x = (rows["time_s"] * 1e3).tolist()
                trace.y = (rows["predicted_s"] * 1e3).tolist()
                trace.text = [f"{k} [{v}] {p} group {g}" for k, v, p, g in
                              zip(rows["kernel"], rows["variant"], rows["params"],
                                  rows["group_size"])]
            diagonal = self.scatter.data[2]
            _show_axes(self.scatter, live is not None and len(live) > 0)
            if live is not None and len(live):
                values = np.concatenate([live["time_s"], live["predicted_s"]]) * 1e3
                values = values[np.isfinite(values) & (values > 0)]
                if values.size:
                    diagonal.x = diagonal.y = [float(values.min()), float(values.max())]


def _scatter_figure() -> go.FigureWidget:
    hover = "%{text}<br>measured %{x:.4g} ms<br>predicted %{y:.4g} ms<extra></extra>"
    fig = go.FigureWidget(data=[
        go.Scatter(x=[], y=[], mode="markers", name="measurement kernels (fitted)",
                   hovertemplate=hover),
        go.Scatter(x=[], y=[], mode="markers", name="test kernels", hovertemplate=hover,
                   marker=dict(symbol="diamond")),
        go.Scatter(x=[], y=[], mode="lines", name="exact",
                   line=dict(dash="dash", color="grey"), hoverinfo="skip")])
    fig.update_layout(title="predicted vs measured (live fit of the rows so far, final fit when done)",
                      xaxis=dict(type="log", title="measured (ms)"),
                      yaxis=dict(type="log", title="predicted (ms)"),
                      height=380, margin=dict(t=50, b=40, l=60, r=20))
    _show_axes(fig, False)
    return fig


#: what the chart says before it has points (drawn empty, it showed axes of nothing)
NO_POINTS = "no measurements yet: the chart fills as a calibration measures"


def _show_axes(fig: go.FigureWidget, shown: bool) -> None:
    """The axes once there are points; before, a line saying why there are none.  (The
    figure stays displayed: one first drawn hidden kept plotly's empty axes.)"""
    fig.update_xaxes(visible=shown)
    fig.update_yaxes(visible=shown)
    fig.layout.annotations = () if shown else (dict(
        text=NO_POINTS, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5,
        font=dict(size=14, color="grey")),)
