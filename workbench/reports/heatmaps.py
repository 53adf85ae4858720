"""Block-size heatmaps and predicted-vs-measured scatter plots (plotly, lazy import).

Layout: the block shapes of a study (``X*Y*Z = total``) are laid out with rows =
``Z`` and columns = ``X``; ``Y`` is implied (``total / (X*Z)``) and printed in each
cell as ``XxYxZ``. Where several rows of the data share a cell (e.g. different
totals or variants), the best (highest performance / lowest time) is shown.

Inputs are DataFrames as returned by
:func:`workbench.models.roofline.blocks.rank_blocks` (columns ``X``, ``Y``, ``Z``,
``time``, ``lups``, ``t_L1`` ...); measured values are a DataFrame with ``X``,
``Y``, ``Z`` and a value column, or a mapping ``(X, Y, Z) -> value``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass

from workbench.errors import ParameterError, UnknownNameError

LIMITERS = ("L1", "L2", "DRAM", "FLOP")


def _frame(data, value: str):
    import pandas as pd
    if isinstance(data, Mapping):
        rows = [{"X": k[0], "Y": k[1] if len(k) > 1 else 1, "Z": k[2] if len(k) > 2 else 1,
                 value: v} for k, v in data.items()]
        return pd.DataFrame(rows)
    return data


def _performance(df):
    """Performance column: ``lups`` when known, else ``1 / time`` (launches/s)."""
    if "lups" in df and df["lups"].notna().any():
        return df["lups"], "LUP/s"
    return 1.0 / df["time"], "1/s"


def _grid(df, value: str, better: str = "max"):
    """(values[Z][X], text[Z][X], zs, xs) for one value column."""
    xs = sorted(df["X"].unique())
    zs = sorted(df["Z"].unique())
    vals = [[math.nan] * len(xs) for _ in zs]
    text = [[""] * len(xs) for _ in zs]
    for _, r in df.iterrows():
        v = r[value]
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        i, j = zs.index(r["Z"]), xs.index(r["X"])
        old = vals[i][j]
        if math.isnan(old) or (v > old if better == "max" else v < old):
            vals[i][j] = float(v)
            text[i][j] = f"{int(r['X'])}x{int(r['Y'])}x{int(r['Z'])}"
    return vals, text, zs, xs


def _imshow(layers, texts, zs, xs, titles, title, color_label):
    """Block-shape heatmaps, two a row within :data:`GRID_WIDTH`: each cell labelled with
    its implied Y where that fits at :data:`LABEL_FONT` px, its whole block and value
    on hover (its ``XxYxZ`` and value in each cell were 2-7 px type in a notebook at a
    laptop's width)."""
    import numpy as np
    import plotly.express as px
    arr = np.array(layers, dtype=float)
    n = len(layers)
    cols = grid_columns(n)
    rows = math.ceil(n / cols)
    kw = dict(x=[str(x) for x in xs], y=[str(z) for z in zs], aspect="auto",
              labels={"x": "X (threads)", "y": "Z (threads)", "color": color_label},
              origin="lower", color_continuous_scale="Viridis")
    if n == 1:
        fig = px.imshow(arr[0], **kw)
    else:
        fig = px.imshow(arr, facet_col=0, facet_col_wrap=cols, **kw)
        for ann in fig.layout.annotations:   # "facet_col=K", in no fixed order
            ann.text = titles[int(ann.text.rpartition("=")[2])]
    # the layer's plot: the figure less its margins and colour bar, over the columns
    layer_width = (GRID_WIDTH - 220) / cols
    for trace, t in zip(fig.data, texts):
        implied = [[cell.split("x")[1] if cell.count("x") >= 2 else cell for cell in row]
                   for row in t]
        trace.update(customdata=t, hovertemplate="%{customdata}<br>%{z:.4g} "
                     + color_label + "<extra></extra>")
        if label_fits(implied, len(xs), layer_width):
            trace.update(text=implied, texttemplate="%{text}",
                         textfont=dict(size=LABEL_FONT))
    fig.update_layout(title=title, width=GRID_WIDTH,
                      height=LAYER_HEIGHT * rows + GRID_FRAME)
    return fig


def performance_heatmap(pred, measured=None, *, value: str | None = None,
                        measured_value: str = "measured", title: str | None = None):
    """Predicted (and, when given, measured) performance per block shape.

    ``value`` is the predicted column (default ``lups``, else ``1/time``); the
    measured values share the color scale in a second panel.
    """
    df = pred.copy()
    if value is None:
        df["_perf"], unit = _performance(df)
        value = "_perf"
    else:
        unit = value
    vals, text, zs, xs = _grid(df, value)
    layers, texts, titles = [vals], [text], ["predicted"]
    if measured is not None:
        m = _frame(measured, measured_value)
        col = measured_value if measured_value in m else \
            [c for c in m.columns if c not in ("X", "Y", "Z")][0]
        # same cell axes as the prediction
        mv = [[math.nan] * len(xs) for _ in zs]
        mt = [[""] * len(xs) for _ in zs]
        for _, r in m.iterrows():
            if r["Z"] in zs and r["X"] in xs:
                i, j = zs.index(r["Z"]), xs.index(r["X"])
                if math.isnan(mv[i][j]) or r[col] > mv[i][j]:
                    mv[i][j] = float(r[col])
                    mt[i][j] = f"{int(r['X'])}x{int(r['Y'])}x{int(r['Z'])}"
        layers.append(mv)
        texts.append(mt)
        titles.append("measured")
    return _imshow(layers, texts, zs, xs, titles,
                   title or "performance per block size (rows Z, columns X, Y in each "
                            "cell)",
                   unit)


def limiter_heatmaps(pred, *, title: str | None = None):
    """One panel per limiter: its predicted time (ms) per block shape.

    Limiters left out (all NaN, e.g. FLOP without a peak) are skipped. Each cell's
    text also names the limiting level of that block shape.
    """
    present = [lim for lim in LIMITERS
               if f"t_{lim}" in pred and pred[f"t_{lim}"].notna().any()]
    layers, texts = [], []
    zs = xs = None
    for lim in present:
        df = pred.copy()
        df["_ms"] = df[f"t_{lim}"] * 1e3
        vals, text, zs, xs = _grid(df, "_ms", better="min")
        limiter_at = {(r["Z"], r["X"]): r["limiter"] for _, r in df.iterrows()
                      if r.get("limiter")}
        text = [[f"{t} ({limiter_at.get((z, x), '')})" if t else ""
                 for t, x in zip(row, xs)] for row, z in zip(text, zs)]
        layers.append(vals)
        texts.append(text)
    return _imshow(layers, texts, zs, xs, [f"{lim} time" for lim in present],
                   title or "time per limiter [ms] (rows Z, columns X, Y in each cell; "
                            "block and limiting level on hover)", "ms")


def _rgb(x, y, z) -> str:
    """The paper's block colors: RGB(log x / log 256, log y / log 256, log z / log 64)."""
    c = [min(1.0, math.log(max(v, 1)) / math.log(m)) for v, m in
         ((x, 256), (y, 256), (z, 64))]
    return "rgb({},{},{})".format(*(int(round(255 * v)) for v in c))


def volume_scatter(pred, measured, *, value: str = "dram_bytes",
                   measured_value: str = "measured", title: str | None = None):
    """Predicted vs measured volume, one marker per block shape, colored by shape.

    ``pred``/``measured``: DataFrames with ``X``, ``Y``, ``Z`` and the value columns
    (``value`` in ``pred``, ``measured_value`` in ``measured``), or mappings
    ``(X, Y, Z) -> bytes``. The diagonal marks exact estimates.
    """
    import plotly.graph_objects as go
    p = _frame(pred, value)
    m = _frame(measured, measured_value)
    mcol = measured_value if measured_value in m else \
        [c for c in m.columns if c not in ("X", "Y", "Z")][0]
    both = p[["X", "Y", "Z", value]].merge(
        m[["X", "Y", "Z", mcol]].rename(columns={mcol: "_measured"}), on=["X", "Y", "Z"])
    names = [f"{int(x)}x{int(y)}x{int(z)}" for x, y, z in
             zip(both["X"], both["Y"], both["Z"])]
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=both[value], y=both["_measured"], mode="markers", text=names,
        marker=dict(size=10, color=[_rgb(x, y, z) for x, y, z in
                                    zip(both["X"], both["Y"], both["Z"])],
                    line=dict(width=0.5, color="black")),
        hovertemplate="%{text}<br>predicted %{x:.3g}<br>measured %{y:.3g}<extra></extra>",
        name="block sizes"))
    if len(both):
        lo = float(min(both[value].min(), both["_measured"].min()))
        hi = float(max(both[value].max(), both["_measured"].max()))
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="exact",
                                 line=dict(color="gray", dash="dash")))
    fig.update_layout(title=title or f"predicted vs measured {value}",
                      xaxis_title=f"predicted {value}", yaxis_title=f"measured {value}")
    return fig


# -- grids of work-group shapes, as data first (the UI's heatmap panel) ---------------

@dataclass(frozen=True)
class HeatmapLayer:
    """One panel of a heatmap grid: ``values[row][column]``, NaN where nothing was
    measured or predicted, with a label per cell.

    ``scale`` says how to colour it: ``sequential`` (times), ``diverging`` (signed
    relative errors, centred on zero) or ``categorical`` (``values`` index
    ``categories``, e.g. the limiting level).  ``text`` names each cell on hover;
    ``labels``, what is written in the cell (default: ``text``), says only what the
    axes do not (a block study's implied ``Y``): ``16x64x1`` in each of a study's
    cells was cut to 2-4 px type at a laptop's width.
    """

    name: str
    values: tuple[tuple[float, ...], ...]
    text: tuple[tuple[str, ...], ...]
    unit: str
    scale: str = "sequential"
    categories: tuple[str, ...] = ()
    labels: tuple[tuple[str, ...], ...] | None = None

    @property
    def cell_labels(self) -> tuple[tuple[str, ...], ...]:
        return self.text if self.labels is None else self.labels

    def __post_init__(self):
        if self.scale not in ("sequential", "diverging", "categorical"):
            raise ValueError(f"unknown heatmap scale {self.scale!r}")


@dataclass(frozen=True)
class HeatmapGrid:
    """Layers over one grid of block shapes: columns ``xs``, rows ``ys``."""

    title: str
    x_label: str
    y_label: str
    xs: tuple[int, ...]
    ys: tuple[int, ...]
    layers: tuple[HeatmapLayer, ...]

    def layer(self, name: str) -> HeatmapLayer:
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise UnknownNameError("heatmap layer", name, [la.name for la in self.layers])


def _shape(text: str) -> tuple[int, ...]:
    return tuple(int(s) for s in str(text).split("x"))


def grid_cases(pred, kernel: str, variant: str | None = None) -> list[str]:
    """The size cases (``params`` texts) of one kernel and variant in :func:`predictions`
    output, the one measured with the most work-group shapes first."""
    rows = pred[(pred["kernel"] == kernel) & ((pred["variant"] == variant)
                                               if variant is not None else True)]
    shapes = rows.groupby("params", sort=False)["group_size"].nunique()
    order = sorted(shapes.index, key=lambda p: (-shapes[p], _params_key(p)))
    return list(order)


def _params_key(text: str) -> tuple:
    return tuple(int(part.split("=")[1]) for part in text.split(",") if "=" in part)


def group_size_grid(pred, kernel: str, variant: str | None = None,
                    params: str | None = None) -> HeatmapGrid:
    """Predicted time, measured time and signed relative error per work-group shape.

    ``pred`` is :func:`workbench.reports.predictions` output. Columns are the group's
    axis-0 size and rows its axis-1 size (1 for 1-D groups). ``variant`` defaults to
    the kernel's first in the data and ``params`` to the size case measured with the
    most shapes (:func:`grid_cases`).
    """
    rows = pred[pred["kernel"] == kernel]
    if rows.empty:
        raise UnknownNameError("kernel in these predictions", kernel,
                               pred["kernel"].unique())
    variant = variant if variant is not None else rows["variant"].iloc[0]
    rows = rows[rows["variant"] == variant]
    if rows.empty:
        raise UnknownNameError(f"variant of {kernel!r} in these predictions", variant,
                               pred.loc[pred["kernel"] == kernel, "variant"].unique())
    cases = grid_cases(rows, kernel, variant)
    params = params if params is not None else cases[0]
    rows = rows[rows["params"] == params]
    if rows.empty:
        raise UnknownNameError(f"size case of {kernel!r} [{variant}] in these predictions",
                               params, cases)
    shapes = [_shape(g) for g in rows["group_size"]]
    if any(len(s) > 2 for s in shapes):
        raise ParameterError("group_size_grid lays out 1-D and 2-D work groups only")
    xs = tuple(sorted({s[0] for s in shapes}))
    ys = tuple(sorted({s[1] if len(s) > 1 else 1 for s in shapes}))
    empty = [[math.nan] * len(xs) for _ in ys]
    predicted, measured, error = (copy.deepcopy(empty) for _ in range(3))
    text = [[""] * len(xs) for _ in ys]
    for shape, (_, r) in zip(shapes, rows.iterrows()):
        i, j = ys.index(shape[1] if len(shape) > 1 else 1), xs.index(shape[0])
        predicted[i][j] = float(r["predicted_s"]) * 1e3
        measured[i][j] = float(r["time_s"]) * 1e3
        error[i][j] = (float(r["predicted_s"]) - float(r["time_s"])) / float(r["time_s"])
        text[i][j] = r["group_size"]
    frozen_text = _freeze(text)
    return HeatmapGrid(
        title=f"{kernel} [{variant}] {params}: per work-group shape",
        x_label="group size, axis 0", y_label="group size, axis 1", xs=xs, ys=ys,
        layers=(HeatmapLayer("predicted", _freeze(predicted), frozen_text, "ms"),
                HeatmapLayer("measured", _freeze(measured), frozen_text, "ms"),
                HeatmapLayer("relative error", _freeze(error), frozen_text,
                             "(predicted - measured) / measured", "diverging")))


def _freeze(rows) -> tuple:
    return tuple(tuple(r) for r in rows)


def _measured_time(df):
    """Measured seconds per row of a block study, or None: ``measured_time_s``, or
    ``measured_GLups`` converted through the prediction's points (``lups * time``)."""
    if "measured_time_s" in df:
        return df["measured_time_s"].astype(float)
    if "measured_GLups" in df and "lups" in df:
        points = df["lups"].astype(float) * df["time"].astype(float)
        return points / (df["measured_GLups"].astype(float) * 1e9)
    return None


def block_study_grid(frame, *, title: str | None = None, about: str = "") -> HeatmapGrid:
    """Predicted time, and where known measured time, relative error and the limiting
    level, per thread-block shape of a block-size study.

    ``frame`` is :func:`workbench.models.roofline.blocks.rank_blocks` output, optionally
    with measurements (``measured_time_s``, or ``measured_GLups`` as in the shipped
    ``block-study-predicted.csv.xz``). Columns are ``X``; rows are ``Z`` with ``Y``
    implied (each cell names its block), or ``Y`` when every block has ``Z = 1`` (a
    2-D study). Where several blocks share a cell, the one predicted fastest is shown.
    ``about``: what the default title names the study by (its device and kernel).
    """
    df = frame[frame["time"].notna()].copy()
    if df.empty:
        raise ParameterError("the block study has no predicted block")
    measured = _measured_time(df)
    df["_measured"] = measured if measured is not None else math.nan
    rows_axis = "Y" if (df["Z"] == 1).all() else "Z"
    xs = tuple(sorted(int(x) for x in df["X"].unique()))
    ys = tuple(sorted(int(y) for y in df[rows_axis].unique()))
    best: dict[tuple[int, int], object] = {}
    for _, r in df.iterrows():
        cell = (int(r[rows_axis]), int(r["X"]))
        if cell not in best or r["time"] < best[cell]["time"]:
            best[cell] = r
    present = [lim for lim in LIMITERS if "limiter" in df and (df["limiter"] == lim).any()]

    def layer(value) -> tuple:
        return _freeze([[value(best[(y, x)]) if (y, x) in best else math.nan for x in xs]
                        for y in ys])

    text = _freeze([[f"{int(best[(y, x)]['X'])}x{int(best[(y, x)]['Y'])}x"
                     f"{int(best[(y, x)]['Z'])}" if (y, x) in best else "" for x in xs]
                    for y in ys])
    # in the cell, what the axes do not say: the implied Y (a 2-D study's axes say all)
    implied = _freeze([[str(int(best[(y, x)]["Y"])) if (y, x) in best and rows_axis == "Z"
                        else "" for x in xs] for y in ys])
    layers = [HeatmapLayer("predicted", layer(lambda r: float(r["time"]) * 1e3), text, "ms",
                           labels=implied)]
    if measured is not None:
        layers.append(HeatmapLayer("measured", layer(lambda r: float(r["_measured"]) * 1e3),
                                   text, "ms", labels=implied))
        layers.append(HeatmapLayer(
            "relative error",
            layer(lambda r: (float(r["time"]) - float(r["_measured"])) / float(r["_measured"])),
            text, "(predicted - measured) / measured", "diverging", labels=implied))
    if present:
        layers.append(HeatmapLayer(
            "limiter", layer(lambda r: float(present.index(r["limiter"]))
                             if r["limiter"] in present else math.nan),
            _freeze([[f"{t} ({best[(y, x)]['limiter']})" if t else ""
                      for t, x in zip(row, xs)] for row, y in zip(text, ys)]),
            "limiting level", "categorical", tuple(present),
            labels=_freeze([[str(best[(y, x)]["limiter"]) if (y, x) in best else ""
                             for x in xs] for y in ys])))
    said = "" if rows_axis == "Y" else ", Y in each cell"
    about = f" {about}" if about else ""
    return HeatmapGrid(title or f"block-size study{about} (rows {rows_axis}, columns X{said})",
                       "X (threads)", f"{rows_axis} (threads)", xs, ys, tuple(layers))


_CATEGORY_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728")


def _error_ticks(values) -> list[tuple[float, str]]:
    """Colour-bar ticks of a signed relative error, labelled by size and direction."""
    import numpy as np

    finite = np.abs(values[np.isfinite(values)])
    if not finite.size or finite.max() == 0:
        return []
    top = float(finite.max())
    step = next(s for s in (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0,
                            math.inf) if top / s <= 4)
    if math.isinf(step):
        return []
    ticks = []
    for k in range(-int(top // step), int(top // step) + 1):
        v = k * step
        label = "exact" if k == 0 else f"{abs(v):.0%} {'low' if v < 0 else 'high'}"
        ticks.append((v, label))
    return ticks


#: the heatmaps' width (px): two layers a row within a 1280 px laptop's dashboard (four
#: side by side, 1320 px wide, cut a study's cells to 20 px and their labels to 2-4 px)
GRID_WIDTH = 800
#: each layer's height (px), and the rest of the figure's (title, axes' titles)
LAYER_HEIGHT, GRID_FRAME = 250, 130
#: the cells' labels' type (px), and a character's width in it (DejaVu Sans, about)
LABEL_FONT = 11
LABEL_CHAR = 0.62 * LABEL_FONT
_MARGIN = dict(t=80, b=50, l=70, r=50)


def grid_columns(n: int) -> int:
    """Layers a row: two from three layers on (four side by side were too narrow)."""
    return min(n, 2)


def label_fits(labels, columns: int, width: float) -> bool:
    """Whether the longest of ``labels`` fits a cell of a layer ``width`` px wide with
    ``columns`` cells a row, at :data:`LABEL_FONT` (else the cells say it on hover)."""
    longest = max((len(t) for row in labels for t in row), default=0)
    return longest * LABEL_CHAR <= width / max(columns, 1) - 4


def grid_figure(grid: HeatmapGrid):
    """One heatmap per layer, two a row; the time layers share one colour scale.  Each
    cell says its layer's label where it fits at :data:`LABEL_FONT` px, and everything
    on hover."""
    import numpy as np
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    n = len(grid.layers)
    cols = grid_columns(n)
    rows = math.ceil(n / cols)
    spacing = 0.16 if cols > 1 else 0.0
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[la.name for la in grid.layers],
                        shared_yaxes=True, horizontal_spacing=spacing,
                        vertical_spacing=0.22 if rows > 1 else 0.0)
    width = max(420, GRID_WIDTH if cols > 1 else 400)
    # a layer's plot: the figure less its margins and the gaps, shared by the columns
    layer_width = (width - _MARGIN["l"] - _MARGIN["r"]) * (1 - spacing * (cols - 1)) / cols
    timed = [np.array(la.values, dtype=float) for la in grid.layers
             if la.scale == "sequential"]
    finite = np.concatenate([t[np.isfinite(t)] for t in timed]) if timed else np.array([])
    shared = (float(finite.min()), float(finite.max())) if finite.size else (None, None)
    xs = [str(x) for x in grid.xs]
    ys = [str(y) for y in grid.ys]
    for k, la in enumerate(grid.layers, start=1):
        row, col = (k - 1) // cols + 1, (k - 1) % cols + 1
        domain = fig.layout[f"xaxis{k if k > 1 else ''}"].domain
        height = fig.layout[f"yaxis{k if k > 1 else ''}"].domain
        colorbar = dict(x=domain[1] + 0.005, len=0.9 * (height[1] - height[0]),
                        y=(height[0] + height[1]) / 2, yanchor="middle",
                        thickness=10, xpad=2, tickfont=dict(size=9),
                        title=dict(text=la.unit if la.scale == "sequential" else "",
                                   side="right"))
        labels = la.cell_labels
        shown = label_fits(labels, len(xs), layer_width)
        # the cell's whole name (16x64x1) on hover, from customdata; its label as text
        trace = dict(z=[list(r) for r in la.values], x=xs, y=ys,
                     customdata=[list(r) for r in la.text],
                     hovertemplate=f"%{{customdata}}<br>{la.name}: %{{z:.4g}} {la.unit}"
                                   "<extra></extra>", colorbar=colorbar)
        if shown and any(t for r in labels for t in r):
            trace.update(text=[list(r) for r in labels], texttemplate="%{text}",
                         textfont=dict(size=LABEL_FONT))
        if la.scale == "sequential":
            trace.update(colorscale="Viridis", zmin=shared[0], zmax=shared[1])
        elif la.scale == "diverging":
            trace.update(colorscale="RdBu_r", zmid=0.0)
            ticks = _error_ticks(np.array(la.values, dtype=float))
            if ticks:   # "20% low" rather than "-0.2": a prediction is low or high
                colorbar.update(tickvals=[v for v, _ in ticks],
                                ticktext=[t for _, t in ticks])
        else:
            m = len(la.categories)
            colors = _CATEGORY_COLORS[:m] if m else _CATEGORY_COLORS[:1]
            scale = []
            for i, c in enumerate(colors):  # flat bands, one per category
                scale += [[i / len(colors), c], [(i + 1) / len(colors), c]]
            colorbar.update(tickvals=list(range(m)), ticktext=list(la.categories))
            trace.update(colorscale=scale, zmin=-0.5, zmax=max(m - 0.5, 0.5),
                         hovertemplate="%{customdata}<extra></extra>")
        fig.add_trace(go.Heatmap(**trace), row=row, col=col)
        fig.update_xaxes(title_text=grid.x_label, type="category", row=row, col=col)
        fig.update_yaxes(title_text=grid.y_label if col == 1 else None, type="category",
                         row=row, col=col)
    title, margin = grid.title, dict(_MARGIN)
    if len(title) * 8 > width - 40 and " (" in title:   # cut at 800 px: two lines
        title = title.replace(" (", "<br>(", 1)
        margin["t"] += 20
    fig.update_layout(title=dict(text=title, font=dict(size=15)),
                      height=LAYER_HEIGHT * rows + GRID_FRAME + margin["t"] - _MARGIN["t"],
                      width=width, margin=margin)
    return fig
