"""Private arrays on the stack and exponential/logarithm calls, counted from a kernel's
code (the counts behind ``f_stack_sectors`` and ``f_op_<dtype>_explog`` of
:mod:`workbench.models.reuse_stack_features`, and the ``STACK`` caveat of
:mod:`workbench.models.parallelism`).

A private array indexed by a loaded value (a key, a pointer) cannot be kept in
registers, which are not indexable: every access to it, its zeroing and its final
reads included, is a local-memory (stack) load or store.  loopy counts every function
as one ``special`` operation; an exponential or a logarithm is counted apart here.
"""

from __future__ import annotations

import functools

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.properties.symbolic import count_at

#: functions priced as exponentials or logarithms
EXPLOG_FUNCTIONS = frozenset({"exp", "log", "expm1", "log1p", "exp2", "log2", "log10"})
_SUBGROUP = 32


def walk_expression(expr, on_call, on_subscript) -> None:
    """Visit ``expr``'s calls and subscripts, each with the reduction inames around it:
    ``on_call(call, inames)`` for every call (then its parameters are visited),
    ``on_subscript(subscript, inames)`` for every subscript (then its index), ``inames``
    the frozenset of the inames of the reductions that enclose it.  Shared by the
    feature modules that read a kernel's instructions (:mod:`.held_rereads`,
    :mod:`.function_calls`, :mod:`.row_walk_features`, ...)."""
    from loopy.symbolic import WalkMapper

    class Visit(WalkMapper):
        def map_reduction(self, expr, inames=frozenset(), *args):
            self.rec(expr.expr, inames | frozenset(expr.inames))

        def map_call(self, expr, inames=frozenset(), *args):
            on_call(expr, inames)
            for p in expr.parameters:
                self.rec(p, inames)

        def map_subscript(self, expr, inames=frozenset(), *args):
            on_subscript(expr, inames)
            self.rec(expr.index, inames)

    Visit()(expr, frozenset())


def _data_dependent(index, inames: set[str], params: set[str]) -> bool:
    """Whether an index reads a value that is not an iname or a size (a loaded key)."""
    from pymbolic.mapper.dependency import DependencyMapper

    deps = DependencyMapper(include_subscripts=True, composite_leaves=False)(index)
    for dep in deps:
        name = getattr(dep, "name", None)
        if name is None or name not in inames | params:
            return True
    return False


@functools.lru_cache(maxsize=512)
def _counts(spec, request):
    """(stack accesses per launch by item size, exp/log calls per launch), polynomials
    at work-item granularity."""
    import loopy as lp
    from loopy.statistics import count_inames_domain

    from workbench.kernels.base import entry_kernel

    knl = entry_kernel(spec.build(request))
    inames = set(knl.all_inames())
    params = {a.name for a in knl.args if isinstance(a, lp.ValueArg)}
    private = {n: tv for n, tv in knl.temporary_variables.items()
               if tv.address_space == lp.AddressSpace.PRIVATE and tv.shape}
    on_stack: set[str] = set()
    for insn in knl.instructions:
        def note(sub, _red):
            name = getattr(sub.aggregate, "name", None)
            if name in private and _data_dependent(sub.index, inames, params):
                on_stack.add(name)
        for expr in (getattr(insn, "expression", None), *insn.assignees):
            if expr is not None:
                walk_expression(expr, lambda *_: None, note)
    stack, explog = [], []
    for insn in knl.instructions:
        found: list[tuple[str, frozenset]] = []

        def on_sub(sub, red):
            name = getattr(sub.aggregate, "name", None)
            if name in on_stack:
                found.append(("stack:" + name, red))

        def on_call(call, red):
            if getattr(call.function, "name", None) in EXPLOG_FUNCTIONS:
                found.append(("explog", red))
        for expr in (getattr(insn, "expression", None), *insn.assignees):
            if expr is not None:
                walk_expression(expr, on_call, on_sub)
        for what, red in found:
            count = count_inames_domain(knl, frozenset(insn.within_inames) | red)
            if what == "explog":
                explog.append(count)
            else:
                stack.append((count, item_size(private[what[len("stack:"):]], request)))
    return tuple(stack), tuple(explog)


def item_size(temporary, request) -> int:
    """Bytes of one element of an array of the kernel (a private temporary or a
    global argument); one left for loopy to type (no dtype yet in the kernel as
    written) is taken at the precision of ``request``, the build."""
    import loopy as lp

    dtype = temporary.dtype
    if dtype is None or dtype is lp.auto:
        return np.dtype(request.dtype.numpy).itemsize
    return np.dtype(dtype.numpy_dtype).itemsize


def stack_and_explog(candidate: Candidate) -> tuple[float, float]:
    """(stack sectors, exp/log calls) of ``candidate``, per sub-group of 32."""
    stack, explog = _counts(candidate.spec, candidate.request())
    params = candidate.params_dict
    sectors = sum(count_at(c, params) * size for c, size in stack) / _SUBGROUP
    calls = sum(count_at(c, params) for c in explog) / _SUBGROUP
    return sectors, calls
