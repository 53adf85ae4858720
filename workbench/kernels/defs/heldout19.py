"""The nineteenth held-out set (``--set heldout19``): kernels kept out of all fitting and design.

The eighteenth set (:mod:`.heldout18`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts). Every input is floating point
(the device runner's zero-filled integer arrays play no part).

* ``welford_var_rows``: the mean and variance of each row by Welford's online update.
* ``mish_activation``: x tanh(softplus(x)) per element, softplus in its overflow-free form.
* ``bisect_cubic_roots``: the real root of a depressed cubic per element by a fixed
  number of bisection steps.
* ``batched_det4``: the determinant of each of n 4 x 4 matrices by 2 x 2 minors.
* ``gmm_loglik``: the log-likelihood of 2-D points under a mixture of isotropic
  Gaussians (a log-sum-exp over the components).

The geometry kernel on 1-D groups (ray_triangle_hit) is in :mod:`.heldout19_geometry`;
those on 2-D groups (perona_malik_step, local_contrast_norm3, chroma_key_matte) are in
:mod:`.heldout19_grid`.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec


# {{{ Welford row variance

#: samples per row
WELFORD_SAMPLES = 96


def _build_welford(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("online",), 1)
    ftype = req.dtype.value
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {WELFORD_SAMPLES}}}"],
        f"""
        for i
            <> mean = zero {{id=mean0}}
            <> m2 = zero {{id=m20}}
            for k
                <{ftype}> count = k + 1 {{id=count}}
                <> x = samples[i, k] {{id=x}}
                <> delta = x - mean {{id=delta, dep=x:mean0}}
                mean = mean + delta / count {{id=mean_up, dep=delta:count}}
                m2 = m2 + delta * (x - mean) {{id=m2_up, dep=mean_up:m20}}
            end
            mean_out[i] = mean {{dep=mean_up}}
            var_out[i] = m2 * inv_dof {{dep=m2_up}}
        end
        """,
        [u.array("samples", req.dtype, ("n", WELFORD_SAMPLES)),
         *(u.array(a, req.dtype, ("n",)) for a in ("mean_out", "var_out")),
         *u.scalar_args(req.dtype, (("zero", 0.0), ("inv_dof", 1.0 / (WELFORD_SAMPLES - 1)))),
         *u.size_args("n")],
        name="welford_var_rows", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _welford_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # rows centred 5 to 50 away from zero (of either sign) with spreads of 0.5 to 3: the
    # textbook sum-of-squares formula loses digits there, the online update does not
    centre = rng.uniform(5.0, 50.0, n) * np.where(rng.random(n) < 0.4, -1.0, 1.0)
    spread = rng.uniform(0.5, 3.0, n)
    x = centre[:, None] + spread[:, None] * rng.normal(size=(n, WELFORD_SAMPLES))
    return {"samples": np.asarray(x, dtype.numpy),
            **u.scalar_inputs(dtype, (("zero", 0.0), ("inv_dof", 1.0 / (WELFORD_SAMPLES - 1))))}


def _welford_reference(inputs, params) -> dict:
    x = inputs["samples"]
    x64 = x.astype(np.float64)
    return {"mean_out": u.as_dtype_of(x64.mean(axis=1), x),
            "var_out": u.as_dtype_of(x64.var(axis=1, ddof=1), x)}


WELFORD_VAR_ROWS = KernelSpec(
    name="welford_var_rows",
    description=f"The mean and the sample variance of each of n rows of {WELFORD_SAMPLES} "
                f"samples (row-major, one work item per row) by Welford's online update: "
                f"per sample a subtraction, a division by the running count (converted "
                f"from the loop index) and a multiply-add into the sum of squares.",
    parameters=("n",),
    variants=("online",),
    build=_build_welford,
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=_welford_inputs,
    reference=_welford_reference,
    check_params={"n": 700},
    rtol=2e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ Mish activation

_MISH_CONSTS = (("zero", 0.0), ("one", 1.0))


def _build_mish(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("stable_softplus",), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        for i
            <> x = act_in[i] {id=x}
            <> softplus = fmax(x, zero) + log(one + exp(-fabs(x))) {id=sp, dep=x}
            act_out[i] = x * tanh(softplus) {dep=sp}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("act_in", "act_out")),
         *u.scalar_args(req.dtype, _MISH_CONSTS), *u.size_args("n")],
        name="mish_activation", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def mish(x) -> np.ndarray:
    x = np.asarray(x, np.float64)
    return x * np.tanh(np.logaddexp(0.0, x))


def _mish_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # activations of both signs, most within 4 of zero, a tenth out to 15 (where the
    # softplus is the identity); none within 1e-3 of zero, none below -5 (where the
    # float32 log(1 + e) would keep too few digits of the small softplus)
    x = rng.normal(0.0, 2.0, n)
    far = rng.random(n) < 0.1
    x[far] = rng.uniform(4.0, 15.0, far.sum())
    x = np.where((np.abs(x) < 1e-3) | (x < -5.0), 0.5, x)
    return {"act_in": np.asarray(x, dtype.numpy), **u.scalar_inputs(dtype, _MISH_CONSTS)}


def _mish_reference(inputs, params) -> dict:
    return {"act_out": u.as_dtype_of(mish(inputs["act_in"]), inputs["act_in"])}


MISH_ACTIVATION = KernelSpec(
    name="mish_activation",
    description="The Mish activation x tanh(softplus(x)) of n values, the softplus in its "
                "overflow-free form max(x, 0) + log(1 + exp(-|x|)): an exponential, a "
                "logarithm and a tanh per element.",
    parameters=("n",),
    variants=("stable_softplus",),
    build=_build_mish,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_mish_inputs,
    reference=_mish_reference,
    check_params={"n": 3000},
    rtol=1e-5,
    **u.unseen_1d(),
)

# }}}


# {{{ bisection for the root of a depressed cubic

#: bisection steps; the bracket [-BISECT_RANGE, BISECT_RANGE]
BISECT_STEPS, BISECT_RANGE = 48, 4.0
_BISECT_CONSTS = (("zero", 0.0), ("one", 1.0), ("one_half", 0.5), ("lo_start", -BISECT_RANGE),
                  ("hi_start", BISECT_RANGE))


def _build_bisect(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("fixed_steps",), 1)
    ftype = req.dtype.value
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[t]: 0 <= t < {BISECT_STEPS}}}"],
        f"""
        for i
            <> pc = p_coef[i] {{id=pc}}
            <> qc = q_coef[i] {{id=qc}}
            <> lo = lo_start {{id=lo0}}
            <> hi = hi_start {{id=hi0}}
            for t
                <> mid = one_half * (lo + hi) {{id=mid, dep=lo0:hi0}}
                <> f = (mid * mid + pc) * mid + qc {{id=f, dep=mid:pc:qc}}
                <{ftype}> below = f < zero {{id=below, dep=f}}
                lo = below * mid + (one - below) * lo {{id=lo_up, dep=below}}
                hi = below * hi + (one - below) * mid {{id=hi_up, dep=below:lo_up}}
            end
            root[i] = one_half * (lo + hi) {{dep=lo_up:hi_up}}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("p_coef", "q_coef", "root")),
         *u.scalar_args(req.dtype, _BISECT_CONSTS), *u.size_args("n")],
        name="bisect_cubic_roots", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def cubic_root(p, q) -> np.ndarray:
    """(float64) the real root of x^3 + p x + q (p > 0) in the bracket, bisected to the
    end of float64."""
    p, q = np.asarray(p, np.float64), np.asarray(q, np.float64)
    lo, hi = np.full_like(p, -BISECT_RANGE), np.full_like(p, BISECT_RANGE)
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        below = (mid * mid + p) * mid + q < 0
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def _bisect_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # p from 1 to 4 (one real root, the cubic increasing); roots 0.5 to 3.5 of both
    # signs, so that the bracket halves both ways
    p = rng.uniform(1.0, 4.0, n)
    r = rng.uniform(0.5, 3.5, n) * np.where(rng.random(n) < 0.5, -1.0, 1.0)
    q = -(r ** 3 + p * r)
    return {"p_coef": np.asarray(p, dtype.numpy), "q_coef": np.asarray(q, dtype.numpy),
            **u.scalar_inputs(dtype, _BISECT_CONSTS)}


def _bisect_reference(inputs, params) -> dict:
    return {"root": u.as_dtype_of(cubic_root(inputs["p_coef"], inputs["q_coef"]),
                                  inputs["p_coef"])}


BISECT_CUBIC_ROOTS = KernelSpec(
    name="bisect_cubic_roots",
    description=f"The real root of x^3 + p x + q (p > 0) for n coefficient pairs by "
                f"{BISECT_STEPS} bisection steps of the bracket [-{BISECT_RANGE:g}, "
                f"{BISECT_RANGE:g}]: per step the cubic at the midpoint by Horner and the "
                f"bracket's ends chosen by the sign (the comparison as 0 or 1).",
    parameters=("n",),
    variants=("fixed_steps",),
    build=_build_bisect,
    default_p=18,
    p_choices=(17, 18, 19),
    make_inputs=_bisect_inputs,
    reference=_bisect_reference,
    check_params={"n": 2000},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ batched 4 x 4 determinant

#: the pairs of columns of the 2 x 2 minors, in the order of the expansion
DET_PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def _build_det4(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("two_by_two_minors",), 1)
    lines = []
    for k, (a, b) in enumerate(DET_PAIRS):
        lines.append(f"<> s{k} = m[i, {a}] * m[i, {4 + b}] - m[i, {b}] * m[i, {4 + a}] "
                     f"{{id=s{k}}}")
        lines.append(f"<> c{k} = m[i, {8 + a}] * m[i, {12 + b}] - m[i, {8 + b}] * "
                     f"m[i, {12 + a}] {{id=c{k}}}")
    body = "\n            ".join(lines)
    deps = ":".join(f"{x}{k}" for x in "sc" for k in range(6))
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
            det[i] = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0 {{dep={deps}}}
        end
        """,
        [u.array("m", req.dtype, ("n", 16)), u.array("det", req.dtype, ("n",)),
         *u.size_args("n")],
        name="batched_det4", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _det4_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # normal entries (products of minors near 2); matrices redrawn while the
    # determinant is under 0.5 (the float32 result then keeps four digits);
    # determinants of both signs
    def draw(k):
        return rng.normal(size=(k, 4, 4))
    a = u.redraw_until_good(draw(n), draw, lambda a: np.abs(np.linalg.det(a)) < 0.5, tries=200)
    return {"m": np.asarray(a.reshape(n, 16), dtype.numpy)}


def _det4_reference(inputs, params) -> dict:
    a = inputs["m"].astype(np.float64).reshape(-1, 4, 4)
    return {"det": u.as_dtype_of(np.linalg.det(a), inputs["m"])}


BATCHED_DET4 = KernelSpec(
    name="batched_det4",
    description="The determinant of each of n 4 x 4 matrices (rows of 16, one work item "
                "per matrix) by Laplace's expansion in the 2 x 2 minors of the top and the "
                "bottom two rows: twelve minors, their six products summed with signs.",
    parameters=("n",),
    variants=("two_by_two_minors",),
    build=_build_det4,
    default_p=19,
    p_choices=(18, 19, 20),
    make_inputs=_det4_inputs,
    reference=_det4_reference,
    check_params={"n": 2000},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ Gaussian mixture log-likelihood

#: the mixture's components
GMM_K = 8


def _build_gmm(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("log_sum_exp",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {GMM_K}}}", f"{{[kk]: 0 <= kk < {GMM_K}}}"],
        """
        for i
            <> x = pts[i, 0] {id=x}
            <> y = pts[i, 1] {id=y}
            <> best = -big {id=best0}
            for k
                <> dx = x - centers[k, 0] {id=dx, dep=x}
                <> dy = y - centers[k, 1] {id=dy, dep=y}
                <> score = log_norm[k] - one_half * inv_var[k] * (dx * dx + dy * dy) \
                    {id=score, dep=dx:dy}
                best = fmax(best, score) {id=best_up, dep=score:best0}
            end
            <> total = zero {id=total0}
            for kk
                <> ex = x - centers[kk, 0] {id=ex, dep=x}
                <> ey = y - centers[kk, 1] {id=ey, dep=y}
                <> s2 = log_norm[kk] - one_half * inv_var[kk] * (ex * ex + ey * ey) \
                    {id=s2, dep=ex:ey}
                total = total + exp(s2 - best) {id=total_up, dep=s2:best_up:total0}
            end
            loglik[i] = best + log(total) {dep=total_up}
        end
        """,
        [u.array("pts", req.dtype, ("n", 2)), u.array("centers", req.dtype, (GMM_K, 2)),
         *(u.array(a, req.dtype, (GMM_K,)) for a in ("log_norm", "inv_var")),
         u.array("loglik", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, (("zero", 0.0), ("one_half", 0.5), ("big", 1e30))),
         *u.size_args("n")],
        name="gmm_loglik", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def gmm(pts, centers, log_norm, inv_var) -> np.ndarray:
    """(float64) each point's log-likelihood under the mixture."""
    pts, centers = np.asarray(pts, np.float64), np.asarray(centers, np.float64)
    d2 = ((pts[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
    score = np.asarray(log_norm, np.float64) - 0.5 * np.asarray(inv_var, np.float64) * d2
    best = score.max(axis=1)
    return best + np.log(np.exp(score - best[:, None]).sum(axis=1))


def _gmm_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # components spread over [-6, 6]^2 with variances 0.25 to 4 and random weights (the
    # log-normaliser log w - log(2 pi var)); points near components and far from all
    # (there every exp of an unshifted log-density underflows, and shifted by another
    # component's than the largest some overflow), redrawn while a log-likelihood lies
    # within 0.05 of zero
    centers = rng.uniform(-6.0, 6.0, (GMM_K, 2))
    var = rng.uniform(0.25, 4.0, GMM_K)
    w = rng.uniform(0.5, 2.0, GMM_K)
    log_norm = np.log(w / w.sum()) - np.log(2 * np.pi * var)

    def draw(k):
        near = centers[rng.integers(0, GMM_K, k)] + rng.normal(0.0, 1.5, (k, 2))
        return np.where(rng.random((k, 1)) < 0.8, near, rng.uniform(-40.0, 40.0, (k, 2)))
    pts = u.redraw_until_good(
        draw(n), draw, lambda p: np.abs(gmm(p, centers, log_norm, 1 / var)) < 0.05, tries=200)
    return {"pts": np.asarray(pts, dtype.numpy), "centers": np.asarray(centers, dtype.numpy),
            "log_norm": np.asarray(log_norm, dtype.numpy),
            "inv_var": np.asarray(1 / var, dtype.numpy),
            **u.scalar_inputs(dtype, (("zero", 0.0), ("one_half", 0.5), ("big", 1e30)))}


def _gmm_reference(inputs, params) -> dict:
    return {"loglik": u.as_dtype_of(gmm(inputs["pts"], inputs["centers"], inputs["log_norm"],
                                        inputs["inv_var"]), inputs["pts"])}


GMM_LOGLIK = KernelSpec(
    name="gmm_loglik",
    description=f"The log-likelihood of n 2-D points (rows of 2) under a mixture of "
                f"{GMM_K} isotropic Gaussians (centres, log-normalisers and inverse "
                f"variances read by every work item): a first pass over the components "
                f"for the largest log-density, a second summing exp of the differences, a "
                f"log at the end.",
    parameters=("n",),
    variants=("log_sum_exp",),
    build=_build_gmm,
    default_p=18,
    p_choices=(17, 18, 19),
    make_inputs=_gmm_inputs,
    reference=_gmm_reference,
    check_params={"n": 2000},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (WELFORD_VAR_ROWS, MISH_ACTIVATION, BISECT_CUBIC_ROOTS,
                                 BATCHED_DET4, GMM_LOGLIK)
