"""Model family "expression": user-written models fitted by nonlinear least squares.

Stevens and Klöckner (2019, sections 6 and 7) let the user write the model,
T_wall(n) ~ g(feat_0(n), ..., feat_j(n); p_0, ..., p_k) for any differentiable g, as
text (see :mod:`workbench.models.expressions.language` for the language and
:mod:`workbench.models.expressions.features` for the feature names).  The parameters
minimize the squared relative error over the measurement kernels,

    sum_j (1 - g(feat(n_j); p) / T_j)**2,

with :func:`scipy.optimize.least_squares` (trust-region reflective, exact Jacobian,
Jacobian-scaled variables so that parameters of 1e-12 s/op and 1e-6 s fit alike),
optionally within per-parameter bounds and from user-given initial values (0 by
default, moved inside the bounds).  For a model linear in its parameters,
``p_1 * f_1 + ... + p_k * f_k``, this is the same problem the unified linear model
solves in closed form, and gives the same weights.

A model file is JSON (``schema`` "workbench.model", ``family`` "expression")::

    {"schema": "workbench.model", "schema_version": 1, "family": "expression",
     "model": "f_cl_wall_time = p_launch * f_sync_kernel_launch + ...",
     "output": "f_cl_wall_time",
     "granularity": "subgroup", "subgroup_size": 32,
     "bounds": {"p_launch": [0, null]},          null: unbounded
     "initial": {"p_launch": 5e-06},
     -- written by a fit:
     "parameters": {"p_launch": 5.01e-06, ...},
     "confidence_intervals": {"p_launch": [4.9e-06, 5.1e-06], ...},
     "unexercised_parameters": [], "fit": {...}, "device": {...}, "provenance": {...}}

The first block alone is a model *specification* that ``workbench fit --model FILE``
accepts; a fitted file also loads with :func:`workbench.models.load_model`.  The
expression is stored as text and re-parsed by the safe parser on load: a shared
model file is data, never code.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping
from lzma import LZMAError
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import ModelError, WorkbenchWarning
from workbench.measure.provenance import library_versions, utc_now_iso
from workbench.models.contract import (
    Need,
    Paper,
    RanksByPrediction,
    geometric_mean,
    needs_calibration,
    relative_errors,
)
from workbench.models.prediction import Breakdown, Predictions, feature_terms, make_predictions
from workbench.errors import UnknownModelNameError
from workbench.models.terms import Account
from workbench.models.expressions.feature_values import dataset_feature_values
from workbench.models.expressions.features import (
    OutputFeature,
    device_slug,
    parse_feature_ref,
)
from workbench.models.expressions.spec import (  # noqa: F401 - re-exported
    DEFAULT_GRANULARITY,
    DEFAULT_SUBGROUP_SIZE,
    FAMILY,
    SCHEMA,
    SCHEMA_VERSION,
    ExpressionModelSpec,
    _bound,
    _json_number,
)
from workbench.properties import Granularity
from workbench.shipped_files import read_shipped_text

PAPER = Paper("Stevens & Klöckner, 2019",
              "A mechanism for balancing accuracy and scope in cross-machine black-box "
              "GPU performance modeling", "stevens-kloeckner-2019",
              "https://doi.org/10.48550/arXiv.1904.09538")


@dataclass(frozen=True)
class FittedExpressionModel(RanksByPrediction):
    """A fitted expression model: predicts, reports and saves itself."""

    spec: ExpressionModelSpec
    parameters: Mapping[str, float]
    confidence_intervals: Mapping[str, tuple[float, float]]
    unexercised: tuple[str, ...]
    fit_stats: Mapping[str, object]
    device: Mapping[str, str]
    provenance: Mapping[str, object] = field(default_factory=dict)
    family: str = FAMILY

    @property
    def granularity(self) -> str:
        return self.spec.granularity

    @property
    def subgroup_size(self) -> int | None:
        return self.spec.subgroup_size

    @property
    def expression(self) -> str:
        return self.spec.model.text

    @property
    def features(self) -> tuple[str, ...]:
        return self.spec.model.features

    def feature_values(self, data: pd.DataFrame | Mapping, *, specs: Mapping | None = None
                       ) -> dict[str, np.ndarray]:
        """The model's input features for every row of ``data`` (see ``predict``);
        ``specs`` maps the names of kernels outside the catalog to their specs."""
        frame = pd.DataFrame(data) if not isinstance(data, pd.DataFrame) else data
        return dataset_feature_values(frame, self.features, granularity=self.granularity,
                                      subgroup_size=self.subgroup_size, specs=specs)

    def predict(self, data: pd.DataFrame | Mapping) -> np.ndarray:
        """Predicted run time (s) per row.

        Features that are columns of ``data`` are used as they are (a dataset must be
        built at the model's granularity, ``build_dataset(ms, granularity=
        model.granularity, subgroup_size=model.subgroup_size)``); the others are
        computed from the rows' kernel, variant, dtype, group size and params.
        """
        frame = pd.DataFrame(data) if not isinstance(data, pd.DataFrame) else data
        if len(frame) == 0:
            return np.zeros(0)
        return self.evaluate(self.feature_values(frame))

    def predict_candidates(self, candidates, *, twins=None, device: str | None = None,
                           **context) -> Predictions:
        """Predicted times of candidates, each with the feature values it read.  A
        model that reads ``f_wr_wall_time`` needs the measured ``twins``
        (:func:`~workbench.models.expressions.insitu.twin_times`); ``device`` (default:
        the model's) is the device of device features."""
        from workbench.models.candidate_features import candidate_feature_values
        from workbench.models.expressions.features import (
            FLOOR,
            DeviceFeature,
            parse_feature_ref,
        )
        from workbench.models.expressions.insitu import (
            CU_BALANCE,
            TWIN_TIME,
            compute_units,
            cu_balance,
            twin_key,
        )
        from workbench.properties import ThreadGroups

        candidates = list(candidates)
        device = device or dict(self.device).get("device", "")
        refs = [parse_feature_ref(n) for n in self.features]
        counted = [r for r in refs if not isinstance(r, DeviceFeature)]
        if CU_BALANCE in self.features:
            counted.append(parse_feature_ref(ThreadGroups().name))
        values, errors = candidate_feature_values(candidates, counted,
                                                  granularity=self.granularity,
                                                  subgroup_size=self.subgroup_size)
        if TWIN_TIME in self.features:
            if twins is None:
                raise ModelError(
                    f"{TWIN_TIME} is the measured time of each candidate's work-removed "
                    "twin: measure the twins (workbench calibrate --set work-removed, or "
                    "predict --device DEVICE) and pass them")
            values[TWIN_TIME] = np.array([
                twins.get(twin_key(c.kernel_name, c.variant, c.dtype,
                                   "x".join(map(str, c.group_size)),
                                   ",".join(f"{a}={b}" for a, b in c.params), device),
                          np.nan) for c in candidates], dtype=float)
        if CU_BALANCE in self.features:
            values[CU_BALANCE] = cu_balance(values[ThreadGroups().name],
                                            compute_units(device))
        if FLOOR in self.features:
            from workbench.models.floors import candidate_floors, floors_of_device

            floors = floors_of_device(device)
            values[FLOOR] = np.array(
                [f.seconds if f is not None else 0.0
                 for f in candidate_floors(candidates, floors)] if floors is not None
                else np.zeros(len(candidates)))
        from workbench.models.expressions.feature_values import candidate_feature_provider

        for name in self.features:
            provider = candidate_feature_provider(name)
            if name not in values and provider is not None:
                values[name] = provider(candidates, device)
        inputs = {name: values[name] for name in self.features}
        total = np.asarray(self.evaluate(inputs), dtype=float).reshape(-1)
        breakdowns = [Breakdown(feature_terms(inputs, i), details=(
            ("features", {k: float(v[i]) for k, v in inputs.items()}),))
            for i in range(len(candidates))]
        return make_predictions(candidates, total, breakdowns,
                                [e or (None if np.isfinite(t) else "not predicted")
                                 for e, t in zip(errors, total)])

    def explain_terms(self, breakdown: Breakdown) -> Account:
        """The prediction in seconds per term, each overlap's winner and loser
        (:mod:`workbench.models.expressions.account`), from the feature values the
        prediction read."""
        from workbench.models.expressions.account import expression_account

        features = dict(breakdown.details).get("features")
        if features is None:
            raise ModelError("this prediction carries no feature values to explain")
        return expression_account(self.spec.model, self.parameters, features)

    @property
    def needs(self) -> frozenset[Need]:
        """What predicting with this fitted model needs, from the features it reads."""
        from workbench.models.expressions.insitu import CU_BALANCE, TWIN_TIME
        needs = {Need.COUNTS}
        if TWIN_TIME in self.features:
            needs.add(Need.TWIN_MEASUREMENTS)
        if CU_BALANCE in self.features:
            needs.add(Need.DEVICE_DESCRIPTION)
        return frozenset(needs)

    def evaluate(self, features: Mapping[str, np.ndarray]) -> np.ndarray:
        return self.spec.model.evaluate(features, self.parameters)

    def report_data(self) -> dict:
        rows = []
        for name, value in self.parameters.items():
            lo, hi = self.confidence_intervals.get(name, (math.nan, math.nan))
            blo, bhi = self.spec.bounds.get(name, (-math.inf, math.inf))
            rows.append({"property": name, "label": name, "value": value,
                         "weight_s_per_op": value, "ci_low": lo, "ci_high": hi,
                         "lower_bound": blo, "upper_bound": bhi})
        return {"parameters": pd.DataFrame(rows), "fit": dict(self.fit_stats),
                "unexercised": list(self.unexercised), "model": self.expression}

    def to_json(self) -> dict:
        ci = {k: [_json_number(a), _json_number(b)]
              for k, (a, b) in self.confidence_intervals.items()}
        return {**self.spec.to_document(), "parameters": dict(self.parameters),
                "confidence_intervals": ci, "unexercised_parameters": list(self.unexercised),
                "fit": _jsonable(self.fit_stats), "device": dict(self.device),
                "provenance": dict(self.provenance)}


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def _check_output_device(output: str, data: pd.DataFrame) -> None:
    ref = parse_feature_ref(output)
    devices = sorted(set(data["device"].astype(str))) if "device" in data else []
    if len(devices) > 1:
        raise ModelError("the data mixes devices (" + ", ".join(devices) + "); fit one "
                         "device at a time")
    if isinstance(ref, OutputFeature) and ref.device and devices:
        slug = device_slug(devices[0])
        if ref.device not in slug:
            raise ModelError(f"output {output!r} names another device than the data's "
                             f"{devices[0]!r}; write f_cl_wall_time or "
                             f"f_cl_wall_time_{slug}")


def _covariance_intervals(jac: np.ndarray, cost: float, confidence: float
                          ) -> tuple[np.ndarray, int]:
    """Half-widths of linearized confidence intervals and the Jacobian's rank."""
    from scipy.stats import t as student_t

    n, p = jac.shape
    scale = np.linalg.norm(jac, axis=0)
    live = scale > 0
    half = np.full(p, np.nan)
    if not live.any():
        return half, 0
    a = jac[:, live] / scale[live]
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    tol = s.max() * max(a.shape) * np.finfo(float).eps
    rank = int(np.sum(s > tol))
    dof = n - rank
    if dof <= 0:
        return half, rank
    inv = np.where(s > tol, 1 / np.where(s > tol, s, 1) ** 2, 0.0)
    cov = (vt.T * inv) @ vt * (2 * cost / dof)
    std = np.sqrt(np.clip(np.diag(cov), 0, None)) / scale[live]
    half[live] = student_t.ppf(0.5 + confidence / 2, dof) * std
    return half, rank


def _looks_like_file(text: str, path: Path) -> bool:
    """A model argument names a file if it ends in .json (.json.xz) or is an existing
    file."""
    if text.strip().endswith((".json", ".json.xz")):
        return True
    if "\n" in text or len(text) > 1024:
        return False
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


class ExpressionModel:
    """Model family 'expression' (user-written models, 2019 paper)."""

    name = FAMILY
    paper = PAPER
    # the in-situ features add twin measurements and a device description; a fitted
    # model says which it needs (FittedExpressionModel.needs)
    needs = frozenset({Need.COUNTS, Need.CALIBRATION})
    home = "workbench.models.expressions"

    def ready(self, **options) -> FittedExpressionModel:
        raise needs_calibration(self)

    def describe(self) -> str:
        return ("User-written model (Stevens & Kloeckner 2019): run time = any "
                "differentiable expression of kernel features (f_ names: property counts, "
                "constrained and tagged memory accesses) and fitted parameters (p_ names), "
                "e.g. a smooth max of on-chip and global-memory cost to model overlap; "
                "fitted to the measurement kernels by nonlinear least squares on relative "
                "error.")

    def spec(self, source: str | Path | Mapping | ExpressionModelSpec, **overrides
             ) -> ExpressionModelSpec:
        """A specification from text, a model file's path, a document or a spec.

        ``overrides`` (granularity, subgroup_size, bounds, initial) replace the
        source's values where given (not None).
        """
        if isinstance(source, ExpressionModelSpec):
            base = source.to_document()
        elif isinstance(source, Mapping):
            base = dict(source)
        else:
            base = None
            text = str(source)
            path = Path(text)
            if _looks_like_file(text, path):
                try:
                    # X.json.xz where only that exists: older candidates in models/
                    # ship compressed (issue #25)
                    base = json.loads(read_shipped_text(path))
                except FileNotFoundError:
                    raise ModelError(f"model file {text!r} does not exist") from None
                except (OSError, EOFError, ValueError, LZMAError) as err:   # JSON, UTF-8, xz
                    raise ModelError(f"{text!r} is not a model file: {err}") from None
                if not isinstance(base, dict):
                    raise ModelError(f"{text!r} is not a model file (not a JSON object)")
            else:
                base = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION,
                        "family": FAMILY, "model": text}
        for key, value in overrides.items():
            if value is not None:
                base[key] = value
        return ExpressionModelSpec.from_document(base)

    def fit(self, data: pd.DataFrame, *, model: str | Path | Mapping | ExpressionModelSpec,
            device: Mapping | None = None, provenance: Mapping | None = None,
            granularity: Granularity | str | None = None, subgroup_size: int | None = None,
            bounds: Mapping | None = None, initial: Mapping | None = None,
            confidence: float = 0.95, max_nfev: int | None = None,
            bootstrap: int | None = None) -> FittedExpressionModel:
        """Fit on the dataset's measurement rows.

        The dataset should be built at the model's granularity (the features it lacks
        are computed, those it has are used).  ``bootstrap`` is accepted for the CLI's
        sake and ignored: confidence intervals come from the Jacobian at the optimum
        (linearized covariance, Student t), since every bootstrap sample would cost a
        nonlinear refit.
        """
        from scipy.optimize import least_squares

        gran = granularity.value if isinstance(granularity, Granularity) else granularity
        spec = self.spec(model, granularity=gran, subgroup_size=subgroup_size,
                         bounds=bounds, initial=initial)
        train = data[data["role"] == "measurement"] if "role" in data else data
        if len(train) == 0:
            raise ModelError("no measurement-kernel rows to fit on; run a calibration first")
        _check_output_device(spec.model.output, train)
        t = train["time_s"].to_numpy(dtype=float)
        if not np.all(np.isfinite(t) & (t > 0)):
            raise ModelError("measured times must be positive and finite")
        features = dataset_feature_values(train, spec.model.features,
                                          granularity=spec.granularity,
                                          subgroup_size=spec.subgroup_size)
        # a row without a value for a feature (a measurement whose work-removed twin
        # was never measured, say) cannot inform the fit
        known = np.ones(len(t), dtype=bool)
        for v in features.values():
            known &= np.isfinite(v)
        if not known.all():
            lacking = sorted({n for n, v in features.items() if not np.isfinite(v).all()})
            if not known.any():
                raise ModelError(f"no measurement has a value for {', '.join(lacking)}")
            warnings.warn(f"left {int((~known).sum())} of {len(t)} measurements out of the "
                          f"fit: they have no value for {', '.join(lacking)}",
                          WorkbenchWarning, stacklevel=2)
            train = train[known]
            t = t[known]
            features = {n: v[known] for n, v in features.items()}
        names = spec.parameters
        if len(t) < len(names):
            raise ModelError(f"{len(t)} measurements cannot determine {len(names)} "
                             "parameters")
        x0, lo, hi = spec.start()
        cache: dict = {}

        def model_at(x):
            key = x.tobytes()
            if key not in cache:
                cache.clear()
                cache[key] = spec.model.evaluate_with_jacobian(features, list(x))
            return cache[key]

        def residuals(x):
            return 1.0 - model_at(x)[0] / t

        def jacobian(x):
            return -model_at(x)[1] / t[:, None]

        r0, j0 = residuals(x0), jacobian(x0)
        if not (np.all(np.isfinite(r0)) and np.all(np.isfinite(j0))):
            raise ModelError("the model is not finite at the initial parameter values "
                             f"{dict(zip(names, x0.tolist()))}; give initial values "
                             "(and bounds) that keep it defined")
        # A parameter no training row exercises has a zero Jacobian column: with
        # x_scale="jac" the optimizer would take unbounded steps in it (and the other
        # parameters then stall far from their optimum).  It stays at its start.
        free = np.linalg.norm(j0, axis=0) > 0
        if not free.any():
            raise ModelError("no training row exercises any parameter of the model")

        def full(z):
            x = x0.copy()
            x[free] = z
            return x

        with np.errstate(all="ignore"):
            result = least_squares(lambda z: residuals(full(z)), x0[free],
                                   jac=lambda z: jacobian(full(z))[:, free],
                                   bounds=(lo[free], hi[free]),
                                   method="trf", x_scale="jac", ftol=1e-12, xtol=1e-12,
                                   gtol=1e-12, max_nfev=max_nfev or 100 * (len(names) + 1))
        x = full(result.x)
        active = np.zeros(len(names), dtype=int)
        active[free] = result.active_mask
        pred = model_at(x)[0]
        jac = jacobian(x)
        if not np.all(np.isfinite(pred)):
            raise ModelError("the fitted model is not finite on every measurement; "
                             "add bounds that keep it defined")
        exercised = np.linalg.norm(jac, axis=0) > 0
        unexercised = tuple(n for n, e in zip(names, exercised) if not e)
        half, rank = _covariance_intervals(jac, float(result.cost), confidence)
        errors = relative_errors(pred, t)
        stats = {
            "n_measurements": int(len(t)), "n_parameters": len(names), "rank": rank,
            "rank_deficient": rank < len(names),
            "geomean_rel_error": geometric_mean(errors),
            "training_geomean_rel_error": geometric_mean(errors),
            "training_max_rel_error": float(np.max(errors)),
            "cost": float(result.cost), "optimizer": "scipy.optimize.least_squares (trf)",
            "converged": bool(result.success and result.status > 0),
            "optimizer_status": int(result.status), "optimizer_message": str(result.message),
            "function_evaluations": int(result.nfev),
            "active_bounds": [n for n, a in zip(names, active) if a],
            "confidence": confidence, "ci_method": "linearized covariance (Jacobian), "
            "Student t",
            "granularity": spec.granularity, "subgroup_size": spec.subgroup_size,
            "kernels": sorted(train["kernel"].unique().tolist()) if "kernel" in train else [],
        }
        prov = {"library_versions": library_versions(), "created": utc_now_iso(),
                **(provenance or {})}
        return FittedExpressionModel(
            spec=spec, parameters={n: float(v) for n, v in zip(names, x)},
            # the linearized interval knows nothing of the bounds: clip it to them
            confidence_intervals={
                n: (float(max(v - h, spec.bounds.get(n, (-math.inf, math.inf))[0])),
                    float(min(v + h, spec.bounds.get(n, (-math.inf, math.inf))[1])))
                for n, v, h in zip(names, x, half)},
            unexercised=unexercised, fit_stats=stats, device=dict(device or {}),
            provenance=prov)

    def load(self, document: Mapping) -> FittedExpressionModel:
        spec = ExpressionModelSpec.from_document(document)
        fitted = document.get("parameters")
        if not isinstance(fitted, Mapping):
            raise ModelError("this expression model file has no fitted parameters; fit "
                             "it first: workbench fit --model FILE -o FITTED.json")
        for name in fitted:
            if name not in spec.parameters:
                raise UnknownModelNameError("parameter (in the fitted values)", name,
                                            spec.parameters)
        missing = [p for p in spec.parameters if p not in fitted]
        if missing:
            raise ModelError(f"model file lacks fitted value(s) for {', '.join(missing)}")
        try:
            values = {p: float(fitted[p]) for p in spec.parameters}
            ci = {k: (_bound(v[0], math.nan), _bound(v[1], math.nan))
                  for k, v in (document.get("confidence_intervals") or {}).items()}
        except (TypeError, ValueError, IndexError, KeyError):
            raise ModelError("model file has malformed parameter values") from None
        return FittedExpressionModel(
            spec=spec, parameters=values, confidence_intervals=ci,
            unexercised=tuple(document.get("unexercised_parameters", ())),
            fit_stats=dict(document.get("fit") or {}),
            device=dict(document.get("device") or {}),
            provenance=dict(document.get("provenance") or {}))
