"""The measured parameters (Tables 3 and 4) from stored microbenchmark timings.

The rows are those :func:`workbench.tuning.timetiled_microbench.measure_microbenchmarks`
records of the kernels of :mod:`workbench.kernels.timetiled.microbench` (``ttmb.<what>``,
counts in ``extra["facts"]``); each parameter is the formula of that module's
docstring, over the minimum time of its runs.  C_iter of a stencil is the mean over
its configurations (the paper averages 70), from the on-chip time of a band,
``t_band - t_twin``, spread evenly over the SMs:

    C_iter = ((t_band - t_twin) n_SM / w - t_T tau_sync) / (t_T ceil(prod (E_i - 2) / n_V))

(the per-tile compute ``c`` of :mod:`.schemes` solved for C_iter).  The paper's own
way, a band without global loads or stores (``band_compute``), gives the same formula
with its time for ``t_band - t_twin``; it is kept beside, as ``C_iter_compute_only``
in the provenance and Table 4, so the two estimates can be compared.  A configuration
whose twin is not faster than the band (global traffic hides all compute) says
nothing about C_iter and is left out; a stencil left with none is refused.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.tiling.machine import TilingCalibration, TilingHardware

PREFIX = "ttmb."


@dataclass(frozen=True)
class MicroRow:
    what: str          # transfer, barrier, nobarrier, launches, band, band_wr
    variant: str
    time_s: float
    facts: Mapping[str, float]
    n_SM: int


def rows_from_measurements(measurements: Iterable) -> list[MicroRow]:
    rows = []
    for m in measurements:
        if not m.key.kernel.startswith(PREFIX) or m.time_s is None:
            continue
        rows.append(MicroRow(m.key.kernel[len(PREFIX):], m.key.variant,
                             min(m.raw_times_s) if m.raw_times_s else float(m.time_s),
                             dict(m.extra.get("facts", {})), int(m.extra.get("n_SM", 0))))
    return rows


def _one(rows: list[MicroRow], what: str) -> MicroRow:
    found = [r for r in rows if r.what == what]
    if not found:
        raise ModelError(f"no {what!r} microbenchmark among the measurements: run the "
                         "timetiling microbenchmarks first")
    return min(found, key=lambda r: r.time_s)


def calibration(rows: list[MicroRow], hw: TilingHardware, *, device: str | None = None,
                provenance: Mapping | None = None) -> TilingCalibration:
    """Table 3's L, tau_sync, T_sync and Table 4's C_iter per stencil (module
    docstring); ``hw`` gives n_V (n_SM comes from the rows, as measured)."""
    tr = _one(rows, "transfer")
    n_SM = tr.n_SM or hw.n_SM
    L = tr.time_s * n_SM / tr.facts["words_moved"]
    with_b, without = _one(rows, "barrier"), _one(rows, "nobarrier")
    tau = (with_b.time_s - without.time_s) / with_b.facts["rounds"]
    if not tau > 0:
        raise ModelError("the barrier microbenchmark was not slower than its twin "
                         "without barriers: tau_sync cannot be measured this way here")
    T_sync = _one(rows, "launches").time_s      # the mean gap between launches

    def c_iter(r: MicroRow, onchip: float) -> float:
        t_T, w = r.facts["t_T"], r.facts["groups"]
        per_step = math.ceil(r.facts["inner_points"] / hw.n_V)
        return (onchip * n_SM / w - t_T * tau) / (t_T * per_step)

    twins = {r.variant: r for r in rows if r.what == "band_wr"}
    per_stencil: dict[str, list[float]] = defaultdict(list)
    compute_only: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        stencil = r.variant.split(":", 1)[0]
        if r.what == "band_compute" and c_iter(r, r.time_s) > 0:
            compute_only[stencil].append(c_iter(r, r.time_s))
        if r.what != "band" or r.variant not in twins:
            continue
        onchip = r.time_s - twins[r.variant].time_s
        if onchip > 0 and c_iter(r, onchip) > 0:
            per_stencil[stencil].append(c_iter(r, onchip))
    if not per_stencil:
        raise ModelError("no band microbenchmark gave an on-chip time (each twin was as "
                         "slow as its band): C_iter cannot be measured")
    direct = {s: float(np.mean(v)) for s, v in sorted(compute_only.items())}
    return TilingCalibration(device or hw.name, float(L), float(tau), float(T_sync),
                             {s: float(np.mean(v)) for s, v in sorted(per_stencil.items())},
                             {**dict(provenance or {}), "C_iter_compute_only": direct})


def calibration_from_measurements(measurements: Iterable, hw: TilingHardware, **kw
                                  ) -> TilingCalibration:
    return calibration(rows_from_measurements(measurements), hw, **kw)


def calibration_from_frame(data: pd.DataFrame, hw: TilingHardware, **kw
                           ) -> TilingCalibration:
    """From a frame with ``kernel``, ``variant``, ``time_s``, ``facts`` (a mapping per
    row) and ``n_SM`` columns (what ``fit`` is given)."""
    lacking = [c for c in ("kernel", "variant", "time_s", "facts") if c not in data.columns]
    if lacking:
        raise ModelError(f"the tiling calibration needs the column(s) {', '.join(lacking)} "
                         "of the timetiling microbenchmarks")
    rows = [MicroRow(str(k)[len(PREFIX):] if str(k).startswith(PREFIX) else str(k),
                     str(v), float(t), dict(f), int(n))
            for k, v, t, f, n in zip(data["kernel"], data["variant"], data["time_s"],
                                     data["facts"], data.get("n_SM", [0] * len(data)))]
    return calibration(rows, hw, **kw)


def tables(cal: TilingCalibration, hw: TilingHardware) -> dict[str, pd.DataFrame]:
    """Tables 2, 3 and 4 of the paper for one device."""
    t2 = pd.DataFrame([{"parameter": k, "value": getattr(hw, k)} for k in
                       ("n_SM", "n_V", "M_SM", "R_SM", "MTB_SM", "threads_SM", "M_group")])
    t3 = pd.DataFrame([{"parameter": "L [s/word/SM]", "value": cal.L},
                       {"parameter": "L [s/GB, device]", "value": cal.L / hw.n_SM / 4e-9},
                       {"parameter": "tau_sync [s]", "value": cal.tau_sync},
                       {"parameter": "T_sync [s]", "value": cal.T_sync}])
    direct = dict(cal.provenance.get("C_iter_compute_only") or {})
    t4 = pd.DataFrame([{"stencil": s, "C_iter [s]": v,
                        "C_iter, compute only [s]": direct.get(s, float("nan"))}
                       for s, v in sorted(cal.C_iter.items())])
    return {"table2": t2, "table3": t3, "table4": t4}
