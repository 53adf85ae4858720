"""Address-model :class:`~workbench.models.roofline.address.Access` objects of a loopy
kernel, from the shared access model (:mod:`workbench.properties.accesses`).

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

from workbench.properties.accesses import ArrayLayout, KernelAccesses, kernel_accesses
from workbench.properties.counting import prepare
from workbench.models.roofline.address import (
    BLOCK_VARS, THREAD_VARS, Access, AddressExpression, AffineExpression, Constraint,
    LaunchConfig)


def _evaluate(expr, params) -> int:
    if not isinstance(expr, (int, str)):
        # a launch extent may be a max of two lanes' extents (an If): evaluate it
        from pymbolic import evaluate
        try:
            return int(evaluate(expr, dict(params)))
        except Exception:  # noqa: BLE001 - unbound names: the affine parse says which
            pass
    aff = AffineExpression.parse(expr, params)
    if aff.terms:
        raise ValueError(f"{expr} does not evaluate to a constant with {params}")
    return aff.const


def launch_from_loopy(program, params: Mapping[str, int]) -> LaunchConfig:
    """Block and grid sizes of a loopy program (or its access model) for fixed sizes."""
    model = program if isinstance(program, KernelAccesses) else _model(program)
    return LaunchConfig(tuple(_evaluate(s, params) for s in model.group_shape) or (1,),
                        tuple(_evaluate(s, params) for s in model.group_counts) or (1,))


def _model(program) -> KernelAccesses:
    return kernel_accesses(prepare(program))


def _hw_names(model: KernelAccesses) -> dict[str, str]:
    return {iname: (THREAD_VARS if kind == "local" else BLOCK_VARS)[axis]
            for iname, (kind, axis) in model.hardware_axes.items()}


def _fix_params(domain: isl.Set, params: Mapping[str, int]) -> isl.Set:
    if isinstance(domain, isl.BasicSet):
        domain = domain.to_set()
    for name in domain.get_var_names(isl.dim_type.param):
        if name not in params:
            raise ValueError(f"no value for size parameter {name!r}")
        idx = domain.find_dim_by_name(isl.dim_type.param, name)
        domain = domain.fix_val(isl.dim_type.param, idx, int(params[name]))
    return domain.project_out(isl.dim_type.param, 0, domain.dim(isl.dim_type.param))


def _flat_index(layout: ArrayLayout, index, params) -> AffineExpression:
    if len(layout.strides) != len(index):
        raise ValueError(f"{layout.name}: {len(index)} indices for "
                         f"{len(layout.strides)} axes")
    coeffs: dict = {}
    for idx, stride in zip(index, layout.strides):
        if stride is None:
            raise ValueError(f"{layout.name}: an axis without a fixed stride")
        stride = _evaluate(stride, params)
        aff = AffineExpression.parse(idx, params)
        for k, v in aff.coeffs.items():
            coeffs[k] = coeffs.get(k, 0) + stride * v
        coeffs[1] = coeffs.get(1, 0) + stride * aff.const
    return AffineExpression.from_dict(coeffs, layout.offset)


def _rename(expr: AffineExpression, names: Mapping[str, str]) -> AffineExpression:
    return AffineExpression.from_dict({names.get(v, v): c for v, c in expr.terms},
                                      expr.const)


def accesses_from_loopy(program, params: Mapping[str, int],
                        launch: LaunchConfig | None = None,
                        base_alignment: int | Mapping[str, int] = 0
                        ) -> tuple[tuple[Access, ...], LaunchConfig]:
    """Global-memory accesses of ``program`` and its launch configuration.

    ``program`` is a loopy program or its access model
    (:func:`workbench.properties.accesses.kernel_accesses`, e.g. a
    ``KernelProperties.access_model``, which saves preprocessing it again).
    ``launch`` defaults to the kernel's own for ``params``; when given, its block
    must match the kernel's work-group size. ``base_alignment`` is one byte offset
    for all arrays or one per array name.
    """
    model = program if isinstance(program, KernelAccesses) else _model(program)
    own = launch_from_loopy(model, params)
    if launch is None:
        launch = own
    elif launch.block != own.block:
        raise ValueError(f"launch block {launch.block} != kernel work-group size {own.block}")
    hw = _hw_names(model)
    hw_bounds = {**dict(zip(THREAD_VARS, launch.block)), **dict(zip(BLOCK_VARS, launch.grid))}
    accesses: list[Access] = []
    for ins in model.instructions:
        domain = _fix_params(ins.domain, params)
        names = set(domain.get_var_names(isl.dim_type.set))
        # Hardware inames range over the launch's coordinates only.
        for iname in names & set(hw):
            idx = domain.find_dim_by_name(isl.dim_type.set, iname)
            if domain.dim_min_val(idx).to_python() != 0 and not domain.is_empty():
                raise ValueError(f"hardware iname {iname!r} does not start at 0")
            domain = domain.intersect(isl.Set(
                f"{{ [{', '.join(domain.get_var_names(isl.dim_type.set))}] : "
                f"0 <= {iname} < {hw_bounds[hw[iname]]} }}"))
        for bset in domain.get_basic_sets():
            if bset.dim(isl.dim_type.div):
                raise ValueError(f"instruction {ins.insn_id}: domain with existentials")
            bs = isl.Set.from_basic_set(bset)
            if bs.is_empty():
                continue
            loops = {}
            for k, name in enumerate(bs.get_var_names(isl.dim_type.set)):
                if name not in hw:
                    loops[name] = (int(bs.dim_min_val(k).to_python()),
                                   int(bs.dim_max_val(k).to_python()) + 1)
            guards = []
            for c in bset.get_constraints():
                coeffs = {(k if k == 1 else hw.get(k, k)): int(v.to_python())
                          for k, v in c.get_coefficients_by_name().items()}
                guards.append(Constraint(AffineExpression.from_dict(coeffs),
                                         c.is_equality()))
            for sub in ins.subscripts:
                layout = model.arrays[sub.array]
                flat = _rename(_flat_index(layout, sub.index, params), hw)
                align = base_alignment.get(sub.array, 0) \
                    if isinstance(base_alignment, Mapping) else int(base_alignment)
                accesses.append(Access(
                    sub.array, layout.itemsize,
                    AddressExpression(flat, tuple(loops.items()), tuple(guards)),
                    align, sub.direction))
    return tuple(accesses), launch
