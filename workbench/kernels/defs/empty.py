"""The empty kernel ("Empty kernel", paper section 4.1): launch overhead only.

It launches work groups as if each work item handled one element of an n x n
matrix, and does nothing. The loop nest holds a single no-op statement: that is
what gives loopy a grid (inames no statement uses would be dropped, launching one
work item), while no-ops contribute neither operations nor memory accesses to
loopy's statistics. No array argument is needed.
"""

from __future__ import annotations

import loopy as lp

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _build(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("default",), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i, j < n}",
        """
        for i, j
            ... nop
        end
        """,
        u.size_args("n"),
        name="empty", assumptions="n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


EMPTY = KernelSpec(
    name="empty",
    role=KernelRole.MEASUREMENT,
    description="Does nothing; launches the work groups of an n x n grid (measures "
                "launch overhead per kernel and per work group).",
    parameters=("n",),
    variants=("default",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build,
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(6))),
    default_p=9,
    p_choices=(8, 9, 10),
    make_inputs=lambda params, dtype, rng: {},
    reference=lambda inputs, params: {},
    check_params={"n": 100},
)

#: This module's catalog entries, in catalog order.
SPECS: tuple[KernelSpec, ...] = (EMPTY,)
