"""The unified-linear model's weights fitted on measured tuning spaces (issue #33).

The shipped weights are fitted on the calibration kernels: a handful of kernels that
each exercise a few properties.  A ranking asks something else of them: the *order* of
the variants of one user kernel.  Fitted on every measured point of tuning spaces (a
user's `kernel(point)` factories measured exhaustively), the same properties can be
priced as they cost inside real kernels.

What is fitted: the weighted properties of a base model (``linear-nn``'s eighteen; a
property the base weighs at zero stays zero, so a ranking counts what it counted and
costs the same).  How: the family's own non-negative least squares on relative error
(:meth:`UnifiedLinearModel.fit`), each point's time divided by its residency factor
(:mod:`workbench.models.residency_penalty`: the ranking predicts weights x counts x
factor).  With ``rounds`` > 0 each space also gets a free time scale, set to the median
ratio of its predictions to its times and refitted ``rounds`` times, meant to ask for the
order within a space rather than the level between spaces; the alternation does not
converge (over the 65 development spaces, leave one group out, runs to 95 % in the pure
order: 4.11 after one round, 4.26 after two, 5.74 after three, 6.02 after five), and
``structure-ranking.md`` section 70's rule chose plain relative error (``rounds=0``, 4.88,
against the calibration fit's 6.18) over three rounds.  :data:`Objective.LOG_WITHIN`
(section 74) asks for the order within each space directly: least squares on log times,
each space's errors centred (a free offset per space, exact, no alternation).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.unified.linear import FittedLinearModel, UnifiedLinearModel

#: alternations of a per-space scale: none (section 70's choice, module docstring)
SCALE_ROUNDS = 0


class Objective(enum.Enum):
    """What a fit on measured spaces minimises."""

    #: the family's relative least squares over every point together (section 70)
    RELATIVE = "relative"
    #: least squares on log times with a free offset per space (section 74): only the
    #: ratios within each space are asked for, not the level between spaces
    LOG_WITHIN = "log-within"


@dataclass(frozen=True)
class MeasuredSpace:
    """One measured tuning space: per point, its counts, measured seconds (not finite:
    failed or not measured), residency factor and physical floor (NaN: none known)."""

    name: str
    counts: Mapping[str, np.ndarray]
    seconds: np.ndarray
    factors: np.ndarray = field(default=None)
    floors: np.ndarray = field(default=None)

    def __post_init__(self):
        n = len(self.seconds)
        factors = np.ones(n) if self.factors is None else np.asarray(self.factors, float)
        object.__setattr__(self, "seconds", np.asarray(self.seconds, float))
        object.__setattr__(self, "factors", factors)
        object.__setattr__(self, "floors", np.full(n, np.nan) if self.floors is None
                           else np.asarray(self.floors, float))
        object.__setattr__(self, "counts", {k: np.asarray(v, float)
                                            for k, v in self.counts.items()})
        if len(factors) != n or len(self.floors) != n or any(
                len(v) != n for v in self.counts.values()):
            raise ModelError(f"{self.name}: counts, times and factors of different lengths")

    def usable(self, properties: Sequence[str]) -> np.ndarray:
        """Points measured, with a finite factor and every property counted."""
        ok = np.isfinite(self.seconds) & (self.seconds > 0) & np.isfinite(self.factors)
        ok &= self.factors > 0
        for name in properties:
            ok &= np.isfinite(self.counts.get(name, np.full(len(ok), np.nan)))
        return ok


def measure_space(space, evaluations: Mapping, base: FittedLinearModel
                  ) -> tuple[MeasuredSpace, list]:
    """``space``'s points counted with ``base``'s weighted properties (what a ranking
    with it counts), their measured times in ``evaluations`` (label -> evaluation, as
    :func:`workbench.tuning.load_space_evaluations` gives) and their residency factors
    on ``base``'s device; and the candidates, in the same order."""
    from workbench.kernels.candidate import Candidate
    from workbench.models.candidate_features import candidate_feature_values
    from workbench.models.expressions.features import StandardFeature
    from workbench.models.floors import candidate_floors, model_floors
    from workbench.models.residency_penalty import residency_factors
    from workbench.properties import parse_feature

    names = weighted_properties(base)
    refs = [StandardFeature(n, parse_feature(n)) for n in names]
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    values, _ = candidate_feature_values(candidates, refs, granularity=base.granularity,
                                         subgroup_size=base.subgroup_size)
    labels = [c.point.label for c in candidates]
    seconds = [evaluations[lab].time_s if lab in evaluations and evaluations[lab].ok
               else np.inf for lab in labels]
    factors, _ = residency_factors(candidates, dict(base.device).get("device", ""))
    device = model_floors(base)
    floors = ([np.nan] * len(candidates) if device is None else
              [f.seconds if f is not None else np.nan
               for f in candidate_floors(candidates, device, None)])
    return MeasuredSpace(space.name, {n: values[n] for n in names}, np.array(seconds),
                         factors, np.array(floors)), candidates


def weighted_properties(base: FittedLinearModel) -> list[str]:
    """The properties ``base`` prices above zero: the ones a ranking with it counts."""
    return [name for name, weight in base.weights.items() if weight]


def fit_frame(spaces: Sequence[MeasuredSpace], properties: Sequence[str],
              scales: Mapping[str, float] | None = None) -> pd.DataFrame:
    """The rows :meth:`UnifiedLinearModel.fit` takes: one per usable point, its counts,
    its time over its residency factor (times its space's scale) and its space."""
    frames = []
    for space in spaces:
        ok = space.usable(properties)
        if not ok.any():
            continue
        scale = 1.0 if scales is None else scales[space.name]
        frame = pd.DataFrame({name: space.counts[name][ok] for name in properties})
        frame["time_s"] = space.seconds[ok] / space.factors[ok] * scale
        frame["kernel"] = space.name
        frame["role"] = "measurement"
        frames.append(frame)
    if not frames:
        raise ModelError("no measured point to fit on")
    return pd.concat(frames, ignore_index=True)


def weighted_counts(weights: Mapping[str, float], space: MeasuredSpace) -> np.ndarray:
    """weights x counts at every point of ``space`` (the model's own times)."""
    total = np.zeros(len(space.seconds))
    for name, weight in weights.items():
        if weight:
            total = total + weight * space.counts[name]
    return total


def predicted_seconds(weights: Mapping[str, float], space: MeasuredSpace) -> np.ndarray:
    """weights x counts x factor at every point of ``space``."""
    return weighted_counts(weights, space) * space.factors


def _log_within_weights(spaces: Sequence[MeasuredSpace], properties: Sequence[str],
                        start: Mapping[str, float]) -> np.ndarray:
    """Non-negative weights minimising the squared log-errors of weights x counts
    against time over factor, each space's errors centred (its free offset, eliminated
    exactly); the overall scale, which centring leaves free, set so that the median
    ratio of predicted to measured time over all points is 1."""
    from scipy.optimize import least_squares

    unit = np.array([start[name] for name in properties], float)
    blocks = []
    for space in spaces:
        ok = space.usable(properties)
        counts = np.column_stack([space.counts[name][ok] for name in properties]) * unit
        blocks.append((counts, np.log(space.seconds[ok] / space.factors[ok])))
    tiny = 1e-300

    def residuals(u):
        parts = []
        for counts, log_times in blocks:
            error = np.log(np.maximum(counts @ u, tiny)) - log_times
            parts.append(error - error.mean())
        return np.concatenate(parts)

    def jacobian(u):
        parts = []
        for counts, _ in blocks:
            rows = counts / np.maximum(counts @ u, tiny)[:, None]
            parts.append(rows - rows.mean(axis=0))
        return np.vstack(parts)

    found = least_squares(residuals, np.ones(len(unit)), jac=jacobian,
                          bounds=(0.0, np.inf), method="trf", x_scale="jac")
    if not found.success:
        raise ModelError(f"the log-within fit did not converge: {found.message}")
    weights = found.x * unit
    ratios = np.concatenate([np.log(counts @ found.x) - log_times
                             for counts, log_times in blocks])
    return weights / float(np.exp(np.median(ratios[np.isfinite(ratios)])))


def _fitted_log_within(spaces, properties, base, bootstrap: int) -> FittedLinearModel:
    """The log-within fit (:data:`Objective.LOG_WITHIN`), its intervals from refits on
    spaces drawn with replacement (the spaces, not the points, are the samples)."""
    start = {name: base.weights[name] for name in properties}
    weights = _log_within_weights(spaces, properties, start)
    intervals = {name: (float(w), float(w)) for name, w in zip(properties, weights)}
    if bootstrap:
        rng = np.random.default_rng(0)
        draws = np.array([_log_within_weights(
            [spaces[i] for i in rng.integers(0, len(spaces), len(spaces))], properties, start)
            for _ in range(bootstrap)])
        low, high = np.percentile(draws, [2.5, 97.5], axis=0)
        intervals = {name: (float(a), float(b)) for name, a, b in zip(properties, low, high)}
    points = sum(int(s.usable(properties).sum()) for s in spaces)
    return FittedLinearModel(
        weights=dict(zip(properties, map(float, weights))), confidence_intervals=intervals,
        unexercised=list(base.unexercised),
        fit_stats={"objective": Objective.LOG_WITHIN.value, "n_measurements": points,
                   "bootstrap_spaces": bootstrap},
        device=dict(base.device), granularity=base.granularity,
        subgroup_size=base.subgroup_size, provenance={}, non_negative=True)


def fit_on_spaces(spaces: Sequence[MeasuredSpace], base: FittedLinearModel, *,
                  rounds: int = SCALE_ROUNDS, bootstrap: int = 0,
                  objective: Objective = Objective.RELATIVE,
                  provenance: Mapping | None = None) -> FittedLinearModel:
    """``base``'s weighted properties fitted on ``spaces`` (module docstring) for
    ``objective``; with :data:`Objective.RELATIVE`, ``rounds`` alternations of a free
    scale per space (0: plain relative error)."""
    if rounds < 0:
        raise ModelError(f"rounds must be 0 or more, not {rounds}")
    objective = Objective(objective)
    if objective is Objective.LOG_WITHIN and rounds:
        raise ModelError("the log-within objective has a free offset per space already: "
                         "rounds must be 0")
    properties = weighted_properties(base)
    spaces = [s for s in spaces if s.usable(properties).any()]
    if not spaces:
        raise ModelError("no measured point to fit on")
    if objective is Objective.LOG_WITHIN:
        fitted = _fitted_log_within(spaces, properties, base, bootstrap)
        return _as_base(fitted, base, spaces, provenance, rounds=0)
    scales = {s.name: 1.0 for s in spaces}
    family = UnifiedLinearModel()
    options = dict(device=dict(base.device), granularity=base.granularity,
                   subgroup_size=base.subgroup_size, non_negative=True)
    def fit(last: bool) -> FittedLinearModel:
        # the bootstrap's intervals only for the fit that is returned
        return family.fit(fit_frame(spaces, properties, scales),
                          bootstrap=bootstrap if last else 0, **options)

    fitted = fit(last=rounds == 0)
    for round_ in range(rounds):
        for space in spaces:
            ok = space.usable(properties)
            ratio = predicted_seconds(fitted.weights, space)[ok] / space.seconds[ok]
            ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
            if len(ratio):
                scales[space.name] *= float(np.median(ratio))
        fitted = fit(last=round_ == rounds - 1)
    return _as_base(fitted, base, spaces, provenance, rounds)


def _as_base(fitted: FittedLinearModel, base: FittedLinearModel, spaces, provenance,
             rounds: int) -> FittedLinearModel:
    """``fitted`` with every property of ``base`` (zero where it was not fitted), the
    spaces it was fitted on and ``base``'s device record."""
    weights = {name: fitted.weights.get(name, 0.0) for name in base.weights}
    stats = dict(fitted.fit_stats, spaces=sorted(s.name for s in spaces),
                 space_scale_rounds=rounds, base_model_fit=dict(base.fit_stats))
    stats.setdefault("objective", Objective.RELATIVE.value)
    stats.pop("kernels", None)
    return FittedLinearModel(
        weights=weights,
        confidence_intervals={k: fitted.confidence_intervals.get(k, (0.0, 0.0))
                              for k in weights},
        unexercised=list(base.unexercised), fit_stats=stats, device=dict(base.device),
        granularity=base.granularity, subgroup_size=base.subgroup_size,
        provenance=dict(fitted.provenance, **dict(provenance or {})),
        non_negative=True)


def runs_to_share(space: MeasuredSpace, predicted: np.ndarray, share: float = 0.95) -> int:
    """Runs, in the predicted order (stable; unpredicted last), until a point within
    ``share`` of the space's best measured time is measured."""
    keys = np.where(np.isfinite(predicted), predicted, np.inf)
    order = np.argsort(keys, kind="stable")
    measured = np.where(np.isfinite(space.seconds), space.seconds, np.inf)
    reached = measured.min() / measured[order] >= share
    if not reached.any():
        raise ModelError(f"{space.name}: no measured point")
    return int(np.argmax(reached)) + 1


def ranking_times(weights: Mapping[str, float], space: MeasuredSpace) -> np.ndarray:
    """What a ranking predicts at each point: weights x counts lifted to the point's
    physical floor, times its residency factor."""
    raw = weighted_counts(weights, space)
    known = np.isfinite(raw) & np.isfinite(space.floors)
    return np.where(known & (raw < space.floors), space.floors, raw) * space.factors


def leave_one_out_runs(spaces: Sequence[MeasuredSpace], base: FittedLinearModel, *,
                       rounds: int = SCALE_ROUNDS, share: float = 0.95,
                       objective: Objective = Objective.RELATIVE
                       ) -> list[tuple[str, int, int]]:
    """Per space: runs to ``share`` in the ranking's order under ``base`` and under the
    fit on every other space (what a fit promises a space it has not seen)."""
    out = []
    for space in spaces:
        others = [s for s in spaces if s is not space]
        fitted = fit_on_spaces(others, base, rounds=rounds, objective=objective)
        out.append((space.name, runs_to_share(space, ranking_times(base.weights, space), share),
                    runs_to_share(space, ranking_times(fitted.weights, space), share)))
    return out
