"""The tuning panel's widgets built apart (:mod:`workbench.ui.tuning_panel`): the
strategies' checkboxes, the fields of a space of one's own, and a live run's figure,
table and summary line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import ipywidgets as widgets
import numpy as np
import pandas as pd

from workbench.errors import DeviceError
from workbench.measure import DeviceInfo, list_devices
from workbench.ui.html_table import render_table
from workbench.ui.tuning_parts import (
    DEFAULT_MODELS,
    EXHAUSTIVE,
    LEARNED,
    RANDOM,
    TPE,
    example_spaces,
    space_stores,
)


def strategy_boxes(models: Mapping[str, object]) -> dict[str, widgets.Checkbox]:
    """A checkbox per strategy: exhaustive, random, one per model (``model:<label>``),
    the learnt rankers and TPE; the cheap ones checked."""
    boxes: dict[str, widgets.Checkbox] = {}
    labels = {EXHAUSTIVE: "exhaustive", RANDOM: "random (expected)",
              "knn": "knn (Lift)", "xgb": "boosted trees"}
    for key in (EXHAUSTIVE, RANDOM, *[f"model:{m}" for m in models], *LEARNED, TPE):
        default = key in (EXHAUSTIVE, RANDOM, TPE) or \
            key.removeprefix("model:") in DEFAULT_MODELS
        box = widgets.Checkbox(value=default, description=labels.get(key, key),
                               indent=False, layout=widgets.Layout(width="auto"))
        box.add_class("wb-tuning-strategy")
        boxes[key] = box
    return boxes


def own_space_widgets() -> tuple[widgets.Combobox, widgets.Text, widgets.Combobox,
                                 widgets.HBox]:
    """The fields of a space of one's own, as ``workbench tune FILE.py:VAR --param ...
    --replay STORE`` takes it: the space (the checkout's examples offered), its sizes
    and the store a replay reads (the shipped stores of the examples offered); and
    their row."""
    wide = {"description_width": "initial"}
    space = widgets.Combobox(
        description="or your own space", options=example_spaces(), style=wide,
        ensure_option=False, continuous_update=False,
        placeholder="FILE.py:VAR (the examples are listed)",
        layout=widgets.Layout(width="470px"))
    space.add_class("wb-tuning-own-space")
    sizes = widgets.Text(description="sizes", continuous_update=False,
                         placeholder="its own, or m=256,n=1024",   # whole at 320 px
                         layout=widgets.Layout(width="320px"))
    sizes.add_class("wb-tuning-own-sizes")
    store = widgets.Combobox(
        description="replay store", options=space_stores(), style=wide,
        ensure_option=False, continuous_update=False,
        placeholder="the store of its measurements", layout=widgets.Layout(width="470px"))
    store.add_class("wb-tuning-store")
    row = widgets.HBox([space, sizes, store], layout=widgets.Layout(flex_flow="row wrap"))
    return space, sizes, store, row


def run_widgets() -> tuple[widgets.Button, widgets.Button, widgets.IntProgress,
                           widgets.Label, widgets.HBox]:
    """The run and cancel buttons, the progress bar and its line, and their row."""
    run = widgets.Button(description="run", button_style="primary", icon="play")
    run.add_class("wb-tuning-run")
    cancel = widgets.Button(description="cancel", button_style="warning", icon="stop",
                            disabled=True)
    cancel.add_class("wb-tuning-cancel")
    progress = widgets.IntProgress(value=0, min=0, max=1, description="progress")
    progress.add_class("wb-tuning-progress")
    # whole, on a line of its own where long ("...: replayed in 1.8 s (kept: ..." was
    # cut at a 1280 px laptop's width)
    label = widgets.Label(value="press run", layout=widgets.Layout(min_width="max-content"))
    label.add_class("wb-tuning-progress-label")
    row = widgets.HBox([run, cancel, progress, label],
                       layout=widgets.Layout(flex_flow="row wrap"))
    return run, cancel, progress, label, row


def live_figure(space, device, labels: Sequence[str]):
    """A live run's figure: best so far against evaluations and against the tuning
    cost, one empty curve per strategy, filled in as points are measured."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, shared_yaxes=True,
                        subplot_titles=("against evaluations", "against tuning cost (s)"))
    palette = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]
    for i, label in enumerate(labels):
        line = {"color": palette[i % len(palette)]}
        fig.add_trace(go.Scatter(x=[], y=[], name=label, mode="lines+markers",
                                 line=line, legendgroup=label), 1, 1)
        fig.add_trace(go.Scatter(x=[], y=[], name=label, mode="lines+markers",
                                 line=line, legendgroup=label, showlegend=False), 1, 2)
    fig.update_yaxes(title="best time found (ms)", row=1, col=1)
    fig.update_layout(title=f"{space.name} on {device.name}: best so far, live",
                      height=400, template="plotly_white")
    figure = go.FigureWidget(fig)
    figure.add_class("wb-tuning-figure")
    return figure


def live_table(results: Sequence) -> tuple[pd.DataFrame, str]:
    """A live run's table: per strategy (``(label, ExplorationResult)``) its
    evaluations, failures, best and costs; the frame and its HTML."""
    rows = []
    for label, r in results:
        best = r.best
        rows.append({"strategy": label, "evaluations": len(r.evaluations),
                     "failed": sum(1 for e in r.evaluations if not e.ok),
                     "best (ms)": np.nan if best is None else best.time_s * 1e3,
                     "best point": "" if best is None else best.point.label,
                     "tuning cost (s)": r.cost_s, "choosing (s)": r.choosing_s,
                     "stopped": r.stopped_by.value})
    frame = pd.DataFrame(rows)
    table = render_table(
        frame, code=["best point"],
        numeric=["evaluations", "failed", "best (ms)", "tuning cost (s)", "choosing (s)"])
    return frame, table


def live_summary(results: Sequence, evaluations: int, measured: int) -> str:
    """A finished live run in one line: evaluations, points measured, the best."""
    found = [(r.best.time_s, r.best.point.label) for _, r in results if r.best is not None]
    best = (f"; best {min(found)[0] * 1e3:.4g} ms at {min(found)[1]}" if found
            else "; no point ran successfully")
    return f"finished: {evaluations} evaluations ({measured} points measured){best}"


def opencl_devices() -> list[DeviceInfo]:
    """This machine's OpenCL devices (none: an empty list, and only replay runs)."""
    try:
        return list_devices()
    except DeviceError:
        return []
