"""Block-size heatmaps and predicted-vs-measured scatter plots (plotly, lazy import).

Layout: the block shapes of a study (``X*Y*Z = total``) are laid out with rows =
``Z`` and columns = ``X``; ``Y`` is implied (``total / (X*Z)``) and printed in each
cell as ``XxYxZ``. Where several rows of the data share a cell (e.g. different
totals or variants), the best (highest performance / lowest time) is shown.

Inputs are DataFrames as returned by
:func:`workbench.volumes.roofline.rank_blocks` (columns ``X``, ``Y``, ``Z``,
``time``, ``lups``, ``t_L1`` ...); measured values are a DataFrame with ``X``,
``Y``, ``Z`` and a value column, or a mapping ``(X, Y, Z) -> value``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

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
    import numpy as np
    import plotly.express as px
    arr = np.array(layers, dtype=float)
    kw = dict(x=[str(x) for x in xs], y=[str(z) for z in zs], aspect="auto",
              labels={"x": "X (threads)", "y": "Z (threads)", "color": color_label},
              origin="lower", color_continuous_scale="Viridis")
    if len(layers) == 1:
        fig = px.imshow(arr[0], **kw)
        fig.data[0].update(text=texts[0], texttemplate="%{text}<br>%{z:.3g}")
    else:
        fig = px.imshow(arr, facet_col=0, **kw)
        for k, (trace, t) in enumerate(zip(fig.data, texts)):
            trace.update(text=t, texttemplate="%{text}<br>%{z:.3g}")
        for k, ann in enumerate(fig.layout.annotations):
            ann.text = titles[k]
    fig.update_layout(title=title)
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
                   title or "performance per block size (rows Z, columns X, Y implied)",
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
                   title or "time per limiter [ms] (cell: block, limiting level)", "ms")


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
