"""What an expression model fit starts from: the parsed model, its counting granularity,
bounds and start values (:class:`ExpressionModelSpec`), and the model file's schema."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from workbench.errors import ModelError, UnknownModelNameError
from workbench.models.expressions.expression import ModelExpression, parse_model
from workbench.properties import Granularity

SCHEMA = "workbench.model"
SCHEMA_VERSION = 1
FAMILY = "expression"
DEFAULT_GRANULARITY = Granularity.SUBGROUP
DEFAULT_SUBGROUP_SIZE = 32


def _bound(value, default: float) -> float:
    if value is None:
        return default
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ModelError(f"a bound must be a number or null, not {value!r}") from None


def _json_number(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


@dataclass(frozen=True)
class ExpressionModelSpec:
    """What to fit: the parsed model, its counting granularity, bounds and start values."""

    model: ModelExpression
    granularity: str = DEFAULT_GRANULARITY.value
    subgroup_size: int | None = DEFAULT_SUBGROUP_SIZE
    bounds: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    initial: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def create(cls, text: str, *, granularity: Granularity | str | None = None,
               subgroup_size: int | None = None,
               bounds: Mapping[str, object] | None = None,
               initial: Mapping[str, object] | None = None) -> ExpressionModelSpec:
        """Parse ``text`` and check bounds and initial values against its parameters."""
        model = parse_model(text)
        try:
            gran = Granularity(granularity or DEFAULT_GRANULARITY)
        except ValueError:
            raise ModelError(f"unknown granularity {granularity!r}; use 'subgroup' or "
                             "'workitem'") from None
        if gran is Granularity.SUBGROUP:
            size = int(subgroup_size or DEFAULT_SUBGROUP_SIZE)
            if size < 1:
                raise ModelError(f"sub-group size must be positive, got {size}")
        else:
            size = None
        checked_bounds: dict[str, tuple[float, float]] = {}
        for name, pair in (bounds or {}).items():
            if name not in model.parameters:
                raise UnknownModelNameError("parameter (in bounds)", name, model.parameters)
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ModelError(f"bounds of {name} must be [lower, upper], got {pair!r}")
            lo, hi = _bound(pair[0], -math.inf), _bound(pair[1], math.inf)
            if not lo < hi:
                raise ModelError(f"bounds of {name} are empty: [{lo}, {hi}]")
            checked_bounds[name] = (lo, hi)
        checked_initial: dict[str, float] = {}
        for name, value in (initial or {}).items():
            if name not in model.parameters:
                raise UnknownModelNameError("parameter (in initial values)", name,
                                            model.parameters)
            v = _bound(value, math.nan)
            lo, hi = checked_bounds.get(name, (-math.inf, math.inf))
            if not (math.isfinite(v) and lo <= v <= hi):
                raise ModelError(f"initial value {value!r} of {name} is not a finite "
                                 f"number within its bounds [{lo}, {hi}]")
            checked_initial[name] = v
        return cls(model, gran.value, size, checked_bounds, checked_initial)

    @classmethod
    def from_document(cls, document: Mapping) -> ExpressionModelSpec:
        """The specification part of a model file (fitted or not)."""
        if document.get("schema") != SCHEMA or document.get("family") != FAMILY:
            raise ModelError("not an expression model file (expected schema "
                             f"{SCHEMA!r} and family {FAMILY!r})")
        version = document.get("schema_version", 0)
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise ModelError(f"model file has schema version {version!r}; this workbench "
                             f"reads up to {SCHEMA_VERSION}: upgrade the workbench")
        text = document.get("model")
        if not isinstance(text, str):
            raise ModelError("model file has no 'model' expression text")
        spec = cls.create(text, granularity=document.get("granularity"),
                          subgroup_size=document.get("subgroup_size"),
                          bounds=document.get("bounds") or {},
                          initial=document.get("initial") or {})
        output = document.get("output")
        if output is not None and output != spec.model.output:
            if not isinstance(output, str) or \
                    not isinstance(parse_feature_ref(output), OutputFeature):
                raise ModelError(f"model file output {output!r} is not a measured output")
            spec = replace(spec, model=replace(spec.model, output=output))
        return spec

    @property
    def features(self) -> tuple[str, ...]:
        return self.model.features

    @property
    def parameters(self) -> tuple[str, ...]:
        return self.model.parameters

    def start(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Initial values, lower and upper bounds, in parameter order."""
        lo = np.array([self.bounds.get(p, (-math.inf, math.inf))[0] for p in self.parameters])
        hi = np.array([self.bounds.get(p, (-math.inf, math.inf))[1] for p in self.parameters])
        x0 = np.array([self.initial.get(p, 0.0) for p in self.parameters])
        x0 = np.where(np.isin(np.array(self.parameters), list(self.initial)), x0,
                      np.clip(x0, lo, hi))
        return x0, lo, hi

    def to_document(self) -> dict:
        return {
            "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "family": FAMILY,
            "model": self.model.text, "output": self.model.output,
            "granularity": self.granularity, "subgroup_size": self.subgroup_size,
            "bounds": {k: [_json_number(a), _json_number(b)] for k, (a, b)
                       in self.bounds.items()},
            "initial": dict(self.initial),
        }
