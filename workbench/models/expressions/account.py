"""An expression model's prediction in seconds per term (:class:`~workbench.models.
terms.Account`), read off the expression tree at one candidate's feature values.

Sums split into their parts; a product of fitted parameters (and numbers) with one
feature is a term ``weight x count``; a product of parameters with a sum or an
overlap scales its parts.  A (smooth) maximum or minimum is an *overlap*: every side
is costed, and the winning side's terms stand for it, with the smoothing (what
``smax`` adds to the larger side, at most 3.5 %) as a term of its own, so that the
terms add up to the model's value exactly.  Anything else (a quotient of features,
a power, ``exp``) is one term, named by its text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pymbolic.primitives as prim

from workbench.models.expressions.expression import _ALIASES, ModelExpression, _ForwardEvaluator
from workbench.models.expressions.language import FEATURE_PREFIX, PARAMETER_PREFIX
from workbench.models.terms import (
    Account,
    Category,
    Overlap,
    OverlapSide,
    TermShare,
    category_of,
    side_label,
)


class _Reader:
    def __init__(self, expression: ModelExpression, parameters: Mapping[str, float],
                 features: Mapping[str, float]):
        self.parameters = {p: float(parameters[p]) for p in expression.parameters}
        arrays = {f: np.array([float(features[f])]) for f in expression.features}
        self.evaluator = _ForwardEvaluator(arrays, self.parameters, expression.parameters,
                                           1, jacobian=False)
        self.overlaps: list[Overlap] = []

    def value(self, expr) -> float:
        with np.errstate(all="ignore"):
            return float(np.asarray(self.evaluator.rec(expr).value).reshape(-1)[0])

    def is_scalar(self, expr) -> bool:
        """A number, a parameter, or any expression of them alone: a weight, so that
        ``(4.059e-11 - p_mul - p_spec)*f_op_float64_exp_calls`` is a term of its feature
        (it was named by its whole text in explain's table and sides)."""
        if isinstance(expr, (int, float, np.integer, np.floating)):
            return True
        if isinstance(expr, prim.Variable):
            return expr.name.startswith(PARAMETER_PREFIX)
        return isinstance(expr, prim.Expression) and not _features_of(expr)

    def terms(self, expr, scale: float = 1.0, record: bool = True) -> list[TermShare]:
        if isinstance(expr, prim.Sum):
            return [t for child in expr.children for t in self.terms(child, scale, record)]
        if isinstance(expr, prim.Product):
            scalars = [c for c in expr.children if self.is_scalar(c)]
            rest = [c for c in expr.children if not self.is_scalar(c)]
            factor = scale * float(np.prod([self.value(c) for c in scalars])) \
                if scalars else scale
            names = [_text(c) for c in scalars if isinstance(c, prim.Expression)]
            if len(rest) == 1 and isinstance(rest[0], prim.Variable):
                return [self.feature(rest[0].name, factor, " * ".join(names) or None)]
            if len(rest) == 1:
                return self.terms(rest[0], factor, record)
        if isinstance(expr, prim.Variable) and expr.name.startswith(FEATURE_PREFIX):
            return [self.feature(expr.name, scale, None)]
        if isinstance(expr, prim.Call):
            name = _ALIASES.get(expr.function.name, expr.function.name)
            if name in ("smax", "smin"):
                return self.overlap(expr, name, scale, record)
        return [TermShare(_text(expr), scale * self.value(expr), _category(expr))]

    def feature(self, name: str, weight: float, parameter: str | None) -> TermShare:
        count = self.value(prim.Variable(name))
        return TermShare(name, weight * count, category_of(name), count=count,
                         weight=weight, parameter=parameter)

    def overlap(self, call, function: str, scale: float, record: bool) -> list[TermShare]:
        sides = []
        for arg in call.parameters:
            parts = self.terms(arg, scale, record=False)
            # a subtracted overlap (the time one side hides of another, ``- smin(A, M)``)
            # has sides of negative seconds: each is named by what it would pay for
            named = parts if scale >= 0 else [replace(t, seconds=-t.seconds) for t in parts]
            sides.append(OverlapSide(side_label(named), scale * self.value(arg),
                                     tuple(t for t in parts if t.seconds)))
        seconds = scale * self.value(call)
        largest = (function == "smax") == (scale >= 0)
        pick = max if largest else min
        winner = pick(range(len(sides)), key=lambda i: sides[i].seconds)
        overlap = Overlap(function, tuple(sides), winner, seconds)
        # the winner's own overlaps (nested ones) are recorded by reading it again
        won = self.terms(call.parameters[winner], scale, record)
        # a side of nothing (a term no count of this kernel feeds, e.g. a chain it has
        # not) makes no overlap worth telling: the winner is the whole of it
        if record and any(side.seconds for i, side in enumerate(sides) if i != winner):
            self.overlaps.append(overlap)
        smoothing = seconds - sides[winner].seconds
        if smoothing:
            won.append(TermShare(f"{function} smoothing", smoothing, Category.SMOOTHING))
        return won


def expression_account(expression: ModelExpression, parameters: Mapping[str, float],
                       features: Mapping[str, float]) -> Account:
    """The account of one prediction of ``expression`` at ``features`` (one value each)."""
    reader = _Reader(expression, parameters, features)
    terms = reader.terms(expression.expression)
    total = reader.value(expression.expression)
    return Account(tuple(t for t in terms if t.seconds), total, tuple(reader.overlaps))


def _text(expr) -> str:
    from pymbolic.mapper.stringifier import StringifyMapper

    return StringifyMapper()(expr)


def _features_of(expr) -> set[str]:
    from pymbolic.mapper.dependency import DependencyMapper

    return {v.name for v in DependencyMapper(composite_leaves=False)(expr)
            if v.name.startswith(FEATURE_PREFIX)}


def _category(expr) -> Category:
    categories = {category_of(n) for n in _features_of(expr)}
    return categories.pop() if len(categories) == 1 else Category.OTHER
