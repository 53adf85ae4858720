"""The fifth held-out set's kernels on 2-D groups: an edge detector, a mirror, a resize.

What the set is for, and the other kernels, are in :mod:`.heldout5`.

* ``sobel_gradient``: the Sobel operator on an image padded by one: both 3 x 3
  gradients (no centre weight, the two sides subtracted), then the gradient's length
  (one store), or the two gradients and the length (three stores).
* ``image_flip``: a mirrored copy of an m x n image: each row reversed (loads run
  backwards along the row) or the order of the rows reversed.
* ``resize_bilinear``: bilinear resampling of an image to m x n by the ratio 4/3
  (shrink) or 2/3 (grow) along each axis: the four source pixels of each output
  pixel found by integer division, the weights from the remainders.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _rectangles(p: int) -> tuple[dict[str, int], ...]:
    # m x n with m <= n <= 2 m: the pixel count doubles from case to case
    return tuple({"m": 2 ** (p + t // 2), "n": 2 ** (p + (t + 1) // 2)} for t in range(4))


# {{{ Sobel gradient

#: variant -> the outputs written
_SOBEL_OUTPUTS: Mapping[str, tuple[str, ...]] = {
    "magnitude": ("mag",),
    "components": ("gx", "gy", "mag"),
}


def _sobel_side(axis: str, offset: int) -> str:
    """The 1-2-1 weighted side of the 3 x 3 window at *offset* along *axis*."""
    if axis == "x":
        pts = [f"u[i+{r}, j+{offset}]" for r in range(3)]
    else:
        pts = [f"u[i+{offset}, j+{c}]" for c in range(3)]
    return f"({pts[0]} + 2*{pts[1]} + {pts[2]})"


def _build_sobel(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_SOBEL_OUTPUTS), 2)
    outputs = _SOBEL_OUTPUTS[req.variant]
    stores = {"gx": "gx[i, j] = dx {dep=dx}", "gy": "gy[i, j] = dy {dep=dy}",
              "mag": "mag[i, j] = sqrt(dx*dx + dy*dy) {dep=dx:dy}"}
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        <> dx = {_sobel_side('x', 2)} - {_sobel_side('x', 0)} {{id=dx}}
        <> dy = {_sobel_side('y', 2)} - {_sobel_side('y', 0)} {{id=dy}}
        {chr(10).join(stores[o] for o in outputs)}
        """,
        [u.array("u", req.dtype, ("m+2", "n+2")),
         *(u.array(o, req.dtype, ("m", "n")) for o in outputs), *u.size_args("m", "n")],
        name="sobel_gradient", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _sobel_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # a ramp along both axes (a step of 1/2 per pixel) under noise below 0.2: both
    # gradients stay at least 4 - 0.8 away from zero, so float32 keeps a relative 1e-4
    ramp = 0.5 * (np.arange(m + 2)[:, None] + np.arange(n + 2)[None, :])
    noise = 0.2 * rng.random((m + 2, n + 2))
    return {"u": np.asarray(ramp + noise, dtype=dtype.numpy)}


def _sobel_reference(variant: str, inputs, params) -> dict:
    v, m, n = inputs["u"].astype(np.float64), params["m"], params["n"]

    def window(r, c):
        return v[r:r + m, c:c + n]
    dx = (window(0, 2) + 2 * window(1, 2) + window(2, 2)) \
        - (window(0, 0) + 2 * window(1, 0) + window(2, 0))
    dy = (window(2, 0) + 2 * window(2, 1) + window(2, 2)) \
        - (window(0, 0) + 2 * window(0, 1) + window(0, 2))
    out = {"gx": dx, "gy": dy, "mag": np.sqrt(dx * dx + dy * dy)}
    return {o: u.as_dtype_of(out[o], inputs["u"]) for o in _SOBEL_OUTPUTS[variant]}


SOBEL_GRADIENT = KernelSpec(
    name="sobel_gradient",
    role=KernelRole.UNSEEN,
    description="The Sobel operator on an m x n image padded by one: the horizontal "
                "and vertical 3 x 3 gradients (1-2-1 weights, sides subtracted), then "
                "the gradient's length alone (one store) or with both gradients "
                "(three stores).",
    parameters=("m", "n"),
    variants=tuple(_SOBEL_OUTPUTS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_sobel,
    size_cases=_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_sobel_inputs,
    reference=partial(_sobel_reference, "magnitude"),
    variant_reference=_sobel_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ mirrored copy

#: variant -> the source pixel of out[i, j]
_MIRRORS: Mapping[str, str] = {
    "reverse_rows": "img[i, n - 1 - j]",
    "reverse_row_order": "img[m - 1 - i, j]",
}


def _build_flip(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_MIRRORS), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"out[i, j] = {_MIRRORS[req.variant]}",
        [u.array("img", req.dtype, ("m", "n")), u.array("out", req.dtype, ("m", "n")),
         *u.size_args("m", "n")],
        name="image_flip", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _flip_inputs(params, dtype, rng) -> dict:
    return {"img": u.random_array(rng, (params["m"], params["n"]), dtype)}


def _flip_reference(variant: str, inputs, params) -> dict:
    img = inputs["img"]
    out = img[:, ::-1] if variant == "reverse_rows" else img[::-1, :]
    return {"out": np.ascontiguousarray(out)}


IMAGE_FLIP = KernelSpec(
    name="image_flip",
    role=KernelRole.UNSEEN,
    description="A mirrored copy of an m x n image: each row reversed (adjacent work "
                "items load adjacent pixels in descending order) or the order of the "
                "rows reversed (rows copied whole).",
    parameters=("m", "n"),
    variants=tuple(_MIRRORS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_flip,
    size_cases=_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_flip_inputs,
    reference=partial(_flip_reference, "reverse_rows"),
    variant_reference=_flip_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ bilinear resampling by a rational ratio

#: Output pixels per group of source steps: the ratio is numerator / this.
RESIZE_DEN = 3
#: variant -> numerator of the source-per-output ratio
_RESIZE_NUM: Mapping[str, int] = {"shrink": 4, "grow": 2}


def _source_shape(num: int, m, n) -> tuple:
    if isinstance(m, str):
        return (f"({num}*{m}) // {RESIZE_DEN} + 2", f"({num}*{n}) // {RESIZE_DEN} + 2")
    return (num * m // RESIZE_DEN + 2, num * n // RESIZE_DEN + 2)


def _build_resize(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_RESIZE_NUM), 2)
    num, den, dt = _RESIZE_NUM[req.variant], RESIZE_DEN, req.dtype.numpy.name
    sy, sx = f"({num}*i) // {den}", f"({num}*j) // {den}"
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
        <{dt}> wy = (({num}*i) % {den}) * inv_den {{id=wy}}
        <{dt}> wx = (({num}*j) % {den}) * inv_den {{id=wx}}
        <{dt}> p00 = src[{sy}, {sx}] {{id=p00}}
        <{dt}> p01 = src[{sy}, {sx} + 1] {{id=p01}}
        <{dt}> p10 = src[{sy} + 1, {sx}] {{id=p10}}
        <{dt}> p11 = src[{sy} + 1, {sx} + 1] {{id=p11}}
        <{dt}> top = p00 + wx*(p01 - p00) {{id=top, dep=wx:p00:p01}}
        <{dt}> bottom = p10 + wx*(p11 - p10) {{id=bottom, dep=wx:p10:p11}}
        out[i, j] = top + wy*(bottom - top) {{dep=top:bottom:wy}}
        end
        """,
        [u.array("src", req.dtype, _source_shape(num, "m", "n")),
         u.array("out", req.dtype, ("m", "n")), lp.ValueArg("inv_den", req.dtype.numpy),
         *u.size_args("m", "n")],
        name="resize_bilinear", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _resize_inputs(variant: str, params, dtype, rng) -> dict:
    shape = _source_shape(_RESIZE_NUM[variant], params["m"], params["n"])
    return {"src": u.random_array(rng, shape, dtype, low=0.5),
            "inv_den": dtype.numpy.type(1 / RESIZE_DEN)}


def _resize_reference(variant: str, inputs, params) -> dict:
    num, m, n = _RESIZE_NUM[variant], params["m"], params["n"]
    src = inputs["src"].astype(np.float64)
    inv = float(inputs["inv_den"])
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    sy, sx = num * i // RESIZE_DEN, num * j // RESIZE_DEN
    wy, wx = (num * i % RESIZE_DEN) * inv, (num * j % RESIZE_DEN) * inv
    top = src[sy, sx] + wx * (src[sy, sx + 1] - src[sy, sx])
    bottom = src[sy + 1, sx] + wx * (src[sy + 1, sx + 1] - src[sy + 1, sx])
    return {"out": u.as_dtype_of(top + wy * (bottom - top), inputs["src"])}


RESIZE_BILINEAR = KernelSpec(
    name="resize_bilinear",
    role=KernelRole.UNSEEN,
    description=f"Bilinear resampling to m x n by the ratio 4/{RESIZE_DEN} (shrink) or "
                f"2/{RESIZE_DEN} (grow) along each axis: source pixels found by "
                f"integer division (non-unit, uneven strides), weights from the "
                f"remainders, four loads and three interpolations per output pixel.",
    parameters=("m", "n"),
    variants=tuple(_RESIZE_NUM),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_resize,
    size_cases=_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_resize_inputs, "shrink"),
    reference=partial(_resize_reference, "shrink"),
    variant_make_inputs=_resize_inputs,
    variant_reference=_resize_reference,
    check_params={"m": 45, "n": 70},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (SOBEL_GRADIENT, IMAGE_FLIP, RESIZE_BILINEAR)
