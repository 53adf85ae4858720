"""The one prediction entry: :func:`predict` of candidates by any fitted model.

Every caller (the CLI, the dashboard, ``select``, the tuning strategies) predicts
through here and reads the same record, :class:`Predictions`: one time per
candidate and each family's *breakdown* of it (a linear model's weighted counts, an
expression model's feature values, the roofline's limiter times, ...).  No caller
dispatches on the family or builds a family's inputs: a candidate carries its
kernel spec (or its tuning-space point), and each family computes what it reads.

Before a model runs, the candidates are checked against what the model's device can
launch (:func:`check_launchable`): a work group larger than the device's limit is
refused with that limit, never predicted.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.errors import GroupSizeError, ModelError
from workbench.kernels.candidate import Candidate


class TermKind(enum.Enum):
    """What a breakdown term's value is."""

    SECONDS = "seconds"        # a share of the time: a weight times a count
    LIMIT_S = "limiter time"   # one bound of a max (a roofline limiter): seconds
    COUNT = "count"            # an input the family reads (a count, a feature value)


@dataclass(frozen=True)
class Term:
    """One named part of a prediction."""

    name: str
    kind: TermKind
    value: float
    weight: float | None = None             # the fitted factor, where there is one
    limits: bool = False                    # this limiter is the prediction

    def to_json(self) -> dict:
        out = {"name": self.name, "kind": self.kind.value, "value": _number(self.value)}
        if self.weight is not None:
            out["weight"] = _number(self.weight)
        if self.limits:
            out["limits"] = True
        return out


@dataclass(frozen=True)
class Breakdown:
    """A family's account of one candidate's prediction."""

    terms: tuple[Term, ...] = ()
    notes: tuple[str, ...] = ()
    details: tuple[tuple[str, object], ...] = ()   # family-specific JSON-able extras

    def to_json(self) -> dict:
        return {"terms": [t.to_json() for t in self.terms], "notes": list(self.notes),
                **dict(self.details)}


@dataclass(frozen=True, eq=False)
class Predictions:
    """Predicted times of candidates (in the order given) and their breakdowns."""

    candidates: tuple[Candidate, ...]
    seconds: np.ndarray                      # NaN where not predicted
    breakdowns: tuple[Breakdown | None, ...]
    errors: tuple[str | None, ...]
    unit: str = "s"                          # "s", or a relative unit (ir-knn)
    # the device's physical floors (workbench.models.floors), where applied: the
    # model's own times, each candidate's floor, and the bound a raw time broke
    raw_seconds: np.ndarray | None = None
    floors: tuple = ()
    broken: tuple[str | None, ...] = ()
    # what each prediction's user should know (workbench.models.parallelism.Caveat):
    # a launch that uses few of the device's lanes, a kernel outside what the
    # count-based families cover
    caveats: tuple[tuple, ...] = ()

    def __post_init__(self):
        n = len(self.candidates)
        if not (len(self.seconds) == len(self.breakdowns) == len(self.errors) == n):
            raise ModelError("predictions: one time, breakdown and error per candidate")

    def __len__(self) -> int:
        return len(self.candidates)

    def frame(self) -> pd.DataFrame:
        out = pd.DataFrame({
            "candidate": [c.label for c in self.candidates],
            "kernel": [c.kernel_name for c in self.candidates],
            "predicted_s": self.seconds,
            "error": list(self.errors)})
        if self.raw_seconds is not None:
            out["model_s"] = self.raw_seconds
            out["floor_s"] = [f.seconds if f is not None else np.nan for f in self.floors]
            out["broke"] = list(self.broken)
        if self.caveats:
            out["caveats"] = ["; ".join(c.says() for c in found) for found in self.caveats]
        return out


def make_predictions(candidates: Sequence[Candidate], seconds, breakdowns=None,
                     errors=None, unit: str = "s") -> Predictions:
    """A :class:`Predictions` with defaults for what a family does not give."""
    n = len(candidates)
    seconds = np.asarray(seconds, dtype=float).reshape(-1) if n else np.zeros(0)
    breakdowns = tuple(breakdowns) if breakdowns is not None else (None,) * n
    if errors is None:
        errors = tuple(None if math.isfinite(s) else "not predicted" for s in seconds)
    return Predictions(tuple(candidates), seconds, breakdowns, tuple(errors), unit)


def linear_terms(weights: Mapping[str, float], values: Mapping[str, np.ndarray], i: int
                 ) -> tuple[Term, ...]:
    """Weight-times-count terms of candidate ``i``, largest share first."""
    terms = [Term(name, TermKind.SECONDS, float(w * values[name][i]), weight=float(w))
             for name, w in weights.items()
             if name in values and values[name][i]]
    return tuple(sorted(terms, key=lambda t: -abs(t.value)))


def feature_terms(values: Mapping[str, np.ndarray], i: int) -> tuple[Term, ...]:
    return tuple(Term(name, TermKind.COUNT, float(v[i])) for name, v in values.items())


# {{{ device limits

@dataclass(frozen=True)
class LaunchLimits:
    """What a device launches: the largest work group (items), and per axis."""

    device: str
    max_work_group_size: int
    max_work_item_sizes: tuple[int, ...] = ()
    source: str = ""


def model_launch_limits(model) -> LaunchLimits | None:
    """The launch limits of the device a model was fitted on or describes, when known
    (a shipped device description of that name)."""
    from workbench.hardware.description import SHIPPED, load_device_model

    described = getattr(model, "device_model", None)
    name = getattr(described, "name", None) or dict(getattr(model, "device", {}) or {}).get(
        "device", "")
    if not name:
        return None
    candidates = [described] if described is not None else []
    candidates += [load_device_model(s) for s in SHIPPED]
    for d in candidates:
        if d is not None and d.name == name and d.max_work_group_size is not None:
            return LaunchLimits(d.name, int(d.max_work_group_size.value),
                                tuple(int(v) for v in d.max_work_item_sizes),
                                d.max_work_group_size.source)
    return None


def check_launchable(candidates: Sequence[Candidate], limits: LaunchLimits | None) -> None:
    """Refuse a candidate whose work group the device cannot launch, with the limit."""
    if limits is None:
        return
    for c in candidates:
        size = math.prod(c.group_size)
        if size > limits.max_work_group_size:
            raise GroupSizeError(
                f"{c.label}: a work group of {size} items exceeds the "
                f"{limits.max_work_group_size} that {limits.device} launches")
        for axis, (extent, most) in enumerate(zip(c.group_size, limits.max_work_item_sizes)):
            if extent > most:
                raise GroupSizeError(
                    f"{c.label}: {extent} work items along axis {axis} exceed the {most} "
                    f"that {limits.device} launches there")

# }}}


def predict(model, candidates: Sequence[Candidate], *, floors: bool = True,
            **context) -> Predictions:
    """Predicted times and breakdowns of ``candidates`` by a fitted ``model``.

    ``context`` carries what some families read besides the kernel (``twins``:
    measured work-removed twins; ``device``: the device of device features).  With
    ``floors`` (the default), a time below the device's physical floor
    (:mod:`workbench.models.floors`) is lifted to it, and ``broken`` says which bound
    the model's own time (``raw_seconds``) broke.
    """
    candidates = list(candidates)
    check_launchable(candidates, model_launch_limits(model))
    if not candidates:
        return make_predictions([], [])
    result = model.predict_candidates(candidates, **context)
    if not isinstance(result, Predictions):    # a model written to the older contract
        result = make_predictions(candidates, result)
    if floors and result.unit == "s":
        result = apply_floors(model, result)
        result = attach_caveats(model, result)
    return result


def attach_caveats(model, result: Predictions) -> Predictions:
    """``result`` with each candidate's caveats (:mod:`workbench.models.parallelism`);
    points of tuning spaces get none (their kernels are built for the device)."""
    import dataclasses

    from workbench.models.floors import model_floors
    from workbench.models.parallelism import prediction_caveats

    device = model_floors(model)
    if device is None:
        return result
    plain = [c.space is None for c in result.candidates]
    found = prediction_caveats([c for c, p in zip(result.candidates, plain) if p],
                               device.lanes, device.device, _model_features(model))
    each = iter(found)
    return dataclasses.replace(result, caveats=tuple(next(each) if p else ()
                                                     for p in plain))


def _model_features(model) -> frozenset[str] | None:
    """The expression features a model reads; None for a family without them."""
    for owner in (model, getattr(model, "spec", None), getattr(model, "model", None)):
        names = getattr(owner, "features", None)
        if isinstance(names, (tuple, list, frozenset, set)):
            return frozenset(names)
    return None


def apply_floors(model, result: Predictions) -> Predictions:
    """``result`` with every time lifted to its physical floor (module docstring)."""
    import dataclasses

    from workbench.models.floors import candidate_floors, model_floors

    device = model_floors(model)
    if device is None or any(c.space is not None and
                             getattr(c.space, "sequence", None) is not None
                             for c in result.candidates):
        return result
    raw = np.asarray(result.seconds, dtype=float)
    floor = candidate_floors(result.candidates, device, raw)
    lifted = raw.copy()
    broken: list[str | None] = []
    for i, f in enumerate(floor):
        if f is not None and np.isfinite(raw[i]) and raw[i] < f.seconds:
            lifted[i] = f.seconds
            broken.append(f"{f.bound.value}: the model's {raw[i] * 1e3:.4g} ms is below "
                          f"the floor of {f.seconds * 1e3:.4g} ms")
        else:
            broken.append(None)
    return dataclasses.replace(result, seconds=lifted, raw_seconds=raw,
                               floors=tuple(floor), broken=tuple(broken))


@dataclass(frozen=True, eq=False)
class Ranking:
    """Candidates ordered by predicted time, fastest first, and what ordering cost."""

    candidates: tuple[Candidate, ...]        # in the order given
    predicted_s: np.ndarray                  # one per candidate; NaN where not predicted
    order: np.ndarray                        # indices into candidates, fastest first
    seconds: float                           # wall time of the ranking itself
    errors: tuple[str | None, ...] = field(default=())
    #: how a factory space's structures were counted (symbolic, per point, cached, and
    #: why): :class:`workbench.models.structure_counts.StructureCount` records
    counting: tuple = field(default=())

    @property
    def ranked(self) -> list[Candidate]:
        return [self.candidates[i] for i in self.order]

    @property
    def best(self) -> Candidate:
        return self.candidates[int(self.order[0])]

    def frame(self) -> pd.DataFrame:
        rows = []
        for rank, i in enumerate(self.order, start=1):
            c = self.candidates[int(i)]
            rows.append({"rank": rank, "candidate": c.label, "kernel": c.kernel_name,
                         "variant": c.variant, "group_size": "x".join(map(str, c.group_size)),
                         "params": ",".join(f"{k}={v}" for k, v in c.params),
                         "predicted_s": float(self.predicted_s[i]),
                         "error": self.errors[i] if self.errors else None})
        return pd.DataFrame(rows)


def make_ranking(candidates: Sequence[Candidate], predicted: np.ndarray, began: float,
                 errors: Sequence[str | None] = ()) -> Ranking:
    """Order by predicted time (stable; unpredicted candidates last)."""
    predicted = np.asarray(predicted, dtype=float)
    keys = np.where(np.isfinite(predicted), predicted, np.inf)
    order = np.argsort(keys, kind="stable")
    return Ranking(tuple(candidates), predicted, order, time.perf_counter() - began,
                   tuple(errors))


def rank(model, candidates: Sequence[Candidate], **context) -> Ranking:
    """The candidates, fastest predicted first, with what predicting them cost."""
    began = time.perf_counter()
    result = predict(model, candidates, **context)
    return make_ranking(result.candidates, result.seconds, began, result.errors)


def _number(value):
    value = float(value)
    return value if math.isfinite(value) else None
