"""Sorting the accesses of an instruction by role: a global load in a value
position is a *source*, a temporary read in a global index is an *index
temporary* (see 'How values travel' and 'What is kept verbatim' in
:mod:`~workbench.kernels.work_removal.transform`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pymbolic.primitives as prim
from loopy.symbolic import Reduction
from pymbolic.mapper import WalkMapper

from workbench.errors import UnsupportedKernelError

# {{{ sorting the accesses of an instruction

class _Mode:
    """Where in an expression an access sits, which decides what becomes of it."""

    VALUE = "value"            # its value is data: a load here is a source
    GLOBAL_INDEX = "gindex"    # forms a global address: kept verbatim
    TEMP_INDEX = "tindex"      # indexes a temporary that disappears


@dataclass(frozen=True)
class _Load:
    """One global load in a value position (a *source*)."""

    key: str
    insn_id: str
    expr: prim.Expression             # verbatim: access tags and index included
    array: str
    reduction_inames: frozenset[str]  # of the reductions around it


@dataclass
class _Scan:
    """The accesses of one instruction, by role."""

    loads: list[_Load] = field(default_factory=list)
    value_temps: list[str] = field(default_factory=list)
    index_temps: set[str] = field(default_factory=set)


class _Scanner(WalkMapper):
    """Sorts the variable accesses of one expression by role (see :class:`_Mode`).

    A global load inside the index of a disappearing temporary is kept as a source:
    loopy counts it, so it has to stay.  Built on pymbolic's uncached walker on
    purpose (loopy's ``UncachedWalkMapper`` derives from the cached one): two
    textual occurrences of ``a[i]`` are two loads to loopy and must stay two.
    """

    def __init__(self, globals_: frozenset[str], temps: frozenset[str], insn_id: str,
                 scan: _Scan, counter: list[int]):
        super().__init__()
        self.globals_ = globals_
        self.temps = temps
        self.insn_id = insn_id
        self.scan = scan
        self.counter = counter

    def _access(self, expr: prim.Expression, name: str, index: object, mode: str,
                red: frozenset[str]) -> None:
        if name in self.globals_:
            if mode != _Mode.GLOBAL_INDEX:
                self.counter[0] += 1
                self.scan.loads.append(_Load(f"{name}#{self.counter[0]}", self.insn_id,
                                             expr, name, red))
            inner = _Mode.GLOBAL_INDEX
        elif name in self.temps:
            if mode == _Mode.VALUE:
                self.scan.value_temps.append(name)
            elif mode == _Mode.GLOBAL_INDEX:
                self.scan.index_temps.add(name)
            inner = _Mode.GLOBAL_INDEX if mode == _Mode.GLOBAL_INDEX \
                else _Mode.TEMP_INDEX
        else:
            inner = mode
        if index is not None:
            self.rec(index, inner, red)

    def map_variable(self, expr, mode: str, red: frozenset[str]) -> None:
        self._access(expr, expr.name, None, mode, red)

    map_tagged_variable = map_variable

    def map_subscript(self, expr, mode: str, red: frozenset[str]) -> None:
        if not isinstance(expr.aggregate, prim.Variable):
            raise UnsupportedKernelError(f"subscript of a non-variable: {expr}")
        self._access(expr, expr.aggregate.name, expr.index, mode, red)

    map_linear_subscript = map_subscript

    def map_reduction(self, expr: Reduction, mode: str, red: frozenset[str]) -> None:
        self.rec(expr.expr, mode, red | frozenset(expr.inames))

    def map_type_cast(self, expr, mode: str, red: frozenset[str]) -> None:
        self.rec(expr.child, mode, red)

    def map_resolved_function(self, expr, mode: str, red: frozenset[str]) -> None:
        pass  # the name of a function, not a variable

    map_function_symbol = map_resolved_function
    map_loopy_function_identifier = map_resolved_function

    def map_sub_array_ref(self, expr, mode: str, red: frozenset[str]) -> None:
        raise UnsupportedKernelError(
            f"array section {expr} is passed to a call; work removal does not enter "
            "calls")


# }}}
