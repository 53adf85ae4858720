"""The twelfth held-out set's kernels on 2-D groups: a bilateral filter, an upwind
advection step, batch normalisation at inference.

What the set is for, and the other kernels, are in :mod:`.heldout12`.

* ``bilateral_filter3``: each pixel replaced by the mean of its 3 x 3 neighbourhood
  weighted by the similarity of each neighbour's value to its own (an exponential
  each), optionally also by the neighbour's distance.
* ``upwind_advect2d``: one explicit first-order upwind step of a scalar advected by a
  velocity field read per cell: the difference taken on the upwind side of each
  axis (by the velocity's sign, in the branchless form max(u, 0), min(u, 0)).
* ``batchnorm_infer``: batch normalisation of an m x n activation (n channels along
  the rows) with per-channel running mean, variance, scale and shift, optionally
  followed by a ReLU.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


_BOX = tuple((di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1))


# {{{ bilateral filter

BIL_RANGE = 8.0
BIL_SPATIAL = 0.5
#: variant -> whether the weights fall off with the neighbour's distance too
BILATERAL_SPATIAL: Mapping[str, bool] = {"range": False, "range_spatial": True}


def _spatial_weight(di: int, dj: int, spatial: bool) -> float:
    return float(np.exp(-BIL_SPATIAL * (di * di + dj * dj))) if spatial else 1.0


def _build_bilateral(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(BILATERAL_SPATIAL), 2)
    spatial = BILATERAL_SPATIAL[req.variant]
    lines, consts, weights = [], [("inv_range", BIL_RANGE)], []
    for k, (di, dj) in enumerate(_BOX):
        pix = f"img[i + {1 + di}, j + {1 + dj}]"
        scale = ""
        if spatial and (di, dj) != (0, 0):
            consts.append((f"sw{k}", _spatial_weight(di, dj, True)))
            scale = f"sw{k} * "
        lines.append(f"<> w{k} = {scale}exp(-inv_range * ({pix} - c) * ({pix} - c)) "
                     f"{{id=w{k}, dep=c}}")
        weights.append(f"w{k}")
    num = " + ".join(f"w{k} * img[i + {1 + di}, j + {1 + dj}]" for k, (di, dj) in enumerate(_BOX))
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <> c = img[i + 1, j + 1] {{id=c}}
            {body}
            out[i, j] = ({num}) / ({" + ".join(weights)}) {{dep={":".join(weights)}}}
        end
        """,
        [u.array("img", req.dtype, ("m + 2", "n + 2")), u.array("out", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, consts), *u.size_args("m", "n")],
        name="bilateral_filter3", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _bilateral_consts(variant: str) -> list[tuple[str, float]]:
    consts = [("inv_range", BIL_RANGE)]
    if BILATERAL_SPATIAL[variant]:
        consts += [(f"sw{k}", _spatial_weight(di, dj, True))
                   for k, (di, dj) in enumerate(_BOX) if (di, dj) != (0, 0)]
    return consts


def _bilateral_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # values spread over [0.1, 1]: neighbours' weights range from near 1 to e^-6.5,
    # so a wrong weight, a missing neighbour or a swapped one changes the result
    return {"img": u.random_array(rng, (m + 2, n + 2), dtype, low=0.1, high=1.0),
            **u.scalar_inputs(dtype, _bilateral_consts(variant))}


def _bilateral_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    img = inputs["img"].astype(np.float64)
    c = img[1:-1, 1:-1]
    num = np.zeros_like(c)
    den = np.zeros_like(c)
    for di, dj in _BOX:
        nb = img[1 + di:1 + di + m, 1 + dj:1 + dj + n]
        w = _spatial_weight(di, dj, BILATERAL_SPATIAL[variant]) * np.exp(-BIL_RANGE * (nb - c) ** 2)
        num += w * nb
        den += w
    return {"out": u.as_dtype_of(num / den, inputs["img"])}


BILATERAL_FILTER3 = KernelSpec(
    name="bilateral_filter3",
    role=KernelRole.UNSEEN,
    description=f"A 3 x 3 bilateral filter of an m x n image read with a one-pixel "
                f"border: the mean of the neighbourhood weighted by "
                f"exp(-{BIL_RANGE} (neighbour - centre)^2) (nine exponentials and a "
                f"division per pixel), with range_spatial also by a constant weight per "
                f"offset.",
    parameters=("m", "n"),
    variants=tuple(BILATERAL_SPATIAL),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_bilateral,
    size_cases=u.doubling_rectangles,
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=partial(_bilateral_inputs, "range"),
    reference=partial(_bilateral_reference, "range"),
    variant_make_inputs=_bilateral_inputs,
    variant_reference=_bilateral_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-4,
)

# }}}


# {{{ upwind advection

_ADV_CONSTS = (("cx", 0.2), ("cy", 0.15), ("zero", 0.0))
_ADV_VARIANTS = ("upwind",)


def _build_advect(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _ADV_VARIANTS, 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        """
        for i, j
            <> qc = q[i + 1, j + 1] {id=qc}
            <> uu = vel_x[i, j] {id=uu}
            <> vv = vel_y[i, j] {id=vv}
            <> fx = fmax(uu, zero) * (qc - q[i + 1, j]) {id=fx0, dep=qc:uu}
            fx = fx + fmin(uu, zero) * (q[i + 1, j + 2] - qc) {id=fx, dep=fx0}
            <> fy = fmax(vv, zero) * (qc - q[i, j + 1]) {id=fy0, dep=qc:vv}
            fy = fy + fmin(vv, zero) * (q[i + 2, j + 1] - qc) {id=fy, dep=fy0}
            q_new[i, j] = qc - cx * fx - cy * fy {dep=fx:fy}
        end
        """,
        [u.array("q", req.dtype, ("m + 2", "n + 2")), u.array("vel_x", req.dtype, ("m", "n")),
         u.array("vel_y", req.dtype, ("m", "n")), u.array("q_new", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, _ADV_CONSTS), *u.size_args("m", "n")],
        name="upwind_advect2d", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _advect_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]

    def velocity():
        # both signs (both the max and the min taken), away from zero
        sign = np.where(rng.random((m, n)) < 0.5, -1.0, 1.0)
        return np.asarray(sign * rng.uniform(0.2, 1.0, (m, n)), dtype=dtype.numpy)

    # q in [1, 2]: the step changes it by at most 0.35, the result stays above 0.6
    return {"q": u.random_array(rng, (m + 2, n + 2), dtype, low=1.0, high=2.0),
            "vel_x": velocity(), "vel_y": velocity(), **u.scalar_inputs(dtype, _ADV_CONSTS)}


def _advect_reference(inputs, params) -> dict:
    f = u.as_float64(inputs)
    q, ux, vy = f["q"], f["vel_x"], f["vel_y"]
    qc = q[1:-1, 1:-1]
    fx = np.where(ux > 0, ux * (qc - q[1:-1, :-2]), ux * (q[1:-1, 2:] - qc))
    fy = np.where(vy > 0, vy * (qc - q[:-2, 1:-1]), vy * (q[2:, 1:-1] - qc))
    return {"q_new": u.as_dtype_of(qc - 0.2 * fx - 0.15 * fy, inputs["q"])}


UPWIND_ADVECT2D = KernelSpec(
    name="upwind_advect2d",
    role=KernelRole.UNSEEN,
    description="One explicit first-order upwind step of a scalar on an m x n grid "
                "(a one-cell border) advected by a velocity read per cell: along each "
                "axis the backward or the forward difference, chosen by the sign of that "
                "velocity component (branchless: max(u, 0) times one, min(u, 0) times "
                "the other; five loads of q per cell).",
    parameters=("m", "n"),
    variants=_ADV_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_advect,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_advect_inputs,
    reference=_advect_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-4,
)

# }}}


# {{{ batch normalisation (inference)

BN_EPS = 1e-5
_BN_CONSTS = (("eps", BN_EPS), ("zero", 0.0))
_BN_VARIANTS = ("plain", "relu")


def _build_batchnorm(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _BN_VARIANTS, 2)
    value = "(x[i, j] - mean[j]) * gamma[j] * rsqrt(var[j] + eps) + beta[j]"
    if req.variant == "relu":
        value = f"fmax({value}, zero)"
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            y[i, j] = {value}
        end
        """,
        [u.array("x", req.dtype, ("m", "n")), u.array("y", req.dtype, ("m", "n")),
         *(u.array(a, req.dtype, ("n",)) for a in ("mean", "var", "gamma", "beta")),
         *u.scalar_args(req.dtype, _BN_CONSTS), *u.size_args("m", "n")],
        name="batchnorm_infer", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _batchnorm_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # x around each channel's mean, both sides of it: the normalised value takes both
    # signs, and the shift leaves it positive for some entries and negative for others
    # (both arms of the ReLU); results away from zero by the gap around the mean
    mean = rng.uniform(-1.0, 1.0, n)
    offset = np.where(rng.random((m, n)) < 0.5, -1.0, 1.0) * rng.uniform(0.5, 2.0, (m, n))
    return {"x": np.asarray(mean + offset, dtype=dtype.numpy),
            "mean": np.asarray(mean, dtype=dtype.numpy),
            "var": u.random_array(rng, (n,), dtype, low=0.5, high=2.0),
            "gamma": u.random_array(rng, (n,), dtype, low=0.5, high=1.5),
            "beta": u.random_array(rng, (n,), dtype, low=-0.1, high=0.1),
            **u.scalar_inputs(dtype, _BN_CONSTS)}


def _batchnorm_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    y = (f["x"] - f["mean"]) * f["gamma"] / np.sqrt(f["var"] + BN_EPS) + f["beta"]
    if variant == "relu":
        y = np.maximum(y, 0.0)
    return {"y": u.as_dtype_of(y, inputs["x"])}


BATCHNORM_INFER = KernelSpec(
    name="batchnorm_infer",
    role=KernelRole.UNSEEN,
    description="Batch normalisation at inference of an m x n activation (n channels "
                "contiguous): (x - mean) gamma / sqrt(var + eps) + beta with four "
                "per-channel vectors (a reciprocal square root per entry), optionally "
                "followed by a ReLU.",
    parameters=("m", "n"),
    variants=_BN_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_batchnorm,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_batchnorm_inputs,
    reference=partial(_batchnorm_reference, "plain"),
    variant_reference=_batchnorm_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (BILATERAL_FILTER3, UPWIND_ADVECT2D, BATCHNORM_INFER)
