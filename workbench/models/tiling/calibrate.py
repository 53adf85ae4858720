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

**Per scheme** (:func:`scheme_constants`, issue 34): the hexagonal (1-D) and hybrid
(2-D) pairs ``hex_band`` / ``hex_band_wr`` (one launch of a full A row and its
work-removed twin) give that scheme its own ``L`` and ``C_iter``, as the model itself
prices the launch: the launch's time in the model is ``T_tile(k) * ceil(ceil(w / k) /
n_SM)`` (:mod:`.schemes`, ``w`` hexagons, ``k`` per SM, ``N_s`` sub-tiles in
``T_tile``).  The scheme's ``L`` is the mean over its pairs of the ``L`` at which the
model, with no compute (``C_iter -> 0``), prices the launch at the twin's time; then each
stencil's ``C_iter`` is the mean over its pairs of the ``C_iter`` at which the model,
with that ``L``, prices the launch at the band's time.  (The overlapped formula above
spreads the on-chip time evenly over the SMs; the hexagonal launches hold a few groups
per SM, so the model's own rounds, ``k`` and ``max(m', c)`` are inverted instead, by
bisection: the model's time grows monotonically with ``L`` and ``C_iter``.)  A pair the
model cannot match (its time at ``C_iter -> 0`` already above the band's) is left out.
``tau_sync`` and ``T_sync`` stay the overlapped microbenchmarks'.

**The resident-latency extension** (:func:`resident_constants`; the equations in
:mod:`.schemes`) has three constants per scheme, ``L``, the row latency ``lambda`` and
``C_iter`` per stencil, from the same pairs and the row-latency ladder (``hex_ladder``
/ ``hex_ladder_wr``: one tile at 1, 2, 4.. hexagons per SM).  A twin (no arithmetic, no
local memory, no barriers) is priced with ``c = 0`` and its rows' chain ``t_T lambda``,
so its time is linear in ``L`` and ``lambda``: both come from a non-negative least
squares over every twin of the scheme, in relative terms (the ladder's intercept is the
latency, its slope the words).  Then, with those, each pair's band gives ``C_iter`` by
bisection as above, averaged per stencil: the ladder's bands are left out of
``C_iter``, so that every stencil's comes from the same configurations (the ladders are
jacobi's alone; with their bands, jacobi2d's ``C_iter`` would be 18-30 % above heat2d's
and laplacian2d's, whose pairs give the same value within 1 %).  The two-term variant
(``resident-rows-passes``) fits ``L``, the per-row and the per-pass latency together the
same way; the lane-shape ladder (one tile under several lane shapes: the same rows,
other load passes) is what tells the two latencies apart.  Without a ladder the twins
move the rows and the words together and the fit cannot tell them apart: refused.
The lane-pass variant (``resident-lane-passes``) takes the two-term constants and adds
two more from the ladders (:func:`lane_constants`): the compute latency per lane pass
and the registers per work item as a function of the tile shape, fitted on the band
builds of the microbenchmarks (their build logs), never on a measured problem point.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.hardware.build_info import registers_of
from workbench.models.tiling.machine import SchemeConstants, TilingCalibration, TilingHardware

PREFIX = "ttmb."


@dataclass(frozen=True)
class MicroRow:
    what: str          # transfer, barrier, nobarrier, launches, band, band_wr
    variant: str
    time_s: float
    facts: Mapping[str, float]
    n_SM: int
    registers: int | None = None      # per work item, from the build log where stored


def rows_from_measurements(measurements: Iterable) -> list[MicroRow]:
    rows = []
    for m in measurements:
        if not m.key.kernel.startswith(PREFIX) or m.time_s is None:
            continue
        rows.append(MicroRow(m.key.kernel[len(PREFIX):], m.key.variant,
                             min(m.raw_times_s) if m.raw_times_s else float(m.time_s),
                             dict(m.extra.get("facts", {})), int(m.extra.get("n_SM", 0)),
                             registers_of(m.extra.get("build_log") or "")))
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


HEX_PAIR = ("hex_band", "hex_band_wr")


def _bisect(f, target: float, low: float, high: float) -> float | None:
    """The ``x`` in ``[low, high]`` (geometric) where the non-decreasing ``f`` reaches
    ``target``; None when it lies outside."""
    if not f(low) <= target <= f(high):
        return None
    for _ in range(100):
        mid = math.sqrt(low * high)
        low, high = (mid, high) if f(mid) < target else (low, mid)
    return math.sqrt(low * high)


def _launch_time(scheme, r: MicroRow, hw, base: TilingCalibration, L: float, C: float,
                 stencil: str, registers) -> float:
    """The model's time of the microbenchmark's launch (module docstring)."""
    from workbench.models.tiling.schemes import Problem, quantities

    f = r.facts
    dims = int(f["stencil_dims"])
    tiles = [np.array([int(f["t_S1"])])] + ([np.array([int(f["inner"])])] if dims == 2
                                            else [])
    trial = TilingCalibration(base.device, L, base.tau_sync, base.T_sync, {stencil: C})
    S = tuple(int(x) for x in f["shape"])
    q = quantities(scheme, Problem(S, int(f["T"])), np.array([int(f["t_T"])]), tiles,
                   np.array([int(f["threads"])]), hw, trial, stencil, registers=registers)
    k = int(q.k[0])
    return float(q.T_tile[0]) * math.ceil(math.ceil(int(f["groups"]) / k) / hw.n_SM)


def scheme_constants(rows: list[MicroRow], hw: TilingHardware, base: TilingCalibration,
                     registers: Mapping[str, float] | None = None
                     ) -> dict[str, SchemeConstants]:
    """``L`` and ``C_iter`` per stencil of each scheme that has ``hex_band`` pairs
    among ``rows`` (module docstring); ``base``: the overlapped calibration (its
    tau_sync); ``registers``: per stencil and work item, as the model will use them."""
    from workbench.models.tiling.schemes import Scheme

    twins = {r.variant: r for r in rows if r.what == HEX_PAIR[1]}
    pairs: dict = defaultdict(list)
    for r in rows:
        if r.what == HEX_PAIR[0] and r.variant in twins:
            scheme = Scheme.paper(int(r.facts["stencil_dims"]))
            pairs[scheme].append((r.variant.split(":", 1)[0], r, twins[r.variant]))
    found = {}
    for scheme, members in pairs.items():
        regs = dict(registers or {})

        def at(r, stencil, L, C):
            return _launch_time(scheme, r, hw, base, L, C, stencil, regs.get(stencil))

        Ls = [_bisect(lambda L: at(twin, st, L, 1e-15), twin.time_s, 1e-15, 1e-5)
              for st, _, twin in members]
        Ls = [x for x in Ls if x is not None]
        if not Ls:
            continue
        L = float(np.mean(Ls))
        per: dict[str, list[float]] = defaultdict(list)
        left_out = []
        for st, band, _ in members:
            C = _bisect(lambda C: at(band, st, L, C), band.time_s, 1e-15, 1e-4)
            (per[st].append(C) if C is not None else left_out.append(band.variant))
        if not per:
            continue
        found[scheme.value] = SchemeConstants(L, {s: float(np.mean(v)) for s, v in
                                                  sorted(per.items())}, {
            "from": "hex_band / hex_band_wr microbenchmarks (one A-row launch and its "
                    "work-removed twin), the model's launch time inverted",
            "pairs": len(members), "L_per_pair": Ls, "left_out": left_out,
            "C_iter_per_pair": {s: v for s, v in sorted(per.items())}})
    return found


def with_scheme_constants(cal: TilingCalibration, constants: Mapping[str, SchemeConstants],
                          provenance: Mapping | None = None) -> TilingCalibration:
    """``cal`` with these schemes' own constants (the others kept)."""
    from dataclasses import replace

    return replace(cal, schemes={**cal.schemes, **constants},
                   provenance={**cal.provenance, **dict(provenance or {})})


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


LADDER_PAIR = ("hex_ladder", "hex_ladder_wr")


def _lanes_of(variant: str) -> list[np.ndarray]:
    """Lanes per axis (axis 0 first) of a hexagonal microbenchmark, from its label
    (``HexConfig.label``: ``thr=<axis 0>x<axis 1>``)."""
    thr = next(p for p in variant.replace(",", " ").split() if p.startswith("thr="))
    return [np.array([int(x)]) for x in thr[4:].split("x")]


def _resident_launch(scheme, r: MicroRow, hw, base: TilingCalibration, L: float, lam,
                     C: float, stencil: str, registers, twin: bool, form=None) -> float:
    """The resident-latency form's time of a microbenchmark launch (an A row of
    ``groups`` hexagons); ``twin``: without compute and barriers (``c = 0``, chain
    ``t_T lambda``)."""
    from workbench.models.tiling.machine import SchemeConstants
    from workbench.models.tiling.schemes import Form, Problem, quantities

    f = r.facts
    dims = int(f["stencil_dims"])
    tiles = [np.array([int(f["t_S1"])])] + ([np.array([int(f["inner"])])] if dims == 2
                                            else [])
    form = form or Form.RESIDENT_LATENCY
    key = form.constants_key(scheme)
    tiny = 1e-300                       # "none": the calibration wants positive values
    per_row, per_pass, *lane = lam if isinstance(lam, tuple) else (lam, 0.0)
    own = SchemeConstants(max(L, tiny), {stencil: max(C, tiny)}, row_latency=per_row,
                          pass_latency=per_pass, lane_pass=lane[0] if lane else 0.0)
    trial = TilingCalibration(base.device, max(L, tiny), tiny if twin else base.tau_sync,
                              base.T_sync, {stencil: max(C, tiny)}, schemes={key: own})
    q = quantities(scheme, Problem(tuple(int(x) for x in f["shape"]), int(f["T"])),
                   np.array([int(f["t_T"])]), tiles, np.array([int(f["threads"])]), hw,
                   trial, stencil, registers=registers, form=form,
                   lanes=_lanes_of(r.variant))
    return float(q.T_tile[0]) * math.ceil(math.ceil(int(f["groups"]) / int(q.k[0]))
                                          / hw.n_SM)


def resident_constants(rows: list[MicroRow], hw: TilingHardware, base: TilingCalibration,
                       registers: Mapping[str, float] | None = None, form=None
                       ) -> dict[str, SchemeConstants]:
    """``L``, ``lambda`` and ``C_iter`` per stencil of the resident-latency form (or
    ``form``, its load-pass variant) for each scheme with ``hex_band`` pairs and a
    ``hex_ladder`` among ``rows`` (module docstring), keyed ``<scheme>+<form>``;
    ``base``: the overlapped calibration (its ``tau_sync``, ``T_sync``)."""
    from scipy.optimize import nnls

    from workbench.models.tiling.schemes import Form, Scheme

    form = Form(form) if form is not None else Form.RESIDENT_LATENCY
    two_terms = form in (Form.RESIDENT_ROWS_PASSES, Form.RESIDENT_LANE_PASSES)
    lane_form = form is Form.RESIDENT_LANE_PASSES

    regs = dict(registers or {})
    twins, bands = defaultdict(list), defaultdict(list)
    for r in rows:
        if r.what in (HEX_PAIR[1], LADDER_PAIR[1]):
            twins[Scheme.paper(int(r.facts["stencil_dims"]))].append(r)
        elif r.what == HEX_PAIR[0]:     # every stencil on the same configurations
            bands[Scheme.paper(int(r.facts["stencil_dims"]))].append(r)
    found = {}
    for scheme, members in twins.items():
        if not any(r.what == LADDER_PAIR[1] for r in members):
            continue

        def twin_at(r, L, lam):
            return _resident_launch(scheme, r, hw, base, L, lam, 0.0,
                                    r.variant.split(":", 1)[0],
                                    regs.get(r.variant.split(":", 1)[0]), True, form)

        # unit steps of L and of each latency the form has (the twin's time is linear)
        steps = [(1e-9, (0.0, 0.0)), (0.0, (1e-6, 0.0))] + (
            [(0.0, (0.0, 1e-6))] if two_terms else [])
        design = np.array([[(twin_at(r, L1, lat) - twin_at(r, 0.0, (0.0, 0.0)))
                            / max(L1, *lat) for L1, lat in steps] for r in members])
        times = np.array([r.time_s for r in members])
        solved, _ = nnls(design / times[:, None], np.ones(len(members)))
        L, lam = float(solved[0]), (float(solved[1]),
                                    float(solved[2]) if two_terms else 0.0)
        if not L > 0:
            continue
        lane, fit = (lane_constants(rows, scheme, hw) if lane_form else (0.0, ()))
        lam = lam + (lane,)
        per: dict[str, list[float]] = defaultdict(list)
        left_out = []
        for band in bands.get(scheme, []):
            st = band.variant.split(":", 1)[0]
            C = _bisect(lambda C: _resident_launch(scheme, band, hw, base, L, lam, C, st,
                                                   regs.get(st), False, form),
                        band.time_s, 1e-15, 1e-4)
            (per[st].append(C) if C is not None else left_out.append(band.variant))
        if not per:
            continue
        fitted = design @ solved
        found[form.constants_key(scheme)] = SchemeConstants(
            float(L), {s: float(np.mean(v)) for s, v in sorted(per.items())}, {
                "from": "hex_band / hex_band_wr pairs and the hex_ladder rungs: L and the "
                        + ("row and pass latencies" if two_terms else "row latency")
                        + " by non-negative least squares over the twins, then "
                        f"C_iter per pair's band by bisection (the {form.value} form)",
                "twins": len(members), "bands": sum(len(v) for v in per.values()),
                "twin_rel_error": [float(x) for x in fitted / times - 1.0],
                "twin_variants": [f"{r.what} {r.variant}" for r in members],
                "left_out": left_out,
                "C_iter_per_band": {s: v for s, v in sorted(per.items())}},
            row_latency=lam[0], pass_latency=lam[1], lane_pass=lane,
            register_fit=fit)
    return found


def lane_constants(rows: list[MicroRow], scheme, hw: TilingHardware
                   ) -> tuple[float, tuple[float, ...]]:
    """The lane-pass form's ``lambda_lane`` and register fit of ``scheme`` (module
    docstring of :mod:`.schemes`): ``lambda_lane`` is the mean, over the ladders' rungs
    at one or two groups per SM, of a band's time less its twin's per (sub-)tile and
    compute lane pass (few groups per SM: the SM's share is not what limits them);
    the register fit is least squares over every band build of the scheme (bands of the
    pairs and the ladders' rungs; twins have no compute to hold), kept inside their
    range."""
    from workbench.models.tiling.schemes import register_features

    dims = 1 if scheme.value == "hexagonal" else 2
    mine = [r for r in rows if int(r.facts.get("stencil_dims", 0)) == dims]
    twins = {r.variant: r for r in mine if r.what == LADDER_PAIR[1]}
    per_pass, seen = [], set()
    for r in mine:
        if r.what != LADDER_PAIR[0] or r.variant in seen or r.variant not in twins:
            continue
        seen.add(r.variant)
        if int(r.facts.get("per_sm", 1)) > 2:
            continue
        passes = _config_of(r).per_tile()["passes"]
        onchip = (r.time_s - twins[r.variant].time_s) / int(r.facts["sub_tiles"])
        per_pass.append(onchip / passes)
    builds = {r.variant.split(",per_sm")[0]: r for r in mine
              if r.what in (HEX_PAIR[0], LADDER_PAIR[0]) and r.registers}
    fit: tuple[float, ...] = ()
    if len(builds) > dims + 1:
        cfgs = [_config_of(r) for r in builds.values()]
        X = np.concatenate([register_features(
            np.array([c.t_T]), np.array([c.tiles[0]]),
            [np.array([x]) for x in c.threads],
            np.array([c.tiles[1]]) if dims == 2 else None) for c in cfgs])
        y = np.array([r.registers for r in builds.values()], dtype=float)
        coef, *_ = np.linalg.lstsq(X, y, rcond=None)
        fit = (*map(float, coef), float(y.min()), float(y.max()))
    return (float(np.mean(per_pass)) if per_pass else 0.0), fit


def _config_of(r: MicroRow):
    from workbench.kernels.timetiled.hexagonal import HexConfig

    f = r.facts
    thr = next(p for p in r.variant.replace(",", " ").split() if p.startswith("thr="))
    return HexConfig(r.variant.split(":", 1)[0], tuple(int(x) for x in f["shape"]),
                     int(f["T"]), int(f["t_T"]),
                     (int(f["t_S1"]),) + ((int(f["inner"]),) if int(f["stencil_dims"]) == 2
                                          else ()),
                     tuple(int(x) for x in thr[4:].split("x")))
