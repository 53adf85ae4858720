"""Exact symbolic counts and their fast, vectorized evaluation.

loopy hands out counts as isl piecewise quasi-polynomials.  Evaluating those through
isl costs tens of microseconds per parameter set, far too slow for sweeps, so we
translate each one once into a small pymbolic expression tree (``If`` per piece,
``FloorDiv``/``Remainder`` for the quasi-polynomial parts) and evaluate that tree with
numpy over whole arrays of parameter sets.  Nothing is ever passed to ``eval``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

import islpy as isl
import numpy as np
import pymbolic.primitives as prim
from loopy.symbolic import aff_to_expr, set_to_cond_expr
from pymbolic.mapper import Mapper
from pymbolic.mapper.stringifier import StringifyMapper

from workbench.errors import ParameterError

Expression = object  # a pymbolic expression or a Python int


def qpolynomial_to_expr(qpoly: isl.QPolynomial) -> Expression:
    """Quasi-polynomial -> expression, exact: integer terms over one common denominator.

    Unlike loopy's converter this drops the ``x**0`` factors isl reports for unused
    integer divisions, which matters for evaluation speed (they are whole arrays).
    """
    space = qpoly.space
    terms = []
    for term in qpoly.get_terms():
        factors = []
        for dt in (isl.dim_type.param, isl.dim_type.set):
            for i in range(term.dim(dt)):
                e = term.get_exp(dt, i)
                if e:
                    factors.append(prim.Variable(space.get_dim_name(dt, i)) ** e
                                   if e > 1 else prim.Variable(space.get_dim_name(dt, i)))
        for i in range(term.dim(isl.dim_type.div)):
            e = term.get_exp(isl.dim_type.div, i)
            if e:
                div = aff_to_expr(term.get_div(i))
                factors.append(div ** e if e > 1 else div)
        terms.append((term.get_coefficient_val(), factors))
    if not terms:
        return 0
    den = 1
    for coeff, _ in terms:
        d = coeff.get_den_val().to_python()
        den = den * d // math.gcd(den, d)
    total = []
    for coeff, factors in terms:
        num = (coeff * den).to_python()
        total.append(prim.Product((num, *factors)) if factors and num != 1 else
                     (factors[0] if len(factors) == 1 else prim.Product(tuple(factors)))
                     if factors else num)
    expr = total[0] if len(total) == 1 else prim.Sum(tuple(total))
    return prim.FloorDiv(expr, den) if den != 1 else expr


def pwqpolynomial_to_expr(pwqp: isl.PwQPolynomial) -> Expression:
    """Piecewise quasi-polynomial -> expression; zero outside every piece (isl's rule)."""
    result: Expression = 0
    for piece_set, qpoly in reversed(pwqp.coalesce().get_pieces()):
        value = qpolynomial_to_expr(qpoly)
        if piece_set.plain_is_universe():
            result = value  # pieces are disjoint, a universe piece is the only one
            continue
        cond = set_to_cond_expr(piece_set.remove_redundancies())
        result = prim.If(cond, value, result)
    return result


def set_to_condition(set_: isl.BasicSet | isl.Set) -> Expression:
    if isinstance(set_, isl.BasicSet):
        set_ = set_.to_set()
    if set_.plain_is_universe():
        return prim.Comparison(0, "==", 0)
    return set_to_cond_expr(set_)


class _NumpyEvaluator(Mapper):
    """Evaluates an expression over numpy arrays of parameter values.

    Integer arithmetic stays in int64 so counts remain exact; subexpressions shared
    between properties (the same loopy piece appears in many counts) are computed once
    per call through ``cache``.
    """

    def __init__(self, values: Mapping[str, np.ndarray], cache: dict, guard=None):
        self.values = values
        self.cache = cache
        self.guard = guard  # checks int64 operands whose true value might not fit

    def observed(self, expr):
        """A subexpression whose value (not only its residue mod 2**64) matters."""
        value = self.rec(expr)
        if self.guard is not None:
            self.guard(expr)
        return value

    def rec(self, expr, *args, **kwargs):  # noqa: D102 - memoized dispatch
        if isinstance(expr, (int, np.integer)):
            return int(expr)
        if isinstance(expr, (float, np.floating)):
            return np.float64(expr)
        # keyed by identity: expressions are interned (see intern_expression), and
        # structural equality of large trees would cost more than the arithmetic
        key = id(expr)
        if key in self.cache:
            return self.cache[key]
        value = super().rec(expr, *args, **kwargs)
        self.cache[key] = value
        return value

    __call__ = rec

    def map_variable(self, expr):
        try:
            return self.values[expr.name]
        except KeyError:
            raise ParameterError(f"missing value for parameter {expr.name!r}") from None

    def map_sum(self, expr):
        children = [self.rec(c) for c in expr.children]
        out = children[0]
        for c in children[1:]:
            out = out + c
        return out

    def map_product(self, expr):
        children = [self.rec(c) for c in expr.children]
        out = children[0]
        for c in children[1:]:
            out = out * c
        return out

    def map_power(self, expr):
        return self.rec(expr.base) ** int(expr.exponent)

    # Operators, not ufuncs: on Python integers (the exact path) a ufunc would
    # silently convert to int64.
    def map_floor_div(self, expr):
        return self.observed(expr.numerator) // self.rec(expr.denominator)

    def map_remainder(self, expr):
        return self.observed(expr.numerator) % self.rec(expr.denominator)

    def map_quotient(self, expr):
        return np.true_divide(self.rec(expr.numerator), self.rec(expr.denominator))

    def map_min(self, expr):
        return np.minimum.reduce(np.broadcast_arrays(*[self.observed(c)
                                                       for c in expr.children]))

    def map_max(self, expr):
        return np.maximum.reduce(np.broadcast_arrays(*[self.observed(c)
                                                       for c in expr.children]))

    _COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
                ">": np.greater, ">=": np.greater_equal}

    def map_comparison(self, expr):
        return self._COMPARE[expr.operator](self.observed(expr.left),
                                            self.observed(expr.right))

    def map_logical_and(self, expr):
        return np.logical_and.reduce(np.broadcast_arrays(*[self.rec(c) for c in expr.children]))

    def map_logical_or(self, expr):
        return np.logical_or.reduce(np.broadcast_arrays(*[self.rec(c) for c in expr.children]))

    def map_logical_not(self, expr):
        return np.logical_not(self.rec(expr.child))

    def map_if(self, expr):
        cond = self.rec(expr.condition)
        # a sweep usually lies in one piece: skip the arms no element takes
        if np.all(cond):
            return self.rec(expr.then)
        if not np.any(cond):
            return self.rec(expr.else_)
        return np.where(cond, self.rec(expr.then), self.rec(expr.else_))


def intern_expression(expr: Expression, table: dict) -> Expression:
    """Rebuild ``expr`` so that equal subexpressions are one object (hash-consing).

    Counts of one kernel share many pieces (the same floor divisions, the same
    instruction counts); interning lets the evaluator compute each piece once.
    """
    if not isinstance(expr, prim.ExpressionNode):
        return expr
    if expr in table:
        return table[expr]
    fields = {}
    for name in (f.name for f in dataclasses.fields(expr) if f.init):
        value = getattr(expr, name)
        if isinstance(value, tuple):
            value = tuple(intern_expression(v, table) for v in value)
        else:
            value = intern_expression(value, table)
        fields[name] = value
    node = type(expr)(**fields)
    table[node] = node
    return node


def as_parameter_arrays(params: Mapping[str, object]) -> tuple[dict[str, np.ndarray], tuple]:
    """Broadcast scalars and 1-D sequences of parameter values to int64 arrays."""
    arrays = {}
    limit = 2**62  # parameters themselves must leave room for exact int64 arithmetic
    for name, value in params.items():
        arr = np.asarray(value)
        if arr.dtype.kind == "O":  # Python ints too large for numpy
            raise ParameterError(f"parameter {name!r} is out of range (|value| < 2**62)")
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind != "f" or not np.all(np.mod(arr, 1) == 0):
                raise ParameterError(f"parameter {name!r} must be an integer, got {value!r}")
        if arr.size and (np.max(arr) >= limit or np.min(arr) <= -limit):
            raise ParameterError(f"parameter {name!r} is out of range (|value| < 2**62)")
        arrays[name] = arr.astype(np.int64)
    shape = np.broadcast_shapes(*(a.shape for a in arrays.values())) if arrays else ()
    return {k: np.broadcast_to(v, shape) for k, v in arrays.items()}, shape


class _MagnitudeBound(Mapper):
    """An upper bound of |value| of every subexpression, given bounds of the variables.

    int64 arithmetic wraps silently; floor division of a wrapped numerator would be
    wrong.  Bounding first decides whether int64 is exact for a batch or whether the
    slow path with Python integers is needed.
    """

    def __init__(self, bounds: Mapping[str, int]):
        self.bounds = bounds
        self.cache: dict = {}

    def rec(self, expr, *args, **kwargs):  # noqa: D102 - memoized dispatch
        if isinstance(expr, (int, float, np.integer, np.floating)):
            return self.map_constant(expr)
        try:
            return self.cache[expr]
        except KeyError:
            value = super().rec(expr, *args, **kwargs)
            self.cache[expr] = value
            return value

    __call__ = rec

    def map_constant(self, expr):
        return abs(int(expr)) if not isinstance(expr, float) else int(abs(expr)) + 1

    def map_variable(self, expr):
        return self.bounds.get(expr.name, 0)

    def map_sum(self, expr):
        return sum(self.rec(c) for c in expr.children)

    def map_product(self, expr):
        out = 1
        for c in expr.children:
            out *= self.rec(c)
        return out

    def map_power(self, expr):
        return self.rec(expr.base) ** int(expr.exponent)

    def map_floor_div(self, expr):
        den = expr.denominator
        if isinstance(den, (int, np.integer)) and den != 0:
            return self.rec(expr.numerator) // abs(int(den)) + 1
        return self.rec(expr.numerator) + 1

    def map_remainder(self, expr):
        return self.rec(expr.denominator)

    map_quotient = map_floor_div

    def map_min(self, expr):
        return max(self.rec(c) for c in expr.children)

    map_max = map_min

    def map_comparison(self, expr):
        return max(self.rec(expr.left), self.rec(expr.right))

    def map_logical_and(self, expr):
        return max(self.rec(c) for c in expr.children)

    map_logical_or = map_logical_and

    def map_logical_not(self, expr):
        return self.rec(expr.child)

    def map_if(self, expr):
        return max(self.rec(expr.condition), self.rec(expr.then), self.rec(expr.else_))


INT64_SAFE = 2**62
# Evaluating in slices that stay in the CPU caches is several times faster than
# whole-array numpy passes for the long polynomials barvinok produces.
CHUNK = 32768


class _NeedsExact(Exception):
    pass


class _Int64Guard:
    """Proves, per chunk, that observed int64 values equal the true integers.

    Sums and products are exact modulo 2**64, so barvinok's expanded polynomials may
    wrap in their huge intermediate terms as long as each *observed* value (a floor
    division's numerator, a comparison operand, the result) fits.  Where the
    magnitude bound cannot promise that, a float64 evaluation of the operand, whose
    error is below bound * 2**-40 (a few thousand roundings), decides; failing that,
    or for bounds past 2**100, the chunk is redone exactly.
    """

    def __init__(self, bounder: _MagnitudeBound, values: Mapping[str, np.ndarray]):
        self.bounder = bounder
        self.floats = _NumpyEvaluator({k: v.astype(np.float64) for k, v in values.items()},
                                      {})

    def __call__(self, expr) -> None:
        bound = self.bounder(expr)
        if bound < INT64_SAFE:
            return
        with np.errstate(over="ignore", invalid="ignore"):
            estimate = np.abs(self.floats(expr))
        # float64 rounding: at most one ulp of the bound per operation; barvinok's
        # polynomials have hundreds of terms, so allow 2**12 operations' worth
        if bound >= 2**100 or not np.all(np.isfinite(estimate)) or \
                np.any(estimate + bound * 2.0**-40 >= INT64_SAFE):
            raise _NeedsExact


def count_at(count, params: Mapping[str, object]) -> float:
    """One of loopy's counts (a piecewise quasi-polynomial, or a plain number where the
    count is constant) at one point of its parameters.  For one point, not for sweeps:
    :func:`evaluate_many` is the vectorized path."""
    return float(count.eval_with_dict(params) if hasattr(count, "eval_with_dict") else count)


def evaluate_many(exprs: Mapping[object, Expression], params: Mapping[str, object]
                  ) -> dict[object, np.ndarray]:
    """Evaluate several expressions over the same parameter arrays, sharing work.

    Exact: int64 where the magnitude bound or the float64 check proves the observed
    values fit, Python integers for the chunks where they might not.
    """
    arrays, shape = as_parameter_arrays(params)
    flat = {k: v.reshape(-1) for k, v in arrays.items()}
    size = int(np.prod(shape)) if shape else 1
    if not shape:
        flat = {k: v.reshape(1) for k, v in arrays.items()}
    bounds = {k: int(np.max(np.abs(v))) if v.size else 0 for k, v in flat.items()}
    bounder = _MagnitudeBound(bounds)
    out = {key: np.empty(size, dtype=np.int64) for key in exprs}
    for start in range(0, max(size, 1), CHUNK):
        part = {k: v[start:start + CHUNK] for k, v in flat.items()}
        guard = _Int64Guard(bounder, part)
        evaluator = _NumpyEvaluator(part, {}, guard)
        for key, expr in exprs.items():
            try:
                value = evaluator.observed(expr)
            except _NeedsExact:
                exact = _NumpyEvaluator({k: v.astype(object) for k, v in part.items()}, {})
                value = exact(expr)
                if out[key].dtype != object:
                    out[key] = out[key].astype(object)
            out[key][start:start + CHUNK] = value
    return {key: value.reshape(shape) if shape else value[0] for key, value in out.items()}


class _PrettyMapper(StringifyMapper):
    def map_if(self, expr, enclosing_prec, *args, **kwargs):
        return "({} if {} else {})".format(
            self.rec(expr.then, 0), self.rec(expr.condition, 0), self.rec(expr.else_, 0))


def to_text(expr: Expression) -> str:
    return _PrettyMapper()(expr) if not isinstance(expr, (int, float)) else str(expr)


@dataclass(frozen=True)
class Assumptions:
    """The kernel's assumptions as a condition checked before every evaluation."""

    condition: Expression
    text: str

    def check(self, params: Mapping[str, object]) -> None:
        if isinstance(self.condition, prim.Comparison) and self.condition.left == 0 \
                and self.condition.right == 0:
            return
        ok = evaluate_many({"ok": self.condition}, params)["ok"]
        if not np.all(ok):
            arrays, _ = as_parameter_arrays(params)
            bad = np.flatnonzero(~np.asarray(ok).reshape(-1))[0]
            shown = {k: int(np.asarray(v).reshape(-1)[bad]) if np.ndim(v) else int(v)
                     for k, v in arrays.items()}
            raise ParameterError(
                f"parameters {shown} violate the kernel's assumptions {self.text}")
