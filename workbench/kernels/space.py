"""Search spaces: tunable parameters, restrictions, and a kernel for every point.

A :class:`TuningSpace` has the shape of Kernel Tuner's ``tune_params`` and
``restrictions``: an ordered mapping from each parameter to its values, and
restrictions that every valid point meets.  A restriction is a callable of the
point (``lambda p: p["bx"] * p["by"] <= 1024``) or a text over the numeric
parameters (``"bx*by <= 1024 and n % bx == 0"``), read with pymbolic's parser and
evaluated by pymbolic over whitelisted nodes only (never Python's ``eval``).

Each point names one loopy kernel.  A space either gives ``kernel(point)``, or, for
cheap ranking, a *template* per structure (the values of ``structure`` parameters)
and the ``bindings`` of a point's numbers (:mod:`workbench.kernels.tunable.common`):
one symbolic property extraction then serves every point of a structure.

Spaces sit in the kernel layer (a space is a set of kernels): the IR features and the
time-tiled stencils read them from here, the tuning layer explores them
(:mod:`workbench.tuning.space` re-exports them).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pymbolic.primitives as prim
from pymbolic import evaluate as pymbolic_evaluate
from pymbolic import parse as pymbolic_parse
from pytools.lex import InvalidTokenError, ParseError

from workbench.errors import ParameterError, TuningError
from workbench.kernels.base import format_group_size
from workbench.kernels.tunable.common import Template, instantiate

Value = int | float | str | bool


@dataclass(frozen=True)
class Point:
    """One configuration of a space: parameter values in the space's order."""

    items: tuple[tuple[str, Value], ...]

    def __getitem__(self, name: str) -> Value:
        for k, v in self.items:
            if k == name:
                return v
        raise KeyError(name)

    def get(self, name: str, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def as_dict(self) -> dict[str, Value]:
        return dict(self.items)

    @property
    def label(self) -> str:
        """``bx=16,by=4,tile=local``: how a point is stored and shown."""
        return ",".join(f"{k}={v}" for k, v in self.items)

    @classmethod
    def parse(cls, label: str, space: TuningSpace) -> Point:
        """Inverse of :attr:`label`, values typed as in the space."""
        given = dict(part.split("=", 1) for part in label.split(",") if part)
        given = {**{k: str(v) for k, v in space.added_params.items()}, **given}
        items = []
        for name, values in space.tune_params.items():
            if name not in given:
                raise TuningError(f"point {label!r} has no value for {name!r}")
            match = [v for v in values if str(v) == given[name]]
            if not match:
                raise TuningError(f"{given[name]!r} is not a value of {name!r} in "
                                  f"space {space.name!r}")
            items.append((name, match[0]))
        return cls(tuple(items))


@dataclass(frozen=True)
class LaunchSequence:
    """A point whose computation is ``count(point)`` launches of its kernel in a row,
    each reading what the one before wrote: argument ``output`` of one launch is
    argument ``input`` of the next (a time-tiled stencil's bands of t_T steps).  The
    point's time is the whole sequence's, first start to last end; an evaluator that
    knows sequences times it (:mod:`workbench.tuning.sequence`)."""

    count: Callable[[Point], int]
    input: str
    output: str
    #: an integer argument that each launch receives its number in (0, 1, ..):
    #: launches of one kernel that differ by phase (the two rows of hexagons per band
    #: of hexagonal tiling); None: every launch gets the same arguments
    index: str | None = None

    @property
    def in_place(self) -> bool:
        """``input`` is ``output``: every launch updates one array (hexagonal tiles
        keep two time levels in it), a copy of the input made before the first."""
        return self.input == self.output


# {{{ restrictions

_RESTRICTION_NODES = (prim.Variable, prim.Sum, prim.Product, prim.Quotient,
                      prim.FloorDiv, prim.Remainder, prim.Power, prim.Comparison,
                      prim.LogicalAnd, prim.LogicalOr, prim.LogicalNot)


@dataclass(frozen=True)
class Restriction:
    """A text restriction over numeric parameters (see the module docstring)."""

    text: str
    expression: object
    names: frozenset[str]

    @classmethod
    def parse(cls, text: str, known: Sequence[str]) -> Restriction:
        try:
            expr = pymbolic_parse(text)
        except (ParseError, InvalidTokenError) as err:
            raise TuningError(f"cannot read restriction {text!r}: {err}") from None
        names: set[str] = set()

        def check(node):
            if isinstance(node, (int, float)) and not isinstance(node, bool):
                return
            if not isinstance(node, _RESTRICTION_NODES):
                raise TuningError(f"restriction {text!r}: {type(node).__name__} is not "
                                  "allowed (numbers, parameters, arithmetic, comparisons, "
                                  "and/or/not)")
            if isinstance(node, prim.Variable):
                if node.name not in known:
                    raise TuningError(f"restriction {text!r} names {node.name!r}, which "
                                      f"is no parameter (known: {', '.join(known)})")
                names.add(node.name)
                return
            for child in (getattr(node, f.name) for f in dataclasses.fields(node)):
                for c in (child if isinstance(child, tuple) else (child,)):
                    if not isinstance(c, str):
                        check(c)
        check(expr)
        return cls(text, expr, frozenset(names))

    def __call__(self, values: Mapping[str, Value]) -> bool:
        return bool(pymbolic_evaluate(self.expression,
                                      {k: values[k] for k in self.names}))

# }}}


@dataclass(frozen=True, eq=False)
class TuningSpace:
    """A search space over the variants of one computation (module docstring).

    ``problem`` holds the fixed sizes (documentation, and run-time values of any
    size parameters the kernels keep); ``group_size(point)`` the work-group shape;
    ``local_bytes(point)`` its local memory (for the device's limit);
    ``make_inputs(rng)`` and ``reference(inputs)`` check results; ``sequence``:
    the point is several launches in a row (:class:`LaunchSequence`), whose
    reference is that of the whole sequence.
    """

    name: str
    description: str
    tune_params: Mapping[str, tuple[Value, ...]]
    group_size: Callable[[Point], tuple[int, ...]]
    problem: Mapping[str, int] = field(default_factory=dict)
    restrictions: tuple[Restriction | Callable[[Mapping[str, Value]], bool], ...] = ()
    kernel: Callable[[Point], object] | None = None
    template: Callable[[tuple], Template] | None = None
    structure: tuple[str, ...] = ()
    bindings: Callable[[Point], Mapping[str, int]] | None = None
    local_bytes: Callable[[Point], int] = lambda point: 0
    make_inputs: Callable[..., dict] | None = None
    reference: Callable[[Mapping], dict] | None = None
    dtype: str = "float32"
    rtol: float = 1e-4
    sequence: LaunchSequence | None = None
    #: parameters added after points of the space were stored, with the value those
    #: points had: a stored label without one of them reads as having that value
    added_params: Mapping[str, Value] = field(default_factory=dict)

    def __post_init__(self):
        if not self.tune_params or any(not v for v in self.tune_params.values()):
            raise TuningError(f"space {self.name!r} needs at least one value per "
                              "tunable parameter")
        if (self.kernel is None) == (self.template is None):
            raise TuningError(f"space {self.name!r} needs either kernel(point) or "
                              "template(structure) with bindings(point)")
        if self.template is not None and self.bindings is None:
            raise TuningError(f"space {self.name!r}: a template needs bindings(point)")
        unknown = (set(self.structure) | set(self.added_params)) - set(self.tune_params)
        if unknown:
            raise TuningError(f"space {self.name!r}: structure or added_params name "
                              f"unknown parameter(s) {', '.join(sorted(unknown))}")
        known = (*self.tune_params, *self.problem)
        object.__setattr__(self, "restrictions", tuple(
            Restriction.parse(r, known) if isinstance(r, str) else r
            for r in self.restrictions))

    def where(self, restriction: str) -> TuningSpace:
        """The same space (name, kernels, records) with only the points that also
        meet ``restriction``: to measure a space's new values without its old points."""
        narrowed = dataclasses.replace(self, restrictions=(*self.restrictions, restriction))
        narrowed.points()   # an empty selection is a clear error here, not later
        return narrowed

    @property
    def size(self) -> int:
        """Points before restrictions (the Cartesian product)."""
        return math.prod(len(v) for v in self.tune_params.values())

    def is_valid(self, point: Point) -> bool:
        values = {**self.problem, **point.as_dict()}
        return all(r(values) for r in self.restrictions)

    @functools.cached_property
    def _points(self) -> tuple[Point, ...]:
        names = list(self.tune_params)
        points = []
        for combo in itertools.product(*self.tune_params.values()):
            point = Point(tuple(zip(names, combo)))
            if self.is_valid(point):
                points.append(point)
        return tuple(points)

    def points(self) -> tuple[Point, ...]:
        """Every valid point, in the order of the Cartesian product."""
        if not self._points:
            raise TuningError(f"space {self.name!r} is empty: none of its {self.size} "
                              "points meets the restrictions")
        return self._points

    def point(self, values: Mapping[str, Value] | str) -> Point:
        """A valid point from a mapping or a label; unknown values raise."""
        if isinstance(values, str):
            values = Point.parse(values, self).as_dict()
        values = {**self.added_params, **values}
        items = []
        for name, allowed in self.tune_params.items():
            if name not in values:
                raise TuningError(f"no value for {name!r}")
            if values[name] not in allowed:
                raise TuningError(f"{values[name]!r} is not a value of {name!r}")
            items.append((name, values[name]))
        point = Point(tuple(items))
        if not self.is_valid(point):
            raise TuningError(f"point {point.label} breaks a restriction of {self.name!r}")
        return point

    def structure_of(self, point: Point) -> tuple:
        return tuple(point[s] for s in self.structure)

    @functools.lru_cache(maxsize=64)  # noqa: B019 - a space lives as long as its runs
    def template_for(self, structure: tuple) -> Template:
        return self.template(structure)

    def build(self, point: Point):
        """The point's loopy kernel (the template with its numbers fixed)."""
        if self.kernel is not None:
            return self.kernel(point)
        return instantiate(self.template_for(self.structure_of(point)),
                           self.bindings(point))

    def key_group_size(self, point: Point) -> str:
        return format_group_size(self.group_size(point))

    def check_problem(self, overrides: Mapping[str, int]) -> dict[str, int]:
        unknown = set(overrides) - set(self.problem)
        if unknown:
            raise ParameterError(f"space {self.name!r} has no size parameter "
                                 f"{sorted(unknown)[0]!r} (sizes: "
                                 f"{', '.join(self.problem) or 'none'})")
        return {**self.problem, **overrides}
