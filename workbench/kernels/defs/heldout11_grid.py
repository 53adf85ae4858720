"""The eleventh held-out set's kernels on 2-D groups: a morphological filter, a
red-black relaxation sweep, an unsharp mask.

What the set is for, and the other kernels, are in :mod:`.heldout11`.

* ``morph_erode_dilate``: grey-scale erosion (the minimum) or dilation (the maximum)
  of each pixel's 3 x 3 neighbourhood, the image read with a one-pixel border.
* ``red_black_relax``: one half-sweep of red-black successive over-relaxation for the
  Poisson equation: the cells of one colour (parity of i + j) relaxed towards the mean
  of their four neighbours, the others copied.
* ``unsharp_mask``: an image sharpened by its difference from a 3 x 3 box blur (or a
  5-point cross blur), the result clamped to [0, 1].
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


_BOX = tuple((di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1))


# {{{ grey-scale erosion / dilation

#: variant -> the OpenCL function folding the neighbourhood
MORPH_FOLD: Mapping[str, str] = {"erode": "fmin", "dilate": "fmax"}


def _build_morph(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(MORPH_FOLD), 2)
    fold = MORPH_FOLD[req.variant]
    expr = f"img[i + {1 + _BOX[0][0]}, j + {1 + _BOX[0][1]}]"
    for di, dj in _BOX[1:]:
        expr = f"{fold}({expr}, img[i + {1 + di}, j + {1 + dj}])"
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            out[i, j] = {expr}
        end
        """,
        [u.array("img", req.dtype, ("m + 2", "n + 2")), u.array("out", req.dtype, ("m", "n")),
         *u.size_args("m", "n")],
        name="morph_erode_dilate", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _morph_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # distinct random values: the minimum and the maximum of each window are different
    # pixels, so a filter folding the wrong way (or missing a neighbour) fails
    return {"img": u.random_array(rng, (m + 2, n + 2), dtype, low=0.1, high=1.0)}


def _morph_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    img = inputs["img"]
    windows = np.stack([img[1 + di:1 + di + m, 1 + dj:1 + dj + n] for di, dj in _BOX])
    out = windows.min(axis=0) if variant == "erode" else windows.max(axis=0)
    return {"out": out.astype(img.dtype)}


MORPH_ERODE_DILATE = KernelSpec(
    name="morph_erode_dilate",
    role=KernelRole.UNSEEN,
    description="Grey-scale morphology of an m x n image read with a one-pixel border: "
                "each pixel replaced by the minimum (erosion) or the maximum (dilation) "
                "of its 3 x 3 neighbourhood (eight two-way minima or maxima).",
    parameters=("m", "n"),
    variants=tuple(MORPH_FOLD),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_morph,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_morph_inputs,
    reference=partial(_morph_reference, "erode"),
    variant_reference=_morph_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ red-black SOR half-sweep

_SOR_CONSTS = (("omega", 1.5), ("quarter", 0.25), ("h2", 0.01))
#: variant -> the parity of i + j of the cells relaxed
SOR_PARITY: Mapping[str, int] = {"red": 0, "black": 1}


def _build_sor(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(SOR_PARITY), 2)
    parity = SOR_PARITY[req.variant]
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <> centre = u[i + 1, j + 1] {{id=centre}}
            <> gs = quarter * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2]
                               - h2 * f[i, j]) {{id=gs}}
            <> relaxed = (i + j) % 2 == {parity} {{id=relaxed}}
            u_new[i, j] = centre + relaxed * omega * (gs - centre) {{dep=centre:gs:relaxed}}
        end
        """,
        [u.array("u", req.dtype, ("m + 2", "n + 2")), u.array("f", req.dtype, ("m", "n")),
         u.array("u_new", req.dtype, ("m", "n")), *u.scalar_args(req.dtype, _SOR_CONSTS),
         *u.size_args("m", "n")],
        name="red_black_relax", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _sor_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # the relaxed value (-0.5 c + 1.5 g) stays in [0.1, 2.9], away from zero, and
    # differs from the copied one: a wrong parity fails
    return {"u": u.random_array(rng, (m + 2, n + 2), dtype, low=1.0, high=2.0),
            "f": u.random_array(rng, (m, n), dtype, low=-1.0, high=1.0),
            **u.scalar_inputs(dtype, _SOR_CONSTS)}


def _sor_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    g = u.as_float64(inputs)["u"]
    f = inputs["f"].astype(np.float64)
    centre = g[1:-1, 1:-1]
    gs = 0.25 * (g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] - 0.01 * f)
    ii, jj = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    relaxed = (ii + jj) % 2 == SOR_PARITY[variant]
    out = np.where(relaxed, -0.5 * centre + 1.5 * gs, centre)
    return {"u_new": u.as_dtype_of(out, inputs["u"])}


RED_BLACK_RELAX = KernelSpec(
    name="red_black_relax",
    role=KernelRole.UNSEEN,
    description="One half-sweep of red-black successive over-relaxation (omega 1.5) "
                "for the 2-D Poisson equation on an m x n grid with a one-cell border: "
                "cells whose i + j has the sweep's parity move towards the mean of their "
                "four neighbours less the source term, the others are copied (the "
                "update times the parity test, 0 or 1).",
    parameters=("m", "n"),
    variants=tuple(SOR_PARITY),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_sor,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_sor_inputs,
    reference=partial(_sor_reference, "red"),
    variant_reference=_sor_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-4,
)

# }}}


# {{{ unsharp mask

#: variant -> (the blur's neighbour offsets, its weight)
_BLURS: Mapping[str, tuple[tuple[tuple[int, int], ...], float]] = {
    "box3": (_BOX, 1.0 / 9.0),
    "cross5": (((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)), 1.0 / 5.0),
}
_SHARP_CONSTS = (("amount", 1.5), ("zero", 0.0), ("one", 1.0))


def _build_unsharp(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_BLURS), 2)
    offsets, _ = _BLURS[req.variant]
    ring = " + ".join(f"img[i + {1 + di}, j + {1 + dj}]" for di, dj in offsets)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <> x = img[i + 1, j + 1] {{id=x}}
            <> blur = weight * ({ring}) {{id=blur}}
            out[i, j] = fmin(fmax(x + amount * (x - blur), zero), one) {{dep=x:blur}}
        end
        """,
        [u.array("img", req.dtype, ("m + 2", "n + 2")), u.array("out", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, (*_SHARP_CONSTS, ("weight", _BLURS[req.variant][1]))),
         *u.size_args("m", "n")],
        name="unsharp_mask", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _unsharp_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # pixels of three kinds: mid-grey ones sharpened inside (0, 1), and bright and dark
    # speckles pushed past 1 and below 0 (both clamps taken; their results exact)
    img = rng.uniform(0.4, 0.6, (m + 2, n + 2))
    kind = rng.random((m + 2, n + 2))
    img[kind < 0.1] = 0.02
    img[kind > 0.9] = 0.98
    return {"img": np.asarray(img, dtype=dtype.numpy),
            **u.scalar_inputs(dtype, (*_SHARP_CONSTS, ("weight", _BLURS[variant][1])))}


def unsharp_unclamped(img: np.ndarray, variant: str) -> np.ndarray:
    """The sharpened interior before the clamp, float64."""
    m, n = img.shape[0] - 2, img.shape[1] - 2
    offsets, weight = _BLURS[variant]
    blur = weight * sum(img[1 + di:1 + di + m, 1 + dj:1 + dj + n] for di, dj in offsets)
    x = img[1:-1, 1:-1]
    return x + 1.5 * (x - blur)


def _unsharp_reference(variant: str, inputs, params) -> dict:
    img = inputs["img"].astype(np.float64)
    out = np.clip(unsharp_unclamped(img, variant), 0.0, 1.0)
    return {"out": u.as_dtype_of(out, inputs["img"])}


UNSHARP_MASK = KernelSpec(
    name="unsharp_mask",
    role=KernelRole.UNSEEN,
    description="An m x n image (read with a one-pixel border) sharpened by an unsharp "
                "mask: the pixel plus 1.5 times its difference from a 3 x 3 box blur or "
                "a 5-point cross blur, clamped to [0, 1].",
    parameters=("m", "n"),
    variants=tuple(_BLURS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_unsharp,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_unsharp_inputs, "box3"),
    reference=partial(_unsharp_reference, "box3"),
    variant_make_inputs=_unsharp_inputs,
    variant_reference=_unsharp_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-3,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (MORPH_ERODE_DILATE, RED_BLACK_RELAX, UNSHARP_MASK)
