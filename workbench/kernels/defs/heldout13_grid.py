"""The thirteenth held-out set's kernels on 2-D groups: Bezier curve evaluation,
windowed signal frames, a depthwise causal convolution.

What the set is for, and the other kernels, are in :mod:`.heldout13`.

* ``bezier_eval``: many cubic Bezier curves (four 2-D control points each, read by
  every work item of the curve's row) evaluated at a table of parameter values: the
  points (Bernstein weights), or the tangents (the derivative's quadratic weights).
* ``stft_frames``: the framing step of a short-time Fourier transform: overlapping
  frames of a signal (a frame every hop samples) multiplied by a window table.
* ``depthwise_causal_conv``: a causal 1-D convolution of each channel of a
  sequence with its own short filter (the sequence padded on the left), plus a
  per-channel bias, optionally followed by a SiLU.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _rectangles(p: int, rows: str, cols: str) -> tuple[dict[str, int], ...]:
    # rows <= cols <= 2 rows: the entry count doubles from case to case
    return tuple({rows: 2 ** (p + t // 2), cols: 2 ** (p + (t + 1) // 2)} for t in range(4))


# {{{ cubic Bezier curves

_BEZ_CONSTS = (("one", 1.0), ("three", 3.0), ("six", 6.0))
#: variant -> (the weights of the four control points, as expressions in t and s = 1 - t)
BEZIER_WEIGHTS: Mapping[str, tuple[str, str, str, str]] = {
    "point": ("s * s * s", "three * s * s * t", "three * s * t * t", "t * t * t"),
    # the derivative: 3 (s^2 (P1 - P0) + 2 s t (P2 - P1) + t^2 (P3 - P2)), by point
    "tangent": ("-three * s * s", "three * s * s - six * s * t", "six * s * t - three * t * t",
                "three * t * t"),
}


def _build_bezier(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(BEZIER_WEIGHTS), 2)
    weights = BEZIER_WEIGHTS[req.variant]
    lines = [f"<> b{k} = {w} {{id=b{k}, dep=s}}" for k, w in enumerate(weights)]
    stores = [f"{axis}_out[c, j] = " + " + ".join(
        f"b{k} * ctrl[c, {2 * k + a}]" for k in range(4)) + " {dep=b*}"
        for a, axis in enumerate(("x", "y"))]
    body = "\n            ".join(lines + stores)
    knl = u.make_kernel(
        "{[c, j]: 0 <= c < ncurves and 0 <= j < nsamples}",
        f"""
        for c, j
            <> t = tvals[j] {{id=t}}
            <> s = one - t {{id=s, dep=t}}
            {body}
        end
        """,
        [u.array("ctrl", req.dtype, ("ncurves", 8)), u.array("tvals", req.dtype, ("nsamples",)),
         u.array("x_out", req.dtype, ("ncurves", "nsamples")),
         u.array("y_out", req.dtype, ("ncurves", "nsamples")),
         *u.scalar_args(req.dtype, _BEZ_CONSTS), *u.size_args("ncurves", "nsamples")],
        name="bezier_eval", assumptions="ncurves >= 1 and nsamples >= 1")
    return u.split_2d(knl, "c", "j", req.group_size)


def _bezier_inputs(params, dtype, rng) -> dict:
    ncurves, nsamples = params["ncurves"], params["nsamples"]
    # control points increasing in x and in y (steps of at least 0.1): the curves'
    # points and tangents are positive (a relative tolerance) and every weight counts
    steps = rng.uniform(0.1, 0.5, (ncurves, 4, 2))
    ctrl = np.cumsum(steps, axis=1)
    return {"ctrl": np.ascontiguousarray(ctrl.reshape(ncurves, 8), dtype=dtype.numpy),
            "tvals": np.asarray(np.linspace(0.0, 1.0, nsamples), dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _BEZ_CONSTS)}


def _bezier_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    p = f["ctrl"].reshape(-1, 4, 2)
    t = f["tvals"][None, :]
    s = 1.0 - t
    if variant == "point":
        w = [s ** 3, 3 * s * s * t, 3 * s * t * t, t ** 3]
    else:
        w = [-3 * s * s, 3 * s * s - 6 * s * t, 6 * s * t - 3 * t * t, 3 * t * t]
    out = {f"{axis}_out": sum(w[k] * p[:, k, a][:, None] for k in range(4))
           for a, axis in enumerate(("x", "y"))}
    return {k: u.as_dtype_of(v, inputs["ctrl"]) for k, v in out.items()}


BEZIER_EVAL = KernelSpec(
    name="bezier_eval",
    role=KernelRole.UNSEEN,
    description="ncurves cubic Bezier curves (four 2-D control points each, interleaved, "
                "read by every work item of the curve) evaluated at nsamples parameter "
                "values from a table: the points (Bernstein weights) or the tangents "
                "(the derivative's weights); x and y written to two planes.",
    parameters=("ncurves", "nsamples"),
    variants=tuple(BEZIER_WEIGHTS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_bezier,
    size_cases=partial(_rectangles, rows="ncurves", cols="nsamples"),
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_bezier_inputs,
    reference=partial(_bezier_reference, "point"),
    variant_reference=_bezier_reference,
    check_params={"ncurves": 45, "nsamples": 70},
    rtol=1e-4,
)

# }}}


# {{{ STFT framing

STFT_FRAME = 512
#: variant -> the hop between frames' starts
STFT_HOPS: Mapping[str, int] = {"quarter_hop": STFT_FRAME // 4, "half_hop": STFT_FRAME // 2}


def _build_stft(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(STFT_HOPS), 2)
    hop = STFT_HOPS[req.variant]
    knl = u.make_kernel(
        f"{{[f, s]: 0 <= f < nframes and 0 <= s < {STFT_FRAME}}}",
        f"""
        for f, s
            frames[f, s] = signal[{hop} * f + s] * window[s]
        end
        """,
        [u.array("signal", req.dtype, (f"{hop} * nframes + {STFT_FRAME - hop}",)),
         u.array("window", req.dtype, (STFT_FRAME,)),
         u.array("frames", req.dtype, ("nframes", STFT_FRAME)), *u.size_args("nframes")],
        name="stft_frames", assumptions="nframes >= 1")
    return u.split_2d(knl, "f", "s", req.group_size)


def _stft_inputs(variant: str, params, dtype, rng) -> dict:
    nframes = params["nframes"]
    hop = STFT_HOPS[variant]
    # a periodic Hann window (zero at the frame's first sample only) and a positive
    # signal: every sample of every frame is distinct
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(STFT_FRAME) / STFT_FRAME)
    return {"signal": u.random_array(rng, (hop * nframes + STFT_FRAME - hop,), dtype,
                                     low=0.5, high=1.5),
            "window": np.asarray(window, dtype=dtype.numpy)}


def _stft_reference(variant: str, inputs, params) -> dict:
    hop = STFT_HOPS[variant]
    x = inputs["signal"].astype(np.float64)
    start = hop * np.arange(params["nframes"])[:, None] + np.arange(STFT_FRAME)
    return {"frames": u.as_dtype_of(x[start] * inputs["window"], inputs["signal"])}


STFT_FRAMES = KernelSpec(
    name="stft_frames",
    role=KernelRole.UNSEEN,
    description=f"The framing of a short-time Fourier transform: nframes frames of "
                f"{STFT_FRAME} samples, one every hop samples of the signal "
                f"(overlapping reads: a hop of {STFT_HOPS['quarter_hop']} or "
                f"{STFT_HOPS['half_hop']}), each sample times a window table entry.",
    parameters=("nframes",),
    variants=tuple(STFT_HOPS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_stft,
    size_cases=lambda p: tuple({"nframes": n} for n in u.pow2(p, range(4))),
    default_p=13,
    p_choices=(12, 13, 14),
    make_inputs=partial(_stft_inputs, "quarter_hop"),
    reference=partial(_stft_reference, "quarter_hop"),
    variant_make_inputs=_stft_inputs,
    variant_reference=_stft_reference,
    check_params={"nframes": 37},
    rtol=1e-6,
)

# }}}


# {{{ depthwise causal convolution

CONV_TAPS = 4
_CONV_CONSTS = (("one", 1.0),)
_CONV_VARIANTS = ("plain", "silu")


def _build_conv(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _CONV_VARIANTS, 2)
    acc = "bias[c] + sum(k, w[c, k] * x[c, j + k])"
    if req.variant == "silu":
        store = "y[c, j] = a / (one + exp(-a)) {dep=a}"
    else:
        store = "y[c, j] = a {dep=a}"
    knl = u.make_kernel(
        f"{{[c, j, k]: 0 <= c < nchannels and 0 <= j < nsteps and 0 <= k < {CONV_TAPS}}}",
        f"""
        for c, j
            <> a = {acc} {{id=a}}
            {store}
        end
        """,
        [u.array("x", req.dtype, ("nchannels", f"nsteps + {CONV_TAPS - 1}")),
         u.array("w", req.dtype, ("nchannels", CONV_TAPS)), u.array("bias", req.dtype, ("nchannels",)),
         u.array("y", req.dtype, ("nchannels", "nsteps")),
         *u.scalar_args(req.dtype, _CONV_CONSTS if req.variant == "silu" else ()),
         *u.size_args("nchannels", "nsteps")],
        name="depthwise_causal_conv", assumptions="nchannels >= 1 and nsteps >= 1")
    return u.split_2d(knl, "c", "j", req.group_size)


def _conv_inputs(variant: str, params, dtype, rng) -> dict:
    nchannels, nsteps = params["nchannels"], params["nsteps"]
    # the left padding zero (a causal convolution's history); each channel's filter of
    # one sign, half the channels negative, so the sums take both signs and the SiLU
    # both of its sides; a bias of the filter's sign keeps them away from zero
    x = rng.uniform(0.5, 1.5, (nchannels, nsteps + CONV_TAPS - 1))
    x[:, :CONV_TAPS - 1] = 0.0
    w = rng.uniform(0.2, 1.0, (nchannels, CONV_TAPS)) * np.where(
        rng.random((nchannels, 1)) < 0.5, -1.0, 1.0)
    bias = np.where(w[:, 0] < 0, -0.3, 0.3)
    inputs = {"x": np.asarray(x, dtype=dtype.numpy), "w": np.asarray(w, dtype=dtype.numpy),
              "bias": np.asarray(bias, dtype=dtype.numpy)}
    if variant == "silu":
        inputs |= u.scalar_inputs(dtype, _CONV_CONSTS)
    return inputs


def _conv_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    nsteps = params["nsteps"]
    a = f["bias"][:, None] + sum(f["w"][:, k:k + 1] * f["x"][:, k:k + nsteps]
                                 for k in range(CONV_TAPS))
    if variant == "silu":
        a = a / (1.0 + np.exp(-a))
    return {"y": u.as_dtype_of(a, inputs["x"])}


DEPTHWISE_CAUSAL_CONV = KernelSpec(
    name="depthwise_causal_conv",
    role=KernelRole.UNSEEN,
    description=f"A causal depthwise 1-D convolution of nchannels sequences of nsteps "
                f"(rows padded by {CONV_TAPS - 1} on the left): each output the channel's "
                f"bias plus its own {CONV_TAPS}-tap filter over the current and previous "
                f"inputs; silu: followed by a / (1 + exp(-a)).",
    parameters=("nchannels", "nsteps"),
    variants=_CONV_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_conv,
    size_cases=partial(_rectangles, rows="nchannels", cols="nsteps"),
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_conv_inputs, "plain"),
    reference=partial(_conv_reference, "plain"),
    variant_make_inputs=_conv_inputs,
    variant_reference=_conv_reference,
    check_params={"nchannels": 45, "nsteps": 70},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (BEZIER_EVAL, STFT_FRAMES, DEPTHWISE_CAUSAL_CONV)
