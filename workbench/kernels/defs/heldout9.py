"""The ninth held-out set (``--set heldout9``): kernels kept out of all fitting and design.

The eighth set (:mod:`.heldout8`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``silu_gate``: the SiLU (swish) activation x / (1 + exp(-x)), alone or gating a
  second input (SwiGLU).
* ``strided_copy``: every ``k``-th element of an array copied into a dense one
  (k = 2 or 8).
* ``cross_product_aos``: the cross product of two 3-vectors stored interleaved
  (stride 3), as it is or normalised by a reciprocal square root.
* ``moving_average8``: a sliding window of ``WINDOW`` inputs per output, equal
  weights or weights read from a small array.
* ``gamma_correct``: a clamp to [0, 1], then a power (gamma 1/2.2) or the sRGB
  transfer curve (a linear piece below a threshold, a power above it).
* ``haar_step``: one level of the Haar wavelet transform, forward (pairs to sums and
  differences, two planes) or inverse.

The kernels on 2-D groups (causal_mask, rgba_premultiply, diag_scale_matrix) are in
:mod:`.heldout9_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ SiLU / SwiGLU

_SILU_VARIANTS = ("silu", "swiglu")


def _build_silu(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _SILU_VARIANTS, 1)
    gated = req.variant == "swiglu"
    store = "out[i] = s * up[i] {dep=s}" if gated else "out[i] = s {dep=s}"
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> v = x[i] {{id=v}}
            <> s = v / (one + exp(-v)) {{id=s, dep=v}}
            {store}
        end
        """,
        [u.array("x", req.dtype, ("n",)), *([u.array("up", req.dtype, ("n",))] if gated else []),
         u.array("out", req.dtype, ("n",)), *u.scalar_args(req.dtype, (("one", 1.0),)),
         *u.size_args("n")],
        name="silu_gate", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _silu_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # both signs, away from zero (relative tolerances): |x| in [0.2, 6]
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    inputs = {"x": np.asarray(sign * rng.uniform(0.2, 6.0, n), dtype=dtype.numpy),
              **u.scalar_inputs(dtype, (("one", 1.0),))}
    if variant == "swiglu":
        inputs["up"] = u.random_array(rng, (n,), dtype, low=0.5, high=2.0)
    return inputs


def _silu_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    out = f["x"] / (1.0 + np.exp(-f["x"]))
    if variant == "swiglu":
        out = out * f["up"]
    return {"out": u.as_dtype_of(out, inputs["x"])}


SILU_GATE = KernelSpec(
    name="silu_gate",
    role=KernelRole.UNSEEN,
    description="The SiLU (swish) activation x / (1 + exp(-x)) of n entries (an "
                "exponential and a division each); alone, or multiplying a second input "
                "(the SwiGLU gate of a transformer's feed-forward layer).",
    parameters=("n",),
    variants=_SILU_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_silu,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=partial(_silu_inputs, "silu"),
    reference=partial(_silu_reference, "silu"),
    variant_make_inputs=_silu_inputs,
    variant_reference=_silu_reference,
    check_params={"n": 2000},
)

# }}}


# {{{ strided copy

#: variant -> the stride of the source
_COPY_STRIDES: Mapping[str, int] = {"stride2": 2, "stride8": 8}


def _build_strided_copy(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_COPY_STRIDES), 1)
    k = _COPY_STRIDES[req.variant]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"dst[i] = src[{k}*i]",
        [u.array("src", req.dtype, (f"{k}*n",)), u.array("dst", req.dtype, ("n",)),
         *u.size_args("n")],
        name="strided_copy", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _copy_inputs(variant: str, params, dtype, rng) -> dict:
    k = _COPY_STRIDES[variant]
    return {"src": u.random_array(rng, (k * params["n"],), dtype, low=0.5)}


def _copy_reference(variant: str, inputs, params) -> dict:
    return {"dst": inputs["src"][::_COPY_STRIDES[variant]].copy()}


STRIDED_COPY = KernelSpec(
    name="strided_copy",
    role=KernelRole.UNSEEN,
    description="Every k-th element of an array copied into a dense array of n "
                "(k = 2 or 8: a strided read, a contiguous write, no arithmetic).",
    parameters=("n",),
    variants=tuple(_COPY_STRIDES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_strided_copy,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_copy_inputs, "stride2"),
    reference=partial(_copy_reference, "stride2"),
    variant_make_inputs=_copy_inputs,
    variant_reference=_copy_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ cross product on interleaved 3-vectors

_CROSS_VARIANTS = ("cross", "unit_normal")


def _build_cross(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _CROSS_VARIANTS, 1)
    loads = "\n            ".join(f"<> {a}{c} = {a}[i, {k}] {{id={a}{c}}}"
                                  for a in "ab" for k, c in enumerate("xyz"))
    deps = ":".join(f"{a}{c}" for a in "ab" for c in "xyz")
    if req.variant == "unit_normal":
        scale = ("<> inv = rsqrt(cx*cx + cy*cy + cz*cz) {id=inv, dep=cx:cy:cz}",
                 " * inv", "inv")
    else:
        scale = ("", "", "cx:cy:cz")
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {loads}
            <> cx = ay*bz - az*by {{id=cx, dep={deps}}}
            <> cy = az*bx - ax*bz {{id=cy, dep={deps}}}
            <> cz = ax*by - ay*bx {{id=cz, dep={deps}}}
            {scale[0]}
            c[i, 0] = cx{scale[1]} {{dep={scale[2]}:cx}}
            c[i, 1] = cy{scale[1]} {{dep={scale[2]}:cy}}
            c[i, 2] = cz{scale[1]} {{dep={scale[2]}:cz}}
        end
        """,
        [u.array("a", req.dtype, ("n", 3)), u.array("b", req.dtype, ("n", 3)),
         u.array("c", req.dtype, ("n", 3)), *u.size_args("n")],
        name="cross_product_aos", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _cross_inputs(params, dtype, rng) -> dict:
    n = params["n"]

    def vec(ranges):
        return np.asarray(np.stack([rng.uniform(lo, hi, n) for lo, hi in ranges], axis=1),
                          dtype=dtype.numpy)
    # ranges for which every component of a x b keeps its sign, away from zero
    return {"a": vec(((1, 2), (3, 4), (5, 6))), "b": vec(((5, 6), (-2, -1), (1, 2)))}


def _cross_reference(variant: str, inputs, params) -> dict:
    c = np.cross(inputs["a"].astype(np.float64), inputs["b"].astype(np.float64))
    if variant == "unit_normal":
        c = c / np.linalg.norm(c, axis=1, keepdims=True)
    return {"c": u.as_dtype_of(c, inputs["a"])}


CROSS_PRODUCT_AOS = KernelSpec(
    name="cross_product_aos",
    role=KernelRole.UNSEEN,
    description="The cross product of n pairs of 3-vectors stored interleaved (AoS, "
                "stride 3 in and out): six multiplications and three subtractions each; "
                "as it is, or normalised to a unit normal (a squared norm and a "
                "reciprocal square root).",
    parameters=("n",),
    variants=_CROSS_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_cross,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_cross_inputs,
    reference=partial(_cross_reference, "cross"),
    variant_reference=_cross_reference,
    check_params={"n": 1000},
    rtol=1e-3,
)

# }}}


# {{{ moving average

#: Inputs per output of the moving average.
WINDOW = 8
_AVG_VARIANTS = ("box", "weighted")


def _build_moving_average(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _AVG_VARIANTS, 1)
    value = ("inv_window * sum(k, x[i + k])" if req.variant == "box"
             else "sum(k, w[k] * x[i + k])")
    weights = ([u.array("w", req.dtype, (WINDOW,))] if req.variant == "weighted"
               else u.scalar_args(req.dtype, (("inv_window", 1.0 / WINDOW),)))
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {WINDOW}}}"],
        f"out[i] = {value}",
        [u.array("x", req.dtype, (f"n + {WINDOW - 1}",)), *weights,
         u.array("out", req.dtype, ("n",)), *u.size_args("n")],
        name="moving_average8", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _avg_inputs(variant: str, params, dtype, rng) -> dict:
    inputs = {"x": u.random_array(rng, (params["n"] + WINDOW - 1,), dtype, low=0.5)}
    if variant == "weighted":
        w = np.arange(1, WINDOW + 1, dtype=np.float64)
        inputs["w"] = np.asarray(w / w.sum(), dtype=dtype.numpy)
    else:
        inputs.update(u.scalar_inputs(dtype, (("inv_window", 1.0 / WINDOW),)))
    return inputs


def _avg_reference(variant: str, inputs, params) -> dict:
    x = inputs["x"].astype(np.float64)
    w = (np.full(WINDOW, 1.0 / WINDOW) if variant == "box"
         else inputs["w"].astype(np.float64))
    out = np.lib.stride_tricks.sliding_window_view(x, WINDOW) @ w
    return {"out": u.as_dtype_of(out, inputs["x"])}


MOVING_AVERAGE8 = KernelSpec(
    name="moving_average8",
    role=KernelRole.UNSEEN,
    description=f"A moving average of n outputs over a window of {WINDOW} inputs each "
                f"(neighbouring outputs share {WINDOW - 1} inputs, from cache); equal "
                f"weights (a sum and one multiplication) or {WINDOW} weights read from "
                f"a small array (a multiply-add per input).",
    parameters=("n",),
    variants=_AVG_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_moving_average,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_avg_inputs, "box"),
    reference=partial(_avg_reference, "box"),
    variant_make_inputs=_avg_inputs,
    variant_reference=_avg_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ gamma correction

#: the sRGB curve's threshold between its linear piece and its power
SRGB_THRESHOLD = 0.0031308
_GAMMA_CONSTS = (("zero", 0.0), ("one", 1.0), ("gamma", 1 / 2.2), ("srgb_gamma", 1 / 2.4),
                 ("threshold", SRGB_THRESHOLD), ("slope", 12.92), ("a_scale", 1.055),
                 ("a_offset", 0.055))
#: variant -> the output for the clamped input y
_GAMMA_CURVES: Mapping[str, str] = {
    "power": "y ** gamma",
    # the select as arithmetic on the comparison (0 or 1): exact counts, both pieces
    # computed
    "srgb": "low * (slope * y) + (1 - low) * (a_scale * y ** srgb_gamma - a_offset)",
}


def _build_gamma(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_GAMMA_CURVES), 1)
    srgb = req.variant == "srgb"
    low = "<> low = y <= threshold {id=low, dep=y}" if srgb else ""
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> y = fmin(fmax(x[i], zero), one) {{id=y}}
            {low}
            out[i] = {_GAMMA_CURVES[req.variant]} {{dep=y{':low' if srgb else ''}}}
        end
        """,
        [u.array("x", req.dtype, ("n",)), u.array("out", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _GAMMA_CONSTS), *u.size_args("n")],
        name="gamma_correct", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _gamma_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # a quarter each below 0, on the sRGB curve's linear piece, on its power, above 1:
    # both clamps and both pieces are taken
    pieces = [(-0.2, -0.01), (1e-4, 0.003), (0.01, 0.99), (1.01, 1.2)]
    x = np.concatenate([rng.uniform(lo, hi, n // 4 + 1) for lo, hi in pieces])[:n]
    return {"x": np.asarray(rng.permutation(x), dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _GAMMA_CONSTS)}


def _gamma_reference(variant: str, inputs, params) -> dict:
    y = np.clip(inputs["x"].astype(np.float64), 0.0, 1.0)
    if variant == "power":
        out = y ** (1 / 2.2)
    else:
        # the piece chosen in the kernel's precision, as the kernel chooses it
        low = inputs["x"].clip(0, 1) <= inputs["threshold"]
        out = np.where(low, 12.92 * y, 1.055 * y ** (1 / 2.4) - 0.055)
    return {"out": u.as_dtype_of(out, inputs["x"])}


GAMMA_CORRECT = KernelSpec(
    name="gamma_correct",
    role=KernelRole.UNSEEN,
    description="Gamma correction of n intensities: a clamp to [0, 1] (a max and a "
                "min), then a power with exponent 1/2.2, or the sRGB transfer curve (a "
                "linear piece below 0.0031308, a power with exponent 1/2.4 above it, "
                "chosen per entry by a select written as arithmetic).",
    parameters=("n",),
    variants=tuple(_GAMMA_CURVES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_gamma,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_gamma_inputs,
    reference=partial(_gamma_reference, "power"),
    variant_reference=_gamma_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ Haar wavelet step

_HAAR_CONSTS = (("s", 1 / np.sqrt(2.0)),)
_HAAR_VARIANTS = ("forward", "inverse")


def _build_haar(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _HAAR_VARIANTS, 1)
    if req.variant == "forward":
        body = """
            <> even = x[2*i] {id=even}
            <> odd = x[2*i + 1] {id=odd}
            approx[i] = s * (even + odd) {dep=even:odd}
            detail[i] = s * (even - odd) {dep=even:odd}
        """
    else:
        body = """
            <> av = approx[i] {id=av}
            <> dv = detail[i] {id=dv}
            x[2*i] = s * (av + dv) {dep=av:dv}
            x[2*i + 1] = s * (av - dv) {dep=av:dv}
        """
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"for i\n{body}\nend",
        [u.array("x", req.dtype, ("2*n",)), u.array("approx", req.dtype, ("n",)),
         u.array("detail", req.dtype, ("n",)), *u.scalar_args(req.dtype, _HAAR_CONSTS),
         *u.size_args("n")],
        name="haar_step", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _haar_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # the first of each pair dominates: differences stay away from zero
    big, small = rng.uniform(2.0, 3.0, n), rng.uniform(0.0, 1.0, n)
    consts = u.scalar_inputs(dtype, _HAAR_CONSTS)
    if variant == "forward":
        return {"x": np.asarray(np.stack([big, small], axis=1).reshape(-1), dtype=dtype.numpy),
                **consts}
    return {"approx": np.asarray(big, dtype=dtype.numpy),
            "detail": np.asarray(small, dtype=dtype.numpy), **consts}


def _haar_reference(variant: str, inputs, params) -> dict:
    s = 1 / np.sqrt(2.0)
    if variant == "forward":
        x = inputs["x"].astype(np.float64)
        return {"approx": u.as_dtype_of(s * (x[0::2] + x[1::2]), inputs["x"]),
                "detail": u.as_dtype_of(s * (x[0::2] - x[1::2]), inputs["x"])}
    a, d = inputs["approx"].astype(np.float64), inputs["detail"].astype(np.float64)
    x = np.stack([s * (a + d), s * (a - d)], axis=1).reshape(-1)
    return {"x": u.as_dtype_of(x, inputs["approx"])}


HAAR_STEP = KernelSpec(
    name="haar_step",
    role=KernelRole.UNSEEN,
    description="One level of the Haar wavelet transform of 2n values: forward, each "
                "pair (stride-2 reads) to a scaled sum and difference written to two "
                "planes; or inverse, two planes back to interleaved pairs (stride-2 "
                "writes).",
    parameters=("n",),
    variants=_HAAR_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_haar,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_haar_inputs, "forward"),
    reference=partial(_haar_reference, "forward"),
    variant_make_inputs=_haar_inputs,
    variant_reference=_haar_reference,
    check_params={"n": 1000},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (SILU_GATE, STRIDED_COPY, CROSS_PRODUCT_AOS, MOVING_AVERAGE8,
                                 GAMMA_CORRECT, HAAR_STEP)
