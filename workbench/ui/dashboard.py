"""Every panel on one page, wired through one session.

The panels are stacked rather than put in tabs: a calibration started at the top
updates the weights, the heatmaps and the explorer below it, and all of them stay in
view (and in the page, for whoever tests it in a browser).  The tuning panel, last,
compares search strategies on the catalog's tuning spaces (it computes only when its
run button is pressed).  One error area under the picker serves every panel.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import ipywidgets as widgets

from workbench.models import FittedModel
from workbench.ui.calibration_panel import CalibrationPanel
from workbench.ui.errors_view import ErrorArea
from workbench.ui.explorer_panel import ExplorerPanel
from workbench.ui.heatmap_panel import HeatmapPanel, study_label
from workbench.ui.picker import KernelPicker
from workbench.ui.properties_panel import PropertiesPanel
from workbench.ui.session import DeviceKind, Session
from workbench.ui.tuning_panel import TuningPanel
from workbench.ui.weights_panel import WeightsPanel


def _section(title: str, panel: widgets.Widget) -> widgets.VBox:
    box = widgets.VBox([widgets.HTML(f"<h3 style='margin:12px 0 4px'>{title}</h3>"), panel])
    box.add_class("wb-section")
    return box


class Dashboard(widgets.VBox):
    """The workbench in one widget; its panels are attributes for scripting.

    ``store`` and ``weights`` choose the data explored (default: the chosen device's
    shipped data); ``device`` picks the device (see
    :func:`workbench.ui.session.resolve_device`; default: the first shipped dataset,
    else this machine's default OpenCL device); ``namespace`` is where user kernels are
    looked up (default: the notebook's variables).  ``background=False`` loads data
    before returning, for scripts and tests.
    """

    def __init__(self, store: str | Path | None = None, device=None, *,
                 weights: FittedModel | str | Path | None = None, kernel: str | None = None,
                 namespace: Mapping[str, object] | None = None,
                 calibration_store: str | Path | None = None, quick: bool = True,
                 background: bool = True):
        self.session = Session(background=background)
        self.errors = ErrorArea()
        self.picker = KernelPicker(self.session, kernel=kernel, device=device,
                                   namespace=namespace, errors=self.errors)
        with self.errors.catching("data"):
            if store is not None:  # the store's own model, not the shipped device's
                self.session.use_data(store, weights)
            elif weights is not None:
                self.session.use_data(model=weights)
        self.properties = PropertiesPanel(self.session, show_picker=False, errors=self.errors)
        self.calibration = CalibrationPanel(self.session, store=calibration_store, quick=quick,
                                            errors=self.errors)
        shipped = [c.shipped for c in self.picker.device_choices
                   if c.kind is DeviceKind.SHIPPED]
        # the shipped linear models stay in the weights table, to compare against
        references = [d.linear_weights for d in shipped if d.linear_weights is not None]
        self.weights = WeightsPanel(self.session, models=references, errors=self.errors)
        studies = {f"{d.device}, {study_label(p)}": p
                   for d in shipped for p in d.block_studies}
        self.heatmaps = HeatmapPanel(self.session, block_studies=studies, errors=self.errors)
        self.explorer = ExplorerPanel(self.session, errors=self.errors)
        self.tuning = TuningPanel(self.session, errors=self.errors)
        super().__init__([
            widgets.HTML("<h2 style='margin:4px 0'>GPU kernel performance workbench</h2>"),
            self.picker, self.errors,
            _section("Properties", self.properties),
            _section("Calibration", self.calibration),
            _section("Fitted weights", self.weights),
            _section("Heatmaps", self.heatmaps),
            _section("Predicted vs measured", self.explorer),
            _section("Tuning: search strategies compared", self.tuning)])
        self.add_class("wb-dashboard")


def dashboard(store: str | Path | None = None, device=None, **options) -> Dashboard:
    """The composed dashboard (see :class:`Dashboard` for the options)."""
    return Dashboard(store, device, **options)
