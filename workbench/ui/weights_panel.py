"""Fitted weights with their confidence intervals, side by side for several devices
(or model families): the session's current model plus any models added."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import ipywidgets as widgets
import pandas as pd

from workbench.errors import ModelError, WorkbenchError
from workbench.models import FittedModel, UnifiedLinearModel, load_model, load_store_dataset
from workbench.models.dataset import store_device
from workbench.measure import MeasurementStore, short_device_name
from workbench.reports import compare_weights
from workbench.ui.errors_view import ErrorArea
from workbench.ui.html_table import STYLE
from workbench.ui.in_turn import handle_in_turn
from workbench.ui.session import DATA_LOCK, Session, model_label

SOURCE = "weights"


class WeightsPanel(widgets.VBox):
    """The ``wb-weights-table``: one column pair (value, confidence interval) per model.

    ``models`` are shown besides the session's model: fitted models or model files,
    as a sequence or keyed by the label to show.  With two models a ratio column
    compares them property by property.
    """

    def __init__(self, session: Session | None = None, *,
                 models: Mapping[str, FittedModel | str | Path]
                 | Sequence[FittedModel | str | Path] = (),
                 include_session_model: bool = True, bootstrap: int = 100,
                 errors: ErrorArea | None = None):
        self.session = session if session is not None else Session()
        self.errors = errors if errors is not None else ErrorArea()
        self.include_session_model = include_session_model
        self.bootstrap = bootstrap
        self.references: dict[str, FittedModel] = {}
        self.shown: dict[str, FittedModel] = {}

        self.file = widgets.Text(description="model file", placeholder="weights.json",
                                 continuous_update=False, layout=widgets.Layout(width="420px"))
        self.file.add_class("wb-weights-file")
        self.add_button = widgets.Button(description="compare", icon="plus")
        self.add_button.add_class("wb-weights-add")
        self.fit_button = widgets.Button(description="fit linear model on the store",
                                         layout=widgets.Layout(width="240px"))
        self.fit_button.add_class("wb-fit-button")
        self.summary = widgets.HTML()
        self.summary.add_class("wb-weights-summary")
        self.table = widgets.HTML()
        self.table.add_class("wb-weights-table")

        children = [widgets.HBox([self.file, self.add_button, self.fit_button]),
                    self.summary, self.table]
        if errors is None:
            children.append(self.errors)
        super().__init__(children)
        self.add_class("wb-weights-panel")

        with self.errors.catching(SOURCE):
            items = models.items() if isinstance(models, Mapping) else \
                ((None, m) for m in models)
            for label, model in items:
                self.add_model(model, label, refresh=False)
        self.add_button.on_click(self.errors.guard(SOURCE, lambda _: self._add_file()))
        self.file.observe(self.errors.guard(SOURCE, lambda _: self._add_file()), names="value")
        self.fit_button.on_click(self.errors.guard(SOURCE, lambda _: self.fit()))
        self.session.observe(self.errors.guard(SOURCE, lambda _: self.refresh()),
                             names="model")
        with self.errors.catching(SOURCE):
            self.refresh()
        handle_in_turn(self, self.session.lock)

    # -- the public API --------------------------------------------------------------

    def add_model(self, model: FittedModel | str | Path, label: str | None = None, *,
                  refresh: bool = True) -> str:
        """Show ``model`` (or the model file) too; returns its column label."""
        if isinstance(model, (str, Path)):
            model = load_model(model)
        label = label or model_label(model)
        self.references[label] = model
        if refresh:
            self.refresh()
        return label

    def remove_model(self, label: str) -> None:
        self.references.pop(label, None)
        self.refresh()

    def fit(self) -> FittedModel:
        """Fit the linear model on the session's store and make it the session's model."""
        store = self.session.store_path
        if not store:
            raise WorkbenchError("no store to fit on: choose a device with data, or "
                                 "run a calibration")
        with MeasurementStore.open(store, create=False, readonly=True) as opened:
            device = store_device(opened)
        with DATA_LOCK:
            data = load_store_dataset(store, device.key)
        model = UnifiedLinearModel().fit(data, bootstrap=self.bootstrap,
                                         device=device.to_dict(),
                                         provenance={"store": str(store)})
        self.session.use_data(model=model)
        return model

    def refresh(self) -> None:
        shown: dict[str, FittedModel] = {}
        current = self.session.model if self.include_session_model else None
        if current is not None:
            shown[model_label(current)] = current
        for label, model in self.references.items():
            shown.setdefault(label, model)  # the session's model of that label wins
        self.shown = shown
        if not shown:
            self.summary.value = ("<i>no fitted model yet: run a calibration, fit one on "
                                  "the store, or add a model file</i>")
            self.table.value = ""
            return
        self.summary.value = _summary(shown)
        self.table.value = weights_table_html(compare_weights(shown))

    def _add_file(self) -> None:
        path = self.file.value.strip()
        if path:
            self.add_model(path)


def _summary(models: Mapping[str, FittedModel]) -> str:
    lines = []
    for label, model in models.items():
        fit = model.report_data()["fit"]
        error = fit.get("training_geomean_rel_error", fit.get("geomean_rel_error"))
        lines.append(f"<li><b>{html.escape(label)}</b>: {fit.get('n_measurements', '?')} "
                     f"measurements, training geomean relative error "
                     f"{'?' if error is None else f'{error:.1%}'}</li>")
    return f"<ul style='margin:2px 0'>{''.join(lines)}</ul>"


def _interval(lo: float, hi: float) -> str:
    if math.isnan(lo) or math.isnan(hi):
        return ""
    return f"[{lo:.2e}, {hi:.2e}]"


def short_headers(labels: Sequence[str]) -> dict[str, str]:
    """Column headers a laptop's screen can hold: ``"NVIDIA H100 80GB HBM3,
    unified-linear"`` -> ``"H100"`` (the family only when it is not the linear model);
    the full label goes in the header's title (shown on hover).  Labels whose short
    forms would coincide keep their full text."""
    short = {}
    for label in labels:
        device, _, family = label.rpartition(", ")
        if not device:
            device, family = label, ""
        text = short_device_name(device)
        if family and family != "unified-linear":
            text += f" ({family})"
        short[label] = text
    counts = pd.Series(list(short.values())).value_counts()
    return {label: label if counts[text] > 1 else text for label, text in short.items()}


#: a property's name may break where it must: whole, the longest
#: (``f_mem_access_global_float32_load_frac1of2``) pushed the second model's interval and
#: the ratio past the right edge of JupyterLab on a 1366 px laptop
BREAKABLE = "white-space:normal;overflow-wrap:anywhere"


def weights_table_html(weights: pd.DataFrame) -> str:
    """Rows = properties (in first-seen order), a value and interval column per model;
    an interval that spans zero is marked, since such a weight is not determined."""
    models = list(dict.fromkeys(weights["model"]))
    properties = list(dict.fromkeys(weights["property"]))
    by_key = {(r.model, r.property): r for r in weights.itertuples(index=False)}
    labels = {r.property: r.label for r in weights.itertuples(index=False)}
    short = short_headers(models)
    one_line = ' style="white-space:nowrap"'
    head = "<th>property</th><th>name</th>" + "".join(
        f'<th title="{html.escape(m)}"{one_line}>{html.escape(short[m])}</th>'
        f'<th title="95% bootstrap interval of {html.escape(m)}"{one_line}>95% interval</th>'
        for m in models)
    ratio = len(models) == 2
    if ratio:
        head += (f'<th title="{html.escape(models[0])} / {html.escape(models[1])}"'
                 f"{one_line}>{html.escape(short[models[0]])} / "
                 f"{html.escape(short[models[1]])}</th>")
    rows = []
    undetermined = False
    for prop in properties:
        cells = [f"<td>{html.escape(str(labels[prop]))}</td>",
                 f'<td><code style="{BREAKABLE}">{html.escape(prop)}</code></td>']
        values = []
        for m in models:
            r = by_key.get((m, prop))
            if r is None:
                cells += ["<td></td>", "<td></td>"]
                values.append(math.nan)
                continue
            spans_zero = r.ci_low <= 0 <= r.ci_high
            undetermined |= spans_zero
            mark = ' title="the interval spans zero: not determined by the data"' \
                   ' style="color:#b05000"' if spans_zero else ""
            cells += [f'<td class="num"{mark}>{r.value:.3e}</td>',
                      f'<td class="num"{mark}>{_interval(r.ci_low, r.ci_high)}</td>']
            values.append(r.value)
        if ratio:
            a, b = values
            cells.append(f'<td class="num">{a / b:.3g}</td>' if b and not math.isnan(a + b)
                         else "<td></td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    if not rows:
        raise ModelError("the models have no parameters to show")
    # the colour alone, explained only on hover, meant nothing to a first reader
    legend = ('<div class="wb-weights-legend" style="font-size:12px;color:#b05000">in '
              "orange: a weight the data do not determine (its interval spans zero)"
              "</div>") if undetermined else ""
    return (f'{STYLE}<table class="wb-table"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>{legend}')
