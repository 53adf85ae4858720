"""The twelfth held-out set (``--set heldout12``): kernels kept out of all fitting and design.

The eleventh set (:mod:`.heldout11`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``huber_loss``: the Huber loss (or the smooth L1 loss) of predictions against
  targets, element by element: a quadratic inside a threshold, linear outside (in
  the branchless form, a min on the absolute difference).
* ``sinusoid_synthesis``: additive synthesis: each sample the sum of ``SYN_PARTIALS``
  sinusoids whose amplitudes, frequencies and phases are read from small global tables
  (the same entries by every work item), optionally each damped by an exponential.
* ``aos_to_soa``: layout conversion of four-component records: interleaved (stride 4)
  to four planes, or four planes to interleaved.
* ``kepler_solve``: the eccentric anomaly from the mean anomaly and the eccentricity,
  ``KEP_STEPS`` Newton steps (a sine, a cosine and a division each) or fixed-point steps.
* ``polyline_length``: the length of each of many 2-D polylines of ``POLY_POINTS``
  points (two planes, a work item per polyline): the sum of its segments' lengths,
  open or closed.
* ``clip_by_norm3``: 3-vectors in three planes scaled down to a maximum length where
  longer (a reciprocal square root and a min), planar or interleaved output.

The kernels on 2-D groups (bilateral_filter3, upwind_advect2d, batchnorm_infer) are in
:mod:`.heldout12_grid`.
"""

from __future__ import annotations

from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _scaled(p: int) -> tuple[int, ...]:
    return u.pow2(p, range(4))


# {{{ Huber / smooth L1 loss

HUBER_DELTA = 0.5
_HUBER_CONSTS = (("delta", HUBER_DELTA), ("one_half", 0.5))
_HUBER_VARIANTS = ("huber", "smooth_l1")


def _build_huber(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _HUBER_VARIANTS, 1)
    # branchless: with c = min(|d|, delta), c (|d| - c / 2) is 0.5 d^2 inside the
    # threshold and delta (|d| - delta / 2) outside
    loss = "c * (a - one_half * c)"
    if req.variant == "smooth_l1":
        loss = f"{loss} / delta"
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> d = pred[i] - target[i] {{id=d}}
            <> a = fabs(d) {{id=a, dep=d}}
            <> c = fmin(a, delta) {{id=c, dep=a}}
            loss[i] = {loss} {{dep=c}}
        end
        """,
        [u.array("pred", req.dtype, ("n",)), u.array("target", req.dtype, ("n",)),
         u.array("loss", req.dtype, ("n",)), *u.scalar_args(req.dtype, _HUBER_CONSTS),
         *u.size_args("n")],
        name="huber_loss", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _huber_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # differences of both signs, half inside the threshold and half outside (both arms
    # of the min and of the absolute value), none near zero or the threshold
    size = np.where(rng.random(n) < 0.5, rng.uniform(0.05, 0.4, n), rng.uniform(0.6, 3.0, n))
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    target = rng.uniform(-1.0, 1.0, n)
    return {"pred": np.asarray(target + sign * size, dtype=dtype.numpy),
            "target": np.asarray(target, dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _HUBER_CONSTS)}


def _huber_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    d = f["pred"] - f["target"]
    a = np.abs(d)
    if variant == "huber":
        loss = np.where(a < HUBER_DELTA, 0.5 * d * d, HUBER_DELTA * (a - 0.5 * HUBER_DELTA))
    else:
        loss = np.where(a < HUBER_DELTA, 0.5 * d * d / HUBER_DELTA, a - 0.5 * HUBER_DELTA)
    return {"loss": u.as_dtype_of(loss, inputs["pred"])}


HUBER_LOSS = KernelSpec(
    name="huber_loss",
    role=KernelRole.UNSEEN,
    description=f"The Huber loss (delta {HUBER_DELTA}) of n predictions against n "
                f"targets: 0.5 d^2 where |d| < delta, delta (|d| - delta / 2) elsewhere; "
                f"or the smooth L1 loss (the same divided by delta); branchless: "
                f"c (|d| - c / 2) with c = min(|d|, delta).",
    parameters=("n",),
    variants=_HUBER_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_huber,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_huber_inputs,
    reference=partial(_huber_reference, "huber"),
    variant_reference=_huber_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ additive synthesis

SYN_PARTIALS = 32
_SYN_VARIANTS = ("plain", "damped")


def _build_synthesis(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _SYN_VARIANTS, 1)
    term = "amp[k] * sin(freq[k] * tt + phase[k])"
    if req.variant == "damped":
        term = f"{term} * exp(-decay[k] * tt)"
    knl = u.make_kernel(
        f"{{[i, k]: 0 <= i < n and 0 <= k < {SYN_PARTIALS}}}",
        f"""
        for i
            <> tt = t[i] {{id=tt}}
            out[i] = sum(k, {term}) {{dep=tt}}
        end
        """,
        [u.array("t", req.dtype, ("n",)), u.array("out", req.dtype, ("n",)),
         *(u.array(a, req.dtype, (SYN_PARTIALS,)) for a in
           ("amp", "freq", "phase", *(("decay",) if req.variant == "damped" else ()))),
         *u.size_args("n")],
        name="sinusoid_synthesis", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _synthesis_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # a positive offset partial (frequency 0, phase pi/2) of amplitude 4 against the
    # others' total amplitude below 3.2: the sum stays above 0.8 (relative tolerance)
    amp = rng.uniform(0.02, 0.1, SYN_PARTIALS)
    freq = rng.uniform(0.5, 20.0, SYN_PARTIALS)
    phase = rng.uniform(0.0, 2 * np.pi, SYN_PARTIALS)
    amp[0], freq[0], phase[0] = 4.0, 0.0, np.pi / 2
    inputs = {"t": u.random_array(rng, (n,), dtype, low=0.0, high=2.0)}
    tables = {"amp": amp, "freq": freq, "phase": phase}
    if variant == "damped":
        tables["decay"] = rng.uniform(0.0, 1.0, SYN_PARTIALS)
        tables["decay"][0] = 0.0
    inputs.update({k: np.asarray(v, dtype=dtype.numpy) for k, v in tables.items()})
    return inputs


def _synthesis_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    t = f["t"][:, None]
    terms = f["amp"] * np.sin(f["freq"] * t + f["phase"])
    if variant == "damped":
        terms = terms * np.exp(-f["decay"] * t)
    return {"out": u.as_dtype_of(terms.sum(axis=1), inputs["t"])}


SINUSOID_SYNTHESIS = KernelSpec(
    name="sinusoid_synthesis",
    role=KernelRole.UNSEEN,
    description=f"Additive synthesis of n samples at times t: each the sum of "
                f"{SYN_PARTIALS} partials amp[k] sin(freq[k] t + phase[k]), the tables "
                f"read from global memory by every work item; damped: each partial "
                f"times exp(-decay[k] t).",
    parameters=("n",),
    variants=_SYN_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_synthesis,
    size_cases=u.doubling_lengths,
    default_p=19,
    p_choices=(18, 19, 20),
    make_inputs=partial(_synthesis_inputs, "plain"),
    reference=partial(_synthesis_reference, "plain"),
    variant_make_inputs=_synthesis_inputs,
    variant_reference=_synthesis_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ array of structures <-> structure of arrays

AOS_FIELDS = ("x", "y", "z", "w")
_AOS_VARIANTS = ("split", "merge")


def _build_aos(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _AOS_VARIANTS, 1)
    width = len(AOS_FIELDS)
    planes = [u.array(f"{c}_plane", req.dtype, ("n",)) for c in AOS_FIELDS]
    packed = u.array("packed", req.dtype, ("n", width))
    if req.variant == "split":
        lines = [f"{c}_plane[i] = packed[i, {k}]" for k, c in enumerate(AOS_FIELDS)]
        args = [packed, *planes]
    else:
        lines = [f"packed[i, {k}] = {c}_plane[i]" for k, c in enumerate(AOS_FIELDS)]
        args = [*planes, packed]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
        end
        """,
        [*args, *u.size_args("n")],
        name="aos_to_soa", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _aos_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # distinct random values everywhere: a swapped field or record fails
    if variant == "split":
        return {"packed": u.random_array(rng, (n, len(AOS_FIELDS)), dtype, low=0.5, high=1.5)}
    return {f"{c}_plane": u.random_array(rng, (n,), dtype, low=0.5, high=1.5)
            for c in AOS_FIELDS}


def _aos_reference(variant: str, inputs, params) -> dict:
    if variant == "split":
        p = inputs["packed"]
        return {f"{c}_plane": np.ascontiguousarray(p[:, k]) for k, c in enumerate(AOS_FIELDS)}
    return {"packed": np.stack([inputs[f"{c}_plane"] for c in AOS_FIELDS], axis=1)}


AOS_TO_SOA = KernelSpec(
    name="aos_to_soa",
    role=KernelRole.UNSEEN,
    description=f"Layout conversion of n records of {len(AOS_FIELDS)} fields: split "
                f"reads them interleaved (stride {len(AOS_FIELDS)}) and writes one plane "
                f"per field; merge reads the planes and writes them interleaved.",
    parameters=("n",),
    variants=_AOS_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_aos,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_aos_inputs, "split"),
    reference=partial(_aos_reference, "split"),
    variant_make_inputs=_aos_inputs,
    variant_reference=_aos_reference,
    check_params={"n": 2000},
)

# }}}


# {{{ Kepler's equation

KEP_STEPS = 8
_KEP_CONSTS = (("one", 1.0),)
#: variant -> one step towards E - e sin E = M
KEPLER_STEP = {
    "newton": "E - (E - ecc * sin(E) - M) / (one - ecc * cos(E))",
    "fixed_point": "M + ecc * sin(E)",
}


def _build_kepler(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(KEPLER_STEP), 1)
    lines, previous = [], "E0"
    for k in range(KEP_STEPS):
        lines.append(f"E = {KEPLER_STEP[req.variant]} {{id=s{k}, dep={previous}}}")
        previous = f"s{k}"
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> M = mean_anomaly[i] {{id=M}}
            <> ecc = eccentricity[i] {{id=ecc}}
            <> E = M {{id=E0, dep=M:ecc}}
            {body}
            ecc_anomaly[i] = E {{dep={previous}}}
        end
        """,
        [u.array("mean_anomaly", req.dtype, ("n",)), u.array("eccentricity", req.dtype, ("n",)),
         u.array("ecc_anomaly", req.dtype, ("n",)), *u.scalar_args(req.dtype, _KEP_CONSTS),
         *u.size_args("n")],
        name="kepler_solve", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _kepler_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # mean anomalies away from 0 (relative tolerance), eccentricities below 0.5 (both
    # iterations contract)
    return {"mean_anomaly": u.random_array(rng, (n,), dtype, low=0.3, high=3.0),
            "eccentricity": u.random_array(rng, (n,), dtype, low=0.0, high=0.5),
            **u.scalar_inputs(dtype, _KEP_CONSTS)}


def _kepler_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    m, e = f["mean_anomaly"], f["eccentricity"]
    ea = m.copy()
    for _ in range(KEP_STEPS):
        if variant == "newton":
            ea = ea - (ea - e * np.sin(ea) - m) / (1.0 - e * np.cos(ea))
        else:
            ea = m + e * np.sin(ea)
    return {"ecc_anomaly": u.as_dtype_of(ea, inputs["mean_anomaly"])}


KEPLER_SOLVE = KernelSpec(
    name="kepler_solve",
    role=KernelRole.UNSEEN,
    description=f"Kepler's equation E - e sin E = M solved for n orbits, {KEP_STEPS} "
                f"steps from E = M: Newton's (a sine, a cosine, a division each) or the "
                f"fixed-point iteration E = M + e sin E; two loads, one store.",
    parameters=("n",),
    variants=tuple(KEPLER_STEP),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_kepler,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_kepler_inputs,
    reference=partial(_kepler_reference, "newton"),
    variant_reference=_kepler_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ polyline lengths

POLY_POINTS = 32
_POLY_VARIANTS = ("open", "closed")


def _build_polyline(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _POLY_VARIANTS, 1)
    seg = ("sqrt((px[p, k + 1] - px[p, k]) * (px[p, k + 1] - px[p, k])"
           " + (py[p, k + 1] - py[p, k]) * (py[p, k + 1] - py[p, k]))")
    length = f"sum(k, {seg})"
    last = POLY_POINTS - 1
    if req.variant == "closed":
        length += (f" + sqrt((px[p, 0] - px[p, {last}]) * (px[p, 0] - px[p, {last}])"
                   f" + (py[p, 0] - py[p, {last}]) * (py[p, 0] - py[p, {last}]))")
    knl = u.make_kernel(
        f"{{[p, k]: 0 <= p < nlines and 0 <= k < {last}}}",
        f"""
        for p
            length[p] = {length}
        end
        """,
        [u.array("px", req.dtype, ("nlines", POLY_POINTS)),
         u.array("py", req.dtype, ("nlines", POLY_POINTS)),
         u.array("length", req.dtype, ("nlines",)), *u.size_args("nlines")],
        name="polyline_length", assumptions="nlines >= 1")
    return u.split_1d(knl, "p", req.group_size)


def _polyline_inputs(params, dtype, rng) -> dict:
    nlines = params["nlines"]
    shape = (nlines, POLY_POINTS)
    return {"px": u.random_array(rng, shape, dtype, low=-1.0, high=1.0),
            "py": u.random_array(rng, shape, dtype, low=-1.0, high=1.0)}


def _polyline_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    x, y = f["px"], f["py"]
    if variant == "closed":
        x, y = np.concatenate([x, x[:, :1]], axis=1), np.concatenate([y, y[:, :1]], axis=1)
    length = np.hypot(np.diff(x, axis=1), np.diff(y, axis=1)).sum(axis=1)
    return {"length": u.as_dtype_of(length, inputs["px"])}


POLYLINE_LENGTH = KernelSpec(
    name="polyline_length",
    role=KernelRole.UNSEEN,
    description=f"The length of each of nlines 2-D polylines of {POLY_POINTS} points "
                f"(x and y planes, row-major, a work item per polyline): the sum of its "
                f"segments' lengths (a square root each), open or closed (one more "
                f"segment back to the first point).",
    parameters=("nlines",),
    variants=_POLY_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_polyline,
    size_cases=lambda p: tuple({"nlines": n} for n in _scaled(p)),
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=_polyline_inputs,
    reference=partial(_polyline_reference, "open"),
    variant_reference=_polyline_reference,
    check_params={"nlines": 500},
    rtol=1e-4,
)

# }}}


# {{{ clip 3-vectors by their length

CLIP_MAX = 1.0
_CLIP_CONSTS = (("max_norm", CLIP_MAX), ("one", 1.0))
_CLIP_VARIANTS = ("planar", "interleaved")


def _build_clip(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _CLIP_VARIANTS, 1)
    comps = ("vx", "vy", "vz")
    if req.variant == "planar":
        stores = [f"{c}_out[i] = {c}[i] * scale {{dep=scale}}" for c in comps]
        outs = [u.array(f"{c}_out", req.dtype, ("n",)) for c in comps]
    else:
        stores = [f"v_out[i, {k}] = {c}[i] * scale {{dep=scale}}" for k, c in enumerate(comps)]
        outs = [u.array("v_out", req.dtype, ("n", 3))]
    body = "\n            ".join(stores)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> n2 = vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i] {{id=n2}}
            <> scale = fmin(one, max_norm * rsqrt(n2)) {{id=scale, dep=n2}}
            {body}
        end
        """,
        [*(u.array(c, req.dtype, ("n",)) for c in comps), *outs,
         *u.scalar_args(req.dtype, _CLIP_CONSTS), *u.size_args("n")],
        name="clip_by_norm3", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _clip_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # half the vectors shorter than the limit (kept), half longer (scaled): both arms
    # of the min; components of both signs, lengths away from the limit
    direction = rng.normal(size=(n, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    length = np.where(rng.random(n) < 0.5, rng.uniform(0.2, 0.8, n), rng.uniform(1.3, 5.0, n))
    v = direction * length[:, None]
    planes = {c: np.ascontiguousarray(v[:, k], dtype=dtype.numpy)
              for k, c in enumerate(("vx", "vy", "vz"))}
    return planes | u.scalar_inputs(dtype, _CLIP_CONSTS)


def _clip_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    v = np.stack([f["vx"], f["vy"], f["vz"]], axis=1)
    scale = np.minimum(1.0, CLIP_MAX / np.linalg.norm(v, axis=1))
    out = v * scale[:, None]
    if variant == "interleaved":
        return {"v_out": u.as_dtype_of(out, inputs["vx"])}
    return {f"{c}_out": u.as_dtype_of(out[:, k], inputs["vx"])
            for k, c in enumerate(("vx", "vy", "vz"))}


CLIP_BY_NORM3 = KernelSpec(
    name="clip_by_norm3",
    role=KernelRole.UNSEEN,
    description=f"n 3-vectors (three planes) clipped to length {CLIP_MAX}: each scaled "
                f"by min(1, max / |v|) (a reciprocal square root, a min), written as "
                f"three planes or interleaved (stride 3).",
    parameters=("n",),
    variants=_CLIP_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_clip,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_clip_inputs,
    reference=partial(_clip_reference, "planar"),
    variant_reference=_clip_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (HUBER_LOSS, SINUSOID_SYNTHESIS, AOS_TO_SOA, KEPLER_SOLVE,
                                 POLYLINE_LENGTH, CLIP_BY_NORM3)
