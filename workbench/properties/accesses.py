"""The one access model: every global-array subscript of a loopy kernel, read once.

Two analyses need the same facts about a kernel's global accesses:

* the unified model's access-to-footprint ratios and utilization (symbolic footprints,
  :mod:`workbench.properties.footprint`);
* the data-volume model of Ernst et al. (L1 cycles, L2 -> L1 and DRAM volumes,
  :mod:`workbench.models.roofline`), which turns each subscript into an affine byte
  address in thread, block and loop coordinates
  (:mod:`workbench.models.roofline.from_loopy`).

Both start from :func:`kernel_accesses`: per instruction, its iname domain (an ISL set
whose size parameters stay symbolic) and the subscripts of global arrays it loads
(right-hand side) and stores (assignees); per array, its element size, axis strides
and offset; per hardware-parallel iname, its axis; and the launch grid as
expressions.  The kernel must be preprocessed (reductions realized), as
:func:`workbench.properties.counting.prepare` leaves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import islpy as isl
import loopy as lp
import numpy as np
from loopy.kernel.array import FixedStrideArrayDimTag, VectorArrayDimTag
from loopy.kernel.data import GroupInameTag, LocalInameTag
from loopy.symbolic import WalkMapper

from workbench.kernels.base import entry_kernel
from workbench.properties.features import Direction
from workbench.properties.kernel_memo import grid_callables, index_resolver_of
from workbench.properties.predicates import cut_by_condition


class SubscriptCollector(WalkMapper):
    """Every subscript of the named arrays in an expression (calls included)."""

    def __init__(self, names):
        super().__init__()
        self.names = names
        self.found = []

    def map_subscript(self, expr, *args, **kwargs):
        if getattr(expr.aggregate, "name", None) in self.names:
            self.found.append(expr)
        return super().map_subscript(expr, *args, **kwargs)


@dataclass(frozen=True)
class ArrayLayout:
    """How a global array's index maps to memory: elements of ``itemsize`` bytes,
    ``strides[k]`` elements per step along axis k (None when not a fixed stride)."""

    name: str
    itemsize: int
    strides: tuple[object, ...]
    offset: int
    fastest_axis: int


@dataclass(frozen=True)
class SubscriptAccess:
    """One subscript of a global array in one instruction."""

    array: str
    direction: Direction
    index: tuple[object, ...]   # pymbolic expressions, one per array axis


@dataclass(frozen=True)
class InstructionAccesses:
    """The global subscripts of one instruction and the points it runs at."""

    insn_id: str
    domain: isl.Set             # over the instruction's inames; parameters symbolic
    subscripts: tuple[SubscriptAccess, ...]


@dataclass(frozen=True)
class KernelAccesses:
    """Everything the footprint and volume analyses read of a kernel's global accesses."""

    kernel_name: str
    arrays: Mapping[str, ArrayLayout]
    hardware_axes: Mapping[str, tuple[str, int]]   # iname -> ("local"|"group", axis)
    instructions: tuple[InstructionAccesses, ...]
    assumptions: isl.BasicSet
    group_counts: tuple[object, ...]               # work groups per grid axis
    group_shape: tuple[object, ...]                # work items per group axis

    def subscripts_of(self, names) -> list[tuple[InstructionAccesses, SubscriptAccess]]:
        names = set(names)
        return [(ins, sub) for ins in self.instructions for sub in ins.subscripts
                if sub.array in names]


def fastest_axis(array) -> int:
    """The axis whose stride is 1 element (last axis when strides are unknown)."""
    tags = getattr(array, "dim_tags", None) or ()
    for axis, tag in enumerate(tags):
        if isinstance(tag, FixedStrideArrayDimTag) and tag.stride == 1:
            return axis
    return max(len(tags) - 1, 0)


def _stride(tag) -> object:
    """Elements per step along an axis: a vector axis's lanes are adjacent (loopy
    gives the other axes' strides in elements too)."""
    if isinstance(tag, FixedStrideArrayDimTag):
        return tag.stride
    return 1 if isinstance(tag, VectorArrayDimTag) else None


def _layout(arg) -> ArrayLayout:
    strides = tuple(_stride(tag) for tag in (arg.dim_tags or ()))
    offset = arg.offset if isinstance(arg.offset, int) else 0
    return ArrayLayout(arg.name, int(np.dtype(arg.dtype.numpy_dtype).itemsize), strides,
                       offset, fastest_axis(arg))


def _hardware_axes(knl) -> dict[str, tuple[str, int]]:
    axes = {}
    for iname in knl.all_inames():
        for tag in knl.iname_tags(iname):
            if isinstance(tag, LocalInameTag):
                axes[iname] = ("local", tag.axis)
            elif isinstance(tag, GroupInameTag):
                axes[iname] = ("group", tag.axis)
    return axes


def kernel_accesses(program: lp.TranslationUnit) -> KernelAccesses:
    """The global accesses of a preprocessed loopy program (see the module docstring)."""
    knl = entry_kernel(program)
    arrays = {a.name: _layout(a) for a in knl.args
              if isinstance(a, lp.ArrayArg)
              and getattr(a, "address_space", lp.AddressSpace.GLOBAL) == lp.AddressSpace.GLOBAL}
    instructions = []
    # a global index held in a private temporary, seen through (index_temporaries)
    resolve = index_resolver_of(knl) or (lambda e: e)
    for insn in knl.instructions:
        if not isinstance(insn, lp.MultiAssignmentBase):
            continue
        subs = []
        for direction, exprs in ((Direction.LOAD, [resolve(insn.expression)]),
                                 (Direction.STORE, [resolve(a) for a in insn.assignees])):
            collector = SubscriptCollector(set(arrays))
            for e in exprs:
                collector(e)
            subs += [SubscriptAccess(s.aggregate.name, direction,
                                     s.index if isinstance(s.index, tuple) else (s.index,))
                     for s in collector.found]
        if not subs:
            continue
        inames = knl.insn_inames(insn) | insn.reduction_inames()
        domain = knl.get_inames_domain(inames).project_out_except(
            sorted(inames), [isl.dim_type.set])
        # an instruction under an affine ``if`` touches only where the condition holds
        domain = cut_by_condition(knl, insn, domain)
        instructions.append(InstructionAccesses(insn.id, domain, tuple(subs)))
    gsize, lsize = knl.get_grid_size_upper_bounds_as_exprs(grid_callables(program))
    return KernelAccesses(knl.name, arrays, _hardware_axes(knl), tuple(instructions),
                          knl.assumptions, tuple(gsize), tuple(lsize))
