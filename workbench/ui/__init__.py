"""Jupyter widget panels of the workbench (ipywidgets 8, plotly FigureWidget).

Each panel is an ipywidgets container, usable on its own (``display(panel)``) or
composed by :func:`dashboard`.  Panels share a :class:`Session` (the chosen kernel,
device, store and model); data work stays in the layers below, so every panel is a
thin view of it.  Failures show as one line in the ``wb-error`` area, never as a
traceback in the notebook.

Stable CSS classes, for finding the widgets in a browser: ``wb-dashboard``,
``wb-kernel-select``, ``wb-variant-select``, ``wb-params``, ``wb-group-size``,
``wb-device-select``, ``wb-properties-table``, ``wb-show-symbolic``,
``wb-calibrate-button``, ``wb-cancel-button``, ``wb-progress``, ``wb-progress-label``,
``wb-weights-table``, ``wb-heatmap``, ``wb-scatter``, ``wb-worst-table``, ``wb-error``;
the tuning panel's ``wb-tuning-panel``, ``wb-tuning-space``, ``wb-tuning-source``,
``wb-tuning-strategy``, ``wb-tuning-run``, ``wb-tuning-cancel``, ``wb-tuning-progress``,
``wb-tuning-figure``, ``wb-tuning-table``; the explain panel's ``wb-explain-panel``,
``wb-explain-model``, ``wb-explain-heading``, ``wb-explain-terms``,
``wb-explain-summary``, ``wb-explain-roofline``; the dashboard's ``wb-tabs`` and each tab's ``wb-tab-page``.
"""

from workbench.ui.calibration_job import (
    CalibrationJob,
    CalibrationRequest,
    CalibrationSnapshot,
    FailedConfiguration,
    JobState,
)
from workbench.ui.calibration_panel import CalibrationPanel
from workbench.ui.dashboard import Dashboard, dashboard
from workbench.ui.errors_view import ErrorArea
from workbench.ui.explain_panel import ExplainPanel
from workbench.ui.explorer_panel import ExplorerPanel
from workbench.ui.heatmap_panel import HeatmapPanel
from workbench.ui.picker import KernelPicker
from workbench.ui.properties_panel import PropertiesPanel
from workbench.ui.session import (
    DeviceChoice,
    DeviceKind,
    KernelSelection,
    LoadedData,
    Session,
    available_devices,
)
from workbench.ui.tuning_panel import TuningPanel
from workbench.ui.weights_panel import WeightsPanel

__all__ = [
    "CalibrationJob", "CalibrationPanel", "CalibrationRequest", "CalibrationSnapshot",
    "Dashboard", "DeviceChoice", "DeviceKind", "ErrorArea", "ExplainPanel", "ExplorerPanel",
    "FailedConfiguration", "HeatmapPanel", "JobState", "KernelPicker", "KernelSelection",
    "LoadedData", "PropertiesPanel", "Session", "TuningPanel", "WeightsPanel",
    "available_devices",
    "dashboard",
]
