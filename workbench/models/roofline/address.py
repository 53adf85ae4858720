"""The address model: launch configurations, affine address expressions, accesses.

Everything here is code-generator neutral (Ernst et al., section III-B): an access
is a byte address ``base_alignment + element_size * index`` where ``index`` is an
affine expression in the thread coordinates ``tx, ty, tz``, the block coordinates
``bx, by, bz``, loop variables with integer ranges, and size parameters. Optional
affine *guards* say which of those points really perform the access (a loopy
domain's bounds, an ``if (x < n)`` that matters, a non-rectangular loop).
:func:`workbench.models.roofline.from_loopy.accesses_from_loopy` derives the same objects
from a loopy kernel.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pymbolic.primitives as prim
from pymbolic import parse as _parse_pymbolic

from workbench.errors import ParameterError
from workbench.properties.features import Direction  # the one load/store of the workbench

THREAD_VARS: tuple[str, ...] = ("tx", "ty", "tz")
BLOCK_VARS: tuple[str, ...] = ("bx", "by", "bz")
HW_VARS: tuple[str, ...] = THREAD_VARS + BLOCK_VARS


# {{{ affine expressions

def _affine_terms(expr, params: Mapping[str, int]) -> dict[str, int]:
    """``expr`` (pymbolic, int or str) as ``{name: coeff, 1: const}``; raises if not affine."""
    if isinstance(expr, str):
        expr = _parse_pymbolic(expr)
    if isinstance(expr, bool):
        raise TypeError("boolean in an address expression")
    if isinstance(expr, numbers.Integral):
        return {1: int(expr)}
    if isinstance(expr, prim.Variable):
        if expr.name in params:
            return {1: int(params[expr.name])}
        return {expr.name: 1}
    if isinstance(expr, prim.Sum):
        out: dict = {}
        for child in expr.children:
            for k, v in _affine_terms(child, params).items():
                out[k] = out.get(k, 0) + v
        return out
    if isinstance(expr, prim.Product):
        out = {1: 1}
        for child in expr.children:
            terms = _affine_terms(child, params)
            if set(out) == {1}:
                out = {k: v * out[1] for k, v in terms.items()}
            elif set(terms) <= {1}:
                c = terms.get(1, 0)
                out = {k: v * c for k, v in out.items()}
            else:
                raise ValueError(f"address expression is not affine: {expr}")
        return out
    if isinstance(expr, prim.FloorDiv):
        num = _affine_terms(expr.numerator, params)
        den = _affine_terms(expr.denominator, params)
        if set(num) <= {1} and set(den) <= {1}:
            return {1: num.get(1, 0) // den[1]}
        raise ValueError(f"floor division in an address expression: {expr}")
    if isinstance(expr, prim.Power):
        base = _affine_terms(expr.base, params)
        exp = _affine_terms(expr.exponent, params)
        if set(base) <= {1} and set(exp) <= {1}:
            return {1: base.get(1, 0) ** exp.get(1, 0)}
    raise ValueError(f"address expression is not affine: {expr!r}")


@dataclass(frozen=True)
class AffineExpression:
    """``const + sum(coeff * var)`` with integer coefficients (sorted, no zeros)."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    @classmethod
    def from_dict(cls, coeffs: Mapping, const: int = 0) -> AffineExpression:
        coeffs = dict(coeffs)
        const = int(const) + int(coeffs.pop(1, 0))
        return cls(tuple(sorted((str(k), int(v)) for k, v in coeffs.items() if v)),
                   const)

    @classmethod
    def parse(cls, expr, params: Mapping[str, int] | None = None) -> AffineExpression:
        """From a pymbolic expression or a string such as ``"tx + 128*bx + 1"``.

        Names in ``params`` are replaced by their values.
        """
        if isinstance(expr, AffineExpression):
            return expr.substitute(params or {})
        return cls.from_dict(_affine_terms(expr, dict(params or {})))

    @property
    def coeffs(self) -> dict[str, int]:
        return dict(self.terms)

    @property
    def variables(self) -> frozenset[str]:
        return frozenset(k for k, _ in self.terms)

    def substitute(self, values: Mapping[str, int]) -> AffineExpression:
        const = self.const + sum(c * int(values[v]) for v, c in self.terms if v in values)
        return AffineExpression(tuple((v, c) for v, c in self.terms if v not in values),
                                const)

    def scaled(self, factor: int, offset: int = 0) -> AffineExpression:
        return AffineExpression(tuple((v, c * factor) for v, c in self.terms),
                                self.const * factor + offset)

    def evaluate(self, values: Mapping[str, object]):
        """Value for scalars or numpy arrays (broadcasting) given per variable."""
        result = self.const
        for v, c in self.terms:
            result = result + c * values[v]
        return result

    def to_isl(self) -> str:
        parts = [f"{c}*{v}" for v, c in self.terms]
        parts.append(str(self.const))
        return " + ".join(parts)

    def __str__(self) -> str:
        return self.to_isl()


@dataclass(frozen=True)
class Constraint:
    """``expr >= 0`` (or ``expr == 0`` when ``equality``)."""

    expr: AffineExpression
    equality: bool = False

    @classmethod
    def parse(cls, text: str, params: Mapping[str, int] | None = None) -> Constraint:
        """``"a <= b"``, ``"a < b"``, ``"a >= b"``, ``"a > b"`` or ``"a == b"``."""
        for op in ("<=", ">=", "==", "<", ">"):
            if op in text:
                lhs, rhs = text.split(op, 1)
                lhs_e = AffineExpression.parse(lhs, params)
                rhs_e = AffineExpression.parse(rhs, params)
                diff = _sub(rhs_e, lhs_e)  # rhs - lhs
                if op == "<=":
                    return cls(diff)
                if op == "<":
                    return cls(_add_const(diff, -1))
                if op == ">=":
                    return cls(diff.scaled(-1))
                if op == ">":
                    return cls(_add_const(diff.scaled(-1), -1))
                return cls(diff, equality=True)
        raise ValueError(f"not a constraint: {text!r}")

    def to_isl(self) -> str:
        return f"{self.expr.to_isl()} {'=' if self.equality else '>='} 0"

    def holds(self, values: Mapping[str, object]):
        val = self.expr.evaluate(values)
        return val == 0 if self.equality else val >= 0


def _sub(a: AffineExpression, b: AffineExpression) -> AffineExpression:
    coeffs = a.coeffs
    for v, c in b.terms:
        coeffs[v] = coeffs.get(v, 0) - c
    return AffineExpression.from_dict(coeffs, a.const - b.const)


def _add_const(a: AffineExpression, c: int) -> AffineExpression:
    return AffineExpression(a.terms, a.const + c)

# }}}


@dataclass(frozen=True)
class LaunchConfig:
    """Threads per block and blocks per grid, (x, y, z); missing axes are 1."""

    block: tuple[int, int, int]
    grid: tuple[int, int, int] = (1, 1, 1)

    def __post_init__(self):
        block = tuple(int(b) for b in self.block) + (1,) * (3 - len(self.block))
        grid = tuple(int(g) for g in self.grid) + (1,) * (3 - len(self.grid))
        if len(block) != 3 or len(grid) != 3 or min(block + grid) < 1:
            raise ValueError(f"bad launch configuration {self.block} x {self.grid}")
        object.__setattr__(self, "block", block)
        object.__setattr__(self, "grid", grid)

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]


@dataclass(frozen=True)
class AddressExpression:
    """An element index, affine in ``tx..tz``, ``bx..bz``, loop variables and parameters.

    ``loops`` maps each loop variable to a half-open range ``(lo, hi)`` (constants);
    ``guards`` are further affine constraints over any of the variables restricting
    which points access memory. Size parameters may stay symbolic (``n*ty`` is
    affine only once ``n`` is known): then ``index``/``guards`` are ``None`` and
    ``source`` keeps the pymbolic/string form, parsed when counting binds
    ``params=``.
    """

    index: AffineExpression | None
    loops: tuple[tuple[str, tuple[int, int]], ...] = ()
    guards: tuple[Constraint, ...] | None = ()
    source: tuple | None = None   # (index, guards) before parameters are bound

    @classmethod
    def make(cls, index, loops: Mapping[str, tuple[int, int]] | None = None,
             guards: Iterable[Constraint | str] = (),
             params: Mapping[str, int] | None = None) -> AddressExpression:
        """Build from a string/pymbolic index, loop ranges and guard strings."""
        loops_t = tuple((k, (int(lo), int(hi))) for k, (lo, hi) in (loops or {}).items())
        guards = tuple(guards)
        try:
            return cls(AffineExpression.parse(index, params), loops_t,
                       tuple(g if isinstance(g, Constraint) else Constraint.parse(g, params)
                             for g in guards))
        except ValueError:
            if params:
                raise
            return cls(None, loops_t, None, (index, guards))

    @property
    def loop_ranges(self) -> dict[str, tuple[int, int]]:
        return dict(self.loops)

    def variables(self) -> frozenset[str]:
        if self.index is None:
            raise ValueError(f"address {self.source[0]!r} needs size parameters bound")
        names = set(self.index.variables)
        for g in self.guards:
            names |= g.expr.variables
        return frozenset(names | set(self.loop_ranges))

    def bind(self, params: Mapping[str, int]) -> AddressExpression:
        if self.index is None:
            try:
                return AddressExpression.make(self.source[0], self.loop_ranges,
                                              self.source[1], params or {"": 0})
            except ValueError as exc:
                raise ValueError(f"address {self.source[0]!r} is not affine with "
                                 f"params {dict(params)} (pass params=...): {exc}"
                                 ) from None
        if not params:
            return self
        return AddressExpression(
            self.index.substitute(params), self.loops,
            tuple(Constraint(g.expr.substitute(params), g.equality) for g in self.guards))


@dataclass(frozen=True)
class Access:
    """One memory access of a kernel: byte address ``base_alignment + element_size * index``.

    ``base_alignment`` stands in for the unknown base address (the paper replaces it
    by 0 or by the array's alignment offset); accesses to different arrays never
    alias, so footprints are computed per array and added.
    """

    array: str
    element_size: int
    address: AddressExpression
    base_alignment: int = 0
    direction: Direction = Direction.LOAD

    def __post_init__(self):
        if not isinstance(self.direction, Direction):
            object.__setattr__(self, "direction", Direction(self.direction))

    @classmethod
    def make(cls, array: str, element_size: int, index, *, loops=None, guards=(),
             base_alignment: int = 0, direction: str | Direction = "load",
             params: Mapping[str, int] | None = None) -> Access:
        """Plain-address API: ``Access.make("a", 8, "tx + 128*bx + 1")``."""
        return cls(array, int(element_size),
                   AddressExpression.make(index, loops, guards, params),
                   int(base_alignment), Direction(direction))


@dataclass(frozen=True)
class ThreadGroup:
    """A set of threads: blocks in the box ``blocks`` (half-open per axis) of ``launch``.

    ``threads`` optionally restricts the thread coordinates inside each block (also a
    half-open box), e.g. one warp row; ``None`` means the whole block. The default
    ``blocks`` is the single block (0, 0, 0).
    """

    launch: LaunchConfig
    blocks: tuple[tuple[int, int], ...] = ((0, 1), (0, 1), (0, 1))
    threads: tuple[tuple[int, int], ...] | None = None

    def __post_init__(self):
        blocks = tuple((int(lo), int(hi)) for lo, hi in self.blocks)
        blocks += ((0, 1),) * (3 - len(blocks))
        for (lo, hi), g in zip(blocks, self.launch.grid):
            if not 0 <= lo < hi <= g:
                raise ValueError(f"block range {blocks} outside grid {self.launch.grid}")
        object.__setattr__(self, "blocks", blocks)
        threads = self.threads
        if threads is None:
            threads = tuple((0, b) for b in self.launch.block)
        threads = tuple((int(lo), int(hi)) for lo, hi in threads)
        threads += ((0, 1),) * (3 - len(threads))
        for (lo, hi), b in zip(threads, self.launch.block):
            if not 0 <= lo < hi <= b:
                raise ValueError(f"thread range {threads} outside block {self.launch.block}")
        object.__setattr__(self, "threads", threads)

    @classmethod
    def block(cls, launch: LaunchConfig, bx: int = 0, by: int = 0, bz: int = 0
              ) -> ThreadGroup:
        """One thread block."""
        return cls(launch, ((bx, bx + 1), (by, by + 1), (bz, bz + 1)))

    @classmethod
    def grid(cls, launch: LaunchConfig) -> ThreadGroup:
        """Every thread of the launch."""
        return cls(launch, tuple((0, g) for g in launch.grid))

    def ranges(self) -> dict[str, tuple[int, int]]:
        """Half-open range of every hardware coordinate."""
        return {**dict(zip(THREAD_VARS, self.threads)), **dict(zip(BLOCK_VARS, self.blocks))}

    @property
    def thread_count(self) -> int:
        n = 1
        for lo, hi in self.ranges().values():
            n *= hi - lo
        return n


def block3(block) -> tuple[int, int, int]:
    """A thread-block shape of 1 to 3 positive sizes, padded with 1s to (x, y, z)."""
    b = tuple(int(v) for v in block)
    if not 1 <= len(b) <= 3 or min(b) < 1:
        raise ParameterError(f"block size must have 1 to 3 positive entries, got {block!r}")
    return b + (1,) * (3 - len(b))


def bound_address(access: Access, params: Mapping[str, int]) -> AddressExpression:
    """The access's address with size parameters bound; every free name must be a
    hardware coordinate or a loop variable."""
    addr = access.address.bind(params)
    free = addr.variables() - set(HW_VARS)
    unbound = free - set(addr.loop_ranges)
    if unbound:
        raise ValueError(f"access to {access.array!r}: no value for "
                         f"{', '.join(sorted(unbound))} (pass params=...)")
    return addr
