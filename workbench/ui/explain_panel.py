"""Why the chosen kernel takes the time predicted: the prediction's terms in seconds,
each overlap's winner, the physical floor and the limiter, the kernel on the device's
roofline, and the measured time beside it where the session's store has one
(:func:`workbench.models.explanation.explain`, as ``workbench explain`` prints it)."""

from __future__ import annotations

import html

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go

from workbench.kernels.candidate import Candidate
from workbench.models.explanation import SMALL_SHARE, explain
from workbench.reports.explain_words import (
    counts_say,
    floor_parts_say,
    hidden_terms,
    limiter_lines,
    negative_terms_say,
    overlap_says,
)
from workbench.reports.roofline_chart import roofline_figure
from workbench.ui.errors_view import ErrorArea
from workbench.ui.html_table import low_or_high, render_table
from workbench.ui.in_turn import handle_in_turn
from workbench.ui.session import Session, model_label

SOURCE = "explain"
DEFAULT = "the shipped default model"
SESSION = "the session's model"
ROOFLINE = "the roofline (H100 description)"
#: the roofline chart's size (px): beside the terms in a dashboard of 840 px or more
#: (a 1280 px laptop's is 846), below them in a narrower one; its legend one entry a
#: line below it (two a line were cut at the chart's right edge)
FIGURE_WIDTH, FIGURE_HEIGHT = 340, 560
#: what the chart says of a device with no ceiling (no bandwidth, no peak known)
NO_CEILINGS = ("no roofline known for<br>{device}:<br>no measured bandwidth,<br>"
               "no peak flop rate;<br>only the kernel's point")
#: the least width of the terms and the summary beside the chart (px): the longest
#: names on two lines at most
TERMS_MIN_WIDTH = 460


class ExplainPanel(widgets.VBox):
    """The explanation of the session's kernel selection by the chosen model."""

    def __init__(self, session: Session | None = None, *, errors: ErrorArea | None = None):
        self.session = session if session is not None else Session()
        self.errors = errors if errors is not None else ErrorArea()
        self.explanation = None
        self._models: dict[str, object] = {}
        self._filling = False

        self.model_choice = widgets.Dropdown(description="model",
                                             layout=widgets.Layout(width="600px",
                                                                   max_width="100%"))
        self.model_choice.add_class("wb-explain-model")
        #: a new session model (a calibration's fit) offered, not forced: say it here
        self.offer = widgets.HTML()
        self.offer.add_class("wb-explain-offer")
        self.heading = widgets.HTML()
        self.heading.add_class("wb-explain-heading")
        self.terms_table = widgets.HTML()
        self.terms_table.add_class("wb-explain-terms")
        self.summary = widgets.HTML()
        self.summary.add_class("wb-explain-summary")
        self.figure = go.FigureWidget()
        self.figure.update_layout(width=FIGURE_WIDTH, height=FIGURE_HEIGHT)
        self.figure.add_class("wb-explain-roofline")
        # side by side where the terms keep TERMS_MIN_WIDTH beside the chart, so that
        # the tab shows both at once (a tab page scrolls beyond 600 px); narrower, the
        # chart goes below (beside a 400 px chart at 1280 px, the terms' column was so
        # narrow that each name broke into four lines, two terms a screen)
        children = [self.model_choice, self.offer, self.heading,
                    widgets.HBox([widgets.VBox([self.terms_table, self.summary],
                                               layout=widgets.Layout(
                                                   # the basis, not the table's natural
                                                   # width, decides whether the chart wraps
                                                   flex=f"1 1 {TERMS_MIN_WIDTH}px",
                                                   min_width=f"{TERMS_MIN_WIDTH}px")),
                                  self.figure], layout=widgets.Layout(flex_flow="row wrap"))]
        if errors is None:
            children.append(self.errors)
        super().__init__(children)
        self.add_class("wb-explain-panel")

        refresh = self.errors.guard(SOURCE, lambda *_: self.refresh())
        self._fill_models()
        self.model_choice.observe(refresh, names="value")
        self.session.observe(refresh, names="selection")
        self.session.observe(self.errors.guard(SOURCE, lambda _: self._on_model()),
                             names="model")
        with self.errors.catching(SOURCE):
            self.refresh()
        handle_in_turn(self, self.session.lock)

    # -- what the user changes --------------------------------------------------------

    @property
    def model(self):
        return self._models.get(self.model_choice.value)

    def refresh(self) -> None:
        """Explain the selection with the chosen model (raises on a failure)."""
        with self.session.lock:  # a newer selection is explained after this one
            self._refresh()

    def _refresh(self) -> None:
        if self._filling:
            return
        if str(self.model_choice.value).startswith(SESSION):
            self.offer.value = ""            # the offered model is the one shown
        selection = self.session.selection
        model = self.model
        if selection is None or model is None:
            self._clear("choose a kernel" if selection is None else "no model to explain "
                        "with: run a calibration, or pick the roofline")
            return
        candidate = Candidate.of(selection.spec, selection.params_dict,
                                 variant=selection.variant, dtype=selection.dtype,
                                 group_size=selection.group_size)
        stores = [self.session.store_path] if self.session.store_path else []
        try:
            self.explanation = explain(model, candidate, stores=stores)
        except Exception:
            self._clear("no explanation: see the message")
            raise
        self._show(self.explanation)

    # -- helpers ----------------------------------------------------------------------

    def _fill_models(self) -> None:
        from workbench.errors import WorkbenchError
        from workbench.models import get_family
        from workbench.models.defaults import default_model

        models = {}
        try:
            choice = default_model()
            models[f"{DEFAULT}: {model_label(choice.model)}"] = choice.model
        except WorkbenchError:
            pass
        if self.session.model is not None:
            models[f"{SESSION}: {model_label(self.session.model)}"] = self.session.model
        models[ROOFLINE] = get_family("roofline").ready(device_model="h100")
        kept = self.model_choice.value
        self._models = models
        self._filling = True     # new options reset the value: explain once, after
        try:
            self.model_choice.options = list(models)
            self.model_choice.value = kept if kept in models else next(iter(models))
        finally:
            self._filling = False

    def _on_model(self) -> None:
        """A new session model (a calibration's fit, a device's shipped fit): offered in
        the list, and chosen only where the reader was following the session's model.

        Chosen always, a newcomer who calibrated their laptop while reading the H100's
        explanation found it replaced by the laptop's, whose roofline had no ceilings:
        what they were reading was gone, and no word said where.  So the explanation on
        screen stays, and a line under the list names the new model."""
        with self.session.lock:  # (the calibration's thread: _filling is its own)
            following = self.model_choice.value is None or \
                str(self.model_choice.value).startswith(SESSION)
            self._fill_models()
            live = next((k for k in self._models if k.startswith(SESSION)), None)
            if live is not None and following and self.model_choice.value != live:
                self.model_choice.value = live      # refreshes (and clears the offer)
                return
            self.offer.value = "" if live is None or self.model_choice.value == live else (
                f"new in the model list: <b>{html.escape(live)}</b>; the explanation "
                "below stays until you choose it")
            self.refresh()

    def _show(self, e) -> None:
        # the chart first and the heading last: a reader (or a browser test) that sees
        # the new heading sees the rest of the explanation with it
        figure = roofline_figure(e, height=FIGURE_HEIGHT)
        # the heading names the kernel; the chart's legend goes below it, to fit
        figure.update_layout(
            width=FIGURE_WIDTH, title=dict(text=f"roofline of {e.device or 'this device'}",
                                           font=dict(size=13)),
            legend=dict(orientation="v", yanchor="top", y=-0.16, x=0, font=dict(size=10)),
            margin=dict(t=40, b=200, l=60, r=10))
        figure.update_xaxes(title=dict(text="flop per byte touched", font=dict(size=11)))
        if not e.ceilings.ceilings:
            # a device without ceilings (pocl, a laptop) drew a lone point on empty
            # axes, its notes below the legend, out of the tab's page: said in the chart
            figure.layout.annotations = ()
            figure.add_annotation(
                text=NO_CEILINGS.format(device=html.escape(e.device or "this device")),
                xref="paper", yref="paper", x=0.5, y=0.98, showarrow=False,
                align="center", font=dict(size=11, color="grey"))
        with self.figure.batch_update():
            self.figure.data = ()
            self.figure.add_traces(list(figure.data))
            self.figure.layout = figure.layout
        self.terms_table.value = render_table(
            _term_frame(e), numeric=("count", "weight", "ms", "share"),
            empty="no terms")
        counts = counts_say(self.model)
        self.summary.value = "<br>".join(html.escape(line) for line in [
            *([f"({counts})"] if counts else []), *_summary(e)])
        c = e.candidate
        params = ", ".join(f"{k}={v}" for k, v in c.params) or "no parameters"
        measured = ""
        if e.measured is not None:
            measured = (f"; measured {e.measured.seconds * 1e3:.4g} ms "
                        f"({html.escape(e.measured.store)}): the prediction is "
                        f"{low_or_high(e.measured_error)}")
        self.heading.value = (
            f"<b>{html.escape(c.kernel_name)}</b> [{html.escape(c.variant)}] {c.dtype} "
            f"{html.escape(params)}, group {'x'.join(map(str, c.group_size))} on "
            f"{html.escape(e.device or 'an unnamed device')}: predicted "
            f"<b>{e.predicted_s * 1e3:.4g} ms</b> by {html.escape(e.family)}{measured}"
            + "".join(_heading_line(line, e.limiter) for line in limiter_lines(e)))

    def _clear(self, why: str) -> None:
        self.explanation = None
        self.heading.value = f"<i>{html.escape(why)}</i>"
        self.terms_table.value = self.summary.value = ""
        self.figure.data = ()


def _heading_line(line: str, limiter: str) -> str:
    """One of the limiter's lines (``workbench explain``'s own), the limiter in bold and
    the lines under it indented."""
    said = html.escape(line.strip())
    if line.startswith("limiter: "):
        said = said.replace(html.escape(limiter), f"<b>{html.escape(limiter)}</b>", 1)
    indent = "&nbsp;&nbsp;&nbsp;&nbsp;" if line.startswith(" ") else ""
    return f"<br>{indent}{said}"


def _term_frame(e) -> pd.DataFrame:
    total = e.predicted_s
    shown, small, small_s = e.largest_terms(SMALL_SHARE)
    hidden = hidden_terms(e)
    rows = [{"term": _breakable(t.name) + (", taken back (hidden)"
                                           if (t.name, t.seconds) in hidden else ""),
             "count": _count(t.count, t.name),
             "weight": f"{t.weight:.3g}" if t.weight is not None else "",
             "ms": f"{t.seconds * 1e3:.4g}", "share": f"{t.seconds / total:.1%}"}
            for t in shown]
    if small:
        rows.append({"term": f"{small} terms below {SMALL_SHARE:.1%}", "count": "",
                     "weight": "", "ms": f"{small_s * 1e3:.4g}",
                     "share": f"{small_s / total:.1%}"})
    rows.append({"term": "sum of the terms", "count": "", "weight": "",
                 "ms": f"{e.terms_sum_s * 1e3:.4g}", "share": f"{e.terms_sum_s / total:.1%}"})
    return pd.DataFrame(rows)


def _share(share: float) -> str:
    return f"{share if abs(share) >= 0.005 else 0.0:.0%}"


def _count(value: float | None, name: str = "") -> str:
    if value is None:
        return ""
    if name.endswith("_s"):   # a device feature in seconds (f_l1_walk_s), not a count
        return f"{value * 1e3:.4g} ms (a time)"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:.4g}"


def _breakable(name: str) -> str:
    """A feature name that wraps at its underscores (zero-width spaces after them)."""
    return name.replace("_", "_\u200b")


def _summary(e) -> list[str]:
    paid: dict[str, float] = {}
    for t in e.terms:
        paid[t.category.value] = paid.get(t.category.value, 0.0) + t.seconds
    # a share that rounds to 0% reads 0%: a category charged and taken back (the
    # default model's arithmetic) left "arithmetic -0%" after a calibration
    lines = ["by what it pays for: " + ", ".join(
        f"{name} {_share(seconds / e.predicted_s)}"
        for name, seconds in sorted(paid.items(), key=lambda item: -item[1]))]
    for overlap in e.overlaps:
        lines.append(f"overlap {overlap_says(overlap)}")
    floor = e.floor
    if floor is not None:
        parts = floor_parts_say(floor)
        lines.append(f"physical floor {floor.seconds * 1e3:.4g} ms, {floor.bound.value} "
                     f"({parts})")
    else:
        lines.append(f"no physical floor known for {e.device or 'this device'}")
    if e.point is not None:
        lines.append(f"{e.point.flops:.4g} flop over {e.point.bytes:.4g} bytes "
                     f"({e.point.bytes_kind}): {e.point.intensity:.3g} flop/byte")
    lines += [f"({n})" for n in e.ceilings.notes]
    lines += [f"note: {n}" for n in [*negative_terms_say(e), *e.notes]]
    lines += [f"warning: {c.says()}" for c in e.caveats]
    return lines
