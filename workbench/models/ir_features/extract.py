"""Table 1's features of a loopy kernel, symbolically, before any code generation.

``symbolic_ir_features(program)`` reads the kernel once: the launch grid, the local
temporaries, every global and local subscript with its per-instruction execution
count (loopy's counters, exact barvinok quasi-polynomials) and its lane strides, and
the loops, barriers and guards of loopy's linearization
(:mod:`workbench.models.ir_features.control`).  Everything stays symbolic in the
kernel's integer parameters, so one extraction serves every size, and every point
of a tuning-space template (:mod:`workbench.models.ir_features.space`); evaluating
it is vectorized numpy.  ``ir_features(program, params)`` is the one-point view.

Counts follow the paper: memory accesses are the subscripts of global and local
arrays (loads on right-hand sides, stores as assignees) per execution, divided by
the grid's work items; private variables are registers and not counted.  A vector
load or store (an instruction over a ``vec`` iname) is one access, as in the code
the kernel becomes, not one per lane as loopy counts it.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace

import islpy as isl
import loopy as lp
import numpy as np
import pymbolic.primitives as prim
from loopy.diagnostic import LoopyError
from loopy.kernel.data import GroupInameTag, LocalInameTag, VectorizeTag
from loopy.kernel.instruction import MultiAssignmentBase
from loopy.statistics import GlobalMemAccessCounter, LocalMemAccessCounter
from loopy.symbolic import pw_aff_to_expr
from pymbolic.mapper.dependency import DependencyMapper

from workbench.errors import ParameterError, UnknownNameError, UnsupportedKernelError
from workbench.kernels.base import entry_kernel
from workbench.models.ir_features.control import (
    ControlCounts,
    Grid,
    Occurrence,
    control_counts,
)
from workbench.models.ir_features.features import FEATURE_ORDER, IRFeature, IRFeatureVector
from workbench.models.ir_features.warps import WarpAccess, average_lines, warp_lines
from workbench.properties.counting import prepare, require_barvinok
from workbench.properties.features import Direction
from workbench.properties.predicates import insn_runs
from workbench.properties.symbolic import (
    Assumptions,
    Expression,
    evaluate_many,
    intern_expression,
    pwqpolynomial_to_expr,
    set_to_condition,
)

AXES = 3   # OpenCL's grid dimensions; an axis a kernel does not use has extent 1


@dataclass(frozen=True)
class SymbolicIRFeatures:
    """A kernel's Table 1 features as expressions in its integer parameters.

    Memory and control-flow counts are totals over the grid; :meth:`evaluate`
    divides them by the grid's work items.  ``approximations`` says, in words, where
    a value is an estimate rather than exact.
    """

    kernel_name: str
    parameters: tuple[str, ...]         # the values evaluate needs
    accepted: frozenset[str]            # every integer argument of the kernel
    global_sizes: tuple[Expression, ...]
    local_sizes: tuple[Expression, ...]
    local_memory_bytes: Expression
    accesses: Mapping[tuple[str, Direction], Expression]   # (mtype, direction) -> total
    warp_accesses: tuple[WarpAccess, ...]
    control: ControlCounts
    assumptions: Assumptions
    approximations: tuple[str, ...] = ()
    _control: dict = field(default_factory=dict, compare=False, repr=False)

    def _given(self, params: Mapping[str, object]) -> dict[str, object]:
        unknown = sorted(set(params) - self.accepted)
        if unknown:
            raise UnknownNameError(f"parameter of {self.kernel_name!r}", unknown[0],
                                   self.accepted)
        missing = [p for p in self.parameters if p not in params]
        if missing:
            raise ParameterError(f"kernel {self.kernel_name!r} needs a value for "
                                 f"parameter(s) {', '.join(missing)}")
        return {p: params[p] for p in self.parameters}

    def _fixed(self, fixed: bool | Collection[str]) -> frozenset[str]:
        if fixed is True or fixed is False:
            return frozenset(self.parameters) if fixed else frozenset()
        unknown = sorted(set(fixed) - self.accepted)
        if unknown:
            raise UnknownNameError(f"parameter of {self.kernel_name!r}", unknown[0],
                                   self.accepted)
        return frozenset(fixed)

    def _control_totals(self, fixed: frozenset[str]) -> tuple[Expression, Expression]:
        """Loop bodies and ``if`` statements, with ``fixed`` known to code generation."""
        if fixed not in self._control:
            shared: dict = {}
            self._control[fixed] = (
                intern_expression(self.control.loop_bodies(fixed), shared),
                intern_expression(self.control.conditionals(fixed), shared))
        return self._control[fixed]

    def _expressions(self, fixed: frozenset[str] = frozenset()) -> dict[object, Expression]:
        exprs: dict[object, Expression] = {}
        for k in range(AXES):
            exprs["global", k] = self.global_sizes[k]
            exprs["local", k] = self.local_sizes[k]
        exprs["local_memory"] = self.local_memory_bytes
        for key, total in self.accesses.items():
            exprs[key] = total
        exprs["barriers"] = self.control.barriers
        exprs["loop_bodies"], exprs["conditionals"] = self._control_totals(fixed)
        for i, acc in enumerate(self.warp_accesses):
            exprs["count", i] = acc.count
            for k in range(AXES):
                exprs["active", i, k] = acc.active[k]
                if acc.lane_strides[k] is not None:
                    exprs["stride", i, k] = acc.lane_strides[k]
        return exprs

    def evaluate(self, params: Mapping[str, object], *,
                 fixed: bool | Collection[str] = False) -> dict[IRFeature, np.ndarray]:
        """Every feature for one parameter set (scalars) or many (equal-length arrays
        or scalars), as float64 arrays of that shape.

        ``fixed`` names the parameters whose values the generated code has built in
        (``True``: all), which only decides which loops and guards it has
        (:mod:`workbench.models.ir_features.control`); by default all are run-time
        arguments, as in the program itself.  Unknown or missing parameters and
        violated assumptions raise.
        """
        given = self._given(params)
        fixed = self._fixed(fixed)
        self.assumptions.check(given)
        v = evaluate_many(self._expressions(fixed), given)
        shape = np.broadcast_shapes(*(np.shape(x) for x in v.values()))

        def f(x):
            return np.broadcast_to(np.asarray(x, dtype=np.float64), shape)

        out = {}
        for k in range(AXES):
            out[IRFeature(f"global_size_{k}")] = f(v["global", k])
            out[IRFeature(f"local_size_{k}")] = f(v["local", k])
        items = f(1.0)
        for k in range(AXES):
            items = items * out[IRFeature(f"global_size_{k}")]

        def per_item(total):
            return np.divide(f(total), items, out=np.zeros(shape), where=items > 0)

        out[IRFeature.LOCAL_MEMORY_BYTES] = f(v["local_memory"])
        for (mtype, direction), feature in _ACCESS_FEATURES.items():
            out[feature] = per_item(v.get((mtype, direction), 0))
        out[IRFeature.BARRIERS] = per_item(v["barriers"])
        out[IRFeature.CONDITIONALS] = per_item(v["conditionals"])
        out[IRFeature.LOOP_BODIES] = per_item(v["loop_bodies"])
        group = [v["local", k] for k in range(AXES)]
        per_access = []
        for i, acc in enumerate(self.warp_accesses):
            strides = [v["stride", i, k] for k in range(AXES)] if acc.affine else None
            lines, lanes = warp_lines(group, strides,
                                      [v["active", i, k] for k in range(AXES)],
                                      acc.itemsize)
            per_access.append((lines, lanes, np.asarray(v["count", i]).reshape(-1)))
        lines = np.asarray(average_lines(per_access) if per_access else 0.0)
        out[IRFeature.CACHE_LINES_PER_WARP_ACCESS] = f(
            lines.reshape(shape) if lines.size > 1 else lines.reshape(()))
        return {feature: out[feature] for feature in FEATURE_ORDER}

    def vector(self, params: Mapping[str, object], *,
               fixed: bool | Collection[str] = False) -> IRFeatureVector:
        """The features for one parameter set (scalars); ``fixed`` as in
        :meth:`evaluate`."""
        bad = [k for k, x in params.items() if np.ndim(x) != 0]
        if bad:
            raise ParameterError(f"one value per parameter, please ({bad[0]!r} has "
                                 "several); evaluate() takes arrays")
        values = self.evaluate(params, fixed=fixed)
        return IRFeatureVector.from_mapping(self.kernel_name,
                                            {f: float(x) for f, x in values.items()})


_ACCESS_FEATURES = {
    ("global", Direction.LOAD): IRFeature.GLOBAL_LOADS,
    ("global", Direction.STORE): IRFeature.GLOBAL_STORES,
    ("local", Direction.LOAD): IRFeature.LOCAL_LOADS,
    ("local", Direction.STORE): IRFeature.LOCAL_STORES,
}


def _as_expr(count) -> Expression:
    if isinstance(count, (int, np.integer)):
        return int(count)
    return pwqpolynomial_to_expr(getattr(count, "pwqpolynomial", count))


def _grid(knl, callables) -> tuple[Grid, tuple, tuple]:
    gsize, lsize = knl.get_grid_size_upper_bounds_as_exprs(callables)
    gbound, lbound = knl.get_grid_size_upper_bounds(callables)
    one = isl.PwAff.read_from_str(knl.isl_context, "{ [(1)] }")

    def pad(sizes, fill):
        return (*sizes, *(fill,) * (AXES - len(sizes)))

    gsize, lsize, gbound, lbound = (pad(gsize, 1), pad(lsize, 1), pad(gbound, one),
                                    pad(lbound, one))
    axis_of = {}
    for iname in knl.all_inames():
        for tag in knl.iname_tags_of_type(iname, (LocalInameTag, GroupInameTag)):
            axis_of[iname] = ("l" if isinstance(tag, LocalInameTag) else "g", tag.axis)
    extents = {**{("g", k): gsize[k] for k in range(AXES)},
               **{("l", k): lsize[k] for k in range(AXES)}}
    bounds = {**{("g", k): gbound[k] for k in range(AXES)},
              **{("l", k): lbound[k] for k in range(AXES)}}
    return Grid(axis_of, extents, bounds), gsize, lsize


def _local_memory(knl) -> Expression:
    """Bytes of local temporaries per group; temporaries sharing storage count once,
    at the size of the largest."""
    by_storage: dict[str, list[Expression]] = {}
    for tv in knl.temporary_variables.values():
        if tv.address_space != lp.AddressSpace.LOCAL:
            continue
        size: Expression = int(np.dtype(tv.dtype.numpy_dtype).itemsize)
        for extent in tv.shape or ():
            size = size * extent
        by_storage.setdefault(tv.base_storage or tv.name, []).append(size)
    total: Expression = 0
    for sizes in by_storage.values():
        total = total + (sizes[0] if len(sizes) == 1 else prim.Max(tuple(sizes)))
    return total


def _accesses(knl, callables, grid: Grid, lsize) -> tuple[dict, list[WarpAccess], list]:
    totals: dict[tuple[str, Direction], Expression] = {}
    warp: list[WarpAccess] = []
    notes = []
    for insn in knl.instructions:
        if not isinstance(insn, MultiAssignmentBase):
            continue
        # an instruction under an affine ``if`` runs where its condition holds
        runs = _as_expr(insn_runs(knl, callables, insn))
        width = _vector_width(knl, insn)
        if width > 1:   # loopy counts a vector's lanes; the kernel issues one access
            runs = prim.FloorDiv(runs, width) if not isinstance(runs, int) \
                else runs // width
        active = list(lsize)
        for iname in knl.insn_inames(insn):
            kind, axis = grid.axis_of.get(iname, ("", -1))
            if kind == "l":
                active[axis] = pw_aff_to_expr(
                    knl.get_iname_bounds(iname, constants_only=False).size)
        for direction, exprs in ((Direction.LOAD, [insn.expression]),
                                 (Direction.STORE, list(insn.assignees))):
            for expr in exprs:
                found = (GlobalMemAccessCounter(knl, callables, None)(expr)
                         + LocalMemAccessCounter(knl, callables, None)(expr))
                for acc, per_run in found.count_map.items():
                    count = _as_expr(per_run) * runs
                    key = (acc.mtype, direction)
                    totals[key] = count if key not in totals else totals[key] + count
                    if acc.mtype != "global":
                        continue
                    strides = acc.lid_strides
                    lane = tuple(None if strides is None else strides.get(k, 0)
                                 for k in range(AXES))
                    if any(s is None for s in lane):
                        notes.append(f"{acc.variable} in {insn.id}: subscript not affine "
                                     "in the lane, taken as one line per lane")
                    warp.append(WarpAccess(acc.variable, direction,
                                           int(np.dtype(acc.dtype.numpy_dtype).itemsize),
                                           lane, tuple(active), count))
    return totals, warp, notes


def _vector_width(knl, insn) -> int:
    """Lanes of a vector that one execution of ``insn`` moves: the product of the
    extents of its ``vec`` inames (1 without)."""
    width = 1
    for iname in knl.insn_inames(insn):
        if knl.iname_tags_of_type(iname, VectorizeTag):
            width *= int(pw_aff_to_expr(
                knl.get_iname_bounds(iname, constants_only=True).size))
    return width


def _check_countable(knl) -> None:
    value_args = {a.name for a in knl.args if isinstance(a, lp.ValueArg)}
    data_dependent = sorted(set(knl.all_params()) - value_args)
    if data_dependent:
        raise UnsupportedKernelError(
            f"kernel {knl.name!r} has loop bounds that depend on data "
            f"({', '.join(data_dependent)}); make them kernel parameters (lp.ValueArg) "
            "to have its IR features counted")


@functools.lru_cache(maxsize=64)
def symbolic_ir_features(program: lp.TranslationUnit) -> SymbolicIRFeatures:
    """Read a loopy program's Table 1 features once (module docstring); the same
    program object is read only once (a tuning space's template serves all its
    points)."""
    if not isinstance(program, lp.TranslationUnit):
        raise UnsupportedKernelError(
            f"IR features are read from a loopy program (what lp.make_kernel returns), "
            f"not from a {type(program).__name__}")
    name = entry_kernel(program).name
    _check_countable(entry_kernel(program))
    require_barvinok()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*insn_count_subgroups_upper_bound.*")
        try:
            pre = prepare(program)
            knl = entry_kernel(pre)
            callables = pre.callables_table
            grid, gsize, lsize = _grid(knl, callables)
            totals, warp, notes = _accesses(knl, callables, grid, lsize)
            linearized = lp.get_one_linearized_kernel(knl, callables)
            control = control_counts(linearized, grid)
        except LoopyError as err:
            raise UnsupportedKernelError(
                f"loopy could not read kernel {name!r}: {err}") from err

    shared: dict = {}

    def intern(e):
        return intern_expression(e, shared)

    global_sizes = tuple(intern(g * s) for g, s in zip(gsize, lsize))
    warp = [WarpAccess(w.array, w.direction, w.itemsize,
                       tuple(None if s is None else intern(s) for s in w.lane_strides),
                       tuple(intern(a) for a in w.active), intern(w.count))
            for w in warp]
    control = ControlCounts(
        intern(control.barriers),
        *(tuple(Occurrence(intern(o.executions), o.where) for o in occurrences)
          for occurrences in (control.loops, control.guards)))
    assumptions = Assumptions(set_to_condition(knl.assumptions), str(knl.assumptions))
    accepted = frozenset(a.name for a in knl.args if isinstance(a, lp.ValueArg)
                         and a.dtype is not None and a.dtype is not lp.auto
                         and np.dtype(a.dtype.numpy_dtype).kind in "iu")
    features = SymbolicIRFeatures(
        kernel_name=knl.name, parameters=(), accepted=accepted,
        global_sizes=global_sizes, local_sizes=tuple(intern(s) for s in lsize),
        local_memory_bytes=intern(_local_memory(knl)),
        accesses={k: intern(v) for k, v in totals.items()},
        warp_accesses=tuple(warp), control=control, assumptions=assumptions,
        approximations=tuple(dict.fromkeys(notes)))
    used = _used_parameters(features)
    unknown = used - accepted
    if unknown:
        raise UnsupportedKernelError(
            f"kernel {knl.name!r}: its counts depend on {', '.join(sorted(unknown))}, "
            "which is no integer argument of the kernel")
    return replace(features, parameters=tuple(sorted(used)))


def _used_parameters(features: SymbolicIRFeatures) -> set[str]:
    """The parameters some feature depends on, for any choice of fixed ones."""
    deps = DependencyMapper(composite_leaves=False)
    occurrences = (*features.control.loops, *features.control.guards)
    used: set[str] = set()
    for expr in [*features._expressions().values(), features.assumptions.condition,
                 *(o.executions for o in occurrences)]:
        if not isinstance(expr, (int, float)):
            used |= {d.name for d in deps(expr)}
    param = isl.dim_type.param
    for where in (o.where for o in occurrences if o.where is not None):
        used |= {where.get_dim_name(param, i) for i in range(where.dim(param))
                 if where.involves_dims(param, i, 1)}
    return used


def ir_features(program: lp.TranslationUnit, params: Mapping[str, int] | None = None,
                *, fixed: bool | Collection[str] = False) -> IRFeatureVector:
    """Table 1's features of a loopy program for one set of parameter values (sizes
    and tuning numbers); the program is read once, later calls only evaluate.
    ``fixed``: the parameters the generated code has built in (``True``: all); see
    :meth:`SymbolicIRFeatures.evaluate`."""
    return symbolic_ir_features(program).vector(params or {}, fixed=fixed)
