"""The fifteenth held-out set (``--set heldout15``): kernels kept out of all fitting and design.

The fourteenth set (:mod:`.heldout14`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``quadratic_roots``: the roots of a x^2 + b x + c per entry (three planes) by the
  cancellation-free formula: the real roots, or the real and imaginary parts of a
  complex pair, selected by the discriminant's sign.
* ``srgb_to_lab``: sRGB colour (three planes) to CIE L*a*b*: the sRGB decoding curve, a
  3 x 3 matrix to XYZ and the Lab cube-root curve; or only the first two steps (XYZ).
* ``iir_channels``: a recursive filter run along time for many channels (time-major
  layout, one work item per channel): a biquad in transposed direct form II, or a
  one-pole smoother (an exponential moving average).

The geometric kernels (project_points, sdf_march) are in :mod:`.heldout15_geometry`,
those on 2-D groups (median_filter, gauss_blur_pass, grad_orientation,
givens_rotate_rows) in :mod:`.heldout15_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ quadratic roots

_QUAD_CONSTS = (("zero", 0.0), ("one", 1.0), ("two", 2.0), ("four", 4.0), ("one_half", 0.5))
_QUAD_VARIANTS = ("both_roots", "first_root")


def _build_quadratic(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _QUAD_VARIANTS, 1)
    stores = ["x1[i] = q / a {dep=q}"]
    if req.variant == "both_roots":
        stores.append("x2[i] = is_real * (c / q) "
                      "+ (one - is_real) * (one_half * sq / fabs(a)) {dep=q}")
    body = "\n            ".join(stores)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> a = qa[i] {{id=a}}
            <> b = qb[i] {{id=b}}
            <> c = qc[i] {{id=c}}
            <> d = b * b - four * a * c {{id=d, dep=a:b:c}}
            <> is_real = d >= zero {{id=is_real, dep=d}}
            <> sq = sqrt(fabs(d)) {{id=sq, dep=d}}
            <> sgn = two * (b >= zero) - one {{id=sgn, dep=b}}
            <> q = -one_half * (b + sgn * is_real * sq) {{id=q, dep=sq:sgn:is_real}}
            {body}
        end
        """,
        [*(u.array(f"q{k}", req.dtype, ("n",)) for k in "abc"),
         u.array("x1", req.dtype, ("n",)),
         *([u.array("x2", req.dtype, ("n",))] if req.variant == "both_roots" else []),
         *u.scalar_args(req.dtype, _QUAD_CONSTS), *u.size_args("n")],
        name="quadratic_roots", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def quadratic_parts(a, b, c) -> tuple[np.ndarray, np.ndarray]:
    """(float64) the larger-magnitude real root and the other one where the roots are
    real, else the real part and the (positive) imaginary part of the pair."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    d = b * b - 4 * a * c
    real = d >= 0
    q = -0.5 * (b + np.where(b >= 0, 1.0, -1.0) * np.sqrt(np.maximum(d, 0.0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(real, q / a, -b / (2 * a))
        second = np.where(real, c / q, np.sqrt(np.maximum(-d, 0.0)) / (2 * np.abs(a)))
    return first, second


def _quadratic_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # all signs; about half the discriminants negative (complex pairs), none within 5 %
    # of zero (float32 and float64 agree on the case), |b| >= 0.3 (q never near zero)
    sign = lambda: np.where(rng.random(n) < 0.5, -1.0, 1.0)  # noqa: E731
    a, b, c = (sign() * rng.uniform(0.3, 2.0, n) for _ in range(3))

    def draw_c(k):
        return np.where(rng.random(k) < 0.5, -1.0, 1.0) * rng.uniform(0.3, 2.0, k)

    def is_bad(c):
        return np.abs(b * b - 4 * a * c) < 0.05 * (b * b + np.abs(4 * a * c))
    c = u.redraw_until_good(c, draw_c, is_bad, tries=100)
    return {"qa": np.asarray(a, dtype=dtype.numpy), "qb": np.asarray(b, dtype=dtype.numpy),
            "qc": np.asarray(c, dtype=dtype.numpy), **u.scalar_inputs(dtype, _QUAD_CONSTS)}


def _quadratic_reference(variant: str, inputs, params) -> dict:
    first, second = quadratic_parts(inputs["qa"], inputs["qb"], inputs["qc"])
    out = {"x1": first} | ({"x2": second} if variant == "both_roots" else {})
    return {k: u.as_dtype_of(v, inputs["qa"]) for k, v in out.items()}


QUADRATIC_ROOTS = KernelSpec(
    name="quadratic_roots",
    role=KernelRole.UNSEEN,
    description="The roots of n quadratics a x^2 + b x + c (three planes) by the "
                "cancellation-free formula q = -(b + sign(b) sqrt(d)) / 2: x1 = q / a "
                "and x2 = c / q where the discriminant d is not negative, else the real "
                "part -b / 2a and the imaginary part sqrt(-d) / 2|a| (both_roots), or x1 "
                "alone (first_root); the case chosen by arithmetic on comparisons.",
    parameters=("n",),
    variants=_QUAD_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_quadratic,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_quadratic_inputs,
    reference=partial(_quadratic_reference, "both_roots"),
    variant_reference=_quadratic_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ sRGB to L*a*b*

#: linear sRGB to XYZ (D65), each row divided by the white point's component
SRGB_TO_XYZ = ((0.4124, 0.3576, 0.1805), (0.2126, 0.7152, 0.0722), (0.0193, 0.1192, 0.9505))
WHITE_D65 = (0.95047, 1.0, 1.08883)
SRGB_KNEE = 0.04045
LAB_KNEE = (6.0 / 29.0) ** 3
_LAB_CONSTS = (("one", 1.0), ("knee", SRGB_KNEE), ("inv_slope", 1 / 12.92),
               ("a_offset", 0.055), ("inv_a_scale", 1 / 1.055), ("gamma", 2.4),
               *((f"m{r}{k}", SRGB_TO_XYZ[r][k] / WHITE_D65[r])
                 for r in range(3) for k in range(3)))
_LAB_EXTRA = (("lab_knee", LAB_KNEE), ("third", 1.0 / 3.0),
              ("lin_slope", 1.0 / (3 * (6.0 / 29.0) ** 2)), ("lin_offset", 4.0 / 29.0),
              ("l_scale", 116.0), ("l_offset", 16.0), ("a_scale", 500.0), ("b_scale", 200.0))
_LAB_OUTPUTS: Mapping[str, tuple[str, str, str]] = {"lab": ("lum", "a_star", "b_star"),
                                                     "xyz": ("x_out", "y_out", "z_out")}
_CHANNELS = ("r", "g", "b")


def _lab_consts(variant: str):
    return _LAB_CONSTS + (_LAB_EXTRA if variant == "lab" else ())


def _build_lab(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_LAB_OUTPUTS), 1)
    lines = []
    for ch in _CHANNELS:
        lines += [f"<> {ch} = {ch}_in[i] {{id={ch}}}",
                  f"<> low_{ch} = {ch} <= knee {{id=low_{ch}, dep={ch}}}",
                  f"<> lin_{ch} = low_{ch} * ({ch} * inv_slope) + (one - low_{ch}) * "
                  f"(({ch} + a_offset) * inv_a_scale) ** gamma {{id=lin_{ch}, dep=low_{ch}}}"]
    for r, t in enumerate("xyz"):
        lines.append(f"<> t{t} = m{r}0 * lin_r + m{r}1 * lin_g + m{r}2 * lin_b "
                     f"{{id=t{t}, dep=lin_*}}")
    outs = _LAB_OUTPUTS[req.variant]
    if req.variant == "xyz":
        lines += [f"{o}[i] = t{t} {{dep=t{t}}}" for o, t in zip(outs, "xyz")]
    else:
        for t in "xyz":
            lines += [f"<> big_{t} = t{t} > lab_knee {{id=big_{t}, dep=t{t}}}",
                      f"<> f{t} = big_{t} * t{t} ** third + (one - big_{t}) * "
                      f"(t{t} * lin_slope + lin_offset) {{id=f{t}, dep=big_{t}}}"]
        lines += [f"{outs[0]}[i] = l_scale * fy - l_offset {{dep=f*}}",
                  f"{outs[1]}[i] = a_scale * (fx - fy) {{dep=f*}}",
                  f"{outs[2]}[i] = b_scale * (fy - fz) {{dep=f*}}"]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
        end
        """,
        [*(u.array(f"{ch}_in", req.dtype, ("n",)) for ch in _CHANNELS),
         *(u.array(o, req.dtype, ("n",)) for o in outs),
         *u.scalar_args(req.dtype, _lab_consts(req.variant)), *u.size_args("n")],
        name="srgb_to_lab", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def srgb_to_xyz(rgb: np.ndarray) -> np.ndarray:
    """(float64) XYZ over the white point of sRGB pixels in [0, 1], pixels by row."""
    rgb = np.asarray(rgb, np.float64)
    lin = np.where(rgb <= SRGB_KNEE, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return lin @ (np.asarray(SRGB_TO_XYZ) / np.asarray(WHITE_D65)[:, None]).T


def lab_curve(t: np.ndarray) -> np.ndarray:
    return np.where(t > LAB_KNEE, np.cbrt(t), t / (3 * (6.0 / 29.0) ** 2) + 4.0 / 29.0)


def _lab_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # a fifth of the pixels dark (every channel on the decoding curve's linear piece,
    # and XYZ on the Lab curve's linear piece), the rest anywhere in [0, 1]; pixels
    # whose a* or b* would be near zero (near grey) drawn again, so that a relative
    # tolerance holds
    dark = rng.random(n) < 0.2
    rgb = np.where(dark[:, None], rng.uniform(0.002, 0.035, (n, 3)), rng.uniform(0.0, 1.0, (n, 3)))
    for _ in range(100):
        f = lab_curve(srgb_to_xyz(rgb))
        diffs = np.abs(np.stack([f[:, 0] - f[:, 1], f[:, 1] - f[:, 2]], axis=1))
        bad = (diffs < 2e-3).any(axis=1) | (np.abs(rgb - SRGB_KNEE) < 1e-3).any(axis=1)
        if not bad.any():
            break
        rgb[bad] = np.where(dark[bad, None], rng.uniform(0.002, 0.035, (bad.sum(), 3)),
                            rng.uniform(0.0, 1.0, (bad.sum(), 3)))
    planes = {f"{ch}_in": np.ascontiguousarray(rgb[:, k], dtype=dtype.numpy)
              for k, ch in enumerate(_CHANNELS)}
    return planes | u.scalar_inputs(dtype, _lab_consts(variant))


def _lab_reference(variant: str, inputs, params) -> dict:
    rgb = np.stack([np.asarray(inputs[f"{ch}_in"], np.float64) for ch in _CHANNELS], axis=1)
    xyz = srgb_to_xyz(rgb)
    if variant == "xyz":
        cols = xyz.T
    else:
        f = lab_curve(xyz)
        cols = (116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2]))
    return {o: u.as_dtype_of(v, inputs["r_in"]) for o, v in zip(_LAB_OUTPUTS[variant], cols)}


SRGB_TO_LAB = KernelSpec(
    name="srgb_to_lab",
    role=KernelRole.UNSEEN,
    description="n sRGB pixels (three planes) to CIE L*a*b* (D65): per channel the sRGB "
                "decoding curve (a linear piece below 0.04045, a power 2.4 above it, both "
                "computed), a 3 x 3 matrix to XYZ over the white point, then per component "
                "the Lab curve (a cube root as a power above (6/29)^3, a line below it) and "
                "the three differences (lab); xyz stops after the matrix.",
    parameters=("n",),
    variants=tuple(_LAB_OUTPUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_lab,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_lab_inputs, "lab"),
    reference=partial(_lab_reference, "lab"),
    variant_make_inputs=_lab_inputs,
    variant_reference=_lab_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ recursive filters along time

#: time steps per channel
IIR_STEPS = 64
#: a low-pass biquad (b0, b1, b2, a1, a2), stable, DC gain 0.8 / 0.6
BIQUAD = (0.2, 0.4, 0.2, -0.6, 0.2)
SMOOTHING = 0.25
_IIR_CONSTS: Mapping[str, tuple[tuple[str, float], ...]] = {
    "biquad": (("zero", 0.0), *zip(("b0", "b1", "b2", "a1", "a2"), BIQUAD)),
    "one_pole": (("zero", 0.0), ("alpha", SMOOTHING)),
}


def _build_iir(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_IIR_CONSTS), 1)
    if req.variant == "biquad":
        body = """
            <> s1 = zero {id=s1_init}
            <> s2 = zero {id=s2_init}
            for t
                <> xin = x[t, i] {id=xin}
                <> yv = b0 * xin + s1 {id=yv, dep=xin:s1_init}
                s1 = b1 * xin - a1 * yv + s2 {id=s1_step, dep=yv:s2_init}
                s2 = b2 * xin - a2 * yv {id=s2_step, dep=s1_step}
                y[t, i] = yv {dep=yv}
            end"""
    else:
        body = """
            <> acc = zero {id=acc_init}
            for t
                acc = acc + alpha * (x[t, i] - acc) {id=acc_step, dep=acc_init}
                y[t, i] = acc {dep=acc_step}
            end"""
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[t]: 0 <= t < {IIR_STEPS}}}"],
        f"""
        for i
            {body}
        end
        """,
        [u.array("x", req.dtype, (IIR_STEPS, "n")), u.array("y", req.dtype, (IIR_STEPS, "n")),
         *u.scalar_args(req.dtype, _IIR_CONSTS[req.variant]), *u.size_args("n")],
        name="iir_channels", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _iir_inputs(variant: str, params, dtype, rng) -> dict:
    # positive signals: the low-pass outputs stay positive (a relative tolerance holds)
    return {"x": u.random_array(rng, (IIR_STEPS, params["n"]), dtype, low=0.5, high=1.5),
            **u.scalar_inputs(dtype, _IIR_CONSTS[variant])}


def _iir_reference(variant: str, inputs, params) -> dict:
    x = inputs["x"].astype(np.float64)
    y = np.empty_like(x)
    if variant == "biquad":
        b0, b1, b2, a1, a2 = BIQUAD
        s1 = s2 = np.zeros(x.shape[1])
        for t in range(IIR_STEPS):
            y[t] = b0 * x[t] + s1
            s1, s2 = b1 * x[t] - a1 * y[t] + s2, b2 * x[t] - a2 * y[t]
    else:
        acc = np.zeros(x.shape[1])
        for t in range(IIR_STEPS):
            acc = acc + SMOOTHING * (x[t] - acc)
            y[t] = acc
    return {"y": u.as_dtype_of(y, inputs["x"])}


IIR_CHANNELS = KernelSpec(
    name="iir_channels",
    role=KernelRole.UNSEEN,
    description=f"A recursive filter over {IIR_STEPS} time steps of n channels stored "
                f"time-major (channels contiguous, one work item per channel carrying "
                f"its state along time): a low-pass biquad in transposed direct form II "
                f"(two state values, five multiplies per step) or a one-pole smoother "
                f"(an exponential moving average, alpha = {SMOOTHING}).",
    parameters=("n",),
    variants=tuple(_IIR_CONSTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_iir,
    size_cases=u.doubling_lengths,
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=partial(_iir_inputs, "biquad"),
    reference=partial(_iir_reference, "biquad"),
    variant_make_inputs=_iir_inputs,
    variant_reference=_iir_reference,
    check_params={"n": 700},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (QUADRATIC_ROOTS, SRGB_TO_LAB, IIR_CHANNELS)
