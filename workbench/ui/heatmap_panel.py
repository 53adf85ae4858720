"""Heatmaps over block shapes: predicted time, measured time and relative error per
work-group shape of a measured kernel; or, for a block-size study of the data-volume
model (``workbench.models.roofline.blocks.rank_blocks``), the same per thread-block shape
plus the limiting level (L1, L2, DRAM, FLOP) -- a shipped study, or one ranked here
for the picked kernel (in the background: it takes seconds per block shape); or the
time-tiling model's T_alg over two tile sizes of a time-tiled stencil
(:mod:`workbench.ui.tiling_heatmap`)."""

from __future__ import annotations

import html
import math
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import WorkbenchError
from workbench.measure import short_device_name
from workbench.models import FittedModel
from workbench.reports.heatmaps import (
    HeatmapGrid,
    block_study_grid,
    grid_cases,
    grid_figure,
    group_size_grid,
)
from workbench.ui.errors_view import ErrorArea
from workbench.ui.in_turn import handle_in_turn
from workbench.ui.tiling_heatmap import TilingControls, tiling_figure, tiling_model
from workbench.ui.session import DATA_LOCK, KernelSelection, Session
from workbench.hardware.description import SHIPPED as DEVICE_MODELS

SOURCE = "heatmap"
STORE_SOURCE = "store"
ROOFLINE_SOURCE = "roofline"
TILING_SOURCE = "tiling"


def study_label(path: Path) -> str:
    """``block-study-predicted-star_stencil-nofold.csv`` -> ``star_stencil-nofold`` (the
    same for ``.csv.xz``: sample_data ships its study compressed, issue #25)."""
    return Path(path.name.removesuffix(".xz")).stem.removeprefix("block-study-predicted-")


def expand_studies(paths) -> dict[str, pd.DataFrame | Path]:
    """One study per file, or per kernel and variant of a file that holds several
    (the shipped ``block-study-predicted.csv.xz`` has ``kernel`` and ``variant``)."""
    out: dict[str, pd.DataFrame | Path] = {}
    for p in map(Path, paths):
        frame = pd.read_csv(p)
        if {"kernel", "variant"} <= set(frame.columns):
            for (kernel, variant), part in frame.groupby(["kernel", "variant"], sort=True):
                out[f"{kernel}-{variant}"] = part.reset_index(drop=True)
        else:
            out[study_label(p)] = frame
    return out


class HeatmapPanel(widgets.VBox):
    """The ``wb-heatmap`` figure for the session's store and model, or for a block study.

    ``block_studies`` are :func:`~workbench.models.roofline.blocks.rank_blocks` frames (or
    CSV files of them, optionally with measured columns), as a sequence of files or
    keyed by the label to show.  ``source`` is what it shows first: ``"store"`` (the
    default), ``"roofline"``, ``"tiling"`` or a study's label.  ``tiling_calibration``:
    the time-tiling model's calibration (a file or a ``TilingCalibration``; default:
    the shipped H100 one).
    """

    def __init__(self, session: Session | None = None, *, store: str | Path | None = None,
                 model: FittedModel | str | Path | None = None,
                 block_studies: Mapping[str, pd.DataFrame | str | Path]
                 | Sequence[str | Path] = (),
                 errors: ErrorArea | None = None, source: str | None = None,
                 tiling_calibration=None):
        self.session = session if session is not None else Session()
        self.errors = errors if errors is not None else ErrorArea()
        self.grid: HeatmapGrid | None = None
        self.figure: go.FigureWidget | None = None
        self.ranking: pd.DataFrame | None = None     # the latest ranking of this panel
        self._ranking_title = ""
        self._ranker: threading.Thread | None = None
        self.studies: dict[str, pd.DataFrame | Path] = (
            dict(block_studies) if isinstance(block_studies, Mapping)
            else expand_studies(block_studies))
        self._filling = False
        self._tiling_calibration = tiling_calibration
        self._tiling_model = None       # made when the view is first shown

        # 600 px: at 520 the shipped studies' names were cut ("... star_stencil_3d-nc")
        self.source = widgets.Dropdown(
            description="show", layout=widgets.Layout(width="600px"),
            options=[("measured store: per work-group shape", STORE_SOURCE),
                     ("data-volume model: the picked kernel per block shape",
                      ROOFLINE_SOURCE),
                     ("time-tiling model: T_alg over two tile sizes", TILING_SOURCE)]
            + [(f"block-size study: {label}", label) for label in self.studies],
            value=source or STORE_SOURCE)
        self.source.add_class("wb-heatmap-source")
        self.kernel = widgets.Dropdown(description="kernel")
        self.kernel.add_class("wb-heatmap-kernel")
        self.variant = widgets.Dropdown(description="variant")
        self.variant.add_class("wb-heatmap-variant")
        self.size = widgets.Dropdown(description="sizes")
        self.size.add_class("wb-heatmap-size")
        self.store_controls = widgets.HBox([self.kernel, self.variant, self.size])
        # labels and the button sized to their words (at the defaults they read
        # "device m...", "threads/bl..." and "rank block sha...")
        whole = {"description_width": "initial"}
        self.device_model = widgets.Dropdown(description="device model",
                                             options=list(DEVICE_MODELS), value="h100",
                                             style=whole, layout=widgets.Layout(width="240px"))
        self.device_model.add_class("wb-heatmap-device-model")
        self.threads = widgets.BoundedIntText(value=256, min=1, max=1024,
                                              description="threads/block", style=whole,
                                              layout=widgets.Layout(width="200px"))
        self.threads.add_class("wb-heatmap-threads")
        self.rank_button = widgets.Button(description="rank block shapes", icon="th",
                                          layout=widgets.Layout(width="auto"))
        self.rank_button.add_class("wb-rank-blocks-button")
        self.roofline_controls = widgets.HBox([self.device_model, self.threads,
                                               self.rank_button])
        self.tiling_controls = TilingControls()
        self.note = widgets.HTML()
        # a grid of four layers is wider than a laptop's notebook: it scrolls sideways
        self.figure_box = widgets.Box(layout=widgets.Layout(overflow="auto"))

        children = [self.source, self.store_controls, self.roofline_controls,
                    self.tiling_controls, self.note, self.figure_box]
        if errors is None:
            children.append(self.errors)
        super().__init__(children)
        self.add_class("wb-heatmap-panel")

        refresh = self.errors.guard(SOURCE, lambda *_: self.refresh())
        self.source.observe(refresh, names="value")
        self.kernel.observe(self.errors.guard(SOURCE, self._on_kernel), names="value")
        self.variant.observe(self.errors.guard(SOURCE, self._on_variant), names="value")
        self.size.observe(refresh, names="value")
        tiling = self.tiling_controls
        tiling.stencil.observe(self.errors.guard(SOURCE, self._on_stencil), names="value")
        for w in (tiling.sizes, tiling.x, tiling.y, tiling.fixed):
            w.observe(refresh, names="value")
        self.rank_button.on_click(self.errors.guard(SOURCE, lambda _: self.rank_blocks()))
        self.session.observe(self.errors.guard(SOURCE, self._on_data),
                             names=["data", "loading", "data_error"])
        self.session.observe(self.errors.guard(SOURCE, self._on_selection), names="selection")
        self.session.observe(self.errors.guard(SOURCE, self._on_device), names="device")
        with self.errors.catching(SOURCE):
            if store is not None or model is not None:
                self.session.use_data(
                    **({"store": store} if store is not None else {}),
                    **({"model": model} if model is not None else {}))
            self.session.want_data()
            self.refresh()
        handle_in_turn(self, self.session.lock)

    def refresh(self) -> None:
        """Redraw for the chosen source (raises when the grid cannot be made)."""
        # under the session's lock: a load, a ranking or a calibration publishing in
        # its thread, and a message in another, redraw one after the other, and
        # _filling only ever means this thread's own filling
        with self.session.lock:
            self._refresh()

    def _refresh(self) -> None:
        if self._filling:
            return
        source = self.source.value
        self.store_controls.layout.display = None if source == STORE_SOURCE else "none"
        self.roofline_controls.layout.display = None if source == ROOFLINE_SOURCE else "none"
        self.tiling_controls.layout.display = None if source == TILING_SOURCE else "none"
        if source == TILING_SOURCE:
            self._show_tiling()
            return
        if source == STORE_SOURCE:
            grid = self._store_grid()
            if grid is not None:
                self.note.value = self._store_note(grid)
        elif source == ROOFLINE_SOURCE:
            grid = self._ranking_grid()
            if grid is not None:
                self.note.value = ""
        else:
            grid = self._study_grid(source)
            self.note.value = html.escape(
                f"The shipped block-size study {source}: the data-volume model's prediction "
                "per thread-block shape, with the times measured on that GPU "
                "(sample_data/h100/block-study-predicted.csv.xz). Your own measurements: "
                "'measured store' under 'show'.")
        self._show(grid)

    def rank_blocks(self, wait: bool = False) -> None:
        """Rank the picked kernel's block shapes with the data-volume model (extended
        roofline) in the background, then show them (``wait``: here and now)."""
        from workbench.hardware.description import load_device_model
        from workbench.models.roofline.blocks import candidate_blocks

        if self._ranker is not None and self._ranker.is_alive():
            raise WorkbenchError("a ranking is already running")
        selection = self.session.selection
        if selection is None:
            raise WorkbenchError("pick a kernel first")
        selection.spec.check_parameter_names(selection.params_dict)  # all sizes given
        blocks = candidate_blocks(self.threads.value, selection.spec.group_dims)
        if not blocks:
            raise WorkbenchError(f"no block shape of {self.threads.value} threads fits the "
                                 f"{selection.spec.group_dims}-D kernel {selection.name!r}")
        model = load_device_model(self.device_model.value)
        self.source.value = ROOFLINE_SOURCE
        self.rank_button.disabled = True
        self.note.value = (f"<i>ranking {len(blocks)} block shapes of "
                           f"{html.escape(selection.name)} on {model.name}...</i>")
        args = (selection, blocks, model)
        if wait:
            self._rank(*args)
        else:
            self._ranker = threading.Thread(target=self._rank, args=args, daemon=True,
                                            name="workbench-rank-blocks")
            self._ranker.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background ranking; True once none runs."""
        if self._ranker is not None:
            self._ranker.join(timeout)
            return not self._ranker.is_alive()
        return True

    # -- sources --------------------------------------------------------------------

    def _show_tiling(self) -> None:
        """The tiling model's view, or a note saying why there is none."""
        self._show(None)
        if self._tiling_model is None:
            self._tiling_model, note = tiling_model(self._tiling_calibration)
            if note is not None:
                self.note.value = f"<i>{html.escape(note)}</i>"
                return
        view = self.tiling_controls.view()
        figure = go.FigureWidget(tiling_figure(self._tiling_model, **view))
        figure.add_class("wb-heatmap")
        cal = self._tiling_model.calibration
        self.note.value = html.escape(
            f"calibration of {cal.device}: L {cal.L:.3g} s/word/SM, tau_sync "
            f"{cal.tau_sync:.3g} s, T_sync {cal.T_sync:.3g} s; the red cross is the "
            "predicted best of this slice (workbench tile-sizes searches them all)")
        self.figure = figure
        self.figure_box.children = (figure,)

    def _on_stencil(self, change) -> None:
        self._filling = True
        try:   # another stencil: its own sizes, axes and fixed values
            self.tiling_controls.reset()
        finally:
            self._filling = False
        self.refresh()

    def _store_grid(self) -> HeatmapGrid | None:
        session = self.session
        if session.loading:
            self.note.value = "<i>loading the measurements and their properties...</i>"
            return None
        if session.data_error:
            self.note.value = "<i>no data: see the message</i>"
            raise WorkbenchError(session.data_error)
        data = session.data
        if data is None or data.predictions is None or data.predictions.empty:
            self.note.value = "<i>" + html.escape(
                "; ".join(data.notes) if data is not None and data.notes else
                "no store chosen: pick a device with data, or run a calibration") + "</i>"
            return None
        pred = data.predictions
        self._fill_choices(pred)
        return group_size_grid(pred, self.kernel.value, self.variant.value, self.size.value)

    def _store_note(self, grid: HeatmapGrid) -> str:
        """What the store's grid shows, on which device, and where the H100 study is."""
        cells = sum(v == v for row in grid.layers[0].values for v in row)
        data = self.session.data
        model = data.model if data is not None else None
        facts = getattr(model, "device", None) or {}
        device = facts.get("device", "this device")
        short = short_device_name(device, facts.get("platform", ""))
        device = device if short == device else f"{short} ({device})"
        studies = [label for label in self.studies]
        text = (f"{grid.title}: the time predicted by the linear model fitted on this "
                f"store, the time measured on {device}, and their relative error, one "
                f"cell per work-group shape measured ({cells}).")
        if cells < 2:
            text += (" A quick calibration measures the test kernels and the kernel "
                     "chosen in the picker at six shapes; pick one of them under 'kernel'.")
        if studies:
            text += (" The shipped NVIDIA H100 block-size study (thread-block shapes of "
                     "3-D stencils) is under 'show': 'block-size study'.")
        return html.escape(text)

    def _rank(self, selection: KernelSelection, blocks, model) -> None:
        from workbench.models.roofline.blocks import rank_blocks

        spec = selection.spec

        def build(block):
            return spec.build(spec.request(selection.variant, selection.dtype, tuple(block)))

        try:
            with DATA_LOCK:  # barvinok counts, like a dataset load
                ranking = rank_blocks(build, selection.params_dict, blocks, model)
            if ranking["time"].isna().all():
                raise WorkbenchError("no block shape could be predicted: "
                                     + str(ranking["error"].dropna().iloc[0]))
            self.ranking = ranking
            self._ranking_title = (f"{selection.name} [{selection.variant}] "
                                   f"{selection.params_text} on {model.name}: extended "
                                   "roofline per block shape")
            with self.errors.catching(SOURCE):
                self.refresh()
        except Exception as err:  # noqa: BLE001 - in a thread: shown, never raised
            self.note.value = ""
            self.errors.show(err, SOURCE)
        finally:
            self.rank_button.disabled = False

    def _ranking_grid(self) -> HeatmapGrid | None:
        if self.ranking is None:
            if not (self._ranker is not None and self._ranker.is_alive()):
                self.note.value = ("<i>press 'rank block shapes' to predict the picked "
                                   "kernel's block shapes</i>")
            return None
        return block_study_grid(self.ranking, title=self._ranking_title)

    def _study_grid(self, label: str) -> HeatmapGrid:
        study = self.studies[label]
        if not isinstance(study, pd.DataFrame):
            study = self.studies[label] = pd.read_csv(study)
        return block_study_grid(study, about=label)

    # -- choices --------------------------------------------------------------------

    def _fill_choices(self, pred: pd.DataFrame, kernel: str | None = None) -> None:
        """Kernel, variant and size options of ``pred``, keeping what is still valid;
        a new data set follows the picker's kernel when the data has it."""
        self._filling = True
        try:
            kernels = sorted(pred["kernel"].unique())
            selection = self.session.selection
            wanted = kernel or self.kernel.value or (selection.name if selection else None)
            if list(self.kernel.options) != kernels:
                self.kernel.options = kernels
            self.kernel.value = wanted if wanted in kernels else _first_test_kernel(pred)
            rows = pred[pred["kernel"] == self.kernel.value]
            variants = list(dict.fromkeys(rows["variant"]))
            current_variant = self.variant.value
            if list(self.variant.options) != variants:
                self.variant.options = variants
            self.variant.value = current_variant if current_variant in variants \
                else variants[0]
            cases = grid_cases(rows, self.kernel.value, self.variant.value)
            current_size = self.size.value
            if list(self.size.options) != cases:
                self.size.options = cases
            self.size.value = current_size if current_size in cases else cases[0]
        finally:
            self._filling = False

    def _on_data(self, change) -> None:
        if self.source.value == STORE_SOURCE:  # a study does not depend on the store
            self.refresh()

    def _on_kernel(self, change) -> None:
        if self._filling or self.session.data is None or self.session.data.predictions is None:
            return
        self._filling = True
        try:  # another kernel: its first variant and its best-covered size
            self.variant.options, self.size.options = [], []
        finally:
            self._filling = False
        self.refresh()

    def _on_variant(self, change) -> None:
        if self._filling:
            return
        self._filling = True
        try:
            self.size.options = []
        finally:
            self._filling = False
        self.refresh()

    def _on_device(self, change) -> None:
        """A device of this machine was chosen (a calibration finished, say): show its
        measurements rather than a shipped study."""
        device = change["new"]
        if device is not None and getattr(device, "measurable", False) \
                and self.source.value not in (STORE_SOURCE, ROOFLINE_SOURCE, TILING_SOURCE):
            self.source.value = STORE_SOURCE

    def _on_selection(self, change) -> None:
        """Follow the picker to a kernel the data has."""
        with self.session.lock:  # (a selection set directly, in any thread)
            selection = change["new"]
            if selection is None or selection.name not in self.kernel.options \
                    or selection.name == self.kernel.value:
                return
            if self.source.value == STORE_SOURCE:
                self.kernel.value = selection.name
                return
            self._filling = True
            try:  # another source is shown: no redraw now, the store's grid follows
                self.kernel.value = selection.name
                self.variant.options, self.size.options = [], []
            finally:
                self._filling = False

    def _show(self, grid: HeatmapGrid | None) -> None:
        self.grid = grid
        if grid is None:
            self.figure = None
            self.figure_box.children = ()
            return
        # a new figure rather than an update: the number of panels can change
        figure = go.FigureWidget(_without_nan(grid_figure(grid)))
        figure.add_class("wb-heatmap")
        self.figure = figure
        self.figure_box.children = (figure,)


def _without_nan(figure: go.Figure) -> go.Figure:
    """Empty cells (block shapes a study lacks) as None, which plotly leaves blank:
    widget messages are strict JSON, and the browser drops a figure sent with NaN in
    it (it then draws an empty plot)."""
    for trace in figure.data:
        if trace.z is not None:
            trace.z = [[None if isinstance(v, float) and math.isnan(v) else v for v in row]
                       for row in trace.z]
    return figure


def _first_test_kernel(pred: pd.DataFrame) -> str:
    tests = pred.loc[pred["role"] == "test", "kernel"]
    return sorted(tests.unique())[0] if len(tests) else sorted(pred["kernel"].unique())[0]
