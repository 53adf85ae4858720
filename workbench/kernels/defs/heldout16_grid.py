"""The sixteenth held-out set's image and signal kernels: four on 2-D groups and a 1-D
resampler.

What the set is for, and the other kernels, are in :mod:`.heldout16`.

* ``yuv420_to_rgb``: a 4:2:0 YUV frame (full-size luma, chroma at half resolution each
  way) to three RGB planes, one work item per 2 x 2 block sharing a chroma sample, the
  result clamped to [0, 1]; full-range or video-range luma.
* ``structure_tensor_corners``: a corner measure per pixel from the 3 x 3 window sums of
  the products of given gradient planes: Noble's det / trace or the smaller eigenvalue.
* ``affine_warp``: an image warped by an affine map: each output pixel's source point,
  clamped to the image, sampled bilinearly; one plane or three sharing the weights. The
  clamp's upper bound is the int32 size minus one, and loopy (numpy's promotion) makes
  int32 against float32 a double: in the float32 variants the source point, its cell
  and its weights are computed in double, the samples in float32, as a user's kernel
  written this way gets them (the device measured it so).
* ``autocorr_lags``: the autocorrelation of each row of a batch of signals over a
  window, one work item per (row, lag), raw or divided by the zero-lag energy.
* ``catmull_rom_resample``: a signal resampled at a fixed ratio by the 4-tap
  Catmull-Rom cubic, or by linear interpolation.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ 4:2:0 YUV to RGB

#: variant -> (luma scale, luma offset): video range maps [16, 235] / 255 to [0, 1]
YUV_RANGES: Mapping[str, tuple[float, float]] = {
    "full_range": (1.0, 0.0), "video_range": (255.0 / 219.0, 16.0 / 255.0)}
#: BT.601 chroma weights: R = Y + 1.402 V, G = Y - 0.344136 U - 0.714136 V, B = Y + 1.772 U
_YUV_WEIGHTS = (("rv", 1.402), ("gu", 0.344136), ("gv", 0.714136), ("bu", 1.772))


def _yuv_consts(variant: str):
    scale, offset = YUV_RANGES[variant]
    return (("zero", 0.0), ("one", 1.0), ("c_half", 0.5), ("y_scale", scale),
            ("y_offset", offset), *_YUV_WEIGHTS)


def _build_yuv(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(YUV_RANGES), 2)
    lines = ["<> cu = u_plane[i, j] - c_half {id=cu}", "<> cv = v_plane[i, j] - c_half {id=cv}",
             "<> dr = rv * cv {id=dr, dep=cv}", "<> dg = -gu * cu - gv * cv {id=dg, dep=cu:cv}",
             "<> db = bu * cu {id=db, dep=cu}"]
    for a in (0, 1):
        for b in (0, 1):
            pix = f"2 * i + {a}, 2 * j + {b}"
            lines.append(f"<> l{a}{b} = (y_plane[{pix}] - y_offset) * y_scale {{id=l{a}{b}}}")
            for ch in "rgb":
                lines.append(f"{ch}_out[{pix}] = fmin(fmax(l{a}{b} + d{ch}, zero), one) "
                             f"{{dep=l{a}{b}:d{ch}}}")
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {body}
        end
        """,
        [u.array("y_plane", req.dtype, ("2 * m", "2 * n")),
         u.array("u_plane", req.dtype, ("m", "n")), u.array("v_plane", req.dtype, ("m", "n")),
         *(u.array(f"{ch}_out", req.dtype, ("2 * m", "2 * n")) for ch in "rgb"),
         *u.scalar_args(req.dtype, _yuv_consts(req.variant)), *u.size_args("m", "n")],
        name="yuv420_to_rgb", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def yuv_to_rgb(variant: str, y, u_plane, v_plane) -> np.ndarray:
    """(float64) the clamped RGB planes (3, 2m, 2n) of a 4:2:0 frame."""
    scale, offset = YUV_RANGES[variant]
    lum = (np.asarray(y, np.float64) - offset) * scale
    cu = np.repeat(np.repeat(np.asarray(u_plane, np.float64) - 0.5, 2, 0), 2, 1)
    cv = np.repeat(np.repeat(np.asarray(v_plane, np.float64) - 0.5, 2, 0), 2, 1)
    w = dict(_YUV_WEIGHTS)
    raw = np.stack([lum + w["rv"] * cv, lum - w["gu"] * cu - w["gv"] * cv, lum + w["bu"] * cu])
    return raw


def _yuv_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # saturated colours: many channels clamp at 0 or at 1; luma redrawn where an
    # unclamped channel would lie within 0.03 of 0 (a relative tolerance holds)
    y = rng.uniform(0.0, 1.0, (2 * m, 2 * n))
    uv = rng.uniform(0.0, 1.0, (2, m, n))
    y = u.redraw_until_good(
        y, lambda k: rng.uniform(0.0, 1.0, k),
        lambda y: (np.abs(yuv_to_rgb(variant, y, uv[0], uv[1])) < 0.03).any(axis=0), tries=200)
    return {"y_plane": np.asarray(y, dtype=dtype.numpy),
            "u_plane": np.asarray(uv[0], dtype=dtype.numpy),
            "v_plane": np.asarray(uv[1], dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _yuv_consts(variant))}


def _yuv_reference(variant: str, inputs, params) -> dict:
    rgb = np.clip(yuv_to_rgb(variant, inputs["y_plane"], inputs["u_plane"], inputs["v_plane"]),
                  0.0, 1.0)
    return {f"{ch}_out": u.as_dtype_of(rgb[k], inputs["y_plane"]) for k, ch in enumerate("rgb")}


YUV420_TO_RGB = KernelSpec(
    name="yuv420_to_rgb",
    role=KernelRole.UNSEEN,
    description="A 4:2:0 YUV frame (luma 2m x 2n, two chroma planes m x n) to three RGB "
                "planes by the BT.601 weights: one work item per 2 x 2 pixel block "
                "reading its chroma sample once and four luma values, each of the twelve "
                "results clamped to [0, 1]; luma as is (full_range) or stretched from "
                "[16, 235] / 255 (video_range).",
    parameters=("m", "n"),
    variants=tuple(YUV_RANGES),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_yuv,
    size_cases=u.doubling_rectangles,
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=partial(_yuv_inputs, "full_range"),
    reference=partial(_yuv_reference, "full_range"),
    variant_make_inputs=_yuv_inputs,
    variant_reference=_yuv_reference,
    check_params={"m": 23, "n": 35},
    rtol=1e-4,
)

# }}}


# {{{ corner measures from the structure tensor

_CORNER_VARIANTS = ("noble", "min_eigen")
_CORNER_CONSTS = (("one_half", 0.5), ("eps", 1e-6))


def _build_corners(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _CORNER_VARIANTS, 2)
    terms = {"xx": "gx[i + {a}, j + {b}] * gx[i + {a}, j + {b}]",
             "yy": "gy[i + {a}, j + {b}] * gy[i + {a}, j + {b}]",
             "xy": "gx[i + {a}, j + {b}] * gy[i + {a}, j + {b}]"}
    lines = [f"<> s{k} = " + " + ".join(t.format(a=a, b=b) for a in range(3) for b in range(3))
             + f" {{id=s{k}}}" for k, t in terms.items()]
    if req.variant == "noble":
        lines.append("score[i, j] = (sxx * syy - sxy * sxy) / (sxx + syy + eps) {dep=s*}")
    else:
        lines.append("score[i, j] = one_half * (sxx + syy) - sqrt(one_half * one_half * "
                     "(sxx - syy) * (sxx - syy) + sxy * sxy) {dep=s*}")
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {body}
        end
        """,
        [u.array("gx", req.dtype, ("m + 2", "n + 2")), u.array("gy", req.dtype, ("m + 2", "n + 2")),
         u.array("score", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, _CORNER_CONSTS), *u.size_args("m", "n")],
        name="structure_tensor_corners", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def window_sums(gx, gy) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(float64) the 3 x 3 window sums of gx^2, gy^2 and gx gy of bordered planes."""
    gx, gy = np.asarray(gx, np.float64), np.asarray(gy, np.float64)
    m, n = gx.shape[0] - 2, gx.shape[1] - 2

    def box(f):
        return sum(f[a:a + m, b:b + n] for a in range(3) for b in range(3))
    return box(gx * gx), box(gy * gy), box(gx * gy)


def _corner_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # gradients of every sign and direction (windows far from degenerate)
    return {"gx": np.asarray(rng.uniform(-1.0, 1.0, (m + 2, n + 2)), dtype=dtype.numpy),
            "gy": np.asarray(rng.uniform(-1.0, 1.0, (m + 2, n + 2)), dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _CORNER_CONSTS)}


def _corner_reference(variant: str, inputs, params) -> dict:
    sxx, syy, sxy = window_sums(inputs["gx"], inputs["gy"])
    if variant == "noble":
        score = (sxx * syy - sxy * sxy) / (sxx + syy + 1e-6)
    else:
        score = 0.5 * (sxx + syy) - np.sqrt(0.25 * (sxx - syy) ** 2 + sxy * sxy)
    return {"score": u.as_dtype_of(score, inputs["gx"])}


STRUCTURE_TENSOR_CORNERS = KernelSpec(
    name="structure_tensor_corners",
    role=KernelRole.UNSEEN,
    description="A corner measure per pixel of an m x n image from its gradient planes "
                "(given, with a one-pixel border): the 3 x 3 window sums of gx^2, gy^2 "
                "and gx gy (eighteen reads), then Noble's det / trace (noble) or the "
                "smaller eigenvalue of the 2 x 2 tensor by a square root (min_eigen).",
    parameters=("m", "n"),
    variants=_CORNER_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_corners,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_corner_inputs,
    reference=partial(_corner_reference, "noble"),
    variant_reference=_corner_reference,
    check_params={"m": 45, "n": 70},
    rtol=2e-3,
)

# }}}


# {{{ affine warp

#: the map from output (column, row) to source (x, y): a rotation by 0.3 rad, a scale
#: of 1.15 and a shift, so that part of the output falls outside the source
WARP = ((1.15 * np.cos(0.3), -1.15 * np.sin(0.3), 6.0),
        (1.15 * np.sin(0.3), 1.15 * np.cos(0.3), -9.0))
_WARP_CONSTS = (("zero", 0.0), *((f"a{r}{c}", WARP[r][c]) for r in range(2) for c in range(3)))
_WARP_PLANES: Mapping[str, tuple[str, ...]] = {"gray": ("",), "rgb": ("_r", "_g", "_b")}


def _build_warp(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_WARP_PLANES), 2)
    lines = ["<> sx = fmin(fmax(a00 * j + a01 * i + a02, zero), n - 1) {id=sx}",
             "<> sy = fmin(fmax(a10 * j + a11 * i + a12, zero), m - 1) {id=sy}",
             "<> fx = fmin(floor(sx), n - 2) {id=fx, dep=sx}",
             "<> fy = fmin(floor(sy), m - 2) {id=fy, dep=sy}",
             "<int32> kx = fx {id=kx, dep=fx}", "<int32> ky = fy {id=ky, dep=fy}",
             "<> wx = sx - fx {id=wx, dep=fx}", "<> wy = sy - fy {id=wy, dep=fy}"]
    for p in _WARP_PLANES[req.variant]:
        src = f"src{p}"
        lines += [f"<> top{p} = {src}[ky, kx] + wx * ({src}[ky, kx + 1] - {src}[ky, kx]) "
                  f"{{id=top{p}, dep=kx:ky:wx}}",
                  f"<> bot{p} = {src}[ky + 1, kx] + wx * ({src}[ky + 1, kx + 1] "
                  f"- {src}[ky + 1, kx]) {{id=bot{p}, dep=kx:ky:wx}}",
                  f"out{p}[i, j] = top{p} + wy * (bot{p} - top{p}) {{dep=top{p}:bot{p}:wy}}"]
    body = "\n            ".join(lines)
    planes = _WARP_PLANES[req.variant]
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {body}
        end
        """,
        [*(u.array(f"src{p}", req.dtype, ("m", "n")) for p in planes),
         *(u.array(f"out{p}", req.dtype, ("m", "n")) for p in planes),
         *u.scalar_args(req.dtype, _WARP_CONSTS), *u.size_args("m", "n")],
        name="affine_warp", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def _warp_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    return {f"src{p}": u.random_array(rng, (m, n), dtype, low=0.5, high=1.5)
            for p in _WARP_PLANES[variant]} | u.scalar_inputs(dtype, _WARP_CONSTS)


def _warp_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    rows, cols = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    sx = np.clip(WARP[0][0] * cols + WARP[0][1] * rows + WARP[0][2], 0, n - 1)
    sy = np.clip(WARP[1][0] * cols + WARP[1][1] * rows + WARP[1][2], 0, m - 1)
    fx, fy = np.minimum(np.floor(sx), n - 2), np.minimum(np.floor(sy), m - 2)
    kx, ky, wx, wy = fx.astype(np.int64), fy.astype(np.int64), sx - fx, sy - fy
    out = {}
    for p in _WARP_PLANES[variant]:
        s = inputs[f"src{p}"].astype(np.float64)
        top = s[ky, kx] + wx * (s[ky, kx + 1] - s[ky, kx])
        bot = s[ky + 1, kx] + wx * (s[ky + 1, kx + 1] - s[ky + 1, kx])
        out[f"out{p}"] = u.as_dtype_of(top + wy * (bot - top), inputs[f"src{p}"])
    return out


AFFINE_WARP = KernelSpec(
    name="affine_warp",
    role=KernelRole.UNSEEN,
    description="An m x n image warped by a fixed affine map (rotation, scale, shift; "
                "six scalars): per output pixel its source point, clamped to the image, "
                "its cell by two floors, and a bilinear sample of four reads; one plane "
                "(gray) or three planes sharing the point and weights (rgb).",
    parameters=("m", "n"),
    variants=tuple(_WARP_PLANES),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_warp,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_warp_inputs, "gray"),
    reference=partial(_warp_reference, "gray"),
    variant_make_inputs=_warp_inputs,
    variant_reference=_warp_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-4,
)

# }}}


# {{{ autocorrelation over lags

#: samples in each product window
AUTOCORR_WINDOW = 64
_AUTOCORR_VARIANTS = ("raw", "normalized")


def _build_autocorr(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _AUTOCORR_VARIANTS, 2)
    if req.variant == "raw":
        store = "acf[b, lag] = r {dep=r}"
    else:
        store = """<> e0 = sum(k2, x[b, k2] * x[b, k2]) {id=e0}
            acf[b, lag] = r / e0 {dep=r:e0}"""
    knl = u.make_kernel(
        ["{[b, lag]: 0 <= b < m and 0 <= lag < n}",
         f"{{[k{', k2' * (req.variant != 'raw')}]: 0 <= k{', k2' * (req.variant != 'raw')} < "
         f"{AUTOCORR_WINDOW}}}"],
        f"""
        for b, lag
            <> r = sum(k, x[b, k] * x[b, k + lag]) {{id=r}}
            {store}
        end
        """,
        [u.array("x", req.dtype, ("m", f"n + {AUTOCORR_WINDOW}")),
         u.array("acf", req.dtype, ("m", "n")), *u.size_args("m", "n")],
        name="autocorr_lags", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "b", "lag", req.group_size)


def _autocorr_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    return {"x": u.random_array(rng, (m, n + AUTOCORR_WINDOW), dtype, low=0.5, high=1.5)}


def _autocorr_reference(variant: str, inputs, params) -> dict:
    x = inputs["x"].astype(np.float64)
    n, w = params["n"], AUTOCORR_WINDOW
    acf = np.stack([(x[:, :w] * x[:, lag:lag + w]).sum(1) for lag in range(n)], axis=1)
    if variant == "normalized":
        acf = acf / (x[:, :w] ** 2).sum(1, keepdims=True)
    return {"acf": u.as_dtype_of(acf, inputs["x"])}


AUTOCORR_LAGS = KernelSpec(
    name="autocorr_lags",
    role=KernelRole.UNSEEN,
    description=f"The autocorrelation of m signals (rows of n + {AUTOCORR_WINDOW} "
                f"samples) at n lags over a {AUTOCORR_WINDOW}-sample window: one work "
                f"item per (signal, lag) summing {AUTOCORR_WINDOW} products of the "
                f"window with its shifted copy (raw), and divided by the window's energy "
                f"summed again per item (normalized).",
    parameters=("m", "n"),
    variants=_AUTOCORR_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_autocorr,
    size_cases=u.doubling_rectangles,
    default_p=9,
    p_choices=(8, 9, 10),
    make_inputs=_autocorr_inputs,
    reference=partial(_autocorr_reference, "raw"),
    variant_reference=_autocorr_reference,
    check_params={"m": 30, "n": 40},
    rtol=1e-4,
)

# }}}


# {{{ Catmull-Rom resampling

#: input samples per output sample (a downsampling by 3/4... upsampling by 4/3)
RESAMPLE_STEP = 0.75
_RESAMPLE_CONSTS = (("step", RESAMPLE_STEP), ("one", 1.0), ("c_half", 0.5), ("two", 2.0),
                    ("three", 3.0), ("four", 4.0), ("five", 5.0))
_RESAMPLE_VARIANTS = ("catmull_rom", "linear")


def _build_resample(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _RESAMPLE_VARIANTS, 1)
    if req.variant == "catmull_rom":
        value = ("c_half * (two * p1 + t * (p2 - p0) + t * t * (two * p0 - five * p1 + four * p2 "
                 "- p3) + t * t * t * (three * (p1 - p2) + p3 - p0))")
        reads = """<> p0 = sig[k] {id=p0, dep=k}
            <> p1 = sig[k + 1] {id=p1, dep=k}
            <> p2 = sig[k + 2] {id=p2, dep=k}
            <> p3 = sig[k + 3] {id=p3, dep=k}"""
        deps = "p0:p1:p2:p3:t"
    else:
        value = "p1 + t * (p2 - p1)"
        reads = """<> p1 = sig[k + 1] {id=p1, dep=k}
            <> p2 = sig[k + 2] {id=p2, dep=k}"""
        deps = "p1:p2:t"
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> pos = i * step {{id=pos}}
            <> f = floor(pos) {{id=f, dep=pos}}
            <int32> k = f {{id=k, dep=f}}
            <> t = pos - f {{id=t, dep=f}}
            {reads}
            out[i] = {value} {{dep={deps}}}
        end
        """,
        # the signal's sample j sits at sig[j + 1]: one sample of padding before, and
        # enough after for the last output's four taps
        [u.array("sig", req.dtype, ("(3 * n) // 4 + 4",)), u.array("out", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _RESAMPLE_CONSTS), *u.size_args("n")],
        name="catmull_rom_resample", assumptions="n >= 4 and n mod 4 = 0")
    return u.split_1d(knl, "i", req.group_size)


def _resample_inputs(params, dtype, rng) -> dict:
    return {"sig": u.random_array(rng, ((3 * params["n"]) // 4 + 4,), dtype, low=0.5, high=1.5),
            **u.scalar_inputs(dtype, _RESAMPLE_CONSTS)}


def _resample_reference(variant: str, inputs, params) -> dict:
    n = params["n"]
    sig = inputs["sig"].astype(np.float64)
    pos = np.arange(n) * RESAMPLE_STEP
    k = np.floor(pos).astype(np.int64)
    t = pos - k
    p0, p1, p2, p3 = (sig[k + d] for d in range(4))
    if variant == "catmull_rom":
        out = 0.5 * (2 * p1 + t * (p2 - p0) + t ** 2 * (2 * p0 - 5 * p1 + 4 * p2 - p3)
                     + t ** 3 * (3 * (p1 - p2) + p3 - p0))
    else:
        out = p1 + t * (p2 - p1)
    return {"out": u.as_dtype_of(out, inputs["sig"])}


CATMULL_ROM_RESAMPLE = KernelSpec(
    name="catmull_rom_resample",
    role=KernelRole.UNSEEN,
    description=f"A signal resampled to n outputs at a step of {RESAMPLE_STEP} input "
                f"samples (an upsampling by 4/3): per output the position's floor and "
                f"fraction, then the 4-tap Catmull-Rom cubic (catmull_rom: four reads) "
                f"or a linear interpolation (linear: two reads).",
    parameters=("n",),
    variants=_RESAMPLE_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_resample,
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(4))),
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_resample_inputs,
    reference=partial(_resample_reference, "catmull_rom"),
    variant_reference=_resample_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (YUV420_TO_RGB, STRUCTURE_TENSOR_CORNERS, AFFINE_WARP,
                                 AUTOCORR_LAGS, CATMULL_ROM_RESAMPLE)
