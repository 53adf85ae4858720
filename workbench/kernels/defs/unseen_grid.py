"""Unseen kernels on grids: a strided gather and two stencils.

The rest of the unseen set, and what "unseen" means, is in :mod:`.unseen`.

* ``gather_stride5``: ``out[i] = a[5*i]`` (a fifth of every cache line used), or
  ``out[i] = a[2*i + 1]`` (stride 2 at an odd offset). Only affine, statically
  known strides: loopy cannot count data-dependent (indirect) addresses.
* ``stencil9_prefetch``: a weighted 3 x 3 box stencil on an n x n grid, with the
  group's tile plus a one-element halo (corners used) in local memory, or read
  straight from global memory.
* ``star7_3d``: the 7-point star stencil on an nx x ny x nz grid. Work items span
  (x, y) on a 2-D group and march sequentially through ``Z_CHUNK`` planes; the
  z chunks are spread over grid axis 2. Either all seven points come from global
  memory, or the five in-plane points come from a local-memory tile of the plane.

Inputs are padded by one ghost layer, as in :mod:`.stencil`: output point (i, j)
is centred on ``u[i+1, j+1]``, and (z, y, x) on ``u[z+1, y+1, x+1]``. Weights are
kernel arguments of the kernel's dtype, so that float32 kernels stay float32.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, DType, KernelRole, KernelSpec


def _weights(dtype: DType, *values: tuple[str, float]) -> dict:
    return {name: dtype.numpy.type(value) for name, value in values}


# {{{ strided gather

#: variant -> (elements of a per output element, index expression).
_GATHER: Mapping[str, tuple[int, str]] = {
    "stride5": (5, "5*i"),
    "stride2_offset": (2, "2*i + 1"),
}


def _build_gather(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_GATHER), 1)
    s, index = _GATHER[req.variant]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}", f"out[i] = a[{index}]",
        [u.array("a", req.dtype, (f"{s}*n",)), u.array("out", req.dtype, ("n",)),
         *u.size_args("n")],
        name="gather_stride5", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _gather_inputs(variant: str, params, dtype, rng) -> dict:
    return {"a": u.random_array(rng, (_GATHER[variant][0] * params["n"],), dtype)}


def _gather_reference(variant: str, inputs, params) -> dict:
    s, _ = _GATHER[variant]
    start = 1 if variant == "stride2_offset" else 0
    return {"out": inputs["a"][start::s].copy()}


GATHER_STRIDE5 = KernelSpec(
    name="gather_stride5",
    role=KernelRole.UNSEEN,
    description="Strided gather: out[i] = a[5*i] (stride 5, a fifth of the input "
                "used) or out[i] = a[2*i + 1] (stride 2 at an odd offset).",
    parameters=("n",),
    variants=tuple(_GATHER),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_gather,
    # 5*n stays below 2**31 (int32 indices) for p up to 22
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(4), scale=2)),
    default_p=22,
    p_choices=(20, 21, 22),
    make_inputs=partial(_gather_inputs, "stride5"),
    reference=partial(_gather_reference, "stride5"),
    variant_make_inputs=_gather_inputs,
    variant_reference=_gather_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ 3 x 3 box stencil

# Centre, the four edge neighbours and the four corners, each class with its own
# weight (a smoothing filter); the centre is one load, as the compiled code does.
_BOX_INSN = """
for i, j
    out[i, j] = (c0 * u[i+1, j+1]
                 + c1 * (u[i, j+1] + u[i+2, j+1] + u[i+1, j] + u[i+1, j+2])
                 + c2 * (u[i, j] + u[i, j+2] + u[i+2, j] + u[i+2, j+2]))
end
"""

_BOX_VARIANTS = ("prefetch", "direct")
_BOX_WEIGHTS = (("c0", 0.25), ("c1", 0.125), ("c2", 0.0625))


def _build_box(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _BOX_VARIANTS, 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i, j < n}", _BOX_INSN,
        [u.array("u", req.dtype, ("n+2", "n+2")), u.array("out", req.dtype, ("n", "n")),
         *(lp.ValueArg(w, req.dtype.numpy) for w, _ in _BOX_WEIGHTS),
         *u.size_args("n")],
        name="stencil9_prefetch", assumptions="n >= 1")
    knl = u.split_2d(knl, "i", "j", req.group_size)
    if req.variant == "prefetch":
        # (g1+2) x (g0+2): unlike finite_diff's star, the box uses the corners too.
        knl = lp.add_prefetch(knl, "u", ["i_inner", "j_inner"], fetch_bounding_box=True,
                              default_tag="l.auto")
    return knl


def _box_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    return {"u": u.random_array(rng, (n + 2, n + 2), dtype),
            **_weights(dtype, *_BOX_WEIGHTS)}


def _box_reference(inputs, params) -> dict:
    v = inputs["u"].astype(np.float64)
    c0, c1, c2 = (float(inputs[w]) for w, _ in _BOX_WEIGHTS)
    res = (c0 * v[1:-1, 1:-1]
           + c1 * (v[:-2, 1:-1] + v[2:, 1:-1] + v[1:-1, :-2] + v[1:-1, 2:])
           + c2 * (v[:-2, :-2] + v[:-2, 2:] + v[2:, :-2] + v[2:, 2:]))
    return {"out": u.as_dtype_of(res, inputs["u"])}


STENCIL9_PREFETCH = KernelSpec(
    name="stencil9_prefetch",
    role=KernelRole.UNSEEN,
    description="Weighted 3 x 3 box stencil on an n x n grid (padded input), tile "
                "plus halo prefetched to local memory, or read from global memory.",
    parameters=("n",),
    variants=_BOX_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_box,
    # (n+2)**2 stays below 2**31 for p up to 12
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(4))),
    default_p=12,
    p_choices=(11, 12),
    make_inputs=_box_inputs,
    reference=_box_reference,
    check_params={"n": 70},
)

# }}}


# {{{ 3-D 7-point star stencil

#: Planes each work item marches through (one z chunk per group along grid axis 2).
Z_CHUNK = 8

# The in-plane part goes first, through a temporary: the prefetch variant fetches
# exactly what it reads (the plane's tile and halo), and the z neighbours stay
# global loads in both variants.
_STAR_INSN = """
for x, y, z
    <> plane = (c0 * u[z+1, y+1, x+1]
                + c1 * (u[z+1, y, x+1] + u[z+1, y+2, x+1]
                        + u[z+1, y+1, x] + u[z+1, y+1, x+2])) {id=plane}
    out[z, y, x] = plane + c1 * (u[z, y+1, x+1] + u[z+2, y+1, x+1]) {dep=plane}
end
"""

_STAR_VARIANTS = ("zmarch", "zmarch_prefetch")
_STAR_WEIGHTS = (("c0", 0.25), ("c1", 0.125))


def _build_star(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _STAR_VARIANTS, 2)
    knl = u.make_kernel(
        "{[x, y, z]: 0 <= x < nx and 0 <= y < ny and 0 <= z < nz}", _STAR_INSN,
        [u.array("u", req.dtype, ("nz+2", "ny+2", "nx+2")),
         u.array("out", req.dtype, ("nz", "ny", "nx")),
         *(lp.ValueArg(w, req.dtype.numpy) for w, _ in _STAR_WEIGHTS),
         *u.size_args("nx", "ny", "nz")],
        name="star7_3d", assumptions="nx >= 1 and ny >= 1 and nz >= 1")
    knl = u.split_2d(knl, "y", "x", req.group_size)
    knl = lp.split_iname(knl, "z", Z_CHUNK, outer_tag="g.2")
    if req.variant == "zmarch_prefetch":
        # One (g1+2) x (g0+2) tile per plane, refetched at every z step.
        knl = lp.add_prefetch(knl, "u", ["y_inner", "x_inner"], fetch_bounding_box=True,
                              fetch_outer_inames="x_outer,y_outer,z_outer,z_inner",
                              within="id:plane", default_tag="l.auto")
    return knl


def _star_inputs(params, dtype, rng) -> dict:
    shape = (params["nz"] + 2, params["ny"] + 2, params["nx"] + 2)
    return {"u": u.random_array(rng, shape, dtype), **_weights(dtype, *_STAR_WEIGHTS)}


def _star_reference(inputs, params) -> dict:
    v = inputs["u"].astype(np.float64)
    c0, c1 = (float(inputs[w]) for w, _ in _STAR_WEIGHTS)
    inner = (slice(1, -1),) * 3

    def shifted(axis: int, by: int) -> np.ndarray:
        sl = list(inner)
        sl[axis] = slice(1 + by, v.shape[axis] - 1 + by)
        return v[tuple(sl)]

    res = c0 * v[inner] + c1 * sum(shifted(a, d) for a in range(3) for d in (-1, 1))
    return {"out": u.as_dtype_of(res, inputs["u"])}


def _star_cases(p: int) -> tuple[dict[str, int], ...]:
    # The point count doubles from case to case (2**(3p + t)): x, then y, then z.
    return tuple({"nx": 2 ** (p + (t + 2) // 3), "ny": 2 ** (p + (t + 1) // 3),
                  "nz": 2 ** (p + t // 3)} for t in range(4))


STAR7_3D = KernelSpec(
    name="star7_3d",
    role=KernelRole.UNSEEN,
    description=f"7-point star stencil on an nx x ny x nz grid (padded input); "
                f"(x, y) on a 2-D group, each work item marching through {Z_CHUNK} "
                f"z planes; in-plane points from global memory or a local tile.",
    parameters=("nx", "ny", "nz"),
    variants=_STAR_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_star,
    size_cases=_star_cases,
    default_p=8,
    p_choices=(7, 8, 9),
    make_inputs=_star_inputs,
    reference=_star_reference,
    # no size a multiple of the group or the z chunk: every guard is exercised
    check_params={"nx": 37, "ny": 19, "nz": 11},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (GATHER_STRIDE5, STENCIL9_PREFETCH, STAR7_3D)
