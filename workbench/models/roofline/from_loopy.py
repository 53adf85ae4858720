"""Derive :class:`~workbench.models.roofline.address.Access` objects from a loopy kernel.

Every subscript of a global array in an instruction (right-hand side: load,
assignee: store) becomes one access per basic set of the instruction's iname
domain: the flattened element index ``sum(index_k * stride_k)`` (strides from the
array's dim tags), with inames tagged ``l.k`` replaced by ``tx/ty/tz`` and ``g.k``
by ``bx/by/bz``; every other iname is a loop variable whose range is the domain's
bounding box, and the domain's constraints become guards (so loopy's edge guards
and the prefetch's coupled thread/loop bounds are honoured exactly). Size
parameters are fixed to the given values (the paper's "known at generation time").
"""

from __future__ import annotations

from collections.abc import Mapping

import islpy as isl
import loopy as lp
from loopy.kernel.array import FixedStrideArrayDimTag
from loopy.kernel.data import GroupInameTag, LocalInameTag

from workbench.kernels.base import entry_kernel
from workbench.properties.footprint import SubscriptCollector
from workbench.models.roofline.address import (
    BLOCK_VARS, THREAD_VARS, Access, AddressExpression, AffineExpression, Constraint,
    Direction, LaunchConfig)


def _evaluate(expr, params) -> int:
    aff = AffineExpression.parse(expr, params)
    if aff.terms:
        raise ValueError(f"{expr} does not evaluate to a constant with {params}")
    return aff.const


def launch_from_loopy(program, params: Mapping[str, int]) -> LaunchConfig:
    """Block and grid sizes of a (preprocessed) loopy program for fixed parameters."""
    knl = entry_kernel(program)
    gsize, lsize = knl.get_grid_size_upper_bounds_as_exprs(program.callables_table)
    return LaunchConfig(tuple(_evaluate(s, params) for s in lsize) or (1,),
                        tuple(_evaluate(s, params) for s in gsize) or (1,))


def _hw_names(knl) -> dict[str, str]:
    names = {}
    for iname in knl.all_inames():
        for tag in knl.iname_tags(iname):
            if isinstance(tag, LocalInameTag):
                names[iname] = THREAD_VARS[tag.axis]
            elif isinstance(tag, GroupInameTag):
                names[iname] = BLOCK_VARS[tag.axis]
    return names


def _fix_params(domain: isl.Set, params: Mapping[str, int]) -> isl.Set:
    if isinstance(domain, isl.BasicSet):
        domain = domain.to_set()
    for name in domain.get_var_names(isl.dim_type.param):
        if name not in params:
            raise ValueError(f"no value for size parameter {name!r}")
        idx = domain.find_dim_by_name(isl.dim_type.param, name)
        domain = domain.fix_val(isl.dim_type.param, idx, int(params[name]))
    return domain.project_out(isl.dim_type.param, 0, domain.dim(isl.dim_type.param))


def _flat_index(arg, index, params) -> AffineExpression:
    tags = arg.dim_tags
    if len(tags) != len(index):
        raise ValueError(f"{arg.name}: {len(index)} indices for {len(tags)} axes")
    coeffs: dict = {}
    for idx, tag in zip(index, tags):
        if not isinstance(tag, FixedStrideArrayDimTag):
            raise ValueError(f"{arg.name}: unsupported dim tag {tag}")
        stride = _evaluate(tag.stride, params)
        for k, v in AffineExpression.parse(idx, params).coeffs.items():
            coeffs[k] = coeffs.get(k, 0) + stride * v
        coeffs[1] = coeffs.get(1, 0) + stride * AffineExpression.parse(idx, params).const
    offset = arg.offset if isinstance(arg.offset, int) else 0
    return AffineExpression.from_dict(coeffs, offset)


def _rename(expr: AffineExpression, names: Mapping[str, str]) -> AffineExpression:
    return AffineExpression.from_dict({names.get(v, v): c for v, c in expr.terms},
                                      expr.const)


def accesses_from_loopy(program, params: Mapping[str, int],
                        launch: LaunchConfig | None = None,
                        base_alignment: int | Mapping[str, int] = 0
                        ) -> tuple[tuple[Access, ...], LaunchConfig]:
    """Global-memory accesses of ``program`` and its launch configuration.

    ``launch`` defaults to the kernel's own for ``params``; when given, its block
    must match the kernel's work-group size. ``base_alignment`` is one byte offset
    for all arrays or one per array name.
    """
    program = lp.preprocess_kernel(program)
    knl = entry_kernel(program)
    own = launch_from_loopy(program, params)
    if launch is None:
        launch = own
    elif launch.block != own.block:
        raise ValueError(f"launch block {launch.block} != kernel work-group size {own.block}")
    arrays = {a.name: a for a in knl.args
              if isinstance(a, lp.ArrayArg) and a.address_space == lp.AddressSpace.GLOBAL}
    hw = _hw_names(knl)
    hw_bounds = {**dict(zip(THREAD_VARS, launch.block)), **dict(zip(BLOCK_VARS, launch.grid))}
    accesses: list[Access] = []
    for insn in knl.instructions:
        if not isinstance(insn, lp.MultiAssignmentBase):
            continue
        inames = knl.insn_inames(insn) | insn.reduction_inames()
        domain = _fix_params(
            knl.get_inames_domain(inames).project_out_except(
                sorted(inames), [isl.dim_type.set]), params)
        # Hardware inames range over the launch's coordinates only.
        for iname in inames & set(hw):
            idx = domain.find_dim_by_name(isl.dim_type.set, iname)
            if domain.dim_min_val(idx).to_python() != 0 and not domain.is_empty():
                raise ValueError(f"hardware iname {iname!r} does not start at 0")
            domain = domain.intersect(isl.Set(
                f"{{ [{', '.join(domain.get_var_names(isl.dim_type.set))}] : "
                f"0 <= {iname} < {hw_bounds[hw[iname]]} }}"))
        subs = []
        for direction, exprs in ((Direction.LOAD, [insn.expression]),
                                 (Direction.STORE, list(insn.assignees))):
            collector = SubscriptCollector(set(arrays))
            for e in exprs:
                collector(e)
            subs += [(direction, s) for s in collector.found]
        for bset in domain.get_basic_sets():
            if bset.dim(isl.dim_type.div):
                raise ValueError(f"instruction {insn.id}: domain with existentials")
            bs = isl.Set.from_basic_set(bset)
            if bs.is_empty():
                continue
            names = bs.get_var_names(isl.dim_type.set)
            loops = {}
            for k, name in enumerate(names):
                if name not in hw:
                    loops[name] = (int(bs.dim_min_val(k).to_python()),
                                   int(bs.dim_max_val(k).to_python()) + 1)
            guards = []
            for c in bset.get_constraints():
                coeffs = {(k if k == 1 else hw.get(k, k)): int(v.to_python())
                          for k, v in c.get_coefficients_by_name().items()}
                guards.append(Constraint(AffineExpression.from_dict(coeffs),
                                         c.is_equality()))
            for direction, sub in subs:
                arg = arrays[sub.aggregate.name]
                index = sub.index if isinstance(sub.index, tuple) else (sub.index,)
                flat = _rename(_flat_index(arg, index, params), hw)
                align = base_alignment.get(arg.name, 0) \
                    if isinstance(base_alignment, Mapping) else int(base_alignment)
                accesses.append(Access(
                    arg.name, int(arg.dtype.numpy_dtype.itemsize),
                    AddressExpression(flat, tuple(loops.items()), tuple(guards)),
                    align, direction))
    return tuple(accesses), launch
