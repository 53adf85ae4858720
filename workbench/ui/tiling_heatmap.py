"""The heatmap panel's view of the time-tiling model (Prajapati et al.): T_alg of a
time-tiled stencil over two tile sizes, the others fixed (the paper's Figure 4), from
:func:`workbench.models.tiling.selection.heatmap`.

The model needs a calibration: the one given to the panel, else the shipped
``sample_data/h100/tiling-calibration.json``; without either the view says so and
draws nothing.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from workbench.errors import ModelError, ParameterError

#: Axes and fixed values first shown per dimensionality: Figure 4's Heat 2D view
#: (tT against tS2 at tS1 = 8) and its analogues.
DEFAULT_VIEW = {1: ("tS1", "tT", {"bx": 256}),
                2: ("tS2", "tT", {"tS1": 8, "bx": 64, "by": 2}),
                3: ("tS3", "tT", {"tS1": 4, "tS2": 4, "bx": 32, "by": 4, "bz": 1})}
_LANES = ("bx", "by", "bz")


def _text(values: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in values.items())


def _parse(text: str, what: str) -> dict[str, int]:
    out = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = int(value)
        except ValueError:
            sep = ""
        if not sep:
            raise ParameterError(f"{what}: expected NAME=INTEGER, got {item!r}")
    return out


class TilingControls(widgets.HBox):
    """Stencil, sizes, the two axes and the fixed values of the view."""

    def __init__(self):
        from workbench.kernels.timetiled.stencils import STENCILS

        self.stencil = widgets.Dropdown(description="stencil", options=list(STENCILS),
                                        value="heat2d", layout=widgets.Layout(width="220px"))
        self.stencil.add_class("wb-tiling-stencil")
        self.sizes = widgets.Text(description="sizes", layout=widgets.Layout(width="260px"))
        self.sizes.add_class("wb-tiling-sizes")
        self.x = widgets.Dropdown(description="x", layout=widgets.Layout(width="130px"))
        self.x.add_class("wb-tiling-x")
        self.y = widgets.Dropdown(description="y", layout=widgets.Layout(width="130px"))
        self.y.add_class("wb-tiling-y")
        self.fixed = widgets.Text(description="fixed", layout=widgets.Layout(width="280px"))
        self.fixed.add_class("wb-tiling-fixed")
        super().__init__([self.stencil, self.sizes, self.x, self.y, self.fixed])
        self.reset()

    @property
    def dims(self) -> int:
        from workbench.kernels.timetiled.stencils import get_stencil
        return get_stencil(self.stencil.value).dims

    def reset(self) -> None:
        """The stencil's default sizes, axes and fixed values."""
        from workbench.kernels.timetiled.spaces import DEFAULT_PROBLEM

        d = self.dims
        x, y, fixed = DEFAULT_VIEW[d]
        names = ["tT", *(f"tS{i + 1}" for i in range(d)), *_LANES[:d]]
        self.sizes.value = _text(DEFAULT_PROBLEM[d])
        self.x.options, self.y.options = names, names
        self.x.value, self.y.value = x, y
        self.fixed.value = _text(fixed)

    def view(self) -> dict:
        """The choices, parsed: stencil, sizes, x, y and the fixed values; a tile size
        left unfixed (the axis just swapped out) takes the middle of its range."""
        from workbench.models.tiling.selection import RANGES

        fixed = _parse(self.fixed.value, "fixed")
        for name, values in RANGES[self.dims].items():
            if name not in (self.x.value, self.y.value) and name not in fixed:
                fixed[name] = list(values)[len(values) // 2]
        return {"stencil": self.stencil.value, "sizes": _parse(self.sizes.value, "sizes"),
                "x": self.x.value, "y": self.y.value, "fixed": fixed}


def tiling_model(calibration=None, device_model: str = "h100"):
    """(model, None), or (None, a note saying why there is none)."""
    from workbench.models.registry import get_family

    try:
        return get_family("tiling").ready(device_model=device_model,
                                          calibration=calibration), None
    except ModelError as err:
        return None, (f"no tiling calibration for {device_model} ({err}); measure one "
                      "with 'workbench calibrate --set timetiling', or give the panel "
                      "tiling_calibration=FILE")


def tiling_figure(model, stencil: str, sizes: dict, x: str, y: str, fixed: dict
                  ) -> go.Figure:
    """T_alg (ms) over ``x`` and ``y``; blank where a tile is infeasible."""
    from workbench.models.tiling.selection import heatmap

    frame = heatmap(model, stencil, sizes, x, y, fixed)
    ms = frame.to_numpy() * 1e3
    if not np.isfinite(ms).any():
        raise ModelError(f"no feasible tile over {x} and {y} with {_text(fixed)}: "
                         "change the fixed values")
    z = [[None if not np.isfinite(v) else float(v) for v in row] for row in ms]
    best = np.unravel_index(np.nanargmin(ms), ms.shape)
    fig = go.Figure(go.Heatmap(z=z, x=list(frame.columns), y=list(frame.index),
                               colorscale="Viridis_r", colorbar={"title": "T_alg (ms)"},
                               hovertemplate=f"{x}=%{{x}}<br>{y}=%{{y}}<br>"
                                             "%{z:.4g} ms<extra></extra>"))
    fig.add_trace(go.Scatter(x=[frame.columns[best[1]]], y=[frame.index[best[0]]],
                             mode="markers", marker={"symbol": "x", "size": 12,
                                                     "color": "red"},
                             name="predicted best", hoverinfo="skip"))
    fig.update_layout(
        title=f"{stencil} {html.escape(_text(sizes))}: predicted T_alg on "
              f"{model.hardware.name} ({_text(fixed)})",
        xaxis_title=x, yaxis_title=y, height=480, template="plotly_white")
    return fig


__all__ = ["DEFAULT_VIEW", "TilingControls", "tiling_figure", "tiling_model"]
