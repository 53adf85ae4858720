"""The lane-rows form's constants, fitted on measured problem points (round 5 of
issue 34; ``docs/time-tiling.md``, "Round 5").

Rounds 1-4 took every constant from microbenchmarks, and their picks were the points
the model under-priced most: tiles of four rows of lanes, and shallow tiles (``t_T =
2``).  Neither has a microbenchmark.  :func:`lane_rows_constants` starts from the
lane-pass form's microbenchmark constants (``L``, the latencies, the register fit)
and fits three more on measured points of the problems themselves, by least squares
of ``log(measured / predicted)``:

* ``lane_rows`` (gamma): how much dearer a lane pass is per further row of lanes;
* ``step_global`` (g): seconds per grid cell and launch of a row of hexagons;
* a common scale of ``C_iter`` (the compute term now charges every lane slot of a
  pass, idle or not: :func:`.schemes.lane_rows_terms`).

The points given (the caller chooses them; ``benchmarks/tiling_round5.py`` gives
every call's picks and none of the baseline sets) are the training set: figures on
them are in-sample.  1-D keeps the lane-pass constants: it has one row of lanes, and
its grid (2^20 cells) does not leave the L2 cache.  Round 7
(:func:`hexagonal_constants`): in 1-D the SM's groups hide each other's waits and
stream their words at a bandwidth (``.schemes.resident_tile``), and one constant, a
scale of its ``C_iter``, is fitted on measured 1-D points.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.tiling.machine import SchemeConstants, TilingCalibration
from workbench.models.tiling.schemes import Form, Scheme

#: Search bounds: gamma, g in ps per cell and launch, the C_iter scale (and, with
#: ``per_launch``, g_0 in us per launch).
BOUNDS = ((0.0, 0.0, 0.1), (5.0, 50.0, 3.0))
START = (0.3, 2.0, 1.0)
LAUNCH_BOUNDS, LAUNCH_START = (0.0, 500.0), 20.0
#: round 11's share by which a bounds-checked compute pass is dearer
GUARDED_BOUNDS, GUARDED_START = (0.0, 2.0), 0.1


def _with(cal: TilingCalibration, scheme: Scheme, base: SchemeConstants, gamma: float,
          g: float, scale: float, provenance=None, g0: float = 0.0,
          partial: bool = False, warps: bool = False,
          guarded: float = 0.0) -> TilingCalibration:
    own = replace(base, lane_rows=float(gamma), step_global=float(g), step_launch=float(g0),
                  partial_rounds=bool(partial), warp_loads=bool(warps),
                  guarded_pass=float(guarded),
                  C_iter={k: float(v) * scale for k, v in base.C_iter.items()},
                  provenance=dict(provenance or base.provenance))
    schemes = dict(cal.schemes)
    schemes[Form.RESIDENT_LANE_ROWS.constants_key(scheme)] = own
    return replace(cal, schemes=schemes)


def log_errors(model_of, points: pd.DataFrame) -> np.ndarray:
    """``log(measured / predicted)`` of every point (``model_of(dims)``: the model)."""
    from workbench.models.tiling.points import stencil_dims
    from workbench.models.tiling.validation import compare

    out = []
    for stencil, part in points.groupby("stencil", sort=True):
        got = compare(model_of(stencil_dims(stencil)), part)
        out.append(np.log(got["measured_s"].to_numpy() / got["predicted_s"].to_numpy()))
    return np.concatenate(out) if out else np.zeros(0)


def lane_rows_constants(cal: TilingCalibration, points: pd.DataFrame, *,
                        device_model: str = "h100", where: str = "",
                        per_launch: bool = False, sweep: tuple[float, float] | None = None,
                        partial_rounds: bool = False,
                        warp_loads: bool = False,
                        guarded_pass: bool = False) -> TilingCalibration:
    """``cal`` with the lane-rows form's constants of both schemes (module docstring):
    the hybrid ones fitted on the 2-D rows of ``points`` (a :func:`.measured_frame`),
    the hexagonal ones the lane-pass form's.  ``where``: the training set, for the
    provenance.  ``per_launch`` (round 6): a fixed cost per launch, ``g_0``, fitted too.
    Round 8: ``sweep = (g_0, g)`` fixes both (from a microbenchmark; only gamma and the
    ``C_iter`` scale are fitted), ``partial_rounds``: a launch's last round priced at the
    groups it leaves (:func:`.schemes.round_costs`).  Round 9: ``warp_loads``, the
    inner axis's load passes counted in warps (the share of a pass's warps that load)
    (:func:`.schemes.load_passes`).  Round 11: ``guarded_pass``, how much dearer a
    compute pass is when the sub-tile's width is not a multiple of its inner lanes
    (:func:`.schemes.lane_rows_terms`), fitted too (not with ``sweep``)."""
    from scipy.optimize import least_squares

    from workbench.models.tiling.family import TilingModel

    lane = {s: cal.schemes.get(Form.RESIDENT_LANE_PASSES.constants_key(s))
            for s in (Scheme.HEXAGONAL, Scheme.HYBRID)}
    if any(v is None for v in lane.values()):
        raise ModelError("the lane-rows form starts from the lane-pass form's constants; "
                         "the calibration has none")
    two = points[points["scheme"] == Scheme.HYBRID.value]
    if len(two) < 4:
        raise ModelError(f"the lane-rows fit needs measured 2-D points, got {len(two)}")
    base = _with(cal, Scheme.HEXAGONAL, lane[Scheme.HEXAGONAL], 0.0, 0.0, 1.0)

    def model_of(trial):
        return lambda dims: TilingModel().ready(
            device_model=device_model, calibration=trial, form=Form.RESIDENT_LANE_ROWS,
            scheme=Scheme.paper(dims).value,
            registers=dict(trial.provenance.get("registers_per_item") or {}))

    if sweep is not None and guarded_pass:
        raise ModelError("the guarded-pass fit (round 11) fits g and g_0 too; give no "
                         "sweep")
    if sweep is not None:
        g0_fixed, g_fixed = (float(v) for v in sweep)

        def fixed(x):
            trial = _with(base, Scheme.HYBRID, lane[Scheme.HYBRID], x[0], g_fixed, x[1],
                          g0=g0_fixed, partial=partial_rounds, warps=warp_loads)
            return log_errors(model_of(trial), two)

        found = least_squares(fixed, (START[0], START[2]), diff_step=1e-3,
                              bounds=((BOUNDS[0][0], BOUNDS[0][2]),
                                      (BOUNDS[1][0], BOUNDS[1][2])))
        gamma, scale = (float(v) for v in found.x)
        return _with(base, Scheme.HYBRID, lane[Scheme.HYBRID], gamma, g_fixed, scale, {
            "from": "the lane-pass form's microbenchmark constants; step_launch and "
                    "step_global fixed (round 8's sweep), lane_rows and a C_iter scale "
                    "fitted by least squares of log(measured/predicted) on measured "
                    "problem points" + ("; partial last rounds" if partial_rounds else "")
                    + ("; load passes counted in warps" if warp_loads else ""),
            "training_points": int(len(two)), "training": where, "C_iter_scale": scale,
            "rms_log_error": float(np.sqrt(np.mean(found.fun ** 2))),
            "lane_pass_provenance": dict(lane[Scheme.HYBRID].provenance)},
            g0=g0_fixed, partial=partial_rounds, warps=warp_loads)

    def unpack(x):
        return (x[3] * 1e-6 if per_launch else 0.0), (x[-1] if guarded_pass else 0.0)

    def residuals(x):
        g0, guarded = unpack(x)
        trial = _with(base, Scheme.HYBRID, lane[Scheme.HYBRID], x[0], x[1] * 1e-12, x[2],
                      g0=g0, partial=partial_rounds, warps=warp_loads, guarded=guarded)
        return log_errors(model_of(trial), two)

    start, bounds = START, BOUNDS
    if per_launch:
        start = START + (LAUNCH_START,)
        bounds = (BOUNDS[0] + (LAUNCH_BOUNDS[0],), BOUNDS[1] + (LAUNCH_BOUNDS[1],))
    if guarded_pass:
        start = start + (GUARDED_START,)
        bounds = (bounds[0] + (GUARDED_BOUNDS[0],), bounds[1] + (GUARDED_BOUNDS[1],))
    found = least_squares(residuals, start, bounds=bounds, diff_step=1e-3)
    gamma, g, scale = (float(v) for v in found.x[:3])
    g0, guarded = (float(v) for v in unpack(found.x))
    rms = float(np.sqrt(np.mean(found.fun ** 2)))
    provenance = {
        "from": "the lane-pass form's microbenchmark constants; lane_rows, step_global "
                "and a C_iter scale fitted by least squares of log(measured/predicted) "
                "on measured problem points (round 5)",
        "training_points": int(len(two)), "training": where,
        "C_iter_scale": scale, "rms_log_error": rms,
        "lane_pass_provenance": dict(lane[Scheme.HYBRID].provenance)}
    if per_launch:
        provenance["from"] += "; step_launch fitted too (round 6)"
    if partial_rounds:
        provenance["from"] += "; a launch's last, partial round priced at its groups (round 8)"
    if warp_loads:
        provenance["from"] += ("; load passes along the inner axis counted in warps "
                               "(round 9)")
    if guarded_pass:
        provenance["from"] += ("; a compute pass of a width not a multiple of the inner "
                               "lanes dearer by a fitted share (round 11)")
    return _with(base, Scheme.HYBRID, lane[Scheme.HYBRID], gamma, g * 1e-12, scale,
                 provenance, g0=g0, partial=partial_rounds, warps=warp_loads,
                 guarded=guarded)


def hexagonal_constants(cal: TilingCalibration, points: pd.DataFrame, *,
                        device_model: str = "h100", where: str = "") -> TilingCalibration:
    """``cal`` with the 1-D lane-rows constants of round 7: the lane-pass form's
    microbenchmark constants, the SM's groups hiding each other's waits
    (``latency_hidden``), and a scale of ``C_iter`` fitted by least squares of
    ``log(measured / predicted)`` on the 1-D rows of ``points`` (``where``: which, for
    the provenance)."""
    from scipy.optimize import least_squares

    from workbench.models.tiling.family import TilingModel

    lane = cal.schemes.get(Form.RESIDENT_LANE_PASSES.constants_key(Scheme.HEXAGONAL))
    if lane is None:
        raise ModelError("the 1-D lane-rows form starts from the lane-pass form's "
                         "constants; the calibration has none")
    one = points[points["scheme"] == Scheme.HEXAGONAL.value]
    if len(one) < 2:
        raise ModelError(f"the 1-D fit needs measured 1-D points, got {len(one)}")

    def trial(scale, provenance=None):
        own = replace(lane, latency_hidden=True, lane_rows=0.0, step_global=0.0,
                      step_launch=0.0, C_iter={k: float(v) * scale
                                               for k, v in lane.C_iter.items()},
                      provenance=dict(provenance or lane.provenance))
        schemes = dict(cal.schemes)
        schemes[Form.RESIDENT_LANE_ROWS.constants_key(Scheme.HEXAGONAL)] = own
        return replace(cal, schemes=schemes)

    def residuals(x):
        c = trial(float(x[0]))
        return log_errors(lambda dims: TilingModel().ready(
            device_model=device_model, calibration=c, form=Form.RESIDENT_LANE_ROWS,
            scheme=Scheme.HEXAGONAL.value,
            registers=dict(c.provenance.get("registers_per_item") or {})), one)

    found = least_squares(residuals, (1.0,), bounds=((0.1,), (5.0,)), diff_step=1e-3)
    scale = float(found.x[0])
    return trial(scale, {
        "from": "the lane-pass form's microbenchmark constants, the SM's groups hiding "
                "each other's waits and streaming at the overlapped L, a C_iter scale "
                "fitted by least squares of log(measured/predicted) on measured 1-D "
                "problem points (round 7)",
        "training_points": int(len(one)), "training": where, "C_iter_scale": scale,
        "rms_log_error": float(np.sqrt(np.mean(found.fun ** 2))),
        "lane_pass_provenance": dict(lane.provenance)})
