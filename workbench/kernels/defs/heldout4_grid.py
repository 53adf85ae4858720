"""The fourth held-out set's kernels on 2-D groups: a transpose-add, rank updates, a stencil.

What the set is for, and the other kernels, are in :mod:`.heldout4`.

* ``transpose_add``: out = a + s b^T for a rectangular m x n a (b is n x m): b read
  down its columns (stride m), or its tile fetched into local memory first.
* ``outer_update``: c = a + x y^T (rank 1) or a + x y^T + p q^T (rank 2) on 2-D
  groups: a matrix stream plus vectors reused along rows and columns.
* ``star13_3d``: the radius-2 star stencil (centre and two points each way along each
  axis) on a 3-D grid padded by two; groups span x and y (z on grid axis 2) or x and z
  (y on grid axis 2, lanes of a group in different planes).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _rectangles(p: int) -> tuple[dict[str, int], ...]:
    # m x n with m <= n <= 2 m: the element count doubles from case to case
    return tuple({"m": 2 ** (p + t // 2), "n": 2 ** (p + (t + 1) // 2)} for t in range(4))


def _values(dtype, pairs) -> dict:
    return {name: dtype.numpy.type(v) for name, v in pairs}


# {{{ rectangular transpose-add

_TRANSPOSE_ADD_VARIANTS = ("strided", "local_tile")
_TA_SCALE = (("s", 0.75),)


def _build_transpose_add(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _TRANSPOSE_ADD_VARIANTS, 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        "out[i, j] = a[i, j] + s*b[j, i]",
        [u.array("a", req.dtype, ("m", "n")), u.array("b", req.dtype, ("n", "m")),
         u.array("out", req.dtype, ("m", "n")),
         lp.ValueArg("s", req.dtype.numpy), *u.size_args("m", "n")],
        name="transpose_add", assumptions="m >= 1 and n >= 1")
    knl = u.split_2d(knl, "i", "j", req.group_size)
    if req.variant == "local_tile":
        # the group's g0 x g1 block of b, read along its rows into local memory
        knl = lp.add_prefetch(knl, "b", ["i_inner", "j_inner"], default_tag="l.auto")
    return knl


def _transpose_add_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    return {"a": u.random_array(rng, (m, n), dtype), "b": u.random_array(rng, (n, m), dtype),
            **_values(dtype, _TA_SCALE)}


def _transpose_add_reference(inputs, params) -> dict:
    a, b = inputs["a"].astype(np.float64), inputs["b"].astype(np.float64)
    return {"out": u.as_dtype_of(a + float(inputs["s"]) * b.T, inputs["a"])}


TRANSPOSE_ADD = KernelSpec(
    name="transpose_add",
    role=KernelRole.UNSEEN,
    description="out = a + s b^T for an m x n matrix a and an n x m matrix b: b read "
                "down its columns (stride m) or the group's tile of b fetched into "
                "local memory first.",
    parameters=("m", "n"),
    variants=_TRANSPOSE_ADD_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_transpose_add,
    size_cases=_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_transpose_add_inputs,
    reference=_transpose_add_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ rank-1 and rank-2 updates

#: variant -> the update's terms
_OUTER: Mapping[str, tuple[tuple[str, str], ...]] = {
    "rank1": (("x", "y"),),
    "rank2": (("x", "y"), ("p", "q")),
}


def _build_outer(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_OUTER), 2)
    terms = _OUTER[req.variant]
    update = " + ".join(f"{col}[i]*{row}[j]" for col, row in terms)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"c[i, j] = a[i, j] + {update}",
        [u.array("a", req.dtype, ("m", "n")), u.array("c", req.dtype, ("m", "n")),
         *(u.array(col, req.dtype, ("m",)) for col, _ in terms),
         *(u.array(row, req.dtype, ("n",)) for _, row in terms),
         *u.size_args("m", "n")],
        name="outer_update", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _outer_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    vectors = {}
    for col, row in _OUTER[variant]:
        vectors[col] = u.random_array(rng, (m,), dtype)
        vectors[row] = u.random_array(rng, (n,), dtype)
    return {"a": u.random_array(rng, (m, n), dtype), **vectors}


def _outer_reference(variant: str, inputs, params) -> dict:
    c = inputs["a"].astype(np.float64)
    for col, row in _OUTER[variant]:
        c = c + np.outer(inputs[col].astype(np.float64), inputs[row].astype(np.float64))
    return {"c": u.as_dtype_of(c, inputs["a"])}


OUTER_UPDATE = KernelSpec(
    name="outer_update",
    role=KernelRole.UNSEEN,
    description="c = a + x y^T (rank 1) or c = a + x y^T + p q^T (rank 2) for m x n "
                "matrices on 2-D groups: one matrix read and one written, the vectors "
                "reused along the group's rows and columns.",
    parameters=("m", "n"),
    variants=tuple(_OUTER),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_outer,
    size_cases=_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_outer_inputs, "rank1"),
    reference=partial(_outer_reference, "rank1"),
    variant_make_inputs=_outer_inputs,
    variant_reference=_outer_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ radius-2 star stencil in 3-D

STAR13_RADIUS = 2
_STAR13_VARIANTS = ("xy_groups", "xz_groups")
_STAR13_WEIGHTS = (("w0", 0.4), ("w1", 0.07), ("w2", 0.03))


def _star13_offsets(step: int) -> list[tuple[int, int, int]]:
    """(dz, dy, dx) offsets of the points *step* away along one axis, in padded indices."""
    r = STAR13_RADIUS
    if step == 0:
        return [(r, r, r)]
    offs = []
    for axis in range(3):
        for sign in (-1, 1):
            off = [r, r, r]
            off[axis] += sign * step
            offs.append(tuple(off))
    return offs


def _build_star13(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _STAR13_VARIANTS, 2)
    points = {k: " + ".join(f"u[z+{dz}, y+{dy}, x+{dx}]" for dz, dy, dx in _star13_offsets(k))
              for k in range(STAR13_RADIUS + 1)}
    terms = " + ".join(f"w{k}*({pts})" for k, pts in points.items())
    pad = 2 * STAR13_RADIUS
    knl = u.make_kernel(
        "{[x, y, z]: 0 <= x < nx and 0 <= y < ny and 0 <= z < nz}",
        f"out[z, y, x] = {terms}",
        [u.array("u", req.dtype, (f"nz+{pad}", f"ny+{pad}", f"nx+{pad}")),
         u.array("out", req.dtype, ("nz", "ny", "nx")),
         *(lp.ValueArg(w, req.dtype.numpy) for w, _ in _STAR13_WEIGHTS),
         *u.size_args("nx", "ny", "nz")],
        name="star13_3d", assumptions="nx >= 1 and ny >= 1 and nz >= 1")
    if req.variant == "xy_groups":
        knl = u.split_2d(knl, "y", "x", req.group_size)
        return lp.tag_inames(knl, {"z": "g.2"})
    knl = u.split_2d(knl, "z", "x", req.group_size)
    return lp.tag_inames(knl, {"y": "g.2"})


def _star13_inputs(params, dtype, rng) -> dict:
    pad = 2 * STAR13_RADIUS
    shape = (params["nz"] + pad, params["ny"] + pad, params["nx"] + pad)
    return {"u": u.random_array(rng, shape, dtype), **_values(dtype, _STAR13_WEIGHTS)}


def _star13_reference(inputs, params) -> dict:
    v = inputs["u"].astype(np.float64)
    nz, ny, nx = params["nz"], params["ny"], params["nx"]
    res = np.zeros((nz, ny, nx))
    for k in range(STAR13_RADIUS + 1):
        for dz, dy, dx in _star13_offsets(k):
            res += float(inputs[f"w{k}"]) * v[dz:dz + nz, dy:dy + ny, dx:dx + nx]
    return {"out": u.as_dtype_of(res, inputs["u"])}


def _star13_cases(p: int) -> tuple[dict[str, int], ...]:
    # the point count doubles from case to case: y, then z, then x
    return tuple({"nx": 2 ** (p + (t + 0) // 3), "ny": 2 ** (p + (t + 2) // 3),
                  "nz": 2 ** (p + (t + 1) // 3)} for t in range(4))


STAR13_3D = KernelSpec(
    name="star13_3d",
    role=KernelRole.UNSEEN,
    description="13-point star stencil (centre, two points each way along each axis; "
                "three weights) on an nx x ny x nz grid padded by two, one point per "
                "work item: groups span x and y with z on grid axis 2, or x and z with "
                "y on grid axis 2.",
    parameters=("nx", "ny", "nz"),
    variants=_STAR13_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_star13,
    size_cases=_star13_cases,
    default_p=7,
    p_choices=(6, 7, 8),
    make_inputs=_star13_inputs,
    reference=_star13_reference,
    check_params={"nx": 37, "ny": 19, "nz": 21},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (TRANSPOSE_ADD, OUTER_UPDATE, STAR13_3D)
