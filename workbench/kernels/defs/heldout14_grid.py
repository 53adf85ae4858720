"""The fourteenth held-out set's kernels on 2-D groups: the curl or divergence of a
velocity field, image padding, an im2col unfold, a pixel shuffle.

What the set is for, and the other kernels, are in :mod:`.heldout14`.

* ``curl_div2d``: the curl (vorticity) or the divergence of a 2-D velocity field
  given as two planes with a one-cell border, by central differences on a grid of
  unequal spacings.
* ``pad_reflect``: an image padded by a few pixels on every side, by reflection
  about its edge pixels (numpy's "reflect") or by repeating them ("edge"); the
  source indices computed per pixel from integer comparisons.
* ``im2col3x3``: the unfold before a 3 x 3 convolution as a matrix product: nine
  shifted copies of an image, the shift clamped at the border and the outside read
  as zero (zero_pad) or as the edge pixel (edge_pad).
* ``pixel_shuffle``: depth to space by a factor of two (four channels become a
  2 x 2 block of one channel), or its inverse, space to depth.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ curl and divergence

CURL_DX, CURL_DY = 1.0, 2.0
_CURL_CONSTS = (("half_inv_dx", 0.5 / CURL_DX), ("half_inv_dy", 0.5 / CURL_DY))
#: variant -> the derivative combination, from central differences of u and v
CURL_FORMS: Mapping[str, str] = {
    "curl": "(v[i + 1, j + 2] - v[i + 1, j]) * half_inv_dx "
            "- (u[i + 2, j + 1] - u[i, j + 1]) * half_inv_dy",
    "divergence": "(u[i + 1, j + 2] - u[i + 1, j]) * half_inv_dx "
                  "+ (v[i + 2, j + 1] - v[i, j + 1]) * half_inv_dy",
}


def _build_curl(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(CURL_FORMS), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            out[i, j] = {CURL_FORMS[req.variant]}
        end
        """,
        [u.array("u", req.dtype, ("m + 2", "n + 2")), u.array("v", req.dtype, ("m + 2", "n + 2")),
         u.array("out", req.dtype, ("m", "n")), *u.scalar_args(req.dtype, _CURL_CONSTS),
         *u.size_args("m", "n")],
        name="curl_div2d", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _curl_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # a linear field plus noise: curl near 2 and divergence near 1 (never near zero,
    # so a relative tolerance holds), the noise making every neighbour count
    y, x = np.meshgrid(CURL_DY * np.arange(m + 2), CURL_DX * np.arange(n + 2), indexing="ij")
    uf = 0.5 * x - 1.0 * y + rng.uniform(-0.05, 0.05, x.shape)
    vf = 1.0 * x + 0.5 * y + rng.uniform(-0.05, 0.05, x.shape)
    return {"u": np.asarray(uf, dtype=dtype.numpy), "v": np.asarray(vf, dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _CURL_CONSTS)}


def _curl_reference(variant: str, inputs, params) -> dict:
    uf, vf = inputs["u"].astype(np.float64), inputs["v"].astype(np.float64)
    dx = lambda f: (f[1:-1, 2:] - f[1:-1, :-2]) / (2 * CURL_DX)  # noqa: E731
    dy = lambda f: (f[2:, 1:-1] - f[:-2, 1:-1]) / (2 * CURL_DY)  # noqa: E731
    out = dx(vf) - dy(uf) if variant == "curl" else dx(uf) + dy(vf)
    return {"out": u.as_dtype_of(out, inputs["u"])}


CURL_DIV2D = KernelSpec(
    name="curl_div2d",
    role=KernelRole.UNSEEN,
    description=f"The curl (dv/dx - du/dy) or the divergence (du/dx + dv/dy) of a 2-D "
                f"velocity field in two (m + 2) x (n + 2) planes, by central differences "
                f"(spacings {CURL_DX} and {CURL_DY}): four reads from two planes per cell.",
    parameters=("m", "n"),
    variants=tuple(CURL_FORMS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_curl,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_curl_inputs,
    reference=partial(_curl_reference, "curl"),
    variant_reference=_curl_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-4,
)

# }}}


# {{{ image padding

PAD = 4
#: variant -> the source index along an axis of extent {size}, from k = out index - PAD
PAD_INDEX: Mapping[str, tuple[str, str]] = {
    "reflect": ("k - 2 * neg * k", "a + over * (2 * {size} - 2 - 2 * a)"),
    "edge": ("k - neg * k", "a + over * ({size} - 1 - a)"),
}


def _build_pad(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(PAD_INDEX), 2)
    first, second = PAD_INDEX[req.variant]
    lines = []
    for axis, it, size in (("r", "i", "m"), ("c", "j", "n")):
        subs = lambda e: e.replace("neg", f"neg{axis}").replace("over", f"over{axis}") \
            .replace("k", f"k{axis}").replace("a", f"a{axis}")  # noqa: E731
        lines += [f"<int32> k{axis} = {it} - {PAD} {{id=k{axis}}}",
                  f"<int32> neg{axis} = k{axis} < 0 {{id=neg{axis}, dep=k{axis}}}",
                  f"<int32> a{axis} = {subs(first)} {{id=a{axis}, dep=neg{axis}}}",
                  f"<int32> over{axis} = a{axis} > {size} - 1 {{id=over{axis}, dep=a{axis}}}",
                  f"<int32> s{axis} = {subs(second.format(size=size))} "
                  f"{{id=s{axis}, dep=over{axis}}}"]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        f"{{[i, j]: 0 <= i < m + {2 * PAD} and 0 <= j < n + {2 * PAD}}}",
        f"""
        for i, j
            {body}
            out[i, j] = img[sr, sc] {{dep=sr:sc}}
        end
        """,
        [u.array("img", req.dtype, ("m", "n")),
         u.array("out", req.dtype, (f"m + {2 * PAD}", f"n + {2 * PAD}")), *u.size_args("m", "n")],
        name="pad_reflect", assumptions=f"m >= {PAD + 1} and n >= {PAD + 1}")
    return u.split_2d(knl, "i", "j", req.group_size)


def _pad_inputs(params, dtype, rng) -> dict:
    # distinct values: a wrong source pixel never reads the right value
    return {"img": u.random_array(rng, (params["m"], params["n"]), dtype, low=0.5, high=1.5)}


def _pad_reference(variant: str, inputs, params) -> dict:
    img = inputs["img"]
    return {"out": np.pad(img, PAD, mode="reflect" if variant == "reflect" else "edge")}


PAD_REFLECT = KernelSpec(
    name="pad_reflect",
    role=KernelRole.UNSEEN,
    description=f"An m x n image padded by {PAD} pixels on each side: each output pixel "
                f"reads the source pixel given per axis by integer arithmetic on its "
                f"offset and a comparison or two, reflected about the edge pixels (reflect) or clamped to them "
                f"(edge); a copy with data-dependent-looking indices.",
    parameters=("m", "n"),
    variants=tuple(PAD_INDEX),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_pad,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_pad_inputs,
    reference=partial(_pad_reference, "reflect"),
    variant_reference=_pad_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-7,
)

# }}}


# {{{ im2col for a 3 x 3 window

_SHIFTS = (-1, 0, 1)
_IM2COL_VARIANTS = ("zero_pad", "edge_pad")


def _build_im2col(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _IM2COL_VARIANTS, 2)
    zero = req.variant == "zero_pad"
    # the shifted index clamped with the comparison as an integer: i - (i >= 1) and
    # i + (i + 1 < m); zero_pad also multiplies by the comparisons
    lines = ["<int32> in_r0 = i >= 1 {id=in_r0}", "<int32> in_r2 = i + 1 < m {id=in_r2}",
             "<int32> in_c0 = j >= 1 {id=in_c0}", "<int32> in_c2 = j + 1 < n {id=in_c2}",
             "<int32> r0 = i - in_r0 {id=r0, dep=in_r0}", "<int32> r2 = i + in_r2 {id=r2, dep=in_r2}",
             "<int32> c0 = j - in_c0 {id=c0, dep=in_c0}", "<int32> c2 = j + in_c2 {id=c2, dep=in_c2}"]
    rows = {-1: ("r0", "in_r0"), 0: ("i", None), 1: ("r2", "in_r2")}
    cols = {-1: ("c0", "in_c0"), 0: ("j", None), 1: ("c2", "in_c2")}
    for k, (di, dj) in enumerate((di, dj) for di in _SHIFTS for dj in _SHIFTS):
        (r, mr), (c, mc) = rows[di], cols[dj]
        masks = [x for x in (mr, mc) if x and zero]
        value = " * ".join([*masks, f"img[{r}, {c}]"])
        lines.append(f"cols[{k}, i, j] = {value} {{dep=r*:c*}}")
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {body}
        end
        """,
        [u.array("img", req.dtype, ("m", "n")), u.array("cols", req.dtype, (9, "m", "n")),
         *u.size_args("m", "n")],
        name="im2col3x3", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def _im2col_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    img = inputs["img"]
    padded = np.pad(img, 1, mode="constant" if variant == "zero_pad" else "edge")
    cols = np.stack([padded[1 + di:1 + di + m, 1 + dj:1 + dj + n]
                     for di in _SHIFTS for dj in _SHIFTS])
    return {"cols": np.ascontiguousarray(cols)}


IM2COL3X3 = KernelSpec(
    name="im2col3x3",
    role=KernelRole.UNSEEN,
    description="The unfold of an m x n image for a 3 x 3 convolution as a matrix "
                "product: nine m x n planes, each the image shifted by one of the window's "
                "offsets, the shifted index clamped at the border (an integer comparison "
                "added) "
                "and, with zero_pad, the outside masked to zero (edge_pad: the edge pixel).",
    parameters=("m", "n"),
    variants=_IM2COL_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_im2col,
    size_cases=u.doubling_rectangles,
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=_pad_inputs,
    reference=partial(_im2col_reference, "zero_pad"),
    variant_reference=_im2col_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-7,
)

# }}}


# {{{ pixel shuffle

SHUFFLE_CHANNELS = 4
_BLOCK = tuple((dy, dx) for dy in (0, 1) for dx in (0, 1))
_SHUFFLE_VARIANTS = ("depth_to_space", "space_to_depth")


def _build_shuffle(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _SHUFFLE_VARIANTS, 2)
    pairs = [(f"low[4 * c + {2 * dy + dx}, i, j]", f"high[c, 2 * i + {dy}, 2 * j + {dx}]")
             for dy, dx in _BLOCK]
    if req.variant == "depth_to_space":
        stores = [f"{hi} = {lo}" for lo, hi in pairs]
        read, written = "low", "high"
    else:
        stores = [f"{lo} = {hi}" for lo, hi in pairs]
        read, written = "high", "low"
    body = "\n            ".join(stores)
    shapes = {"low": (4 * SHUFFLE_CHANNELS, "m", "n"), "high": (SHUFFLE_CHANNELS, "2 * m", "2 * n")}
    knl = u.make_kernel(
        f"{{[c, i, j]: 0 <= c < {SHUFFLE_CHANNELS} and 0 <= i < m and 0 <= j < n}}",
        f"""
        for i, j, c
            {body}
        end
        """,
        [u.array(read, req.dtype, shapes[read]), u.array(written, req.dtype, shapes[written]),
         *u.size_args("m", "n")],
        name="pixel_shuffle", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _shuffle_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    shape = ((4 * SHUFFLE_CHANNELS, m, n) if variant == "depth_to_space"
             else (SHUFFLE_CHANNELS, 2 * m, 2 * n))
    name = "low" if variant == "depth_to_space" else "high"
    return {name: u.random_array(rng, shape, dtype, low=0.5, high=1.5)}


def _shuffle_reference(variant: str, inputs, params) -> dict:
    m, n, ch = params["m"], params["n"], SHUFFLE_CHANNELS
    if variant == "depth_to_space":
        low = inputs["low"].reshape(ch, 2, 2, m, n)
        return {"high": np.ascontiguousarray(low.transpose(0, 3, 1, 4, 2).reshape(ch, 2 * m, 2 * n))}
    high = inputs["high"].reshape(ch, m, 2, n, 2)
    return {"low": np.ascontiguousarray(high.transpose(0, 2, 4, 1, 3).reshape(4 * ch, m, n))}


PIXEL_SHUFFLE = KernelSpec(
    name="pixel_shuffle",
    role=KernelRole.UNSEEN,
    description=f"A pixel shuffle by a factor of two for {SHUFFLE_CHANNELS} output "
                f"channels: depth_to_space turns {4 * SHUFFLE_CHANNELS} m x n planes into "
                f"{SHUFFLE_CHANNELS} 2m x 2n ones (four reads, a 2 x 2 block written per "
                f"work item and channel); space_to_depth is the inverse.",
    parameters=("m", "n"),
    variants=_SHUFFLE_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_shuffle,
    size_cases=u.doubling_rectangles,
    default_p=10,
    # the largest case at p = 11 would pass 8 GB in float64 (both arrays)
    p_choices=(8, 9, 10),
    make_inputs=partial(_shuffle_inputs, "depth_to_space"),
    reference=partial(_shuffle_reference, "depth_to_space"),
    variant_make_inputs=_shuffle_inputs,
    variant_reference=_shuffle_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-7,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (CURL_DIV2D, PAD_REFLECT, IM2COL3X3, PIXEL_SHUFFLE)
