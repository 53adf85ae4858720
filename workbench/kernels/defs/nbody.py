"""The N-body test kernel (paper section 5).

Positions are a 3 x n array in column-major layout (``x[:, j]`` is position j, its
three coordinates contiguous). Work item i computes

    out[i] = sum_{j=0}^{n-1} rsqrt(|x_i - x_j|^2 + eps2)

the paper's "sum of the inverses of the distances between each position and every
other position". The term j = i has distance zero; rather than branching on it, the
distance is softened by ``eps2 = 2**-10`` (Plummer softening, common in N-body
codes), which makes the self term the constant ``1/sqrt(eps2) = 32`` and keeps every
work item's instruction stream identical. ``eps2`` is an exact binary fraction so
that loopy types it as float32 in the float32 kernel.

The sum over j runs in blocks of ``gsize`` positions: the group fetches a 3 x gsize
block into local memory (one coordinate row per pass, i.e. stride-3 global reads
that together use every element) and every work item then reads the block from
local memory.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec

#: Softening added to squared distances (see module docstring).
EPS2 = 2.0 ** -10


def _build(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("default",), 1)
    (g0,) = req.group_size
    dt = req.dtype.value
    knl = u.make_kernel(
        "{[i, j]: 0 <= i, j < n}",
        f"""
        for i
            <{dt}> p0 = x[0, i] {{id=p0}}
            <{dt}> p1 = x[1, i] {{id=p1}}
            <{dt}> p2 = x[2, i] {{id=p2}}
            <{dt}> acc = 0 {{id=init}}
            for j
                <{dt}> d0 = p0 - x[0, j] {{id=d0, dep=p0}}
                <{dt}> d1 = p1 - x[1, j] {{id=d1, dep=p1}}
                <{dt}> d2 = p2 - x[2, j] {{id=d2, dep=p2}}
                <{dt}> r2 = d0*d0 + d1*d1 + d2*d2 + {EPS2!r} {{id=r2, dep=d0:d1:d2}}
                acc = acc + rsqrt(r2) {{id=update, dep=init:r2}}
            end
            out[i] = acc {{dep=update}}
        end
        """,
        [u.array("x", req.dtype, (3, "n"), order="F"), u.array("out", req.dtype, ("n",)),
         *u.size_args("n")],
        name="nbody", assumptions="n >= 1")
    knl = u.split_1d(knl, "i", req.group_size)
    knl = lp.split_iname(knl, "j", g0)
    # Only the x_j reads (d0..d2) go through local memory; x_i is read once per item.
    knl = lp.add_prefetch(knl, "x", ["j_inner"], dim_arg_names=["x_row", "x_col"],
                          fetch_outer_inames="i_outer,j_outer", default_tag=None,
                          within="id:d0 or id:d1 or id:d2")
    return lp.tag_inames(knl, {"x_col": "l.0", "x_row": "unr"})


def _inputs(params, dtype, rng) -> dict:
    return {"x": u.random_array(rng, (3, params["n"]), dtype, order="F")}


def _reference(inputs, params) -> dict:
    x = inputs["x"].astype(np.float64)
    d2 = ((x[:, :, None] - x[:, None, :]) ** 2).sum(axis=0)
    return {"out": u.as_dtype_of((1 / np.sqrt(d2 + EPS2)).sum(axis=1), inputs["x"])}


NBODY = KernelSpec(
    name="nbody",
    role=KernelRole.TEST,
    description="Sum over all positions j of 1/|x_i - x_j| (softened) for n positions "
                "in a 3 x n column-major array, positions fetched in 3 x gsize blocks.",
    parameters=("n",),
    variants=("default",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build,
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(4))),
    default_p=10,
    p_choices=(10, 11),
    make_inputs=_inputs,
    reference=_reference,
    check_params={"n": 700},
)

#: This module's catalog entries, in catalog order.
SPECS: tuple[KernelSpec, ...] = (NBODY,)
