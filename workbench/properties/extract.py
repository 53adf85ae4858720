"""Symbolic, exact extraction of the unified model's kernel properties from loopy.

``extract_properties(kernel)`` returns a :class:`KernelProperties`: one symbolic count
per property record, valid for every value of the kernel's size parameters, plus a
vectorized evaluator.  One extraction therefore serves a whole sweep of sizes.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

import islpy as isl
import loopy as lp
import numpy as np
import pymbolic.primitives as prim
from loopy.diagnostic import LoopyError, UnableToDetermineAccessRangeError

from workbench.errors import UnknownNameError, UnsupportedKernelError
from workbench.kernels.base import check_parameters, entry_kernel
from workbench.properties.features import (
    Direction,
    Feature,
    GlobalAccess,
    GlobalMinLoadStore,
    Granularity,
    KernelLaunch,
    LocalAccess,
    LocalBarriers,
    OpCount,
    OpKind,
    StrideFraction,
    ThreadGroups,
    feature_sort_key,
)
from workbench.properties.accesses import KernelAccesses, kernel_accesses
from workbench.properties.counting import (
    access_counts,
    local_barriers,
    op_counts,
    prepare,
    require_barvinok,
)
from workbench.properties.footprint import (
    Footprint,
    global_footprints,
    global_used_elements,
)
from workbench.properties.kernel_memo import grid_callables
from workbench.properties.symbolic import (
    Assumptions,
    Expression,
    evaluate_many,
    intern_expression,
    pwqpolynomial_to_expr,
    set_to_condition,
    to_text,
)

FLOAT_DTYPES = ("float32", "float64")
SUPPORTED_DTYPES = frozenset({*FLOAT_DTYPES, "int8", "int16", "int32", "int64",
                              "uint8", "uint16", "uint32", "uint64"})

# a reduction's min or max (``min(c, ...)``, ``reduce(max, ...)``) and OpenCL's
# fmin/fmax reach loopy's op map as functions, but they are the same single ALU
# instruction (FMNMX/DMNMX) as the binary min/max loopy calls "maxmin": not special
# functions (SFU); counted with the additions as "maxmin" is
_OP_KINDS = {"add": OpKind.ADD, "maxmin": OpKind.ADD, "mul": OpKind.MUL,
             "func:min": OpKind.ADD, "func:max": OpKind.ADD,
             "func:fmin": OpKind.ADD, "func:fmax": OpKind.ADD,
             "div": OpKind.DIV, "pow": OpKind.POW, "func:pow": OpKind.POW,
             "func:powf": OpKind.POW,
             # an argmax's (value, index) pair, put together: no arithmetic
             "func:make_tuple": None}


def _op_kind(loopy_name: str) -> OpKind | None:
    if loopy_name in _OP_KINDS:
        return _OP_KINDS[loopy_name]
    if loopy_name.startswith("func:"):
        return OpKind.SPECIAL
    return None  # shifts and bitwise operations are integer-only work


@dataclass(frozen=True)
class AccessRecord:
    """One kind of memory access as loopy sees it, before it is binned into a property.

    Model expressions with stride and AFR constraints (2019 paper) and in-situ access
    tags select from these.  Strides map a hardware axis to the element stride along
    it (an int, a symbolic expression, or None when not affine).
    """

    mtype: str
    dtype: str
    direction: Direction
    variable: str
    lid_strides: tuple[tuple[int, object], ...]
    gid_strides: tuple[tuple[int, object], ...]
    tags: frozenset[str]
    count: Expression


@dataclass(frozen=True)
class KernelProperties:
    """The symbolic properties of one kernel; evaluate them with :meth:`evaluate`."""

    kernel_name: str
    parameters: tuple[str, ...]
    granularity: Granularity
    subgroup_size: int | None
    group_size: tuple[int, ...]
    counts: Mapping[Feature, Expression]
    assumptions: Assumptions
    utilization: Mapping[str, Footprint] = field(default_factory=dict)
    accesses: tuple[AccessRecord, ...] = ()
    program: object = field(default=None, compare=False, repr=False)
    _footprints: dict = field(default_factory=dict, compare=False, repr=False)
    _access_model: list = field(default_factory=list, compare=False, repr=False)
    _used: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def access_model(self) -> KernelAccesses:
        """The kernel's global subscripts, domains and layouts (computed on first use),
        shared by the footprints here and the roofline's data volumes."""
        if not self._access_model:
            self._access_model.append(kernel_accesses(self.program))
        return self._access_model[0]

    def assume_footprint(self, footprint: Footprint) -> None:
        """Use a footprint found elsewhere, where this kernel's own cannot be counted:
        a tuning space's template indexes with products of its numbers, which ISL
        cannot read, while every point's kernel touches the same elements."""
        self._footprints[footprint.array] = footprint

    def footprint(self, array: str) -> Footprint:
        """Symbolic footprint of one global array (computed on first use)."""
        if array not in self._footprints:
            if array in self.utilization:
                self._footprints[array] = self.utilization[array]
            else:
                model = self.access_model
                if array not in model.arrays:
                    raise UnknownNameError(f"array of {self.kernel_name!r}", array,
                                           model.arrays)
                shared: dict = {}
                fp = global_footprints(model, [array])[array]
                self._footprints[array] = Footprint(
                    array, intern_expression(fp.used, shared),
                    intern_expression(fp.filled, shared))
        return self._footprints[array]

    def footprint_used(self, array: str) -> Expression:
        """The distinct elements of one global array the kernel touches, symbolic: the
        footprint's ``used`` (without its filled span where that is not known yet)."""
        if array in self._footprints or array in self.utilization:
            return self.footprint(array).used
        if array not in self._used:
            model = self.access_model
            if array not in model.arrays:
                raise UnknownNameError(f"array of {self.kernel_name!r}", array, model.arrays)
            self._used[array] = intern_expression(
                global_used_elements(model, [array])[array], {})
        return self._used[array]

    @property
    def features(self) -> tuple[Feature, ...]:
        return tuple(sorted(self.counts, key=feature_sort_key))

    def symbolic(self, feature: Feature | str) -> str:
        """The count of one property as readable text, e.g. ``2*n**3``."""
        return to_text(self.counts[self._feature(feature)])

    def _feature(self, feature: Feature | str) -> Feature:
        if isinstance(feature, Feature):
            return feature
        by_name = {f.name: f for f in self.counts}
        if feature not in by_name:
            raise UnknownNameError(f"property of {self.kernel_name!r}", feature, by_name)
        return by_name[feature]

    def evaluate(self, params: Mapping[str, object]) -> dict[Feature, np.ndarray]:
        """Counts for one parameter set (scalars) or many (equal-length arrays).

        Missing or unknown parameters and violated assumptions raise ParameterError.
        """
        check_parameters(self.kernel_name, self.parameters, params)
        self.assumptions.check(params)
        return evaluate_many(self.counts, params)

    def evaluate_named(self, params: Mapping[str, object]) -> dict[str, np.ndarray | int]:
        values = self.evaluate(params)
        out = {}
        for f in self.features:
            v = values[f]
            out[f.name] = int(v) if np.ndim(v) == 0 else v
        return out


def _tag_name(tag) -> str:
    """loopy's ``a$aLD`` gives a tag object holding 'aLD'; other tags have a name."""
    for attr in ("value", "name"):
        value = getattr(tag, attr, None)
        if isinstance(value, str):
            return value
    return type(tag).__name__


def _check_supported(knl: lp.LoopKernel) -> None:
    value_args = {a.name for a in knl.args if isinstance(a, lp.ValueArg)}
    data_dependent = sorted(set(knl.all_params()) - value_args)
    if data_dependent:
        raise UnsupportedKernelError(
            f"kernel {knl.name!r} has loop bounds that depend on data "
            f"({', '.join(data_dependent)}); their trip counts cannot be counted "
            "symbolically. Make them kernel parameters (lp.ValueArg) whose values you "
            "supply as statistics, e.g. the average row length.")
    for arg in knl.args:
        dtype = getattr(arg, "dtype", None)
        if dtype is None or dtype is lp.auto:
            continue
        name = np.dtype(dtype.numpy_dtype).name
        if name not in SUPPORTED_DTYPES:
            raise UnsupportedKernelError(
                f"argument {arg.name!r} of kernel {knl.name!r} has dtype {name}, which the "
                f"model does not cover (supported: {', '.join(sorted(SUPPORTED_DTYPES))})")


def _stride_class(stride) -> int | None:
    """Element stride between neighbouring work items -> 0, 1, 2..4 or None (>4)."""
    if stride is None:
        return None
    if isinstance(stride, (int, np.integer)):
        s = abs(int(stride))
        return s if s <= StrideFraction.MAX_EXPLICIT_STRIDE else None
    return None  # symbolic strides (a row length, say) are taken as large


def _fraction_terms(count: Expression, stride: int | None, footprint: Footprint | None
                    ) -> list[tuple[StrideFraction, Expression]]:
    """Split one access count over the utilization classes it may fall into."""
    if stride in (0, 1):
        return [(StrideFraction(stride), count)]
    denom = stride or StrideFraction.MAX_EXPLICIT_STRIDE
    if footprint is None:  # footprint unknown: assume the data is fully used
        return [(StrideFraction(stride, denom), count)]
    used, filled = footprint.used, footprint.filled
    terms = []
    for k in range(1, denom + 1):
        # Class k is the nearest k/denom to used/filled.  Nearest, not ceiling: the
        # filled span of a finite strided footprint ends at its last element, so
        # a[2*i] over n items uses n of 2n-1 cells, a hair above one half.
        upper = prim.Comparison(2 * denom * used, "<=", (2 * k + 1) * filled) \
            if k < denom else None
        lower = prim.Comparison(2 * denom * used, ">", (2 * k - 1) * filled) \
            if k > 1 else None
        conds = [c for c in (upper, lower) if c is not None]
        cond = conds[0] if len(conds) == 1 else prim.LogicalAnd(tuple(conds))
        terms.append((StrideFraction(stride, k), prim.If(cond, count, 0)))
    return terms


def _add(acc: dict, key, value) -> None:
    acc[key] = value if key not in acc else acc[key] + value


def extract_properties(kernel: lp.TranslationUnit, *,
                       granularity: Granularity | str = Granularity.WORKITEM,
                       subgroup_size: int | None = None,
                       workitem: KernelProperties | None = None,
                       barriers: bool = True) -> KernelProperties:
    """Extract the unified model's properties of a loopy kernel, symbolically.

    ``workitem``: this same kernel's work-item properties, already extracted: their
    prepared program and barrier count (the same at every granularity) are taken, so
    a second granularity neither preprocesses nor linearizes the kernel again.
    ``barriers=False`` leaves the local barriers uncounted (no linearization: up to a
    quarter of a tree reduction's extraction), so the result has no
    ``f_sync_barrier_local`` whatever the kernel does: only for a caller that reads
    none (a factory point counted for a model whose barrier weight is zero, which
    marks its counts so: :mod:`workbench.models.point_counts`)."""
    granularity = Granularity(granularity)
    from workbench.errors import ParameterError
    if workitem is not None and workitem.granularity is not Granularity.WORKITEM:
        raise ParameterError("workitem= takes the kernel's work-item properties")
    if granularity is Granularity.SUBGROUP and not subgroup_size:
        raise ParameterError("sub-group granularity needs a sub-group size (e.g. 32)")
    if subgroup_size is not None and subgroup_size < 1:
        raise ParameterError(f"sub-group size must be a positive integer, got {subgroup_size}")
    knl = entry_kernel(kernel)
    _check_supported(knl)
    require_barvinok()

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*insn_count_subgroups_upper_bound.*")
        try:
            pre = prepare(kernel) if workitem is None else workitem.program
            runs_of: dict = {}
            ops = op_counts(pre, granularity, subgroup_size, runs_of)
            mem = access_counts(pre, granularity, subgroup_size, runs_of)
            barrier_count = local_barriers(pre) if workitem is None and barriers else 0
        except LoopyError as err:
            raise UnsupportedKernelError(
                f"loopy could not count kernel {knl.name!r}: {err}") from err

    pre_knl = entry_kernel(pre)
    gsize, lsize = pre_knl.get_grid_size_upper_bounds_as_exprs(grid_callables(pre))
    groups: Expression = 1
    for g in gsize:
        groups = groups * g
    group_size = tuple(int(s) for s in lsize) if all(
        isinstance(s, (int, np.integer)) for s in lsize) else ()
    # a group size left symbolic (a tuning space counted once for all its shapes)
    # multiplies as an expression
    workitems_per_group: Expression = int(np.prod(group_size)) if group_size else 1
    if not group_size:
        for s in lsize:
            workitems_per_group = workitems_per_group * s

    counts: dict[Feature, Expression] = {}

    for op, poly in ops.items():
        dtype = np.dtype(op.dtype.numpy_dtype).name
        kind = _op_kind(op.name)
        if dtype not in FLOAT_DTYPES or kind is None:
            continue
        _add(counts, OpCount(dtype, kind), poly.expression())

    strides = {}
    for acc in mem.keys():
        if acc.mtype == "global":
            strides[acc] = _stride_class(acc.lid_strides.get(0, 0)
                                         if acc.lid_strides is not None else None)
    needs_footprint = {acc.variable for acc, s in strides.items() if s not in (0, 1)}
    footprints: dict[str, Footprint] = {}
    access_model: list = []
    if needs_footprint:
        access_model.append(kernel_accesses(pre))
        try:
            footprints = global_footprints(access_model[0], needs_footprint)
        except (LoopyError, UnableToDetermineAccessRangeError, isl.Error, TypeError):
            footprints = {}  # non-affine index: utilization unknown, taken as full

    by_class: dict[tuple[str, StrideFraction], dict[Direction, Expression]] = \
        defaultdict(dict)
    records = []
    for acc, poly in mem.items():
        dtype = np.dtype(acc.dtype.numpy_dtype).name
        count = poly.expression()
        direction = Direction(acc.direction)
        records.append(AccessRecord(
            acc.mtype, dtype, direction, acc.variable,
            tuple(sorted((acc.lid_strides or {}).items())),
            tuple(sorted((acc.gid_strides or {}).items())),
            frozenset(_tag_name(t) for t in (acc.variable_tags or ())),
            count))
        if acc.mtype == "local":
            _add(counts, LocalAccess(dtype, direction), count)
            continue
        for fraction, term in _fraction_terms(count, strides[acc],
                                               footprints.get(acc.variable)):
            _add(counts, GlobalAccess(dtype, direction, fraction), term)
            _add(by_class[dtype, fraction], direction, term)

    for (dtype, fraction), dirs in by_class.items():
        if len(dirs) == 2:
            counts[GlobalMinLoadStore(dtype, fraction)] = prim.Min(
                (dirs[Direction.LOAD], dirs[Direction.STORE]))

    barriers: Expression = 0 if isinstance(barrier_count, int) else \
        pwqpolynomial_to_expr(barrier_count.pwqpolynomial)
    if barriers != 0:
        # loopy counts the barriers one work item meets; every work item meets them.
        counts[LocalBarriers()] = barriers * groups * workitems_per_group
    if workitem is not None and LocalBarriers() in workitem.counts:
        counts[LocalBarriers()] = workitem.counts[LocalBarriers()]
    counts[ThreadGroups()] = groups
    counts[KernelLaunch()] = 1
    shared: dict = {}
    counts = {f: intern_expression(e, shared) for f, e in counts.items()}
    records = tuple(AccessRecord(r.mtype, r.dtype, r.direction, r.variable, r.lid_strides,
                                 r.gid_strides, r.tags, intern_expression(r.count, shared))
                    for r in records)

    assumptions = knl.assumptions
    from pymbolic.mapper.dependency import DependencyMapper

    used = set(knl.all_params())
    deps = DependencyMapper(composite_leaves=False)
    for expr in [*counts.values(), *(e for fp in footprints.values()
                                    for e in (fp.used, fp.filled))]:
        if not isinstance(expr, (int, float)):
            used |= {v.name for v in deps(expr)}
    params = tuple(sorted(a.name for a in knl.args
                          if isinstance(a, lp.ValueArg) and a.name in used))
    return KernelProperties(
        kernel_name=knl.name,
        parameters=params,
        granularity=granularity,
        subgroup_size=subgroup_size,
        group_size=group_size,
        counts=counts,
        assumptions=Assumptions(set_to_condition(assumptions), str(assumptions)),
        utilization=footprints,
        accesses=records,
        program=pre,
        _access_model=access_model,
    )
