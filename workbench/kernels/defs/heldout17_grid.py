"""The seventeenth held-out set's image kernels on 2-D groups.

What the set is for, and the other kernels, are in :mod:`.heldout17`.

* ``bayer_superpixel``: an RGGB Bayer mosaic to half-resolution RGB planes, one work
  item per 2 x 2 cell (the two greens averaged); as is, or white-balanced by a gain on
  red and blue clamped at 1.
* ``census_transform3x3``: the census code of each pixel: a bit for each of its eight
  neighbours (clamped to the image) darker than it, the code stored as a value of the
  image's precision.
* ``vignette_correct``: each pixel multiplied by a radial gain (an even polynomial of
  its distance from the centre), the result clamped at 1.
"""

from __future__ import annotations

from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ Bayer mosaic to RGB, one output pixel per cell

#: variant -> (red gain, blue gain)
BAYER_GAINS = {"plain": (1.0, 1.0), "white_balance": (1.9, 1.6)}


def _bayer_consts(variant: str):
    return (("one", 1.0), ("one_half", 0.5), *zip(("red_gain", "blue_gain"), BAYER_GAINS[variant]))


def _build_bayer(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(BAYER_GAINS), 2)
    if req.variant == "white_balance":
        red = "fmin(red_gain * raw[2 * i, 2 * j], one)"
        blue = "fmin(blue_gain * raw[2 * i + 1, 2 * j + 1], one)"
    else:
        red, blue = "raw[2 * i, 2 * j]", "raw[2 * i + 1, 2 * j + 1]"
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            r_out[i, j] = {red}
            g_out[i, j] = one_half * (raw[2 * i, 2 * j + 1] + raw[2 * i + 1, 2 * j])
            b_out[i, j] = {blue}
        end
        """,
        [u.array("raw", req.dtype, ("2 * m", "2 * n")),
         *(u.array(f"{c}_out", req.dtype, ("m", "n")) for c in "rgb"),
         *u.scalar_args(req.dtype, _bayer_consts(req.variant)), *u.size_args("m", "n")],
        name="bayer_superpixel", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _bayer_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # sensor values 0.05 to 1: with the gains about half of red and blue clamp
    return {"raw": u.random_array(rng, (2 * m, 2 * n), dtype, low=0.05, high=1.0),
            **u.scalar_inputs(dtype, _bayer_consts(variant))}


def _bayer_reference(variant: str, inputs, params) -> dict:
    raw = inputs["raw"].astype(np.float64)
    gr, gb = BAYER_GAINS[variant]
    out = {"r_out": np.minimum(gr * raw[0::2, 0::2], 1.0),
           "g_out": 0.5 * (raw[0::2, 1::2] + raw[1::2, 0::2]),
           "b_out": np.minimum(gb * raw[1::2, 1::2], 1.0)}
    return {k: u.as_dtype_of(v, inputs["raw"]) for k, v in out.items()}


BAYER_SUPERPIXEL = KernelSpec(
    name="bayer_superpixel",
    role=KernelRole.UNSEEN,
    description="An RGGB Bayer mosaic (2m x 2n) to three m x n RGB planes, one work item "
                "per 2 x 2 cell: red and blue read once, the two greens averaged; as is "
                "(plain) or with a gain on red and blue clamped at 1 (white_balance).",
    parameters=("m", "n"),
    variants=tuple(BAYER_GAINS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_bayer,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_bayer_inputs, "white_balance"),
    reference=partial(_bayer_reference, "white_balance"),
    variant_make_inputs=_bayer_inputs,
    variant_reference=_bayer_reference,
    check_params={"m": 23, "n": 35},
    rtol=1e-6,
)

# }}}


# {{{ census transform

#: the neighbours' offsets, bit 0 first (row by row, the centre left out)
CENSUS_OFFSETS = tuple((di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1) if (di, dj) != (0, 0))


def _build_census(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("clamped",), 2)
    rows = {-1: "up", 0: "i", 1: "down"}
    cols = {-1: "left", 0: "j", 1: "right"}
    bits = " + ".join(f"{1 << b} * (img[{rows[di]}, {cols[dj]}] < c)"
                      for b, (di, dj) in enumerate(CENSUS_OFFSETS))
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <int32> up = i - 1 + (i == 0) {{id=up}}
            <int32> down = i + 1 - (i == m - 1) {{id=down}}
            <int32> left = j - 1 + (j == 0) {{id=left}}
            <int32> right = j + 1 - (j == n - 1) {{id=right}}
            <> c = img[i, j] {{id=c}}
            <int32> code = {bits} {{id=code, dep=up:down:left:right:c}}
            census[i, j] = code {{dep=code}}
        end
        """,
        [u.array("img", req.dtype, ("m", "n")), u.array("census", req.dtype, ("m", "n")),
         *u.size_args("m", "n")],
        name="census_transform3x3", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def census(img) -> np.ndarray:
    """The census code of each pixel of img, the border replicated."""
    img = np.asarray(img)
    pad = np.pad(img, 1, mode="edge")
    m, n = img.shape
    code = np.zeros(img.shape, np.int64)
    for b, (di, dj) in enumerate(CENSUS_OFFSETS):
        code += (pad[1 + di:1 + di + m, 1 + dj:1 + dj + n] < img).astype(np.int64) << b
    return code


def _census_inputs(params, dtype, rng) -> dict:
    # distinct random values (no ties) but for a few flat patches (equal neighbours)
    img = rng.uniform(0.0, 1.0, (params["m"], params["n"]))
    img[3:6, 3:7] = 0.5
    return {"img": np.asarray(img, dtype.numpy)}


def _census_reference(inputs, params) -> dict:
    return {"census": u.as_dtype_of(census(inputs["img"]), inputs["img"])}


CENSUS_TRANSFORM3X3 = KernelSpec(
    name="census_transform3x3",
    role=KernelRole.UNSEEN,
    description="The 3 x 3 census transform of an m x n image: per pixel, eight neighbour "
                "reads (indices kept in the image by adding the int32 edge tests) each compared "
                "with the centre, the comparisons weighted by 1 to 128 and summed into an "
                "int32 code stored in the image's precision.",
    parameters=("m", "n"),
    variants=("clamped",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_census,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_census_inputs,
    reference=_census_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-6,
)

# }}}


# {{{ vignetting correction

#: the radial gain 1 + K1 r^2 + K2 r^4, r relative to the half-diagonal
VIGNETTE_K1, VIGNETTE_K2 = 0.6, 0.3


def _vignette_consts(params):
    cy, cx = (params["m"] - 1) / 2.0, (params["n"] - 1) / 2.0
    return (("one", 1.0), ("cy", cy), ("cx", cx), ("inv_r2", 1.0 / (cx * cx + cy * cy)),
            ("k1", VIGNETTE_K1), ("k2", VIGNETTE_K2))


def _build_vignette(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("radial",), 2)
    ftype = req.dtype.value
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <{ftype}> di = i {{id=di}}
            <{ftype}> dj = j {{id=dj}}
            <> rr = ((di - cy) * (di - cy) + (dj - cx) * (dj - cx)) * inv_r2 \
                {{id=rr, dep=di:dj}}
            out[i, j] = fmin(img[i, j] * (one + rr * (k1 + k2 * rr)), one) {{dep=rr}}
        end
        """,
        [u.array("img", req.dtype, ("m", "n")), u.array("out", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, _vignette_consts({"m": 2, "n": 2})), *u.size_args("m", "n")],
        name="vignette_correct", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _vignette_inputs(params, dtype, rng) -> dict:
    # values 0.1 to 0.9: the corners' gain (1.9) clamps the brighter pixels there
    img = u.random_array(rng, (params["m"], params["n"]), dtype, low=0.1, high=0.9)
    return {"img": img, **u.scalar_inputs(dtype, _vignette_consts(params))}


def _vignette_reference(inputs, params) -> dict:
    m, n = params["m"], params["n"]
    consts = dict(_vignette_consts(params))
    i, j = np.meshgrid(np.arange(m, dtype=np.float64), np.arange(n, dtype=np.float64),
                       indexing="ij")
    rr = ((i - consts["cy"]) ** 2 + (j - consts["cx"]) ** 2) * consts["inv_r2"]
    out = np.minimum(inputs["img"] * (1.0 + rr * (VIGNETTE_K1 + VIGNETTE_K2 * rr)), 1.0)
    return {"out": u.as_dtype_of(out, inputs["img"])}


VIGNETTE_CORRECT = KernelSpec(
    name="vignette_correct",
    role=KernelRole.UNSEEN,
    description="An m x n image divided out of its lens vignetting: each pixel times "
                "1 + k1 r^2 + k2 r^4 of its squared distance from the centre relative to "
                "the half-diagonal (the indices converted to the image's precision), "
                "clamped at 1.",
    parameters=("m", "n"),
    variants=("radial",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_vignette,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_vignette_inputs,
    reference=_vignette_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-5,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (BAYER_SUPERPIXEL, CENSUS_TRANSFORM3X3, VIGNETTE_CORRECT)
