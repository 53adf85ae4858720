"""The fourteenth held-out set (``--set heldout14``): kernels kept out of all fitting and design.

The thirteenth set (:mod:`.heldout13`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``shrink_threshold``: the proximal step of an L1 penalty (soft thresholding,
  branchless as max(x - lam, 0) + min(x + lam, 0)) or hard thresholding (a mask).
* ``tonemap_pixels``: HDR to display tone mapping of three colour planes: Reinhard's
  operator on the luminance, or the ACES filmic curve per channel, clamped to [0, 1].
* ``trapezoid_rows``: the integral of each row of samples of a function (one work
  item per row, reading along the row): the trapezoid rule or Simpson's rule.

The geometric kernels (ray_box_slab, segment_intersect) are in
:mod:`.heldout14_geometry`, those on 2-D groups (curl_div2d, pad_reflect, im2col3x3,
pixel_shuffle) in :mod:`.heldout14_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _scaled(p: int) -> tuple[int, ...]:
    return u.pow2(p, range(4))


# {{{ shrinkage thresholding

SHRINK_LAMBDA = 0.3
_SHRINK_CONSTS = (("lam", SHRINK_LAMBDA), ("zero", 0.0))
#: variant -> the thresholded value of x
SHRINK_RULES: Mapping[str, str] = {
    "soft": "fmax(x - lam, zero) + fmin(x + lam, zero)",
    "hard": "x * (fabs(x) > lam)",
}


def _build_shrink(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(SHRINK_RULES), 1)
    consts = _SHRINK_CONSTS if req.variant == "soft" else _SHRINK_CONSTS[:1]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> x = coef[i] {{id=x}}
            out[i] = {SHRINK_RULES[req.variant]} {{dep=x}}
        end
        """,
        [u.array("coef", req.dtype, ("n",)), u.array("out", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, consts), *u.size_args("n")],
        name="shrink_threshold", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _shrink_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # both signs, a third of the values inside the threshold (zeroed), none within
    # 0.02 of it (so that float32 and float64 agree on each side)
    mag = np.where(rng.random(n) < 1 / 3, rng.uniform(0.0, SHRINK_LAMBDA - 0.02, n),
                   rng.uniform(SHRINK_LAMBDA + 0.02, 1.5, n))
    x = mag * np.where(rng.random(n) < 0.5, -1.0, 1.0)
    consts = _SHRINK_CONSTS if variant == "soft" else _SHRINK_CONSTS[:1]
    return {"coef": np.asarray(x, dtype=dtype.numpy), **u.scalar_inputs(dtype, consts)}


def _shrink_reference(variant: str, inputs, params) -> dict:
    x = inputs["coef"].astype(np.float64)
    if variant == "soft":
        y = np.sign(x) * np.maximum(np.abs(x) - SHRINK_LAMBDA, 0.0)
    else:
        y = np.where(np.abs(x) > SHRINK_LAMBDA, x, 0.0)
    return {"out": u.as_dtype_of(y, inputs["coef"])}


SHRINK_THRESHOLD = KernelSpec(
    name="shrink_threshold",
    role=KernelRole.UNSEEN,
    description=f"Thresholding of n coefficients at lam = {SHRINK_LAMBDA}: soft (the L1 "
                f"proximal step, max(x - lam, 0) + min(x + lam, 0)) or hard (x where "
                f"|x| > lam, else 0: a comparison times x).",
    parameters=("n",),
    variants=tuple(SHRINK_RULES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_shrink,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=partial(_shrink_inputs, "soft"),
    reference=partial(_shrink_reference, "soft"),
    variant_make_inputs=_shrink_inputs,
    variant_reference=_shrink_reference,
    check_params={"n": 2000},
    rtol=1e-5,
)

# }}}


# {{{ tone mapping

_LUMA = (0.2126, 0.7152, 0.0722)
#: the ACES filmic fit (Narkowicz): (x (a x + b)) / (x (c x + d) + e)
ACES = (2.51, 0.03, 2.43, 0.59, 0.14)
_TONE_CONSTS: Mapping[str, tuple[tuple[str, float], ...]] = {
    "reinhard": (("one", 1.0), ("kr", _LUMA[0]), ("kg", _LUMA[1]), ("kb", _LUMA[2])),
    "aces": (("zero", 0.0), ("one", 1.0), *zip(("ka", "kb", "kc", "kd", "ke"), ACES)),
}
_PLANES = ("r", "g", "b")


def _build_tonemap(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_TONE_CONSTS), 1)
    if req.variant == "reinhard":
        body = ["<> scale = one / (one + kr * r + kg * g + kb * b) {id=scale, dep=r:g:b}",
                *(f"{c}_out[i] = {c} * scale {{dep=scale}}" for c in _PLANES)]
    else:
        body = [f"{c}_out[i] = fmin(fmax({c} * (ka * {c} + kb) / ({c} * (kc * {c} + kd) + ke), "
                f"zero), one) {{dep={c}}}" for c in _PLANES]
    loads = [f"<> {c} = {c}_in[i] {{id={c}}}" for c in _PLANES]
    lines = "\n            ".join(loads + body)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {lines}
        end
        """,
        [*(u.array(f"{c}_in", req.dtype, ("n",)) for c in _PLANES),
         *(u.array(f"{c}_out", req.dtype, ("n",)) for c in _PLANES),
         *u.scalar_args(req.dtype, _TONE_CONSTS[req.variant]), *u.size_args("n")],
        name="tonemap_pixels", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _tonemap_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # HDR values up to 12 (the ACES curve passes 1 near 7.24: the upper clamp), a
    # tenth slightly negative (as a colour-space conversion leaves them: the lower one)
    planes = {}
    for c in _PLANES:
        v = np.where(rng.random(n) < 0.1, rng.uniform(-0.05, -0.005, n),
                     rng.uniform(0.01, 12.0, n))
        planes[f"{c}_in"] = np.asarray(v, dtype=dtype.numpy)
    return planes | u.scalar_inputs(dtype, _TONE_CONSTS[variant])


def _tonemap_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    rgb = {c: f[f"{c}_in"] for c in _PLANES}
    if variant == "reinhard":
        lum = sum(k * rgb[c] for k, c in zip(_LUMA, _PLANES))
        out = {c: rgb[c] / (1.0 + lum) for c in _PLANES}
    else:
        a, b, c_, d, e = ACES
        out = {c: np.clip(x * (a * x + b) / (x * (c_ * x + d) + e), 0.0, 1.0)
               for c, x in rgb.items()}
    return {f"{c}_out": u.as_dtype_of(v, inputs["r_in"]) for c, v in out.items()}


TONEMAP_PIXELS = KernelSpec(
    name="tonemap_pixels",
    role=KernelRole.UNSEEN,
    description="HDR tone mapping of n pixels in three colour planes: reinhard (each "
                "channel divided by one plus the pixel's luminance) or aces (the ACES "
                "filmic rational curve per channel, a division each, clamped to [0, 1]).",
    parameters=("n",),
    variants=tuple(_TONE_CONSTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_tonemap,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_tonemap_inputs, "reinhard"),
    reference=partial(_tonemap_reference, "reinhard"),
    variant_make_inputs=_tonemap_inputs,
    variant_reference=_tonemap_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ row integrals

#: samples per row (an even number of intervals, as Simpson's rule needs)
ROW_SAMPLES = 65
_ROW_STEP = 1.0 / (ROW_SAMPLES - 1)
_TRAP_CONSTS: Mapping[str, tuple[tuple[str, float], ...]] = {
    "trapezoid": (("h", _ROW_STEP), ("one_half", 0.5)),
    "simpson": (("h_third", _ROW_STEP / 3.0), ("two", 2.0), ("four", 4.0)),
}
_LAST = ROW_SAMPLES - 1
_HALF = _LAST // 2


def _build_trapezoid(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_TRAP_CONSTS), 1)
    if req.variant == "trapezoid":
        domains = ["{[i]: 0 <= i < nrows}", f"{{[k]: 1 <= k < {_LAST}}}"]
        value = (f"h * (one_half * (y[i, 0] + y[i, {_LAST}]) + sum(k, y[i, k]))")
    else:
        domains = ["{[i]: 0 <= i < nrows}", f"{{[k]: 0 <= k < {_HALF}}}",
                   f"{{[e]: 1 <= e < {_HALF}}}"]
        value = (f"h_third * (y[i, 0] + y[i, {_LAST}] + four * sum(k, y[i, 2 * k + 1]) "
                 f"+ two * sum(e, y[i, 2 * e]))")
    knl = u.make_kernel(
        domains,
        f"""
        for i
            integral[i] = {value}
        end
        """,
        [u.array("y", req.dtype, ("nrows", ROW_SAMPLES)), u.array("integral", req.dtype, ("nrows",)),
         *u.scalar_args(req.dtype, _TRAP_CONSTS[req.variant]), *u.size_args("nrows")],
        name="trapezoid_rows", assumptions="nrows >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _trapezoid_inputs(variant: str, params, dtype, rng) -> dict:
    nrows = params["nrows"]
    # positive samples (well conditioned sums); the two ends drawn larger, so that a
    # rule with the wrong end weights is off by far more than the tolerance
    y = rng.uniform(0.5, 1.5, (nrows, ROW_SAMPLES))
    y[:, [0, _LAST]] += 5.0
    return {"y": np.asarray(y, dtype=dtype.numpy), **u.scalar_inputs(dtype, _TRAP_CONSTS[variant])}


def _trapezoid_reference(variant: str, inputs, params) -> dict:
    y = inputs["y"].astype(np.float64)
    if variant == "trapezoid":
        w = np.ones(ROW_SAMPLES)
        w[[0, _LAST]] = 0.5
        w *= _ROW_STEP
    else:
        w = np.where(np.arange(ROW_SAMPLES) % 2 == 1, 4.0, 2.0)
        w[[0, _LAST]] = 1.0
        w *= _ROW_STEP / 3.0
    return {"integral": u.as_dtype_of(y @ w, inputs["y"])}


TRAPEZOID_ROWS = KernelSpec(
    name="trapezoid_rows",
    role=KernelRole.UNSEEN,
    description=f"The integral over [0, 1] of each of nrows rows of {ROW_SAMPLES} samples "
                f"(one work item per row, reading along it): the trapezoid rule (half "
                f"weights at the ends, a sum over the inside) or Simpson's rule (sums over "
                f"the odd and the even inner samples, weights 4 and 2).",
    parameters=("nrows",),
    variants=tuple(_TRAP_CONSTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_trapezoid,
    size_cases=lambda p: tuple({"nrows": n} for n in _scaled(p)),
    default_p=17,
    p_choices=(16, 17, 18),
    make_inputs=partial(_trapezoid_inputs, "trapezoid"),
    reference=partial(_trapezoid_reference, "trapezoid"),
    variant_make_inputs=_trapezoid_inputs,
    variant_reference=_trapezoid_reference,
    check_params={"nrows": 2000},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (SHRINK_THRESHOLD, TONEMAP_PIXELS, TRAPEZOID_ROWS)
