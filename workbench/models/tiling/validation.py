"""Validation (section 5.3): predicted against measured time per stored point.

The measured points are the exploration rows of time-tiled spaces (kernel
``tune.tt_<stencil>``, variant the point's label, params the problem sizes, the
build log in ``extra``).  Each point is predicted with its own registers when its
build log names them (NVIDIA's ``-cl-nv-verbose``), which the paper could not do.

The paper's error is the root mean square of the relative error, over all points and
over the points "within 20% of the best": those whose performance (flops per
second, so ``1 / time`` at one problem) is at least 80% of the best's, that is whose
time is at most ``best / 0.8``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.tiling.points import (
    TileArrays,
    parse_label,
    problem_of,
    scheme_of,
    stencil_dims,
    stencil_of,
)
from workbench.models.tiling.schemes import Scheme
from workbench.models.tiling.registers import registers_of

KERNEL_PREFIXES = ("tune.tt_", "tune.hx_")


def measured_frame(measurements: Iterable) -> pd.DataFrame:
    """One row per successful stored point: stencil, sizes, label, measured time,
    registers per work item (NaN when the log has none), and the space's tiling
    (``scheme``: overlapped for ``tt_``, hexagonal/hybrid for ``hx_``)."""
    rows = []
    for m in measurements:
        if not m.key.kernel.startswith(KERNEL_PREFIXES) or m.time_s is None:
            continue
        stencil = stencil_of(m.key.kernel)
        scheme = scheme_of(m.key.kernel, stencil_dims(stencil))
        entry = f"{stencil}_{'band' if scheme is Scheme.OVERLAPPED else 'hex'}"
        regs = registers_of(m.extra.get("build_log", ""), entry)
        rows.append({"stencil": stencil, "sizes": ",".join(f"{k}={v}" for k, v in
                                                           m.key.params),
                     "label": m.key.variant, "measured_s": float(m.time_s),
                     "registers": float(regs) if regs is not None else np.nan,
                     "scheme": scheme.value})
    return pd.DataFrame(rows, columns=["stencil", "sizes", "label", "measured_s",
                                       "registers", "scheme"])


def compare(model, frame: pd.DataFrame, *, registers: bool = True) -> pd.DataFrame:
    """``frame`` with ``predicted_s`` and ``rel_error`` ((predicted - measured) /
    measured) added; per point registers bound ``k`` when known and ``registers``."""
    if frame.empty:
        raise ModelError("no measured time-tiled point to compare with")
    out = frame.copy()
    if "scheme" not in out.columns:
        out["scheme"] = Scheme.OVERLAPPED.value
    out["predicted_s"] = np.nan
    for (stencil, sizes, scheme), idx in out.groupby(["stencil", "sizes", "scheme"]
                                                      ).groups.items():
        part = out.loc[idx]
        points = [parse_label(label) for label in part["label"]]
        dims = stencil_dims(stencil)
        regs = part["registers"].to_numpy() if registers else None
        chosen = Scheme(scheme)
        q = model.quantities(stencil, problem_of(parse_label(sizes), dims),
                             TileArrays.of(points, dims), registers=regs,
                             scheme=None if chosen is Scheme.OVERLAPPED else chosen)
        out.loc[idx, "predicted_s"] = q.T_alg
    out["rel_error"] = (out["predicted_s"] - out["measured_s"]) / out["measured_s"]
    return out


def near_best(frame: pd.DataFrame, within: float = 0.20) -> pd.DataFrame:
    """The rows of each stencil and size whose performance is within ``within`` of
    the best measured (module docstring)."""
    best = frame.groupby(["stencil", "sizes"])["measured_s"].transform("min")
    return frame[frame["measured_s"] <= best / (1 - within)]


def rmse(frame: pd.DataFrame) -> float:
    """Root mean square relative error of the compared rows (a fraction)."""
    errors = frame["rel_error"].to_numpy(dtype=float)
    errors = errors[np.isfinite(errors)]
    return float(np.sqrt(np.mean(errors ** 2))) if errors.size else float("nan")


def summary(compared: pd.DataFrame, within: float = 0.20) -> pd.DataFrame:
    """RMSE over all points and over those near the best, per stencil and size."""
    rows = []
    for (stencil, sizes), part in compared.groupby(["stencil", "sizes"]):
        near = near_best(part, within)
        rows.append({"stencil": stencil, "sizes": sizes, "points": len(part),
                     "rmse_all": rmse(part), "near_best": len(near),
                     "rmse_near_best": rmse(near)})
    return pd.DataFrame(rows)
