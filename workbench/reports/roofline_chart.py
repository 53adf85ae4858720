"""The roofline chart of an explained prediction (plotly; imported lazily).

The device's ceilings (measured bandwidths, queried peaks: :func:`workbench.models.
explanation.device_ceilings`) as lines over arithmetic intensity, and the kernel at
its intensity (flop per distinct byte touched) and the flop rate its predicted time
implies; a measured time of the same configuration beside it.  A kernel without
floating-point operations has no place on the flop axis: its chart is the bandwidth
it moves (bytes / time) against the bandwidth ceilings.
"""

from __future__ import annotations

import math

#: the chart's fixed size: one screen of the dashboard (px)
HEIGHT = 420


def roofline_figure(explanation, *, height: int = HEIGHT):
    """A plotly figure of ``explanation`` (:class:`~workbench.models.explanation.
    Explanation`) on its device's roofline (module docstring)."""
    import plotly.graph_objects as go

    from workbench.models.explanation import CeilingKind

    point = explanation.point
    ceilings = explanation.ceilings
    bandwidths = ceilings.of_kind(CeilingKind.BANDWIDTH)
    peaks = ceilings.of_kind(CeilingKind.COMPUTE)
    times = [("predicted", explanation.predicted_s, "diamond")]
    if explanation.measured is not None:
        times.append(("measured", explanation.measured.seconds, "circle"))
    c = explanation.candidate
    title = (f"{c.kernel_name} {c.dtype} {', '.join(f'{k}={v}' for k, v in c.params)} "
             f"on {explanation.device or 'this device'} ({explanation.family})")
    fig = go.Figure()
    if point is None or point.flops <= 0 or point.bytes <= 0:
        _bandwidth_chart(fig, point, bandwidths, times)
        title += ": no floating-point operations, bandwidth moved"
    else:
        _flop_chart(fig, point, bandwidths, peaks, times, explanation.candidate.dtype)
    if ceilings.notes:
        fig.add_annotation(text="<br>".join(ceilings.notes), xref="paper", yref="paper",
                           x=0, y=-0.22, showarrow=False, align="left",
                           font=dict(size=10, color="grey"))
    fig.update_layout(title=dict(text=title, font=dict(size=14)), height=height,
                      margin=dict(t=50, b=80 if ceilings.notes else 50, l=70, r=20),
                      legend=dict(font=dict(size=11)), template="plotly_white")
    return fig


def _flop_chart(fig, point, bandwidths, peaks, times, dtype: str) -> None:
    import plotly.graph_objects as go

    intensity = point.intensity
    rates = [point.flops / s for _, s, _ in times]
    lo = min(intensity / 30, 0.01)
    hi = max(intensity * 30, 100.0)
    xs = [lo * (hi / lo) ** (i / 60) for i in range(61)]
    top = max((p.value for p in peaks if p.name.startswith(dtype)), default=None) \
        or max((p.value for p in peaks), default=None)
    for b in bandwidths:
        ys = [b.value * x / 1e9 for x in xs]
        if top is not None:
            ys = [min(y, top / 1e9) for y in ys]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=_gbps(b),
                                 hovertext=f"{b.name}: {b.source}", hoverinfo="text",
                                 line=dict(width=1.5)))
    for p in peaks:
        fig.add_trace(go.Scatter(x=[lo, hi], y=[p.value / 1e9] * 2, mode="lines",
                                 name=f"{p.name} {p.value / 1e12:.3g} TFLOP/s",
                                 hovertext=f"{p.name}: {p.source}", hoverinfo="text",
                                 line=dict(width=1.5, dash="dot" if not
                                           p.name.startswith(dtype) else "solid")))
    for (label, seconds, symbol), rate in zip(times, rates):
        fig.add_trace(go.Scatter(
            x=[intensity], y=[rate / 1e9], mode="markers",
            name=f"{label} {seconds * 1e3:.4g} ms",
            marker=dict(size=13, symbol=symbol, line=dict(width=1, color="black")),
            hovertemplate=(f"{label} {seconds * 1e3:.4g} ms<br>{intensity:.3g} flop/byte"
                           f"<br>%{{y:.4g}} GFLOP/s<extra></extra>")))
    values = [y for t in fig.data for y in t.y if y and y > 0]
    fig.update_xaxes(type="log", title=f"arithmetic intensity (flop per byte; bytes: "
                     f"{point.bytes_kind})", title_font=dict(size=11))
    fig.update_yaxes(type="log", title="GFLOP/s",
                     range=[math.log10(min(values) / 3), math.log10(max(values) * 3)])


def _bandwidth_chart(fig, point, bandwidths, times) -> None:
    import plotly.graph_objects as go

    labels = [label for label, _, _ in times]
    for b in bandwidths:
        fig.add_trace(go.Scatter(x=labels, y=[b.value / 1e9] * len(labels), mode="lines",
                                 name=_gbps(b), hovertext=f"{b.name}: {b.source}",
                                 hoverinfo="text", line=dict(width=1.5)))
    if point is not None and point.bytes > 0:
        moved = [point.bytes / s / 1e9 for _, s, _ in times]
        fig.add_trace(go.Bar(x=labels, y=moved, name="bandwidth moved (GB/s)",
                             text=[f"{m:.4g} GB/s" for m in moved], textposition="auto",
                             opacity=0.7))
    fig.update_yaxes(title=f"GB/s ({point.bytes_kind if point else 'bytes unknown'})")


def _gbps(ceiling) -> str:
    """``DRAM 3,015 GB/s``: a measured bandwidth by its level (the source on hover)."""
    return f"{ceiling.name.replace(' (measured)', '')} {ceiling.value / 1e9:,.0f} GB/s"
