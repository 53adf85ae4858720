"""Per-instruction counting on top of loopy's expression counters.

loopy's ``get_op_map`` counts arithmetic per sub-group, projecting away the local
axes: a loop whose trip count depends on the work item (a triangular domain) is then
charged its longest trip for every lane.  That is the 2019 paper's sub-group view; the
2018 unified model wants exact work-item totals.  Here each instruction's operations
are multiplied by the instruction's run count at the granularity the workbench asks
for, so both views come from the same counters.

loopy counts a sub-group instruction as its runs with the local axes projected out
times ``ceil(group size / sub-group size)``, and refuses a symbolic group size (a
tuning template's ``L0*L1``).  Here that factor is kept as an expression beside the
count, so a template is counted once per structure at sub-group granularity too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import islpy as isl
import loopy as lp
import pymbolic.primitives as prim
from loopy.kernel.instruction import Assignment, CallInstruction
from loopy.statistics import (
    CountGranularity,
    ExpressionOpCounter,
    GlobalMemAccessCounter,
    LocalMemAccessCounter,
    Op,
    ToCountMap,
    _get_insn_count,
    get_kernel_zero_pwqpolynomial,
)

from loopy.symbolic import LinearSubscript

from workbench.errors import BarvinokMissingError
from workbench.kernels.base import entry_kernel
from workbench.properties.features import Granularity
from workbench.properties.kernel_memo import grid_callables, index_resolver_of
from workbench.properties.predicates import guarded_runs, with_parameters_of

#: The islpy build with barvinok that matches pyproject.toml's islpy pin; pip puts the
#: plain islpy (loopy's dependency) in place, and this one must be installed over it.
ISLPY_BARVINOK = "islpy-barvinok==2025.2.5.post1"


def require_barvinok() -> None:
    """Refuse to count without barvinok: loopy would then estimate the points of a
    non-rectangular loop nest (a triangular one is over-counted) and a footprint,
    ``Set.card()``, cannot be counted at all.  The counts are exact or not given."""
    if not hasattr(isl.Set, "card"):
        raise BarvinokMissingError(
            "exact counts need islpy built with barvinok, and this islpy is the plain "
            f"build: pip install --no-deps --force-reinstall {ISLPY_BARVINOK}")


def prepare(kernel: lp.TranslationUnit) -> lp.TranslationUnit:
    """Preprocess and type-infer once; every counter below works on the result.

    Preprocessed for counting (:mod:`workbench.properties.prepare`: loopy's passes
    less those only code generation reads, on a one-kernel program) and not through
    loopy's disk memo of preprocessing: keying it hashes the whole kernel and storing
    pickles it, a good part of preprocessing's own time, for a factory point that is
    counted once and whose counts are cached anyway."""
    from loopy.type_inference import infer_unknown_types

    from workbench.properties.prepare import preprocess_for_counting

    return infer_unknown_types(preprocess_for_counting(kernel), expect_completion=True)


def local_barriers(program: lp.TranslationUnit):
    """The local barriers one work item meets in a program from :func:`prepare`, as
    loopy's ``get_synchronization_map`` counts them (its ``barrier_local``), or 0.

    That function preprocesses and type-infers its argument again and linearizes
    through loopy's disk cache of schedules (a hash and a pickle of the kernel):
    here the prepared kernel is linearized once, and not at all where loopy inserts
    no local barrier: it puts one only where a local temporary carries a dependency
    or where a barrier instruction stands (``loopy.schedule.insert_barriers``,
    ``convert_barrier_instructions_to_barriers``).  Such a kernel is therefore
    counted even where loopy could not schedule it (no code could be generated for
    it either; it fails when measured, as a point a structure's fit covers does)."""
    from loopy.kernel.instruction import BarrierInstruction
    from loopy.schedule import (
        Barrier,
        EnterLoop,
        LeaveLoop,
        MinRecursionLimitForScheduling,
        _get_one_linearized_kernel_inner,
    )
    from loopy.statistics import count_inames_domain

    knl = entry_kernel(program)
    if not knl.local_var_names() and not any(
            isinstance(insn, BarrierInstruction) and insn.synchronization_kind == "local"
            for insn in knl.instructions):
        return 0
    with MinRecursionLimitForScheduling(knl):
        linearized = _get_one_linearized_kernel_inner(knl, program.callables_table)
    total = None
    inames: list[str] = []
    for item in linearized.linearization:
        if isinstance(item, EnterLoop) and item.iname:
            inames.append(item.iname)
        elif isinstance(item, LeaveLoop) and item.iname:
            inames.pop()
        elif isinstance(item, Barrier) and item.synchronization_kind == "local":
            count = count_inames_domain(linearized, frozenset(inames))
            total = count if total is None else total + count
    return 0 if total is None else total


class ScaledCount:
    """A count as a sum of quasi-polynomials, each times an expression factor."""

    def __init__(self):
        self.parts: list[tuple[object, object]] = []   # (loopy's count, factor)

    def add(self, count, factor) -> None:
        self.parts.append((count, factor))

    def expression(self):
        from workbench.properties.symbolic import pwqpolynomial_to_expr

        total = 0
        for count, factor in self.parts:
            term = pwqpolynomial_to_expr(count.pwqpolynomial)
            total = total + (term if factor == 1 else term * factor)
        return total

    def eval_with_dict(self, values) -> int:
        """The count at one parameter set (isl's own evaluation, for checks)."""
        from pymbolic import evaluate

        return sum(count.eval_with_dict(values) * (1 if factor == 1 else
                                                    evaluate(factor, values))
                   for count, factor in self.parts)


def _symbolic_subgroups(knl, callables, subgroup_size: int | None):
    """``ceil(group size / sub-group size)`` as an expression, when the group size is
    symbolic; None when it is a number (loopy then counts the sub-groups itself)."""
    import numpy as np

    _, sizes = knl.get_grid_size_upper_bounds_as_exprs(callables)
    if not sizes or all(isinstance(s, (int, np.integer)) for s in sizes) \
            or not subgroup_size:
        return None
    group = sizes[0]
    for size in sizes[1:]:
        group = group * size
    return prim.FloorDiv(group + (subgroup_size - 1), subgroup_size)


def _unguarded_runs(knl, callables, insn, level, subgroup_size: int | None,
                    runs_of: dict):
    """loopy's run count of an instruction without a condition (``_get_insn_count``,
    with redundant work), shared by the instructions of the same loop nest.

    loopy's count reads an instruction through its ``within_inames`` alone (the
    domain of those inames, and the hardware axes their tags leave unused), so
    instructions nested in the same loops have the same count; loopy counts it
    anew for each, and its unused-axes factor builds the kernel's parameter space,
    zero polynomial and grid sizes each time, more than the domain's barvinok count
    on most kernels.  Kept under the key ``(inames, level)`` beside the per-
    instruction keys of ``runs_of``."""
    nest = (insn.within_inames, level)
    runs = runs_of.get(nest)
    if runs is None:
        runs = _get_insn_count(knl, callables, insn.id, subgroup_size, True, level)
        runs_of[nest] = runs
    return runs


def _count(program, per_insn: Callable, granularity: Granularity, subgroup_size: int | None,
           runs_of: dict | None = None):
    knl = entry_kernel(program)
    # an instruction's run count is the same for every key it counts, and for the
    # operation and the access counters alike: one barvinok count each
    runs_of = {} if runs_of is None else runs_of
    callables = program.callables_table
    # the grid sizes' callables: the same sizes without loopy hashing the whole kernel
    grid = grid_callables(program)
    result: dict = {}
    subgroups = (_symbolic_subgroups(knl, grid, subgroup_size)
                 if granularity is Granularity.SUBGROUP else None)
    zero = get_kernel_zero_pwqpolynomial(knl)
    for insn in knl.instructions:
        if not isinstance(insn, (Assignment, CallInstruction)):
            continue
        for key, val in per_insn(knl, callables, insn).count_map.items():
            level = key.count_granularity
            if granularity is Granularity.WORKITEM:
                level = CountGranularity.WORKITEM
            factor = 1
            if subgroups is not None and level == CountGranularity.SUBGROUP:
                level, factor = CountGranularity.WORKGROUP, subgroups
            runs = runs_of.get((insn.id, level))
            if runs is None:
                # an instruction under an affine ``if``: its domain cut by the condition
                runs = guarded_runs(knl, grid, insn, level, subgroup_size)
                if runs is None:
                    runs = _unguarded_runs(knl, grid, insn, level, subgroup_size,
                                           runs_of)
                runs_of[insn.id, level] = runs
            # the counters count one run in plain integers (:class:`_PlainCounts`):
            # made a polynomial here, once per key, as loopy's own sum would be
            base = zero if runs.pwqpolynomial.space == zero.space else \
                with_parameters_of(zero, runs.pwqpolynomial.space)  # a size only an if reads
            term = (ToCountMap({key: base + val}) * runs).count_map[key]
            result.setdefault(key, ScaledCount()).add(term, factor)
    return result


_TYPES = threading.local()


def _shared_types(knl, callables):
    """The type reader of ``knl`` (a kernel from :func:`prepare`), made once for the
    operation and access counters of one program: a type in it depends on the kernel
    and its callables alone (loopy's ``TypeReader`` with no assignments of its own), so
    every counter of the same kernel may read it.  Held per thread, for the last
    kernel only."""
    from loopy.type_inference import TypeReader

    held = getattr(_TYPES, "held", None)
    if held is None or held[0] is not knl or held[1] is not callables:
        held = _TYPES.held = (knl, callables, TypeReader(knl, callables))
    return held[2]


class _PlainCounts:
    """A loopy counter that counts one run of an instruction in plain integers.

    loopy's counters make every operation and access of an expression an ISL
    polynomial (constant: one run's count) and add them node by node, each sum an ISL
    operation and a check of the parameter spaces: most of the counters' time on a
    kernel of many index expressions.  One run's counts are integers, so they are
    added as integers; :func:`_count` makes each key's total a polynomial once and
    multiplies it by the instruction's runs, as loopy does."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.zero, self.one = 0, 1
        # one type reader for all the counters of a kernel: each would infer the
        # types of the same subexpressions again (its cache is its own)
        self.type_inf = _shared_types(self.knl, self.callables_table)

    def new_poly_map(self, count_map):
        return ToCountMap(count_map)


class _OpCounter(_PlainCounts, ExpressionOpCounter):
    """loopy's operation counter, which also counts the helper calls of an argmax or
    argmin reduction (loopy 2025 names their callable by its reduction operation, an
    object its counter cannot print): each step is a comparison and a select, counted
    as loopy counts a max or min."""

    def map_call(self, expr):
        name = self.callables_table[expr.function.name].name
        if isinstance(name, str):
            return super().map_call(expr)
        operation = type(getattr(name, "reduction_op", name)).__name__
        kind = "maxmin" if operation.lower().startswith(("argmax", "argmin")) \
            else f"func:{operation}"
        return self.new_poly_map({Op(dtype=self.type_inf(expr), name=kind,
                                     count_granularity=self.arithmetic_count_granularity,
                                     kernel_name=self.knl.name): self.one}
                                 ) + self.rec(expr.parameters)


#: expression nodes that are arithmetic the compiler computes once where an expression
#: repeats them (pure: no loads, no side effects of their own)
_ARITHMETIC = (prim.Sum, prim.Product, prim.Quotient, prim.Power, prim.Call)


def _children(expr) -> list:
    import dataclasses

    if isinstance(expr, tuple):
        return list(expr)
    if not isinstance(expr, prim.ExpressionNode):
        return []
    names = ([f.name for f in dataclasses.fields(expr)] if dataclasses.is_dataclass(expr)
             else expr.init_arg_names)
    out = []
    for name in names:
        value = getattr(expr, name)
        out += list(value) if isinstance(value, tuple) else [value]
    return out


def _repeated_arithmetic(expr) -> list:
    """(subexpression, occurrences beyond the first) of each outermost arithmetic
    subexpression an expression repeats: ``(px - cx[c])*(px - cx[c])`` subtracts once,
    as the compiler computes it (common subexpressions), where loopy counts every
    occurrence.  A reduction's body is not looked into (it runs per reduction trip),
    nor an index (address arithmetic, which the operation features do not price)."""
    from collections import Counter

    from loopy.symbolic import Reduction

    seen: Counter = Counter()

    def tally(e) -> None:
        if isinstance(e, (Reduction, prim.Subscript)):
            return
        if isinstance(e, _ARITHMETIC):
            seen[e] += 1
        for child in _children(e):
            tally(child)
    tally(expr)
    outermost: Counter = Counter()

    def pick(e) -> None:
        if isinstance(e, (Reduction, prim.Subscript)):
            return
        if isinstance(e, _ARITHMETIC) and seen[e] > 1:
            outermost[e] += 1
            return
        for child in _children(e):
            pick(child)
    pick(expr)
    return [(e, n - 1) for e, n in outermost.items() if n > 1]


def _per_kernel(made: dict, knl, make):
    """The counters of one kernel, made once for all its instructions, as loopy's
    ``get_op_map`` and ``get_mem_access_map`` make theirs: a counter holds no state
    of an instruction (its cache is keyed by the expression, and what an access
    counts, its strides and type, is the kernel's), while making one infers types
    afresh and builds the kernel's parameter space and zero polynomial."""
    if made.get("kernel") is not knl:
        made.clear()
        made["kernel"], made["counters"] = knl, make()
    return made["counters"]


def op_counts(program, granularity: Granularity, subgroup_size: int | None,
              runs_of: dict | None = None) -> dict:
    """Operations per key; ``runs_of`` (a dict) shares instructions' run counts with
    :func:`access_counts` of the same program and granularity.  An arithmetic
    subexpression repeated in one instruction is counted once."""
    made: dict = {}

    def per_insn(knl, callables, insn):
        counter = _per_kernel(made, knl, lambda: _OpCounter(knl, callables, None, True))
        counts = counter(insn.assignees) + counter(insn.expression)
        for sub, extra in _repeated_arithmetic(insn.expression):
            counts = counts + _scaled(counter(sub), -extra)
        return counts
    return _count(program, per_insn, granularity, subgroup_size, runs_of)


#: the symbolic stride a data-dependent index gets: every reader takes a stride that is
#: not a number as large (one sector per lane)
NOT_AFFINE = "not_affine"
_STRIDES_LOCK = threading.Lock()
_PATCHED = threading.local()


def _marking_unknown(find_strides):
    from pymbolic.primitives import Variable

    def strides(*args):
        return tuple({axis: Variable(NOT_AFFINE) if s is None else s
                      for axis, s in found.items()} for found in find_strides(*args))
    return strides


class _NotAffineRetry:
    """A loopy access counter that counts data-dependent indices too (``a[k[i]]``):
    loopy 2025 finds their strides not affine but cannot record it (it flattens a
    None), so such an access is counted again with its stride named ``not_affine``.
    An error the retry does not cure is raised, not retried again (no lock is taken
    twice)."""

    def map_subscript(self, expr):
        try:
            return super().map_subscript(expr)
        except ValueError:
            if getattr(_PATCHED, "on", False):
                raise
        import loopy.statistics as statistics

        with _STRIDES_LOCK:
            find = statistics._get_lid_and_gid_strides
            statistics._get_lid_and_gid_strides = _marking_unknown(find)
            _PATCHED.on = True
            try:
                return super().map_subscript(expr)
            finally:
                _PATCHED.on = False
                statistics._get_lid_and_gid_strides = find


class _GlobalAccessCounter(_PlainCounts, _NotAffineRetry, GlobalMemAccessCounter):
    pass


class _LocalAccessCounter(_PlainCounts, _NotAffineRetry, LocalMemAccessCounter):
    pass


class _OwnAccess:
    """A counter of an assignee's own access alone: the arrays read in its index (a
    scatter's ``k`` in ``out[k[i]] = ...``) are loads, counted apart."""

    def rec(self, expr, *args, **kwargs):
        return self.new_zero_poly_map()


class _OwnGlobalAccess(_OwnAccess, _GlobalAccessCounter):
    pass


class _OwnLocalAccess(_OwnAccess, _LocalAccessCounter):
    pass


def _global_subscripts(expr, arrays: frozenset, out: list) -> None:
    """The outermost subscripts of ``arrays`` in ``expr``, every occurrence (no
    mapper: pymbolic's caching mappers visit a repeated subexpression once)."""
    from loopy.symbolic import Reduction

    if isinstance(expr, prim.Subscript):
        if getattr(expr.aggregate, "name", None) in arrays:
            out.append(expr)
            return
        _global_subscripts(expr.index, arrays, out)
    elif isinstance(expr, Reduction):
        _global_subscripts(expr.expr, arrays, out)
    elif isinstance(expr, tuple):
        for part in expr:
            _global_subscripts(part, arrays, out)
    elif isinstance(expr, prim.ExpressionNode):
        import dataclasses

        names = ([f.name for f in dataclasses.fields(expr)] if dataclasses.is_dataclass(expr)
                 else expr.init_arg_names)
        for name in names:
            _global_subscripts(getattr(expr, name), arrays, out)


def _repeated_global_loads(knl, expr) -> list:
    """(subscript, occurrences beyond the first) of each global element an expression
    reads more than once: ``(px - cx[c])*(px - cx[c])`` reads ``cx[c]`` once, as the
    compiler loads it, where loopy counts every occurrence."""
    from collections import Counter

    arrays = frozenset(a.name for a in knl.args
                       if getattr(a, "address_space", None) == lp.AddressSpace.GLOBAL)
    found: list = []
    _global_subscripts(expr, arrays, found)
    return [(sub, n - 1) for sub, n in Counter(found).items() if n > 1]


def _scaled(counts, factor: int):
    """A count map times an integer (loopy multiplies only by a polynomial)."""
    from loopy.statistics import GuardedPwQPolynomial

    def scale(value):
        if isinstance(value, GuardedPwQPolynomial):
            return GuardedPwQPolynomial(
                value.pwqpolynomial.scale_val(isl.Val.int_from_si(
                    value.pwqpolynomial.get_ctx(), factor)), value.valid_domain)
        if isinstance(value, isl.PwQPolynomial):
            return value.scale_val(isl.Val.int_from_si(value.get_ctx(), factor))
        return value * factor
    return counts.copy({key: scale(v) for key, v in counts.count_map.items()})


def access_counts(program, granularity: Granularity, subgroup_size: int | None,
                  runs_of: dict | None = None) -> dict:
    made: dict = {}

    def per_insn(knl, callables, insn):
        g, loc, own_g, own_loc, resolve = _per_kernel(made, knl, lambda: (*(
            counter(knl, callables, None) for counter in (
                _GlobalAccessCounter, _LocalAccessCounter, _OwnGlobalAccess,
                _OwnLocalAccess)), index_resolver_of(knl) or (lambda e: e)))
        # a global index held in a private temporary, seen through (index_temporaries)
        expression = resolve(insn.expression)
        assignees = [resolve(a) for a in insn.assignees]
        reads = [expression, *(a.index for a in assignees
                               if isinstance(a, (prim.Subscript, LinearSubscript)))]
        counts = sum((g(e) + loc(e) for e in reads[1:]), g(reads[0]) + loc(reads[0]))
        for sub, extra in _repeated_global_loads(knl, expression):
            counts = counts + _scaled(g(sub), -extra)
        counts = counts.with_set_attributes(direction="load")
        for assignee in assignees:
            counts = counts + (own_g(assignee) + own_loc(assignee)).with_set_attributes(
                direction="store")
        return counts
    return _count(program, per_insn, granularity, subgroup_size, runs_of)
