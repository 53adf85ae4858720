"""Every panel in one widget, wired through one session.

The header, the kernel picker and the one error area that serves every panel stay on
top; each panel has a tab of its own below them.  Stacked, the panels made a page about
4,000 pixels tall, of which a classroom laptop shows a fifth at a time; in tabs, a
panel taller than the window allows (:data:`TAB_HEIGHT`) scrolls in its own page, so
the dashboard fits one screen whichever tab is open.  Hidden tabs stay in the page and
wired to the session: a calibration run in its tab updates the weights, the explorer
and the heatmaps' store choice in theirs, and plotly draws each figure at its size
when its tab opens.  The
heatmaps open on the shipped block-size study rather than on the store: a quick
calibration measures one work-group shape per kernel, a single cell.  The tuning
panel, last, computes only when its run button is pressed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import ipywidgets as widgets

from workbench.models import FittedModel
from workbench.ui.calibration_panel import CalibrationPanel
from workbench.ui.errors_view import ErrorArea
from workbench.ui.explain_panel import ExplainPanel
from workbench.ui.explorer_panel import ExplorerPanel
from workbench.ui.heatmap_panel import HeatmapPanel, expand_studies
from workbench.ui.in_turn import handle_in_turn
from workbench.ui.picker import KernelPicker
from workbench.ui.properties_panel import PropertiesPanel
from workbench.ui.session import DeviceKind, Session
from workbench.ui.tuning_panel import TuningPanel
from workbench.ui.weights_panel import WeightsPanel


#: (tab title, attribute of the panel), in tab order
TABS = (("Properties", "properties"), ("Explain", "explain"),
        ("Calibration", "calibration"), ("Fitted weights", "weights"),
        ("Heatmaps", "heatmaps"), ("Predicted vs measured", "explorer"),
        ("Tuning", "tuning"))

#: the study the heatmaps open on: the reference case of the block-size study (and
#: the block_size_study notebook's default)
FIRST_STUDY = "star_stencil_3d-nofold"

#: the most height a tab's panel takes before it scrolls in its own page (px), and what
#: the rest takes: the header, the picker and the tab bar (220 and 253 px at 1366 and
#: 1280 px wide), the dashboard's foot and JupyterLab's bars above and below the
#: notebook (120 px).  A fixed 600 px made the dashboard 838 and 870 px tall on
#: 1366x768 and 1280x800 screens (newuser19): the page scrolled before the plots
#: showed; within the window's height less the rest, the whole dashboard fits the
#: notebook's view (596 and 660 px there, headless Chromium, 2026-11-28 04:14 UTC),
#: and never below TAB_MIN_HEIGHT
TAB_HEIGHT, TAB_MIN_HEIGHT, ABOVE_AND_BELOW = 600, 300, 410

#: each tab as wide as its title: ipywidgets gives every tab at most 144 px and shrinks
#: them all alike, which cut "Predicted vs measured" at a laptop's 1366 px; sized to
#: their titles, the seven fit an 800 px dashboard (they still shrink below that)
TAB_STYLE = ("<style>.wb-dashboard .wb-tabs > .lm-TabBar .lm-TabBar-tab"
             "{flex: 0 1 auto; max-width: none}"
             # the kernel's description in small type at the widgets' 28 px line
             # height took two lines of 29 px at 1366 px: at 768 px high every pixel
             # above the tab bar counts
             ".wb-dashboard .wb-kernel-description .widget-html-content"
             "{line-height: 1.35}</style>")


def _tab_page(panel: widgets.Widget) -> widgets.Box:
    # a block, not a flex box: flex items would shrink to the height instead of scrolling
    page = widgets.Box([panel], layout=widgets.Layout(
        max_height=f"clamp({TAB_MIN_HEIGHT}px, calc(100vh - {ABOVE_AND_BELOW}px), "
                   f"{TAB_HEIGHT}px)", overflow="auto", display="block"))
    page.add_class("wb-tab-page")
    return page


def _first_study(labels) -> str | None:
    labels = list(labels)
    fallback = labels[0] if labels else None
    return next((la for la in labels if la.endswith(FIRST_STUDY)), fallback)


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
        self.explain = ExplainPanel(self.session, errors=self.errors)
        self.calibration = CalibrationPanel(self.session, store=calibration_store, quick=quick,
                                            errors=self.errors)
        shipped = [c.shipped for c in self.picker.device_choices
                   if c.kind is DeviceKind.SHIPPED]
        # the shipped linear models stay in the weights table, to compare against
        # (fitted as the live model is, every weight >= 0, where that fit is shipped)
        references = [d.default_linear_weights for d in shipped
                      if d.default_linear_weights is not None]
        self.weights = WeightsPanel(self.session, models=references, errors=self.errors)
        studies = {}
        with self.errors.catching("block studies"):
            # one study per kernel and variant: one grid of a whole file would show,
            # per cell, the fastest of unrelated kernels
            studies = {f"{d.device}, {label}": frame for d in shipped
                       for label, frame in expand_studies(d.block_studies).items()}
        self.heatmaps = HeatmapPanel(self.session, block_studies=studies, errors=self.errors,
                                     source=_first_study(studies))
        self.explorer = ExplorerPanel(self.session, errors=self.errors)
        self.tuning = TuningPanel(self.session, errors=self.errors)
        self.tabs = widgets.Tab(children=[_tab_page(getattr(self, name)) for _, name in TABS],
                                titles=[title for title, _ in TABS])
        self.tabs.add_class("wb-tabs")
        super().__init__([
            widgets.HTML("<h3 style='margin:2px 0'>GPU kernel performance workbench</h3>"
                         + TAB_STYLE),
            self.picker, self.errors, self.tabs])
        self.add_class("wb-dashboard")
        # the tabs and the header too: every message of the dashboard in turn
        handle_in_turn(self, self.session.lock)

    def show(self, panel: str) -> widgets.Widget:
        """Open the tab of ``panel`` (an attribute name: ``"heatmaps"``...); returns it."""
        names = [name for _, name in TABS]
        if panel not in names:
            raise ValueError(f"no panel {panel!r}: one of {', '.join(names)}")
        self.tabs.selected_index = names.index(panel)
        return getattr(self, panel)

    @property
    def shown(self) -> str:
        """The attribute name of the panel whose tab is open."""
        return TABS[self.tabs.selected_index or 0][1]


def dashboard(store: str | Path | None = None, device=None, **options) -> Dashboard:
    """The composed dashboard (see :class:`Dashboard` for the options)."""
    return Dashboard(store, device, **options)
