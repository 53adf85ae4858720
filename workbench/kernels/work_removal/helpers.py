"""Small helpers of work removal: selections, dtypes, entry points, domains."""

from __future__ import annotations

import islpy as isl
import loopy as lp
import numpy as np
import pymbolic.primitives as prim

from workbench.errors import UnsupportedKernelError

# {{{ small helpers

def _select_max(u: prim.Expression, v: prim.Expression) -> prim.Expression:
    """``max(u, v)`` as a data-dependent selection: no arithmetic operation."""
    return prim.If(prim.Comparison(u, ">", v), u, v)


def _lowest(dtype: np.dtype | None) -> object:
    """The identity of ``max`` in *dtype*, finite (no ``INFINITY`` literal needed)."""
    if dtype is None:
        return 0
    if dtype.kind == "f":
        return dtype.type(np.finfo(dtype).min)
    if dtype.kind in "iu":
        return dtype.type(np.iinfo(dtype).min)
    return dtype.type(0)


def _numpy_dtype(dtype: object) -> np.dtype | None:
    if dtype is None or dtype is lp.auto:
        return None
    return np.dtype(getattr(dtype, "numpy_dtype", dtype))


def _entry_name(kernel: lp.TranslationUnit) -> str:
    if len(kernel.entrypoints) != 1:
        raise UnsupportedKernelError(
            "work removal needs a translation unit with exactly one entry point, got "
            f"{sorted(kernel.entrypoints)}")
    return next(iter(kernel.entrypoints))


def _decouple(domains: list[isl.BasicSet], inames: frozenset[str]
              ) -> list[isl.BasicSet]:
    """Move *inames* from their domain into a nested domain of their own.

    The parent keeps the other inames (*inames* projected out: the same points);
    the child declares *inames* with the parent's inames as parameters, which is how
    loopy nests domains.  No point is added or removed, so no count changes.
    """
    where = [k for k, d in enumerate(domains)
             if inames & set(d.get_var_names(isl.dim_type.set))]
    if len(where) != 1:
        return domains
    k = where[0]
    dom = domains[k]
    names = dom.get_var_names(isl.dim_type.set)
    if not inames <= set(names) or set(names) <= inames:
        return domains
    parent = dom
    for name in inames:
        _, idx = parent.get_var_dict()[name]
        parent = parent.project_out(isl.dim_type.set, idx, 1)
    child = dom
    for name in names:
        if name not in inames:
            _, idx = child.get_var_dict()[name]
            child = child.move_dims(isl.dim_type.param, child.dim(isl.dim_type.param),
                                    isl.dim_type.set, idx, 1)
    return [*domains[:k], parent, child, *domains[k + 1:]]


# }}}
