"""Tables and figures of exploration: the tuning report.

:func:`tuning_table` formats :func:`workbench.tuning.study.summary`;
:func:`exploration_figure` draws the best-so-far curves of one space against runs
and against tuning cost (seconds, log scale), random search as its expectation.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

COLUMNS = ("space", "points", "strategy", "spaces", "choosing_s", "charged", "runs_to_90",
           "seconds_to_90", "runs_to_95", "seconds_to_95", "median_runs_to_95",
           "oracle_x_90", "oracle_x_95", "speedup_vs_tpe_95", "speedup_vs_random_95",
           "speedup_vs_exhaustive_95", "measured_before_ranking")


def charged_label(note) -> str:
    """A row's ``choosing_charged`` in a word: ``now``, ``recorded`` or ``now*`` (a
    recorded cost was asked for and there was none)."""
    if not isinstance(note, str):
        return ""
    if note.startswith("recorded"):
        return "recorded"
    return "now*" if "no recorded cost" in note else "now"


def tuning_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary's columns in report order, numbers rounded for reading; a
    strategy that could not rank a space reads ``n/a`` (its ``note`` says why)."""
    summary = summary.copy()
    if "choosing_charged" in summary:
        summary["charged"] = summary["choosing_charged"].map(charged_label)
    cols = [c for c in COLUMNS if c in summary.columns]
    out = summary[cols].copy()
    unavailable = summary["note"].fillna("").str.startswith("n/a") \
        if "note" in summary else pd.Series(False, index=summary.index)
    for c in cols:
        if c.startswith(("runs", "median_runs")):
            out[c] = out[c].map(lambda v: "never" if not np.isfinite(v) else
                                (f"{v:.1f}" if v != int(v) else str(int(v))))
        elif c.startswith(("seconds", "choosing")):
            out[c] = out[c].map(lambda v: "never" if not np.isfinite(v) else f"{v:.2f}")
        elif c.startswith("oracle"):
            out[c] = out[c].map(lambda v: "never" if not np.isfinite(v) else f"{v:.1f}")
        elif c == "measured_before_ranking":
            out[c] = out[c].map(lambda v: "" if not np.isfinite(v) else f"{v:.1f}")
        elif c.startswith("speedup"):
            out[c] = out[c].map(lambda v: "" if not np.isfinite(v) else f"{v:.1f}x")
        if c.startswith(("runs", "seconds", "choosing_s", "oracle")):
            out.loc[unavailable, c] = "n/a"
    return out


def exploration_figure(comparison, *, title: str | None = None):
    """Best fraction of the optimum against runs (left) and tuning seconds (right)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, shared_yaxes=True,
                        subplot_titles=("against evaluations", "against tuning cost (s)"))
    palette = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
               "#17becf"]
    for i, c in enumerate(comparison.curves):
        color = palette[i % len(palette)]
        runs = np.arange(1, len(c.fraction) + 1)
        fig.add_trace(go.Scatter(x=runs, y=c.fraction, name=c.label, mode="lines",
                                 line={"color": color}, legendgroup=c.label), 1, 1)
        fig.add_trace(go.Scatter(x=c.cost_s, y=c.fraction, name=c.label, mode="lines",
                                 line={"color": color}, legendgroup=c.label,
                                 showlegend=False), 1, 2)
    if comparison.random_curve is not None:
        k = np.arange(1, len(comparison.random_curve) + 1)
        style = {"color": "#7f7f7f", "dash": "dash"}
        fig.add_trace(go.Scatter(x=k, y=comparison.random_curve, name="random (expected)",
                                 mode="lines", line=style, legendgroup="random"), 1, 1)
        fig.add_trace(go.Scatter(x=k * comparison.random_cost_per_run,
                                 y=comparison.random_curve, mode="lines", line=style,
                                 legendgroup="random", showlegend=False), 1, 2)
    for target in (0.9, 0.95):
        fig.add_hline(y=target, line={"color": "#bbbbbb", "width": 1})
    fig.update_xaxes(type="log", row=1, col=1)
    fig.update_xaxes(type="log", row=1, col=2)
    fig.update_yaxes(title="best found / best of the space", range=[0, 1.02], row=1, col=1)
    best = comparison.best_s * 1e3
    fig.update_layout(title=title or f"{comparison.space}: {comparison.points} points, "
                      f"best {best:.4g} ms ({comparison.best_point})", height=420,
                      template="plotly_white")
    return fig


def format_seconds(value: float) -> str:
    return "never" if not math.isfinite(value) else f"{value:.2f} s"
