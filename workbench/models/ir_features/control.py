"""Barriers, conditionals and loop bodies of a loopy kernel, from its linearization.

Table 1's control-flow features count what the generated code executes: ``for``
loops, ``if`` statements and barriers.  loopy's linearization (its schedule, no code
generation) gives the nesting of loops and barriers exactly; the ``if`` statements
are inferred from it the way loopy's code generator places them:

* an instruction is guarded where its lanes or groups do not fill the launch grid
  (its hardware inames cover less than the grid's extent: a ragged last group, a
  halo row fetched by two lanes) or where it has predicates;
* a guard shared by consecutive instructions (same inames, same lanes, same
  predicates) is one ``if``, and a guard shared by a whole loop's body is tested
  once outside the loop, unless a predicate reads the loop's iname;
* a predicate is always tested; a guard on hardware inames is tested where it may
  exclude a lane or a group.  That depends on what code generation knows: with the
  sizes as run-time arguments, loopy keeps every guard the kernel's assumptions do
  not make redundant; with sizes fixed in the code (``lp.fix_parameters``, a tuning
  template's numbers), it drops the guards that exclude nothing for those values.
  :class:`ControlCounts` takes the names fixed in the code.

A loop is a sequential iname that loopy emits as a loop: unrolled and vectorized
inames are not, nor one whose extent is at most one trip for all values code
generation does not know (loopy declares its iname a constant).

Every count here is a total over the whole grid, as work-item executions: a loop
body run by the lanes of a guard counts those lanes only, one run by every lane of
the group counts them all.  Dividing by the grid's work items gives Table 1's
"per thread".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import islpy as isl
import pymbolic.primitives as prim
from loopy.kernel.data import UnrolledIlpTag, UnrollTag, VectorizeTag
from loopy.kernel.instruction import CInstruction, MultiAssignmentBase
from loopy.schedule import Barrier, EnterLoop, LeaveLoop, RunInstruction
from loopy.statistics import count_inames_domain
from loopy.symbolic import get_dependencies

from workbench.properties.symbolic import (
    Expression,
    pwqpolynomial_to_expr,
    set_to_condition,
)


@dataclass(frozen=True)
class Grid:
    """The launch grid: each hardware iname's axis (``("l", 0)`` is local axis 0) and
    each axis's extent (work items per group along a local axis, groups along a
    group axis), as an expression and as loopy's ISL bound."""

    axis_of: Mapping[str, tuple[str, int]]
    extents: Mapping[tuple[str, int], Expression]
    bounds: Mapping[tuple[str, int], isl.PwAff]

    def product(self, axes) -> Expression:
        out: Expression = 1
        for axis in sorted(axes):
            out = out * self.extents[axis]
        return out


@dataclass(frozen=True)
class Occurrence:
    """A loop or an ``if`` statement: its work-item executions, and the parameter
    values for which code generation emits it (None: always), under the kernel's
    assumptions."""

    executions: Expression
    where: isl.Set | None

    def term(self, fixed: frozenset[str]) -> Expression:
        """Its executions where the generated code has it, knowing the parameters
        ``fixed``: emitted if it may be needed for some values of the others."""
        if self.where is None:
            return self.executions
        known = self.where.project_out_except(sorted(fixed), [isl.dim_type.param])
        if known.is_empty():
            return 0
        if known.plain_is_universe():
            return self.executions
        return prim.If(set_to_condition(known), self.executions, 0)


@dataclass(frozen=True)
class ControlCounts:
    """Totals over the grid, in work-item executions (see the module docstring);
    which loops and guards the code has depends on the parameters ``fixed`` in it."""

    barriers: Expression
    loops: tuple[Occurrence, ...]
    guards: tuple[Occurrence, ...]

    def loop_bodies(self, fixed: frozenset[str] = frozenset()) -> Expression:
        return _total([loop.term(fixed) for loop in self.loops])

    def conditionals(self, fixed: frozenset[str] = frozenset()) -> Expression:
        return _total([guard.term(fixed) for guard in self.guards])


@dataclass
class _Loop:
    iname: str
    body: list = field(default_factory=list)


@dataclass(frozen=True)
class _Run:
    insn_id: str


class _Barrier:
    pass


@dataclass(frozen=True, eq=False)
class _Guard:
    """What an instruction is tested for: its lanes and groups (a set of parameter
    values and hardware inames) and its predicates."""

    lanes: isl.Set
    hw_inames: frozenset[str]
    predicates: frozenset
    blockers: frozenset[str]          # sequential inames the predicates read
    excludes: isl.Set | None          # where it leaves a lane out; None: predicates

    def same(self, other) -> bool:
        # loopy compares conditions on inames: the same lanes reached through other
        # inames of the same axis make a second ``if``
        return isinstance(other, _Guard) and self.hw_inames == other.hw_inames \
            and self.predicates == other.predicates and self.lanes.is_equal(other.lanes)


_MIXED = object()   # a node no single guard can be hoisted over


def _tree(linearization) -> list:
    root: list = []
    stack = [root]
    for item in linearization:
        if isinstance(item, EnterLoop):
            loop = _Loop(item.iname)
            stack[-1].append(loop)
            stack.append(loop.body)
        elif isinstance(item, LeaveLoop):
            stack.pop()
        elif isinstance(item, RunInstruction):
            stack[-1].append(_Run(item.insn_id))
        elif isinstance(item, Barrier) and item.synchronization_kind == "local":
            stack[-1].append(_Barrier())
    return root


class _Counter:
    def __init__(self, knl, grid: Grid):
        self.knl = knl
        self.grid = grid
        self.guards: dict[str, _Guard] = {}
        self._executions: dict = {}
        self.params = sorted(knl.all_params())
        # guards are compared as sets of parameter values and hardware inames
        self.space = isl.Space.create_from_names(
            knl.isl_context, set=[], params=[*self.params, *sorted(grid.axis_of)]).params()
        self.assumptions = knl.assumptions.to_set().align_params(self.space)
        self.barriers: list[Expression] = []
        self.guard_counts: list[Occurrence] = []
        self.loops: list[Occurrence] = []

    def guard(self, insn_id: str) -> _Guard | None:
        if insn_id not in self.guards:
            insn = self.knl.id_to_insn[insn_id]
            if not isinstance(insn, (MultiAssignmentBase, CInstruction)):
                self.guards[insn_id] = None   # no-ops generate no code
            else:
                self.guards[insn_id] = self._make_guard(insn)
        return self.guards[insn_id]

    def _make_guard(self, insn) -> _Guard:
        knl, axis_of = self.knl, self.grid.axis_of
        inames = frozenset(knl.insn_inames(insn))
        hw = sorted(i for i in inames if i in axis_of)
        lanes = knl.get_inames_domain(inames).project_out_except(hw, [isl.dim_type.set])
        if isinstance(lanes, isl.BasicSet):
            lanes = lanes.to_set()
        key = lanes.move_dims(isl.dim_type.param, lanes.dim(isl.dim_type.param),
                              isl.dim_type.set, 0, len(hw)).params()
        key = key.align_params(self.space)
        box = isl.Set.universe(self.space)
        for name in hw:
            lane = isl.PwAff.read_from_str(knl.isl_context, f"[{name}] -> {{ [({name})] }}"
                                           ).align_params(self.space)
            extent = self.grid.bounds[axis_of[name]].align_params(self.space)
            box = box & lane.nonneg_set() & extent.gt_set(lane)
        excludes = ((box - key) & self.assumptions).project_out_except(
            self.params, [isl.dim_type.param])
        predicates = frozenset(insn.predicates)
        sequential = knl.all_inames() - set(axis_of)
        blockers = frozenset(d for p in predicates for d in get_dependencies(p)
                             if d in sequential)
        return _Guard(key, frozenset(hw), predicates, blockers,
                      None if predicates else excludes)

    def node_guard(self, node):
        if isinstance(node, _Run):
            return self.guard(node.insn_id)
        if isinstance(node, _Barrier):
            return _MIXED
        guards = [g for g in (self.node_guard(n) for n in node.body) if g is not None]
        if not guards or guards[0] is _MIXED:
            return _MIXED
        first = guards[0]
        if any(not first.same(g) for g in guards[1:]) or node.iname in first.blockers:
            return _MIXED
        return first

    def executions(self, loops: tuple[str, ...], context: _Guard | None) -> Expression:
        """Work-item executions of a point nested in ``loops`` under ``context``."""
        hw = context.hw_inames if context is not None else frozenset()
        key = (frozenset(loops), hw)
        if key not in self._executions:
            count = pwqpolynomial_to_expr(
                count_inames_domain(self.knl, frozenset(loops) | hw).pwqpolynomial)
            covered = {self.grid.axis_of[i] for i in hw}
            self._executions[key] = count * self.grid.product(
                a for a in self.grid.extents if a not in covered)
        return self._executions[key]

    def loop_where(self, iname: str) -> isl.Set | None:
        """The parameter values for which ``iname`` may take two values, so that loopy
        emits a loop (None: never a loop, unrolled or vectorized)."""
        if self.knl.iname_tags_of_type(iname, (UnrollTag, UnrolledIlpTag, VectorizeTag)):
            return None
        size = self.knl.get_iname_bounds(iname, constants_only=False).size
        one = isl.PwAff.read_from_str(self.knl.isl_context, "{ [(1)] }")
        size, one = isl.align_two(size, one)
        return (size.gt_set(one).params() & self.assumptions).project_out_except(
            self.params, [isl.dim_type.param])

    def walk(self, nodes: list, loops: tuple[str, ...], context: _Guard | None) -> None:
        i = 0
        while i < len(nodes):
            guard = self.node_guard(nodes[i])
            j = i + 1
            if isinstance(guard, _Guard):
                while j < len(nodes) and guard.same(self.node_guard(nodes[j])):
                    j += 1
            inner = context
            if isinstance(guard, _Guard) and not guard.same(context):
                if guard.excludes is None or not guard.excludes.is_empty():
                    self.guard_counts.append(Occurrence(self.executions(loops, context),
                                                        guard.excludes))
                inner = guard
            for node in nodes[i:j]:
                self.visit(node, loops, inner)
            i = j

    def visit(self, node, loops: tuple[str, ...], context: _Guard | None) -> None:
        if isinstance(node, _Barrier):
            self.barriers.append(self.executions(loops, None))
        elif isinstance(node, _Loop):
            where = self.loop_where(node.iname)
            inside = (*loops, node.iname)
            if where is not None and not where.is_empty():
                self.loops.append(Occurrence(self.executions(inside, context), where))
            self.walk(node.body, inside, context)


def _total(terms: list[Expression]) -> Expression:
    return prim.Sum(tuple(terms)) if len(terms) > 1 else (terms[0] if terms else 0)


def control_counts(linearized_knl, grid: Grid) -> ControlCounts:
    """The control-flow totals of a linearized loopy kernel (module docstring)."""
    counter = _Counter(linearized_knl, grid)
    counter.walk(_tree(linearized_knl.linearization), (), None)
    return ControlCounts(_total(counter.barriers), tuple(counter.loops),
                         tuple(counter.guard_counts))
