"""Barrier kernels of the 2019 measurement set.

:func:`barriers`: a controlled number of local barriers and nothing else.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.errors import ParameterError
from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec
from workbench.kernels.generators.common import (
    SET_1D,
    _check_items,
    _loop_assumptions,
    _loop_domain,
    _loop_items,
    _require_group,
    _tag_grid,
)

# {{{ barriers

def barriers(n_barriers: int = 1) -> KernelSpec:
    """Each work item meets ``n_barriers * iters`` local barriers, and does nothing else
    but store its index once (so the launch has a checkable effect).

    The body of an ``iters``-trip loop holds ``n_barriers`` explicit barriers: the
    per-barrier cost then grows with ``iters`` at a fixed grid, apart from launch and
    per-group costs. Any float dtype; the index store uses it.
    """
    nb = int(n_barriers)
    if nb != n_barriers or nb < 1:
        raise ParameterError(f"n_barriers must be a positive integer, got {n_barriers!r}")
    name = f"barriers_{nb}periter"

    def build(req: BuildRequest) -> lp.TranslationUnit:
        _require_group(req, 1)
        (group,) = req.group_size
        w = f"{group}*g + l"
        bars = "\n".join(
            f"... lbarrier {{id=bar{b}{f', dep=bar{b - 1}' if b else ''}}}"
            for b in range(nb))
        insns = f"""
        for g, l
            for k
                {bars}
            end
            <int32> idx = {w}
            out[{w}] = idx {{dep=bar{nb - 1}}}
        end
        """
        knl = u.make_kernel(
            _loop_domain(group, "k", "0 <= k < iters"), insns,
            [u.array("out", req.dtype, ("n",)), *u.size_args("n", "iters")],
            name="barriers", assumptions=_loop_assumptions(group))
        return _tag_grid(knl)

    return KernelSpec(
        name=name,
        role=KernelRole.MEASUREMENT,
        description=f"{nb} local barrier(s) per iteration of an iters-trip loop; one "
                    "index store per work item.",
        parameters=("n", "iters"),
        variants=("default",),
        dtypes=u.FLOATS,
        group_dims=1,
        default_group_size_set=SET_1D,
        build=build,
        size_cases=lambda p: tuple({"n": _loop_items(p), "iters": 2 ** (t + 5)}
                                   for t in range(4)),
        default_p=17,
        p_choices=(15, 16, 17, 18, 19),
        make_inputs=lambda params, dtype_, rng: {},
        reference=lambda inputs, params: {"out": np.arange(params["n"], dtype=np.float64)},
        check_params={"n": _check_items(), "iters": 3},
    )

# }}}

# vim: foldmethod=marker
