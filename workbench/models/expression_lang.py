"""Model expressions as text: a small, safe language for the 2019 paper's models.

A model is written the way Stevens and Klöckner (2019, section 6) write it::

    f_cl_wall_time_nvidia_h100 = p_launch * f_sync_kernel_launch
        + p_groups * f_thread_groups
        + smax(p_f32 * f_op_float32_add, p_gld * f_mem_access_tag:aLD)

``f_...`` names are *features* (counts of a kernel property, see
:mod:`workbench.models.expression_features` for their grammar), ``p_...`` names are
*parameters* fitted to measurements.  The left-hand side ``OUTPUT =`` is optional; it
names the measured output and defaults to the wall time ``f_cl_wall_time``.

Grammar (whitespace is free between tokens, never inside a name)::

    model    := [output "="] expr
    expr     := term (("+" | "-") term)*
    term     := unary (("*" | "/") unary)*
    unary    := ("+" | "-") unary | power
    power    := atom ["**" unary]                 right-associative, binds tighter
    atom     := number | f_name | p_name           than unary minus (as in Python)
              | function "(" expr ("," expr)* ")"
              | "(" expr ")"
    function := smax | smin | max | min | exp | log | sqrt

Why a hand-written parser rather than Python's: model files are shared between
people, so the text must be data, never code.  The tokenizer and parser below only
build a fixed set of pymbolic nodes (``Sum``, ``Product``, ``Quotient``, ``Power``,
``Variable``, ``Call`` of a whitelisted function, numbers); anything else -- string
literals, attribute access ``a.b``, subscripts ``a[0]``, calls of other names,
comparisons, keywords such as ``lambda``, ``//`` and ``%`` -- is refused with a
:class:`~workbench.errors.ModelError` that points at the offending character.
Nothing is ever passed to ``eval`` or ``exec``; evaluation walks the tree with numpy.
(The feature names' own syntax, with ``:{...}`` constraints, is also why Python's and
pymbolic's parsers do not fit.)

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

import keyword
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pymbolic.primitives as prim

from workbench.errors import ModelError, UnknownNameError

#: Relative softness ``d`` of :func:`smooth_max` (see the module docstring).
SMOOTH_MAX_SOFTNESS = 0.05

#: Refuse absurd inputs before parsing: model texts are a few hundred characters.
MAX_TEXT_LENGTH = 20_000
MAX_NESTING = 100

#: Functions an expression may call, and how many arguments each takes (min, max).
FUNCTIONS: Mapping[str, tuple[int, int | None]] = {
    "smax": (2, None), "smin": (2, None), "max": (2, None), "min": (2, None),
    "exp": (1, 1), "log": (1, 1), "sqrt": (1, 1),
}
_ALIASES = {"max": "smax", "min": "smin"}

FEATURE_PREFIX = "f_"
PARAMETER_PREFIX = "p_"


class UnknownModelNameError(UnknownNameError, ModelError):
    """An unknown feature or parameter name; both a ModelError and an UnknownNameError."""


# {{{ tokenizer

@dataclass(frozen=True)
class Token:
    kind: str   # "num", "feature", "param", "name", "op", "assign", "end"
    text: str
    pos: int


def _refuse(text: str, pos: int, why: str) -> ModelError:
    start = max(0, pos - 30)
    snippet = text[start:pos + 30].replace("\n", " ")
    caret = " " * (pos - start) + "^"
    return ModelError(f"cannot use model expression: {why} (at character {pos + 1}):\n"
                      f"  {snippet}\n  {caret}")


_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENT_TAIL = re.compile(r"[A-Za-z0-9_]*")
# after ':' inside a feature name: a comparison and a number, or a tag name
_CONSTRAINT_ATOM = re.compile(r"(?:[<>]=?|==?|!=)?[A-Za-z0-9_.]*")
_BRACE_BODY = re.compile(r"[0-9:,<>=!\s+-]*")
_OPERATORS = ("**", "+", "-", "*", "/", "(", ")", ",")

_REFUSED_CHARS = {
    "'": "string literals are not allowed",
    '"': "string literals are not allowed",
    "[": "subscripts are not allowed",
    "]": "subscripts are not allowed",
    ".": "attribute access is not allowed",
    "<": "comparisons are not allowed",
    ">": "comparisons are not allowed",
    "!": "comparisons are not allowed",
    "%": "'%' is not allowed (not differentiable)",
    "{": "braces are only allowed inside a feature name's constraints",
    "}": "braces are only allowed inside a feature name's constraints",
    ":": "':' is only allowed inside feature names (lambda, slices and dicts are not "
         "expressions)",
    ";": "only one expression is allowed",
    "@": "'@' is not allowed", "&": "'&' is not allowed", "|": "'|' is not allowed",
    "^": "'^' is not allowed (write '**' for a power)", "~": "'~' is not allowed",
    "#": "comments are not allowed", "\\": "backslashes are not allowed",
    "`": "backquotes are not allowed", "$": "'$' is not allowed",
    "?": "'?' is not allowed",
}


def _feature_token_end(text: str, pos: int) -> int:
    """End of an ``f_`` name starting at ``pos``: identifier chars plus ``:`` parts."""
    end = _IDENT.match(text, pos).end()
    while end < len(text) and text[end] == ":":
        end += 1
        if end < len(text) and text[end] == "{":
            body = _BRACE_BODY.match(text, end + 1)
            close = body.end()
            if close >= len(text) or text[close] != "}":
                bad = close if close < len(text) else len(text) - 1
                raise _refuse(text, bad, "unterminated or malformed '{...}' constraint in "
                              "a feature name (allowed inside: digits, ':', ',', "
                              "'<', '>', '=', '!')")
            end = close + 1
        else:
            end = _CONSTRAINT_ATOM.match(text, end).end()
        end = _IDENT_TAIL.match(text, end).end()
    return end


def tokenize(text: str) -> list[Token]:
    """Split model text into tokens, refusing every character the language lacks."""
    if not isinstance(text, str):
        raise ModelError(f"a model expression must be text, not {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise ModelError(f"model expression too long ({len(text)} characters; at most "
                         f"{MAX_TEXT_LENGTH})")
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        ch = text[pos]
        if ch.isspace():
            pos += 1
            continue
        if not ch.isascii():
            raise _refuse(text, pos, f"unexpected character {ch!r}")
        if ch.isdigit() or (ch == "." and pos + 1 < len(text) and text[pos + 1].isdigit()):
            m = _NUMBER.match(text, pos)
            end = m.end()
            if end < len(text) and (text[end].isalnum() or text[end] in "_."):
                raise _refuse(text, end, "malformed number")
            tokens.append(Token("num", m.group(), pos))
            pos = end
            continue
        if ch.isalpha() or ch == "_":
            if text.startswith(FEATURE_PREFIX, pos):
                end = _feature_token_end(text, pos)
                tokens.append(Token("feature", text[pos:end], pos))
            else:
                end = _IDENT.match(text, pos).end()
                word = text[pos:end]
                if keyword.iskeyword(word) or keyword.issoftkeyword(word):
                    raise _refuse(text, pos, f"Python keyword {word!r} is not allowed")
                kind = "param" if word.startswith(PARAMETER_PREFIX) else "name"
                tokens.append(Token(kind, word, pos))
            pos = end
            continue
        if text.startswith("//", pos):
            raise _refuse(text, pos, "'//' (floor division) is not allowed "
                          "(not differentiable)")
        if text.startswith("==", pos):
            raise _refuse(text, pos, "comparisons are not allowed")
        op = next((o for o in _OPERATORS if text.startswith(o, pos)), None)
        if op is not None:
            tokens.append(Token("op", op, pos))
            pos += len(op)
            continue
        if ch == "=":
            tokens.append(Token("assign", "=", pos))
            pos += 1
            continue
        raise _refuse(text, pos, _REFUSED_CHARS.get(ch, f"unexpected character {ch!r}"))
    tokens.append(Token("end", "", len(text)))
    return tokens

# }}}


# {{{ parser

class _Parser:
    """Recursive descent over the tokens; builds only whitelisted pymbolic nodes."""

    def __init__(self, text: str, tokens: list[Token]):
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        if self.tok.kind != "op" or self.tok.text != text:
            raise self.error(f"expected {text!r}")
        self.i += 1

    def error(self, why: str, tok: Token | None = None, *, found: bool = True
              ) -> ModelError:
        tok = tok or self.tok
        if found:
            why += ", found " + ("the end of the text" if tok.kind == "end"
                                 else repr(tok.text))
        return _refuse(self.text, min(tok.pos, max(len(self.text) - 1, 0)), why)

    def nested(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _refuse(self.text, self.tok.pos, f"nesting deeper than {MAX_NESTING}")

    def model(self) -> tuple[str | None, object]:
        output = None
        if len(self.tokens) > 2 and self.tokens[1].kind == "assign":
            first = self.take()
            if first.kind != "feature":
                raise self.error("the left-hand side of '=' must be the measured output "
                                 "feature, e.g. f_cl_wall_time", first)
            output = first.text
            self.take()
        if self.tok.kind == "end":
            raise self.error("expected an expression")
        expr = self.expr()
        if self.tok.kind == "assign":
            raise self.error("only 'OUTPUT = EXPRESSION' may use '='")
        if self.tok.kind != "end":
            raise self.error("expected an operator")
        return output, expr

    def expr(self):
        self.nested()
        terms = [self.term()]
        while self.tok.kind == "op" and self.tok.text in "+-":
            op = self.take().text
            rhs = self.term()
            terms.append(rhs if op == "+" else _negate(rhs))
        self.depth -= 1
        return terms[0] if len(terms) == 1 else prim.Sum(tuple(terms))

    def term(self):
        result = self.unary()
        while self.tok.kind == "op" and self.tok.text in ("*", "/"):
            op = self.take().text
            rhs = self.unary()
            if op == "*":
                result = prim.Product((*result.children, rhs)) \
                    if isinstance(result, prim.Product) else prim.Product((result, rhs))
            else:
                result = prim.Quotient(result, rhs)
        return result

    def unary(self):
        if self.tok.kind == "op" and self.tok.text in "+-":
            op = self.take().text
            self.nested()
            operand = self.unary()
            self.depth -= 1
            return operand if op == "+" else _negate(operand)
        return self.power()

    def power(self):
        base = self.atom()
        if self.tok.kind == "op" and self.tok.text == "**":
            self.take()
            self.nested()
            exponent = self.unary()
            self.depth -= 1
            return prim.Power(base, exponent)
        return base

    def atom(self):
        tok = self.tok
        if tok.kind == "num":
            self.take()
            value = float(tok.text)
            return int(value) if value.is_integer() and abs(value) < 2**53 \
                and not any(c in tok.text for c in ".eE") else value
        if tok.kind in ("feature", "param"):
            self.take()
            if self.tok.kind == "op" and self.tok.text == "(":
                kind = "feature" if tok.kind == "feature" else "parameter"
                raise self.error(f"{tok.text!r} is a {kind}, not a function; "
                                 "functions are " + ", ".join(FUNCTIONS), self.tok,
                                 found=False)
            return prim.Variable(tok.text)
        if tok.kind == "name":
            return self.call_or_refuse()
        if tok.kind == "op" and tok.text == "(":
            self.take()
            inner = self.expr()
            self.expect(")")
            return inner
        raise self.error("expected a number, a name or '('")

    def call_or_refuse(self):
        tok = self.take()
        name = tok.text
        if keyword.iskeyword(name) or keyword.issoftkeyword(name):
            raise self.error(f"Python keyword {name!r} is not allowed", tok, found=False)
        is_call = self.tok.kind == "op" and self.tok.text == "("
        if not is_call:
            raise self.error(f"names must start with {FEATURE_PREFIX!r} (a feature) or "
                             f"{PARAMETER_PREFIX!r} (a fitted parameter), not {name!r}", tok,
                             found=False)
        if name not in FUNCTIONS:
            import difflib
            close = difflib.get_close_matches(name, FUNCTIONS, n=2, cutoff=0.5)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise self.error(f"calling {name!r} is not allowed{hint}; allowed functions: "
                             + ", ".join(FUNCTIONS), tok, found=False)
        self.take()  # "("
        args = [self.expr()]
        while self.tok.kind == "op" and self.tok.text == ",":
            self.take()
            args.append(self.expr())
        self.expect(")")
        low, high = FUNCTIONS[name]
        if len(args) < low or (high is not None and len(args) > high):
            want = f"{low}" if low == high else f"at least {low}"
            raise self.error(f"{name}() takes {want} argument(s), got {len(args)}", tok,
                             found=False)
        return prim.Call(prim.Variable(name), tuple(args))


def _negate(expr):
    if isinstance(expr, (int, float)):
        return -expr
    return prim.Product((-1, expr))

# }}}


# {{{ the parsed model

def _collect_names(expr, features: dict, params: dict) -> None:
    """Feature and parameter names in order of first appearance."""
    if isinstance(expr, prim.Variable):
        (features if expr.name.startswith(FEATURE_PREFIX) else params)[expr.name] = None
    elif isinstance(expr, prim.Call):
        for a in expr.parameters:
            _collect_names(a, features, params)
    elif isinstance(expr, (prim.Sum, prim.Product)):
        for c in expr.children:
            _collect_names(c, features, params)
    elif isinstance(expr, prim.Quotient):
        _collect_names(expr.numerator, features, params)
        _collect_names(expr.denominator, features, params)
    elif isinstance(expr, prim.Power):
        _collect_names(expr.base, features, params)
        _collect_names(expr.exponent, features, params)


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

    @property
    def rhs_text(self) -> str:
        """The right-hand side only (the user's text after any ``OUTPUT =``)."""
        tokens = tokenize(self.text)
        if len(tokens) > 2 and tokens[1].kind == "assign":
            return self.text[tokens[2].pos:].strip()
        return self.text.strip()

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


def parse_model(text: str, *, default_output: str = "f_cl_wall_time") -> ModelExpression:
    """Parse and validate ``[OUTPUT =] EXPRESSION``.

    Every ``f_`` name must be a known feature (see
    :func:`workbench.models.expression_features.parse_feature_ref`); an unknown one
    raises :class:`UnknownModelNameError` with the closest known names.  The output
    must be the measured wall time ``f_cl_wall_time[_<device>]``, and may not appear
    on the right-hand side.
    """
    from workbench.models.expression_features import OutputFeature, parse_feature_ref

    output, expr = _Parser(text, tokenize(text)).model()
    features: dict = {}
    params: dict = {}
    _collect_names(expr, features, params)
    if output is not None:
        if not isinstance(parse_feature_ref(output), OutputFeature):
            raise ModelError(f"the left-hand side {output!r} is not a measured output; "
                             "write f_cl_wall_time or f_cl_wall_time_<device>")
    for name in features:
        if isinstance(parse_feature_ref(name), OutputFeature):
            raise ModelError(f"the measured output {name!r} cannot be an input of the "
                             "model; write it on the left of '=' (or leave it out)")
    if not params:
        raise ModelError("the model has no p_ parameters to fit")
    return ModelExpression(text=text, output=output or default_output, expression=expr,
                           features=tuple(features), parameters=tuple(params))

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
