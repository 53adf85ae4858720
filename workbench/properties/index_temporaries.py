"""Global indices computed in private temporaries, seen through for their strides.

loopy reads an access's work-item strides off the inames its index names.  An index held
in a private temporary computed from the work-item index (``img[sr, sc]`` with ``sr`` the
row reflected or clamped at the border by comparisons, an im2col's shifted and clamped row)
names none, so loopy takes the access as uniform over the sub-group: one sector a warp,
from cache, and no DRAM traffic, for what is a plain 2-D copy's read.  Here such a
temporary (assigned once, from inames, integer parameters and other such temporaries) is
replaced in the global indices by its definition, and each comparison in it (and an
``if`` that chooses by one) by the value it takes at the middle of the domain with every
parameter large.  A border test (``k < 0``, ``a > n - 1``, ``i >= 1``) changes at
a few rows or columns only; everywhere else the index is the affine expression the device
reads at a plain copy's rate (an H100 2-D copy probe: clamped, reflected and shifted
indices at 0.93-0.99 of a plain copy's bandwidth, ``sample_data/h100/copy2d-probe.txt.xz``).

A temporary read from an array (a gather's ``k = idx[i]``), assigned more than once (a
running value) or inside a sequential loop, or depending on one that is, is left alone: loopy's reading of it does not
change.
"""

from __future__ import annotations

from collections.abc import Callable

import loopy as lp
import pymbolic.primitives as prim
from loopy.kernel.data import GroupInameTag, LocalInameTag
from loopy.symbolic import IdentityMapper, get_dependencies

#: the value every size parameter takes where a comparison is evaluated
LARGE = 1 << 20


def _middle(knl) -> dict[str, int] | None:
    """Every iname at the middle of its bounds and every parameter at :data:`LARGE`, or
    None where a bound cannot be evaluated there (assumptions that exclude the point)."""
    import islpy as isl

    env: dict[str, int] = {}
    try:
        for iname in knl.all_inames():
            bounds = knl.get_iname_bounds(iname)
            ends = []
            for bound in (bounds.lower_bound_pw_aff, bounds.upper_bound_pw_aff):
                space = bound.get_domain_space()
                point = isl.Point.zero(space)
                for k in range(space.dim(isl.dim_type.param)):
                    env.setdefault(space.get_dim_name(isl.dim_type.param, k), LARGE)
                    point = point.set_coordinate_val(isl.dim_type.param, k, LARGE)
                value = bound.eval(point)
                if value.is_nan():
                    return None
                ends.append(int(value.to_python()))
            env[iname] = (ends[0] + ends[1]) // 2
    except (isl.Error, lp.LoopyError, ValueError, TypeError):
        return None
    for arg in knl.args:
        if isinstance(arg, lp.ValueArg):
            env.setdefault(arg.name, LARGE)
    return env


class _AtMiddle(IdentityMapper):
    """Substitutes the resolvable temporaries and evaluates the comparisons (and the
    ``if`` that chooses by one) at the middle point."""

    def __init__(self, definitions: dict, env: dict):
        super().__init__()
        self.definitions = definitions
        self.env = env

    def map_variable(self, expr, *args, **kwargs):
        definition = self.definitions.get(expr.name)
        return expr if definition is None else self.rec(definition)

    def _truth(self, expr) -> bool:
        from pymbolic import evaluate

        if isinstance(expr, prim.LogicalNot):
            return not self._truth(expr.child)
        if isinstance(expr, prim.LogicalAnd):
            return all(self._truth(c) for c in expr.children)
        if isinstance(expr, prim.LogicalOr):
            return any(self._truth(c) for c in expr.children)
        if isinstance(expr, prim.Comparison):
            expr = prim.Comparison(self.rec(expr.left), expr.operator, self.rec(expr.right))
            return bool(evaluate(expr, self.env))
        return bool(evaluate(self.rec(expr), self.env))

    def _logic(self, expr, *args, **kwargs):
        return int(self._truth(expr))

    map_comparison = _logic
    map_logical_and = _logic
    map_logical_or = _logic
    map_logical_not = _logic

    def map_if(self, expr, *args, **kwargs):
        return self.rec(expr.then if self._truth(expr.condition) else expr.else_)


class _InGlobalIndices(IdentityMapper):
    """Applies ``resolve`` to the indices of global arrays' subscripts alone."""

    def __init__(self, arrays: frozenset, resolve: Callable):
        super().__init__()
        self.arrays = arrays
        self.resolve = resolve

    def map_subscript(self, expr, *args, **kwargs):
        if getattr(expr.aggregate, "name", None) in self.arrays:
            return type(expr)(expr.aggregate, self.resolve(self.rec(expr.index)))
        return super().map_subscript(expr, *args, **kwargs)


def index_resolver(knl) -> Callable | None:
    """A function that rewrites an expression's global indices through the kernel's
    resolvable temporaries (see the module), or None where the kernel has none that a
    global index reads (loopy's reading then stands as it is)."""
    arrays = frozenset(a.name for a in knl.args
                       if getattr(a, "address_space", None) == lp.AddressSpace.GLOBAL)
    private = {name for name, t in knl.temporary_variables.items()
               if t.address_space in (lp.AddressSpace.PRIVATE, lp.auto)}
    writers: dict[str, list] = {}
    for insn in knl.instructions:
        for name in insn.assignee_var_names():
            writers.setdefault(name, []).append(insn)
    # assigned once per work item, outside any sequential loop: the value a work item's
    # later instruction reads is the definition's at that work item's index
    parallel = {name for name in knl.all_inames()
                if knl.iname_tags_of_type(name, (LocalInameTag, GroupInameTag))}
    candidates = {name: w[0].expression for name, w in writers.items()
                  if name in private and len(w) == 1 and isinstance(w[0], lp.Assignment)
                  and isinstance(w[0].assignee, prim.Variable)
                  and w[0].within_inames <= parallel}
    scalars = {a.name for a in knl.args if isinstance(a, lp.ValueArg)}
    known = set(knl.all_inames()) | scalars
    definitions: dict = {}
    changed = True
    while changed:   # a temporary resolves once every name it reads does
        changed = False
        for name, expr in candidates.items():
            if name not in definitions and get_dependencies(expr) <= known | set(definitions):
                definitions[name] = expr
                changed = True
    read_in_indices = set()
    for insn in knl.instructions:
        if not isinstance(insn, lp.MultiAssignmentBase):
            continue
        for expr in (insn.expression, *insn.assignees):
            for sub in _subscripts(expr, arrays):
                read_in_indices |= get_dependencies(sub.index)
    if not read_in_indices & set(definitions):
        return None
    env = _middle(knl)
    if env is None:
        return None
    at_middle = _AtMiddle(definitions, env)

    def resolve(index):
        try:
            return at_middle(index)
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            return index   # a comparison the point cannot decide: loopy's reading
    return _InGlobalIndices(arrays, resolve)


def _subscripts(expr, arrays: frozenset) -> list:
    from loopy.symbolic import WalkMapper

    found: list = []

    class _Walk(WalkMapper):
        def visit(self, e, *args, **kwargs):
            if isinstance(e, prim.Subscript) and getattr(e.aggregate, "name", None) in arrays:
                found.append(e)
            return True

    _Walk()(expr)
    return found
