"""A parsed model expression: its names checked, its values and exact derivatives.

:func:`parse_model` reads the text (:mod:`workbench.models.expressions.language`) and
checks every ``f_`` name against the feature grammar
(:mod:`workbench.models.expressions.features`); :class:`ModelExpression` evaluates
the tree with numpy.

Smooth maximum.  ``smax(a, b)`` models overlap of on-chip and global-memory cost
(the paper's section 7.4) and must be differentiable for least squares::

    smax(a, b) = (a + b + sqrt((a - b)**2 + d**2 * (a**2 + b**2))) / 2,
    d = SMOOTH_MAX_SOFTNESS = 0.05

It is homogeneous of degree one (scaling both costs scales the result, so the
softness does not depend on the units of time), infinitely differentiable except at
a = b = 0 (where the gradient is taken as its limit along a = b, 1/2 each), never
below ``max(a, b)``, at most ``d / sqrt(2)`` = 3.5 % above it at the crossover a = b,
and within d**2/4 = 0.06 % of it when one argument is zero.  ``smin(a, b)`` is
``-smax(-a, -b)``; ``max`` and ``min`` are accepted as aliases of ``smax`` and
``smin`` (an exact max would stall the fit); more than two arguments fold from the
left, ``smax(a, b, c) = smax(smax(a, b), c)``.

The Jacobian with respect to the parameters is computed exactly in forward mode
(every node carries its value and its gradient), so fits need no finite differences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pymbolic.primitives as prim

from workbench.errors import ModelError
from workbench.models.expressions.features import (
    OUTPUT_PREFIX,
    OutputFeature,
    parse_feature_ref,
)
from workbench.models.expressions.language import parse_text

#: Relative softness ``d`` of :func:`smooth_max` (see the module docstring).
SMOOTH_MAX_SOFTNESS = 0.05
_ALIASES = {"max": "smax", "min": "smin"}


# {{{ the parsed model

@dataclass(frozen=True)
class ModelExpression:
    """A parsed, validated model: output name, expression tree and the names it uses.

    ``text`` is the user's text verbatim (what model files store); ``expression`` is
    the right-hand side as pymbolic nodes.
    """

    text: str
    output: str
    expression: object
    features: tuple[str, ...]
    parameters: tuple[str, ...]
    rhs_text: str = ""   # the right-hand side only (the text after any ``OUTPUT =``)

    def evaluate(self, features: Mapping[str, np.ndarray],
                 parameters: Mapping[str, float]) -> np.ndarray:
        """Model values, one per row of the feature arrays."""
        missing = [p for p in self.parameters if p not in parameters]
        if missing:
            raise ModelError(f"no value for parameter(s) {', '.join(missing)}")
        values = [float(parameters[p]) for p in self.parameters]
        return self.evaluate_with_jacobian(features, values, jacobian=False)[0]

    def evaluate_with_jacobian(self, features: Mapping[str, np.ndarray],
                               values: Sequence[float], *, jacobian: bool = True
                               ) -> tuple[np.ndarray, np.ndarray | None]:
        """Values (N,) and d value / d parameter (N, P), parameters in ``.parameters`` order."""
        if len(values) != len(self.parameters):
            raise ModelError(f"expected {len(self.parameters)} parameter values, "
                             f"got {len(values)}")
        missing = [f for f in self.features if f not in features]
        if missing:
            raise ModelError(f"no values for feature(s) {', '.join(missing)}")
        arrays = {f: np.asarray(features[f], dtype=np.float64) for f in self.features}
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values())) if arrays else ()
        n = int(np.prod(shape)) if shape else 1
        arrays = {k: np.broadcast_to(v, shape).reshape(n) for k, v in arrays.items()}
        evaluator = _ForwardEvaluator(arrays, dict(zip(self.parameters, values)),
                                      self.parameters, n, jacobian)
        with np.errstate(all="ignore"):
            result = evaluator.rec(self.expression)
        value = np.broadcast_to(result.value, (n,)).astype(np.float64)
        if not jacobian:
            return value, None
        grad = result.grad if result.grad is not None \
            else np.zeros((n, len(self.parameters)))
        return value, np.broadcast_to(grad, (n, len(self.parameters))).copy()


def parse_model(text: str, *, default_output: str = OUTPUT_PREFIX) -> ModelExpression:
    """Parse and validate ``[OUTPUT =] EXPRESSION``.

    Every ``f_`` name must be a known feature (see
    :func:`workbench.models.expressions.features.parse_feature_ref`); an unknown one
    raises :class:`~workbench.errors.UnknownModelNameError` with the closest known
    names.  The output must be the measured wall time ``f_cl_wall_time[_<device>]``,
    and may not appear on the right-hand side.
    """
    parsed = parse_text(text)
    if parsed.output is not None:
        if not isinstance(parse_feature_ref(parsed.output), OutputFeature):
            raise ModelError(f"the left-hand side {parsed.output!r} is not a measured "
                             "output; write f_cl_wall_time or f_cl_wall_time_<device>")
    for name in parsed.features:
        if isinstance(parse_feature_ref(name), OutputFeature):
            raise ModelError(f"the measured output {name!r} cannot be an input of the "
                             "model; write it on the left of '=' (or leave it out)")
    if not parsed.parameters:
        raise ModelError("the model has no p_ parameters to fit")
    return ModelExpression(text=text, output=parsed.output or default_output,
                           expression=parsed.expression, features=parsed.features,
                           parameters=parsed.parameters, rhs_text=parsed.rhs_text)

# }}}


# {{{ evaluation with forward-mode derivatives

@dataclass(frozen=True)
class _Dual:
    """A value (N,) or scalar with its gradient (N, P), None meaning constant."""

    value: object
    grad: np.ndarray | None


def _scale(grad, factor):
    if grad is None:
        return None
    return grad * (np.asarray(factor)[..., None] if np.ndim(factor) else factor)


def _add(g1, g2):
    if g1 is None:
        return g2
    if g2 is None:
        return g1
    return g1 + g2


def smooth_max_parts(a, b):
    """``smax(a, b)`` and its partial derivatives (see the module docstring)."""
    d2 = SMOOTH_MAX_SOFTNESS ** 2
    diff = a - b
    s = np.sqrt(diff * diff + d2 * (a * a + b * b))
    safe = np.where(s > 0, s, 1.0)
    ds_da = np.where(s > 0, (diff + d2 * a) / safe, 0.0)
    ds_db = np.where(s > 0, (-diff + d2 * b) / safe, 0.0)
    return (a + b + s) / 2, (1 + ds_da) / 2, (1 + ds_db) / 2


def smooth_max(a, b):
    """Differentiable maximum, within 3.5 % of ``max(a, b)`` (exact far from a = b)."""
    return smooth_max_parts(np.asarray(a, dtype=float), np.asarray(b, dtype=float))[0]


def smooth_min(a, b):
    """``-smooth_max(-a, -b)``."""
    return -smooth_max(-np.asarray(a, dtype=float), -np.asarray(b, dtype=float))


class _ForwardEvaluator:
    """Walks the (whitelisted) tree computing values and exact parameter gradients."""

    def __init__(self, features: Mapping[str, np.ndarray], params: Mapping[str, float],
                 order: Sequence[str], n: int, jacobian: bool):
        self.features = features
        self.params = params
        self.index = {p: i for i, p in enumerate(order)}
        self.n = n
        self.nparams = len(order)
        self.jacobian = jacobian

    def rec(self, expr) -> _Dual:
        if isinstance(expr, (int, float, np.integer, np.floating)):
            # numpy scalars, not Python floats: (-2.0) ** 0.5 must be nan, not complex
            return _Dual(np.float64(expr), None)
        if isinstance(expr, prim.Variable):
            return self.variable(expr.name)
        if isinstance(expr, prim.Sum):
            parts = [self.rec(c) for c in expr.children]
            value, grad = parts[0].value, parts[0].grad
            for p in parts[1:]:
                value, grad = value + p.value, _add(grad, p.grad)
            return _Dual(value, grad)
        if isinstance(expr, prim.Product):
            parts = [self.rec(c) for c in expr.children]
            value, grad = parts[0].value, parts[0].grad
            for p in parts[1:]:
                grad = _add(_scale(grad, p.value), _scale(p.grad, value))
                value = value * p.value
            return _Dual(value, grad)
        if isinstance(expr, prim.Quotient):
            num, den = self.rec(expr.numerator), self.rec(expr.denominator)
            value = num.value / den.value
            grad = _add(_scale(num.grad, 1 / den.value), _scale(den.grad, -value / den.value))
            return _Dual(value, grad)
        if isinstance(expr, prim.Power):
            return self.power(self.rec(expr.base), self.rec(expr.exponent))
        if isinstance(expr, prim.Call):
            return self.call(expr.function.name, [self.rec(a) for a in expr.parameters])
        # The parser builds nothing else; a hand-made tree is refused, not guessed at.
        raise ModelError(f"cannot evaluate expression node {type(expr).__name__}")

    def variable(self, name: str) -> _Dual:
        if name in self.index:
            grad = None
            if self.jacobian:
                grad = np.zeros((1, self.nparams))
                grad[0, self.index[name]] = 1.0
            return _Dual(np.float64(self.params[name]), grad)
        return _Dual(self.features[name], None)

    def power(self, base: _Dual, exponent: _Dual) -> _Dual:
        value = base.value ** exponent.value
        grad = None
        if base.grad is not None:
            grad = _scale(base.grad, exponent.value * base.value ** (exponent.value - 1))
        if exponent.grad is not None:
            grad = _add(grad, _scale(exponent.grad, value * np.log(base.value)))
        return _Dual(value, grad)

    def call(self, name: str, args: list[_Dual]) -> _Dual:
        name = _ALIASES.get(name, name)
        if name in ("smax", "smin"):
            sign = 1.0 if name == "smax" else -1.0
            acc = args[0]
            for nxt in args[1:]:
                value, da, db = smooth_max_parts(sign * np.asarray(acc.value, dtype=float),
                                                 sign * np.asarray(nxt.value, dtype=float))
                acc = _Dual(sign * value, _add(_scale(acc.grad, da), _scale(nxt.grad, db)))
            return acc
        (arg,) = args
        if name == "exp":
            value = np.exp(arg.value)
            return _Dual(value, _scale(arg.grad, value))
        if name == "log":
            return _Dual(np.log(arg.value), _scale(arg.grad, 1 / np.asarray(arg.value)))
        if name == "sqrt":
            value = np.sqrt(arg.value)
            return _Dual(value, _scale(arg.grad, 0.5 / value))
        raise ModelError(f"function {name!r} is not allowed")

# }}}
