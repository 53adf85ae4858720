"""The thirteenth held-out set (``--set heldout13``): kernels kept out of all fitting and design.

The twelfth set (:mod:`.heldout12`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``smoothstep_blend``: two images blended by a mask through a clamped ramp between
  two edges, shaped by the smoothstep (cubic) or smootherstep (quintic) polynomial.
* ``sym_eigvals3``: the eigenvalues of symmetric 3 x 3 matrices stored as six planes,
  in closed form (the trigonometric method: a square root, an arc cosine, two cosines).
* ``keyframe_sample``: an animation curve sampled at query times: a fixed number of
  bisection steps over a small table of sorted key times (data-dependent reads of a
  table every work item shares), then the key held or linearly interpolated.

The geometric kernels on 1-D groups (barycentric_interp, triangle_normals, quat_slerp)
are in :mod:`.heldout13_geometry`, those on 2-D groups (bezier_eval, stft_frames,
depthwise_causal_conv) in :mod:`.heldout13_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ smoothstep blend

BLEND_EDGES = (0.25, 0.75)
_BLEND_CONSTS = (("edge0", BLEND_EDGES[0]), ("inv_width", 1.0 / (BLEND_EDGES[1] - BLEND_EDGES[0])),
                 ("zero", 0.0), ("one", 1.0), ("two", 2.0), ("three", 3.0), ("six", 6.0),
                 ("ten", 10.0), ("fifteen", 15.0))
#: variant -> the ramp's shape as a polynomial in the clamped t
BLEND_SHAPES: Mapping[str, str] = {
    "smoothstep": "t * t * (three - two * t)",
    "smootherstep": "t * t * t * (t * (t * six - fifteen) + ten)",
}


def _blend_consts(variant: str) -> tuple[tuple[str, float], ...]:
    used = {"smoothstep": ("two", "three"), "smootherstep": ("six", "ten", "fifteen")}[variant]
    return tuple(c for c in _BLEND_CONSTS if c[0] in ("edge0", "inv_width", "zero", "one", *used))


def _build_blend(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(BLEND_SHAPES), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> t = fmin(fmax((mask[i] - edge0) * inv_width, zero), one) {{id=t}}
            <> w = {BLEND_SHAPES[req.variant]} {{id=w, dep=t}}
            <> a = img_a[i] {{id=a}}
            out[i] = a + w * (img_b[i] - a) {{dep=w:a}}
        end
        """,
        [u.array("img_a", req.dtype, ("n",)), u.array("img_b", req.dtype, ("n",)),
         u.array("mask", req.dtype, ("n",)), u.array("out", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _blend_consts(req.variant)), *u.size_args("n")],
        name="smoothstep_blend", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _blend_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # a third of the mask below the lower edge, a third above the upper one (both
    # clamps), a third on the ramp; the images far apart, so that the weight shows
    lo, hi = BLEND_EDGES
    part = rng.integers(0, 3, n)
    mask = np.choose(part, [rng.uniform(0.0, lo - 0.05, n), rng.uniform(hi + 0.05, 1.0, n),
                            rng.uniform(lo + 0.02, hi - 0.02, n)])
    return {"img_a": u.random_array(rng, (n,), dtype, low=0.2, high=0.6),
            "img_b": u.random_array(rng, (n,), dtype, low=1.0, high=2.0),
            "mask": np.asarray(mask, dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _blend_consts(variant))}


def _blend_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    lo, hi = BLEND_EDGES
    t = np.clip((f["mask"] - lo) / (hi - lo), 0.0, 1.0)
    w = t * t * (3 - 2 * t) if variant == "smoothstep" else t ** 3 * (t * (6 * t - 15) + 10)
    return {"out": u.as_dtype_of(f["img_a"] + w * (f["img_b"] - f["img_a"]), inputs["img_a"])}


SMOOTHSTEP_BLEND = KernelSpec(
    name="smoothstep_blend",
    role=KernelRole.UNSEEN,
    description=f"Two n-pixel images blended by a mask: t = the mask's position between "
                f"the edges {BLEND_EDGES[0]} and {BLEND_EDGES[1]}, clamped to [0, 1] (a max "
                f"and a min), shaped by smoothstep (3t^2 - 2t^3) or smootherstep "
                f"(6t^5 - 15t^4 + 10t^3); out = a + w (b - a).",
    parameters=("n",),
    variants=tuple(BLEND_SHAPES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_blend,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=partial(_blend_inputs, "smoothstep"),
    reference=partial(_blend_reference, "smoothstep"),
    variant_make_inputs=_blend_inputs,
    variant_reference=_blend_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ eigenvalues of symmetric 3 x 3 matrices

_EIG_PLANES = ("a11", "a22", "a33", "a12", "a13", "a23")
_EIG_CONSTS = (("third", 1.0 / 3.0), ("sixth", 1.0 / 6.0), ("one_half", 0.5), ("two", 2.0),
               ("three", 3.0), ("two_pi_3", 2.0 * np.pi / 3.0))
#: variant -> the eigenvalues written (largest first)
EIG_OUTPUTS: Mapping[str, tuple[str, ...]] = {
    "all": ("eig_max", "eig_mid", "eig_min"),
    "largest": ("eig_max",),
}


def _build_eig(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(EIG_OUTPUTS), 1)
    outs = EIG_OUTPUTS[req.variant]
    stores = {"eig_max": "eig_max[i] = e1 {dep=e1}",
              "eig_mid": "eig_mid[i] = three * q - e1 - e3 {dep=e1:e3}",
              "eig_min": "eig_min[i] = e3 {dep=e3}"}
    smallest = ("<> e3 = q + two * p * cos(phi + two_pi_3) {id=e3, dep=phi}"
                if "eig_min" in outs or "eig_mid" in outs else "")
    body = "\n            ".join(stores[o] for o in outs)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> q = (a11[i] + a22[i] + a33[i]) * third {{id=q}}
            <> b11 = a11[i] - q {{id=b11, dep=q}}
            <> b22 = a22[i] - q {{id=b22, dep=q}}
            <> b33 = a33[i] - q {{id=b33, dep=q}}
            <> c12 = a12[i] {{id=c12}}
            <> c13 = a13[i] {{id=c13}}
            <> c23 = a23[i] {{id=c23}}
            <> p2 = b11 * b11 + b22 * b22 + b33 * b33 \
                + two * (c12 * c12 + c13 * c13 + c23 * c23) {{id=p2, dep=b*:c*}}
            <> p = sqrt(p2 * sixth) {{id=p, dep=p2}}
            <> det = b11 * (b22 * b33 - c23 * c23) - c12 * (c12 * b33 - c23 * c13) \
                + c13 * (c12 * c23 - b22 * c13) {{id=det, dep=b*:c*}}
            <> phi = acos(one_half * det / (p * p * p)) * third {{id=phi, dep=det:p}}
            <> e1 = q + two * p * cos(phi) {{id=e1, dep=phi}}
            {smallest}
            {body}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in _EIG_PLANES),
         *(u.array(o, req.dtype, ("n",)) for o in outs),
         *u.scalar_args(req.dtype, _EIG_CONSTS), *u.size_args("n")],
        name="sym_eigvals3", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _eig_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # A = R diag(l) R^T with random rotations and eigenvalues in three separate bands
    # (positive, well apart: the arc cosine stays well conditioned)
    lam = np.stack([rng.uniform(1.0, 1.5, n), rng.uniform(2.0, 2.5, n),
                    rng.uniform(3.0, 3.5, n)], axis=1)
    r, _ = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    a = np.einsum("nij,nj,nkj->nik", r, lam, r)
    index = {"a11": (0, 0), "a22": (1, 1), "a33": (2, 2), "a12": (0, 1), "a13": (0, 2),
             "a23": (1, 2)}
    inputs = {k: np.ascontiguousarray(a[:, i, j], dtype=dtype.numpy) for k, (i, j) in index.items()}
    return inputs | u.scalar_inputs(dtype, _EIG_CONSTS)


def _eig_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    a = np.empty((len(f["a11"]), 3, 3))
    for k, (i, j) in {"a11": (0, 0), "a22": (1, 1), "a33": (2, 2), "a12": (0, 1),
                      "a13": (0, 2), "a23": (1, 2)}.items():
        a[:, i, j] = a[:, j, i] = f[k]
    eig = np.linalg.eigvalsh(a)   # ascending
    named = {"eig_max": eig[:, 2], "eig_mid": eig[:, 1], "eig_min": eig[:, 0]}
    return {o: u.as_dtype_of(named[o], inputs["a11"]) for o in EIG_OUTPUTS[variant]}


SYM_EIGVALS3 = KernelSpec(
    name="sym_eigvals3",
    role=KernelRole.UNSEEN,
    description="The eigenvalues of n symmetric 3 x 3 matrices (six planes) in closed "
                "form: the shifted matrix's norm (a square root) and determinant, an arc "
                "cosine and a cosine per eigenvalue; all three written (two cosines, the "
                "middle one from the trace) or the largest only.",
    parameters=("n",),
    variants=tuple(EIG_OUTPUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_eig,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_eig_inputs,
    reference=partial(_eig_reference, "all"),
    variant_reference=_eig_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ keyframe sampling

KEYFRAMES = 64
#: bisection steps that narrow [0, KEYFRAMES - 1] to one interval
KEY_STEPS = int(np.ceil(np.log2(KEYFRAMES - 1)))
_KEY_VARIANTS = ("linear", "hold")


def _build_keyframe(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _KEY_VARIANTS, 1)
    lines, previous = [], "h0"
    for k in range(KEY_STEPS):
        lines += [f"mid = (lo + hi) // 2 {{id=m{k}, dep={previous}}}",
                  f"<int32> go{k} = key_t[mid] <= tq {{id=c{k}, dep=m{k}}}",
                  f"lo = lo + go{k} * (mid - lo) {{id=l{k}, dep=c{k}}}",
                  f"hi = mid + go{k} * (hi - mid) {{id=h{k + 1}, dep=c{k}:l{k}}}"]
        previous = f"h{k + 1}"
    body = "\n            ".join(lines)
    if req.variant == "linear":
        value = ("key_v[lo] + (tq - key_t[lo]) * (key_v[hi] - key_v[lo]) "
                 "/ (key_t[hi] - key_t[lo])")
    else:
        value = "key_v[lo]"
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> tq = times[i] {{id=tq}}
            <int32> lo = 0 {{id=l_init}}
            <int32> hi = {KEYFRAMES - 1} {{id=h0, dep=l_init:tq}}
            <int32> mid = 0 {{id=m_init}}
            {body}
            values[i] = {value} {{dep={previous}:m_init}}
        end
        """,
        [u.array("times", req.dtype, ("n",)), u.array("key_t", req.dtype, (KEYFRAMES,)),
         u.array("key_v", req.dtype, (KEYFRAMES,)), u.array("values", req.dtype, ("n",)),
         *u.size_args("n")],
        name="keyframe_sample", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _keyframe_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # key times from 0, unevenly spaced; query times over the whole curve, never on a key
    key_t = np.concatenate([[0.0], np.cumsum(rng.uniform(0.2, 1.0, KEYFRAMES - 1))])
    key_t /= key_t[-1]
    times = rng.uniform(0.0, 1.0, n)
    after = np.minimum(np.searchsorted(key_t, times), KEYFRAMES - 1)
    near = np.minimum(np.abs(times - key_t[after]), np.abs(times - key_t[after - 1])) < 1e-4
    times[near] += 2e-4
    return {"times": np.asarray(np.minimum(times, 0.9999), dtype=dtype.numpy),
            "key_t": np.asarray(key_t, dtype=dtype.numpy),
            "key_v": u.random_array(rng, (KEYFRAMES,), dtype, low=0.5, high=1.5)}


def keyframe_interval(inputs) -> np.ndarray:
    """The key at or before each query time (the kernel's comparisons, in its precision)."""
    return np.searchsorted(inputs["key_t"], inputs["times"], side="right") - 1


def _keyframe_reference(variant: str, inputs, params) -> dict:
    lo = keyframe_interval(inputs)
    f = u.as_float64(inputs)
    kt, kv = f["key_t"], f["key_v"]
    if variant == "linear":
        value = kv[lo] + (f["times"] - kt[lo]) * (kv[lo + 1] - kv[lo]) / (kt[lo + 1] - kt[lo])
    else:
        value = kv[lo]
    return {"values": u.as_dtype_of(value, inputs["times"])}


KEYFRAME_SAMPLE = KernelSpec(
    name="keyframe_sample",
    role=KernelRole.UNSEEN,
    description=f"An animation curve of {KEYFRAMES} keys (sorted times and values, read "
                f"by every work item) sampled at n query times: {KEY_STEPS} bisection "
                f"steps (each a read at a data-dependent key and a select), then the "
                f"value linearly interpolated (a division) or the key's value held.",
    parameters=("n",),
    variants=_KEY_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_keyframe,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_keyframe_inputs,
    reference=partial(_keyframe_reference, "linear"),
    variant_reference=_keyframe_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (SMOOTHSTEP_BLEND, SYM_EIGVALS3, KEYFRAME_SAMPLE)
