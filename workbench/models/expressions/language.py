"""The text of a model expression: a small, safe language for the 2019 paper's models.

A model is written the way Stevens and Klöckner (2019, section 6) write it::

    f_cl_wall_time_nvidia_h100 = p_launch * f_sync_kernel_launch
        + p_groups * f_thread_groups
        + smax(p_f32 * f_op_float32_add, p_gld * f_mem_access_tag:aLD)

``f_...`` names are *features* (see :mod:`workbench.models.expressions.features` for
their grammar), ``p_...`` names are *parameters* fitted to measurements.  The
left-hand side ``OUTPUT =`` is optional.  What may appear::

    model    := [output "="] expr
    expr     := numbers, f_ and p_ names, + - * / ** and parentheses,
                and calls of smax | smin | max | min | exp | log | sqrt

This module only reads the text; :mod:`workbench.models.expressions.expression`
checks the feature names and evaluates the tree.

How it reads, and why this way
------------------------------
Model files are shared between people, so the text must stay data, never code.  Two
designs were compared on 2026-11-22: the first version's hand-written tokenizer and
recursive-descent parser (264 lines of code), and pymbolic's own parser (already a
dependency of loopy) followed by a *whitelist walker* (this module, 243 lines of code,
docstrings and comments not counted).  The second is kept: it is smaller, as safe,
and its grammar (precedence, unary minus, ``**``) is pymbolic's, the one loopy users
already write, instead of a second grammar to maintain.  Both pass the same refusal
tests (``tests/test_expression_models.py``).

* pymbolic's parser is a pure parser: it builds an expression tree from regular-
  expression tokens and never calls ``eval``, ``exec`` or ``compile``;
* the walker then accepts only ``Sum``, ``Product``, ``Quotient``, ``Power``,
  numbers, ``f_``/``p_`` variables and calls of the whitelisted functions, and
  refuses every other node (attribute lookups, subscripts, comparisons, ``//``,
  ``%``, conditionals, tuples, slices) with a :class:`~workbench.errors.ModelError`;
* a short scanner runs first.  It refuses characters the language lacks (quotes,
  brackets, ``;``, ``%``, comparisons...) and Python keywords at the character where
  they occur, and it finds the feature names, whose ``:{...}`` constraints pymbolic
  cannot read: each is replaced by a placeholder identifier *of the same length*,
  so pymbolic's error positions are positions in the user's text.

Nothing here is ever passed to ``eval`` or ``exec``; the text length, the nesting
depth and Python's recursion limit are bounded before and while parsing.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass

import pymbolic.primitives as prim
from pymbolic import parse as pymbolic_parse
from pytools.lex import InvalidTokenError, ParseError

from workbench.errors import ModelError

#: Refuse absurd inputs before parsing: model texts are a few hundred characters.
MAX_TEXT_LENGTH = 20_000
MAX_NESTING = 100

#: Functions an expression may call, and how many arguments each takes (min, max).
FUNCTIONS: Mapping[str, tuple[int, int | None]] = {
    "smax": (2, None), "smin": (2, None), "max": (2, None), "min": (2, None),
    "exp": (1, 1), "log": (1, 1), "sqrt": (1, 1),
}

FEATURE_PREFIX = "f_"
PARAMETER_PREFIX = "p_"

_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENT_TAIL = re.compile(r"[A-Za-z0-9_]*")
# after ':' inside a feature name: a comparison and a number, or a tag name
_CONSTRAINT_ATOM = re.compile(r"(?:[<>]=?|==?|!=)?[A-Za-z0-9_.]*")
_BRACE_BODY = re.compile(r"[0-9:,<>=!\s+-]*")

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

# pymbolic nodes the language does not have, and why
_REFUSED_NODES = {
    prim.Lookup: "attribute access is not allowed",
    prim.Subscript: "subscripts are not allowed",
    prim.Comparison: "comparisons are not allowed",
    prim.FloorDiv: "'//' (floor division) is not allowed (not differentiable)",
    prim.Remainder: "'%' is not allowed (not differentiable)",
    prim.If: "conditional expressions are not allowed",
    prim.LogicalAnd: "logical operators are not allowed",
    prim.LogicalOr: "logical operators are not allowed",
    prim.LogicalNot: "logical operators are not allowed",
    prim.Slice: "slices are not allowed",
    tuple: "tuples are not allowed",
}


def refuse(text: str, pos: int, why: str) -> ModelError:
    """A ModelError that shows the offending place of ``text`` with a caret."""
    pos = min(max(pos, 0), max(len(text) - 1, 0))
    start = max(0, pos - 30)
    snippet = text[start:pos + 30].replace("\n", " ")
    caret = " " * (pos - start) + "^"
    return ModelError(f"cannot use model expression: {why} (at character {pos + 1}):\n"
                      f"  {snippet}\n  {caret}")


# {{{ scanning

def _feature_end(text: str, pos: int) -> int:
    """End of an ``f_`` name starting at ``pos``: identifier chars plus ``:`` parts."""
    end = _IDENT.match(text, pos).end()
    while end < len(text) and text[end] == ":":
        end += 1
        if end < len(text) and text[end] == "{":
            close = _BRACE_BODY.match(text, end + 1).end()
            if close >= len(text) or text[close] != "}":
                raise refuse(text, close, "unterminated or malformed '{...}' constraint in "
                             "a feature name (allowed inside: digits, ':', ',', "
                             "'<', '>', '=', '!')")
            end = close + 1
        else:
            end = _CONSTRAINT_ATOM.match(text, end).end()
        end = _IDENT_TAIL.match(text, end).end()
    return end


@dataclass(frozen=True)
class _Scan:
    """The text with feature names replaced by same-length identifiers."""

    masked: str
    features: Mapping[str, str]   # placeholder -> feature name
    assign: int | None            # position of the one top-level '='


def _scan(text: str) -> _Scan:
    """Refuse what the language lacks, where it occurs; mask the feature names."""
    if not isinstance(text, str):
        raise ModelError(f"a model expression must be text, not {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise ModelError(f"model expression too long ({len(text)} characters; at most "
                         f"{MAX_TEXT_LENGTH})")
    out: list[str] = []
    features: dict[str, str] = {}
    assign = None
    depth = 0
    pos = 0
    while pos < len(text):
        ch = text[pos]
        if ch.isspace() or ch in "+-*/(),":
            if text.startswith("//", pos):
                raise refuse(text, pos, "'//' (floor division) is not allowed "
                             "(not differentiable)")
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth > MAX_NESTING:
                raise refuse(text, pos, f"nesting deeper than {MAX_NESTING}")
            if depth < 0:
                raise refuse(text, pos, "unbalanced ')'")
            out.append(ch)
            pos += 1
        elif not ch.isascii():
            raise refuse(text, pos, f"unexpected character {ch!r}")
        elif ch.isdigit() or (ch == "." and text[pos + 1: pos + 2].isdigit()):
            end = _NUMBER.match(text, pos).end()
            if end < len(text) and (text[end].isalnum() or text[end] in "_."):
                raise refuse(text, end, "malformed number")
            out.append(text[pos:end])
            pos = end
        elif ch.isalpha() or ch == "_":
            word = _IDENT.match(text, pos).group()
            if keyword.iskeyword(word) or keyword.issoftkeyword(word):
                raise refuse(text, pos, f"Python keyword {word!r} is not allowed")
            end = pos + len(word)
            if word.startswith(FEATURE_PREFIX):
                end = _feature_end(text, pos)
                name = text[pos:end]
                if name != word:   # pymbolic cannot read ':' parts: mask them
                    mask = f"{FEATURE_PREFIX}_{len(features)}"
                    mask += "_" * (len(name) - len(mask))
                    if len(mask) != len(name):
                        raise refuse(text, pos, "feature name too short to stand for")
                    features[mask] = name
                    name = mask
                out.append(name)
            else:
                out.append(word)
            pos = end
        elif text.startswith("==", pos):
            raise refuse(text, pos, "comparisons are not allowed")
        elif ch == "=":
            if assign is not None:
                raise refuse(text, pos, "only 'OUTPUT = EXPRESSION' may use '='")
            assign = pos
            out.append(" ")
            pos += 1
        else:
            raise refuse(text, pos, _REFUSED_CHARS.get(ch, f"unexpected character {ch!r}"))
    if depth > 0:
        raise refuse(text, len(text) - 1, "expected ')'")
    return _Scan("".join(out), features, assign)

# }}}


# {{{ checking pymbolic's tree

class _Walker:
    """Rebuilds pymbolic's tree from whitelisted nodes only, collecting names."""

    def __init__(self, text: str, features: Mapping[str, str]):
        self.text = text
        self.masks = features
        self.features: dict[str, None] = {}
        self.parameters: dict[str, None] = {}

    def where(self, needle: str) -> int:
        return max(self.text.find(needle), 0)

    def rec(self, expr, depth: int = 0):
        if depth > 4 * MAX_NESTING:
            raise refuse(self.text, 0, "expression nested too deeply")
        if isinstance(expr, bool):
            raise refuse(self.text, 0, "truth values are not allowed")
        if isinstance(expr, (int, float)):
            return expr
        if isinstance(expr, prim.Variable):
            return self.name(expr.name, called=False)
        if isinstance(expr, (prim.Sum, prim.Product)):
            return type(expr)(tuple(self.rec(c, depth + 1) for c in expr.children))
        if isinstance(expr, prim.Quotient):
            return prim.Quotient(self.rec(expr.numerator, depth + 1),
                                 self.rec(expr.denominator, depth + 1))
        if isinstance(expr, prim.Power):
            return prim.Power(self.rec(expr.base, depth + 1),
                              self.rec(expr.exponent, depth + 1))
        if isinstance(expr, prim.Call) and isinstance(expr.function, prim.Variable):
            return self.call(expr.function.name, expr.parameters, depth)
        for node, why in _REFUSED_NODES.items():
            if isinstance(expr, node):
                raise refuse(self.text, 0, why)
        raise refuse(self.text, 0, f"{type(expr).__name__} is not allowed")

    def name(self, name: str, *, called: bool):
        name = self.masks.get(name, name)
        kind = ("feature" if name.startswith(FEATURE_PREFIX) else
                "parameter" if name.startswith(PARAMETER_PREFIX) else None)
        if called and kind:
            raise refuse(self.text, self.where(name) + len(name),
                         f"{name!r} is a {kind}, not a function; functions are "
                         + ", ".join(FUNCTIONS))
        if kind is None:
            raise refuse(self.text, self.where(name),
                         f"names must start with {FEATURE_PREFIX!r} (a feature) or "
                         f"{PARAMETER_PREFIX!r} (a fitted parameter), not {name!r}")
        (self.features if kind == "feature" else self.parameters)[name] = None
        return prim.Variable(name)

    def call(self, name: str, args, depth: int):
        if name not in FUNCTIONS:
            if self.masks.get(name, name).startswith((FEATURE_PREFIX, PARAMETER_PREFIX)):
                self.name(name, called=True)
            import difflib
            close = difflib.get_close_matches(name, FUNCTIONS, n=2, cutoff=0.5)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise refuse(self.text, self.where(name), f"calling {name!r} is not allowed"
                         f"{hint}; allowed functions: " + ", ".join(FUNCTIONS))
        low, high = FUNCTIONS[name]
        if len(args) < low or (high is not None and len(args) > high):
            want = f"{low}" if low == high else f"at least {low}"
            raise refuse(self.text, self.where(name),
                         f"{name}() takes {want} argument(s), got {len(args)}")
        return prim.Call(prim.Variable(name), tuple(self.rec(a, depth + 1) for a in args))

# }}}


@dataclass(frozen=True)
class ParsedText:
    """What the text says: the output name (if written), the right-hand side as a
    tree of whitelisted pymbolic nodes, and the names it uses in order of appearance."""

    output: str | None
    expression: object
    features: tuple[str, ...]
    parameters: tuple[str, ...]
    rhs_text: str


def parse_text(text: str) -> ParsedText:
    """Read ``[OUTPUT =] EXPRESSION``; every refusal is a ModelError with a caret."""
    scan = _scan(text)
    output = None
    start = 0
    if scan.assign is not None:
        lhs = scan.masked[:scan.assign].strip()
        if not (lhs.startswith(FEATURE_PREFIX) and _IDENT.fullmatch(lhs)):
            raise refuse(text, 0, "the left-hand side of '=' must be the measured output "
                         "feature, e.g. f_cl_wall_time")
        output, start = scan.features.get(lhs, lhs), scan.assign + 1
    rhs = scan.masked[start:]
    if not rhs.strip():
        raise refuse(text, len(text), "expected an expression")
    try:
        tree = pymbolic_parse(" " * start + rhs)
    except (ParseError, InvalidTokenError) as err:
        message = str(err)
        at = re.search(r"at index (\d+)", message)
        pos = int(at.group(1)) if at else len(text)
        why = ("expected an operator" if "leftover input" in message else
               "expected a number, a name or '('" if "end of input" in message else
               f"cannot parse: {message.split(' at ')[0]}")
        raise refuse(text, pos, why) from None
    except RecursionError:
        raise refuse(text, 0, "expression nested too deeply") from None
    walker = _Walker(text, scan.features)
    expression = walker.rec(tree)
    return ParsedText(output, expression, tuple(walker.features), tuple(walker.parameters),
                      text[start:].strip())
