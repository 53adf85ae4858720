"""Figures (plotly); imported lazily so the data path never needs plotly."""

from __future__ import annotations

import pandas as pd

from workbench.models.dataset import feature_columns


def predicted_vs_measured(pred: pd.DataFrame, title: str = "Predicted vs measured"):
    """Log-log scatter of predicted against measured time, one colour per kernel."""
    import plotly.express as px
    import plotly.graph_objects as go

    frame = pred.assign(measured_ms=pred["time_s"] * 1e3,
                        predicted_ms=pred["predicted_s"] * 1e3)
    fig = px.scatter(frame, x="measured_ms", y="predicted_ms", color="kernel",
                     symbol="role", log_x=True, log_y=True, title=title,
                     hover_data=["variant", "params", "group_size", "rel_error"])
    positive = frame[(frame["measured_ms"] > 0) & (frame["predicted_ms"] > 0)]
    if len(positive):
        lo = min(positive["measured_ms"].min(), positive["predicted_ms"].min())
        hi = max(positive["measured_ms"].max(), positive["predicted_ms"].max())
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="exact",
                                 line={"dash": "dash", "color": "grey"}))
    fig.update_layout(xaxis_title="measured (ms)", yaxis_title="predicted (ms)")
    return fig


def property_hover_text(data: pd.DataFrame, limit: int = 12) -> pd.Series:
    """Per dataset row, its non-zero properties as ``name: count`` lines (``<br>``
    separated, largest counts first, at most ``limit``), for plot hover labels."""
    columns = feature_columns(data)
    texts = []
    for values in data[columns].itertuples(index=False):
        present = sorted(((v, c) for c, v in zip(columns, values) if v),
                         key=lambda item: -abs(item[0]))
        lines = [f"{c}: {v:.4g}" for v, c in present[:limit]]
        if len(present) > limit:
            lines.append(f"... {len(present) - limit} more")
        texts.append("<br>".join(lines))
    return pd.Series(texts, index=data.index, dtype=object)
