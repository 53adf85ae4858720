"""The unified, hardware-fitted linear model (Stevens and Klöckner, sections 2 and 4.3).

Run time is a weighted sum of kernel properties, T ~ sum_i a_i p_i(n).  The weights
minimize the squared *relative* error over the measurement kernels,
sum_j (1 - sum_i a_i p_ij / T_j)^2, which is linear least squares on the properties
divided by the measured times.  Weights carry units of seconds per operation.

The default fit (:data:`DEFAULT_FIT`, ``FitMethod.NON_NEGATIVE``) solves the same
problem with every weight bounded below by zero: a weight is seconds per event, and a
negative one lets a kernel be predicted to take negative time (52 noisy configurations
of a quick CPU campaign gave 5 of 20 weights below zero).  The bound keeps correlated
properties (barriers and local stores, which the measurement kernels only exercise
together) from splitting a joint cost into a positive and a negative part, at the price
of a sum of squared relative errors no smaller than the free fit's.  The free fit
(``FitMethod.PLAIN``, ``non_negative=False``) is the paper's, and reproduces its tables.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.errors import ModelError, ParameterError, WorkbenchError
from workbench.measure.provenance import library_versions, utc_now_iso
from workbench.models.contract import (
    Need,
    Paper,
    RanksByPrediction,
    geometric_mean,
    needs_calibration,
    relative_errors,
)
from workbench.models.dataset import candidate_frame, feature_columns
from workbench.models.prediction import (
    Breakdown,
    Predictions,
    TermKind,
    linear_terms,
    make_predictions,
)
from workbench.models.terms import Account, TermShare, category_of
from workbench.properties import feature_label, feature_sort_key, parse_feature

SCHEMA = "workbench.model"
SCHEMA_VERSION = 1
FAMILY = "unified-linear"


class FitMethod(enum.Enum):
    """How the linear model's weights are solved for."""

    PLAIN = "plain"                   # free least squares: the paper's tables
    NON_NEGATIVE = "non-negative"     # every weight >= 0 (scipy's lsq_linear): default

    @property
    def non_negative(self) -> bool:
        return self is FitMethod.NON_NEGATIVE

    @classmethod
    def parse(cls, value: FitMethod | str | bool | None) -> FitMethod:
        """A method, its name, ``non_negative`` as a bool, or None (the default)."""
        if value is None:
            return DEFAULT_FIT
        if isinstance(value, bool):
            return cls.NON_NEGATIVE if value else cls.PLAIN
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).strip().lower().replace("_", "-"))
        except ValueError:
            raise ParameterError(f"unknown fit {value!r}: choose one of "
                                 + ", ".join(m.value for m in cls)) from None


DEFAULT_FIT = FitMethod.NON_NEGATIVE


def _solve_relative(x: np.ndarray, t: np.ndarray, non_negative: bool = False
                    ) -> tuple[np.ndarray, int]:
    """min_w ||(X w) / t - 1||, optionally with w >= 0; columns scaled first, since
    counts span many decades (a positive scale leaves the bound w >= 0 as it is)."""
    a = x / t[:, None]
    scale = np.linalg.norm(a, axis=0)
    scale[scale == 0] = 1.0
    a = a / scale
    ones = np.ones(len(t))
    if not non_negative:
        w, _, rank, _ = np.linalg.lstsq(a, ones, rcond=None)
        return w / scale, int(rank)
    from scipy.optimize import lsq_linear

    # bvls (an active-set method) puts bound weights exactly at zero, which trf's
    # interior iterates only approach; trf is the fallback should bvls not converge
    result = lsq_linear(a, ones, bounds=(0.0, np.inf), method="bvls", tol=1e-12)
    if not result.success:
        result = lsq_linear(a, ones, bounds=(0.0, np.inf), method="trf",
                            lsq_solver="exact", tol=1e-12, max_iter=1000)
    if not result.success:
        raise ModelError(f"the non-negative fit did not converge: {result.message}")
    w = np.where(result.active_mask != 0, 0.0, result.x)
    return w / scale, int(np.linalg.matrix_rank(a))


def _sorted_names(names) -> list[str]:
    return sorted(names, key=lambda n: feature_sort_key(parse_feature(n)))


PAPER = Paper("Stevens & Klöckner, 2016",
              "A unified, hardware-fitted, cross-GPU performance model",
              "stevens-kloeckner-unified", "https://doi.org/10.48550/arXiv.1604.04997")


@dataclass
class FittedLinearModel(RanksByPrediction):
    weights: dict[str, float]
    confidence_intervals: dict[str, tuple[float, float]]
    unexercised: list[str]
    fit_stats: dict
    device: dict
    granularity: str = "workitem"
    subgroup_size: int | None = None
    provenance: dict = field(default_factory=dict)
    family: str = FAMILY
    non_negative: bool = False               # fitted with every weight >= 0

    @property
    def fit_method(self) -> FitMethod:
        return FitMethod.parse(self.non_negative)

    @property
    def properties(self) -> list[str]:
        return list(self.weights)

    def predict(self, data: pd.DataFrame | dict) -> np.ndarray:
        frame = pd.DataFrame(data) if isinstance(data, dict) else data
        total = np.zeros(len(frame))
        for name, w in self.weights.items():
            if name in frame:
                total = total + w * frame[name].to_numpy(dtype=float)
        return total

    def predict_candidates(self, candidates, **context) -> Predictions:
        """Predicted times of candidates, from their counts (no device needed); each
        breakdown lists weight x count per property, largest share first."""
        from workbench.models.candidate_features import candidate_feature_values
        from workbench.models.expressions.features import StandardFeature

        # a property of weight zero (a non-negative fit's) adds nothing: not asked for,
        # so a factory point is not linearized for a barrier count nobody reads
        weighted = {n: w for n, w in self.weights.items() if w}
        refs = [StandardFeature(n, parse_feature(n)) for n in weighted]
        values, errors = candidate_feature_values(candidates, refs,
                                                  granularity=self.granularity,
                                                  subgroup_size=self.subgroup_size)
        total = np.zeros(len(candidates))
        for name, w in weighted.items():
            total = total + w * values[name]
        unweighted = self._unweighted(candidates) if len(candidates) <= 8 else {}
        breakdowns = [Breakdown(linear_terms(self.weights, values, i),
                                notes=(("no weight for " + ", ".join(unweighted[i])
                                        + " (not calibrated)",) if unweighted.get(i) else ()),
                                details=(("properties_without_weight",
                                          list(unweighted.get(i, ()))),))
                      for i in range(len(candidates))]
        return make_predictions(candidates, total, breakdowns,
                                [e or (None if np.isfinite(t) else "not predicted")
                                 for e, t in zip(errors, total)])

    def explain_terms(self, breakdown: Breakdown) -> Account:
        """Weight x count per property (:mod:`workbench.models.terms`): a plain sum."""
        terms = tuple(TermShare(t.name, t.value, category_of(t.name),
                                count=t.value / t.weight if t.weight else None,
                                weight=t.weight)
                      for t in breakdown.terms if t.kind is TermKind.SECONDS and t.value)
        return Account(terms, float(sum(t.seconds for t in terms)))

    def _unweighted(self, candidates) -> dict[int, list[str]]:
        """Properties a (plain kernel) candidate has and the model has no weight for."""
        out = {}
        for i, c in enumerate(candidates):
            if c.space is not None:
                continue
            try:
                frame = candidate_frame([c], granularity=self.granularity,
                                        subgroup_size=self.subgroup_size)
            except (ModelError, WorkbenchError, ValueError):
                continue
            out[i] = self.missing_weights(frame)
        return out

    def missing_weights(self, data: pd.DataFrame) -> list[str]:
        """Properties present (non-zero) in ``data`` that the model has no weight for."""
        return [c for c in feature_columns(data)
                if c not in self.weights and (data[c] != 0).any()]

    def report_data(self) -> dict:
        rows = []
        for name, w in self.weights.items():
            lo, hi = self.confidence_intervals.get(name, (np.nan, np.nan))
            rows.append({"property": name, "label": feature_label(parse_feature(name)),
                         "weight_s_per_op": w, "ci_low": lo, "ci_high": hi})
        return {"parameters": pd.DataFrame(rows), "fit": dict(self.fit_stats),
                "unexercised": list(self.unexercised)}

    def to_json(self) -> dict:
        return {
            "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "family": self.family,
            "device": self.device, "granularity": self.granularity,
            "subgroup_size": self.subgroup_size, "properties": self.properties,
            "non_negative": self.non_negative, "weights": self.weights,
            "confidence_intervals": {k: list(v) for k, v in self.confidence_intervals.items()},
            "unexercised_properties": self.unexercised, "fit": self.fit_stats,
            "provenance": self.provenance,
        }


class UnifiedLinearModel:
    """Model family 'unified-linear'."""

    name = FAMILY
    paper = PAPER
    needs = frozenset({Need.COUNTS, Need.CALIBRATION})
    home = "workbench.models.unified"

    def ready(self, **options) -> FittedLinearModel:
        raise needs_calibration(self)

    def describe(self) -> str:
        return ("Unified cross-GPU linear model (Stevens & Kloeckner): run time = sum of "
                "property counts x fitted seconds-per-operation weights; fitted to the "
                "measurement kernels by minimizing squared relative error. No overlap, "
                "no occupancy, no caches beyond the stride/utilization classes. "
                "Weights are bounded below by 0 by default; option non_negative=False "
                "(fit 'plain') is the paper's free least squares.")

    def fit(self, data: pd.DataFrame, *, bootstrap: int = 200, confidence: float = 0.95,
            seed: int = 0, device: dict | None = None, granularity: str = "workitem",
            subgroup_size: int | None = None, provenance: dict | None = None,
            non_negative: FitMethod | str | bool | None = None) -> FittedLinearModel:
        """Fit on the dataset's measurement rows; ``bootstrap`` resamples (0: none)
        give the confidence intervals.  ``non_negative`` is the :class:`FitMethod` (or
        its name, or a bool): by default every weight is bounded below by 0; False or
        ``"plain"`` is the paper's free least squares."""
        non_negative = FitMethod.parse(non_negative).non_negative
        train = data[data["role"] == "measurement"]
        if len(train) == 0:
            raise ModelError("no measurement-kernel rows to fit on; run a calibration first")
        features = feature_columns(data)
        exercised = [c for c in features if (train[c] != 0).any()]
        unexercised = _sorted_names(c for c in features
                                    if c not in exercised and (data[c] != 0).any())
        names = _sorted_names(exercised)
        x = train[names].to_numpy(dtype=float)
        t = train["time_s"].to_numpy(dtype=float)
        if not np.all(np.isfinite(t) & (t > 0)):
            raise ModelError("measured times must be positive to fit relative errors; "
                             "the dataset has zero or missing times")
        if len(t) < len(names):
            raise ModelError(f"{len(t)} measurements cannot determine {len(names)} weights")
        w, rank = _solve_relative(x, t, non_negative)

        rng = np.random.default_rng(seed)
        samples = []
        for _ in range(bootstrap):
            idx = rng.integers(0, len(t), len(t))
            samples.append(_solve_relative(x[idx], t[idx], non_negative)[0])
        alpha = (1 - confidence) / 2
        if samples:
            lo, hi = np.quantile(np.array(samples), [alpha, 1 - alpha], axis=0)
        else:
            lo = hi = np.full(len(names), np.nan)

        pred = x @ w
        stats = {
            "n_measurements": int(len(t)), "n_properties": len(names), "rank": rank,
            "rank_deficient": rank < len(names),
            "training_geomean_rel_error": geometric_mean(relative_errors(pred, t)),
            "training_max_rel_error": float(np.max(relative_errors(pred, t))),
            "bootstrap_samples": int(bootstrap), "confidence": confidence,
            "kernels": sorted(train["kernel"].unique().tolist()),
            "non_negative": bool(non_negative),
        }
        if non_negative:
            stats["weights_at_zero"] = [n for n, v in zip(names, w) if v == 0.0]
        prov = {"library_versions": library_versions(), "created": utc_now_iso(),
                **(provenance or {})}
        return FittedLinearModel(
            weights={n: float(v) for n, v in zip(names, w)},
            confidence_intervals={n: (float(a), float(b)) for n, a, b in zip(names, lo, hi)},
            unexercised=unexercised, fit_stats=stats, device=device or {},
            granularity=granularity, subgroup_size=subgroup_size, provenance=prov,
            non_negative=bool(non_negative))

    def load(self, document: dict) -> FittedLinearModel:
        if document.get("schema") != SCHEMA or document.get("family") != FAMILY:
            raise ModelError("not a unified-linear model file")
        version = document.get("schema_version", 0)
        if version > SCHEMA_VERSION:
            raise ModelError(f"model file has schema version {version}; this workbench "
                             f"reads up to {SCHEMA_VERSION}: upgrade the workbench")
        return FittedLinearModel(
            weights={k: float(v) for k, v in document["weights"].items()},
            confidence_intervals={k: tuple(v) for k, v in
                                  document.get("confidence_intervals", {}).items()},
            unexercised=list(document.get("unexercised_properties", [])),
            fit_stats=dict(document.get("fit", {})), device=dict(document.get("device", {})),
            granularity=document.get("granularity", "workitem"),
            subgroup_size=document.get("subgroup_size"),
            provenance=dict(document.get("provenance", {})),
            # files written before the option existed hold free fits
            non_negative=bool(document.get("non_negative", False)))
