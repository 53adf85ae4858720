"""The global bytes of a kernel at one parameter set: its arrays' whole sizes (cheap, an
upper bound) and the distinct bytes it touches (its footprint, an ISL count), what the
physical floors and the count-based features read."""

from __future__ import annotations

import loopy as lp
import numpy as np


def global_array_bytes(program, params) -> float:
    """Bytes of a kernel's global array arguments, whole (NaN if a shape is unknown)."""
    from pymbolic import evaluate

    from workbench.kernels.base import entry_kernel

    total = 0.0
    for arg in entry_kernel(program).args:
        if isinstance(arg, lp.ArrayArg) and arg.shape not in (None, lp.auto):
            try:
                size = float(np.prod([float(evaluate(e, dict(params))) for e in arg.shape]))
            except Exception:  # noqa: BLE001 - a shape that needs a value not given
                return float("nan")
            total += size * np.dtype(arg.dtype.numpy_dtype).itemsize
    return total


def global_footprint_bytes(props, params) -> float:
    """Distinct bytes of global memory a kernel touches, at one parameter set."""
    from workbench.properties.symbolic import evaluate_many

    itemsize = {}
    for record in props.accesses:
        if record.mtype == "global":
            itemsize[record.variable] = np.dtype(record.dtype).itemsize
    exprs = {name: props.footprint_used(name) for name in itemsize}
    values = evaluate_many(exprs, {k: np.array([v]) for k, v in params.items()})
    return float(sum(float(np.asarray(values[n]).reshape(-1)[0]) * itemsize[n]
                     for n in itemsize))
