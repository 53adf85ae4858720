"""The twenty-first held-out set (``--set heldout21``): kernels kept out of all fitting and design.

The twentieth set (:mod:`.heldout20`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts). Every input is floating point
(the device runner's zero-filled integer arrays play no part).

* ``planck_radiance``: the black-body spectral radiance at a wavelength and temperature.
* ``box_iou_pairs``: the intersection over union of pairs of axis-aligned boxes.
* ``gru_cell_update``: the element-wise part of a GRU cell (two sigmoids, a tanh, a blend).
* ``legendre_series``: a Legendre series evaluated by the three-term recurrence.
* ``direction_to_equirect``: 3-D directions to equirectangular texture coordinates.

Those on 2-D groups (hdr_merge3, lbm_bgk_collide, wiener_filter_spectrum,
depth_unproject) are in :mod:`.heldout21_grid`.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec


# {{{ Planck radiance

#: the radiation constants for micrometres and kilokelvin: c1 (W um^4 m^-2 sr^-1) and
#: c2 (um kK)
PLANCK_C1, PLANCK_C2 = 1.191042e8, 14.387769
_PLANCK_CONSTS = (("one", 1.0), ("c1", PLANCK_C1), ("c2", PLANCK_C2))


def _build_planck(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("wavelength_um",), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        for i
            <> lam = wavelength[i] {id=lam}
            <> lam2 = lam * lam {id=lam2, dep=lam}
            radiance[i] = c1 / (lam2 * lam2 * lam * (exp(c2 / (lam * temp_kk[i])) - one)) \
                {dep=lam2}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("wavelength", "temp_kk", "radiance")),
         *u.scalar_args(req.dtype, _PLANCK_CONSTS), *u.size_args("n")],
        name="planck_radiance", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def planck(lam, t_kk) -> np.ndarray:
    lam, t_kk = np.asarray(lam, np.float64), np.asarray(t_kk, np.float64)
    return PLANCK_C1 / (lam ** 5 * np.expm1(PLANCK_C2 / (lam * t_kk)))


def _planck_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # 0.2 to 20 micrometres, 0.3 to 6 kK: both sides of the peak (Wien's and the
    # Rayleigh-Jeans regime); redrawn while the exponent exceeds 60
    def draw(k):
        return np.exp(rng.uniform(np.log(0.2), np.log(20.0), k)), rng.uniform(0.3, 6.0, k)
    lam, t = u.redraw_until_good(draw(n), draw, lambda lam, t: PLANCK_C2 / (lam * t) > 60.0,
                                 tries=200)
    return {"wavelength": np.asarray(lam, dtype.numpy), "temp_kk": np.asarray(t, dtype.numpy),
            **u.scalar_inputs(dtype, _PLANCK_CONSTS)}


def _planck_reference(inputs, params) -> dict:
    return {"radiance": u.as_dtype_of(planck(inputs["wavelength"], inputs["temp_kk"]),
                                      inputs["wavelength"])}


PLANCK_RADIANCE = KernelSpec(
    name="planck_radiance",
    description="The black-body spectral radiance (Planck's law) of n wavelength "
                "(micrometres) and temperature (kilokelvin) pairs: the fifth power by "
                "multiplications, an exponential and two divisions per element.",
    parameters=("n",),
    variants=("wavelength_um",),
    build=_build_planck,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_planck_inputs,
    reference=_planck_reference,
    check_params={"n": 3000},
    rtol=2e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ box IoU

_IOU_CONSTS = (("zero", 0.0),)


def _build_iou(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("xyxy",), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        for i
            <> iw = fmax(fmin(box_a[i, 2], box_b[i, 2]) - fmax(box_a[i, 0], box_b[i, 0]), \
                zero) {id=iw}
            <> ih = fmax(fmin(box_a[i, 3], box_b[i, 3]) - fmax(box_a[i, 1], box_b[i, 1]), \
                zero) {id=ih}
            <> inter = iw * ih {id=inter, dep=iw:ih}
            <> area_a = (box_a[i, 2] - box_a[i, 0]) * (box_a[i, 3] - box_a[i, 1]) {id=aa}
            <> area_b = (box_b[i, 2] - box_b[i, 0]) * (box_b[i, 3] - box_b[i, 1]) {id=ab}
            iou[i] = inter / (area_a + area_b - inter) {dep=inter:aa:ab}
        end
        """,
        [u.array("box_a", req.dtype, ("n", 4)), u.array("box_b", req.dtype, ("n", 4)),
         u.array("iou", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _IOU_CONSTS), *u.size_args("n")],
        name="box_iou_pairs", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def overlaps(a, b) -> tuple[np.ndarray, np.ndarray]:
    """(float64) the signed overlaps along x and y (negative: apart)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return (np.minimum(a[:, 2], b[:, 2]) - np.maximum(a[:, 0], b[:, 0]),
            np.minimum(a[:, 3], b[:, 3]) - np.maximum(a[:, 1], b[:, 1]))


def box_iou(a, b) -> np.ndarray:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    ox, oy = overlaps(a, b)
    inter = np.maximum(ox, 0.0) * np.maximum(oy, 0.0)
    area = lambda r: (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])  # noqa: E731
    return inter / (area(a) + area(b) - inter)


def _iou_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # corners in a 10 x 10 field, sides 0.5 to 4: pairs that overlap, touch along one
    # axis only, or lie apart along both; redrawn while an overlap lies within 1e-2 of
    # zero or a nonzero IoU is under 1e-3
    def draw(k):
        lo = rng.uniform(0.0, 10.0, (k, 2))
        return np.hstack([lo, lo + rng.uniform(0.5, 4.0, (k, 2))])
    a, b = draw(n), draw(n)
    b[: n // 2] = a[: n // 2] + rng.uniform(-1.5, 1.5, (n // 2, 4))   # mostly overlapping
    b[: n // 2, 2:] = np.maximum(b[: n // 2, 2:], b[: n // 2, :2] + 0.5)

    def is_bad(b):
        ox, oy = overlaps(a, b)
        iou = box_iou(a, b)
        return (np.abs(ox) < 1e-2) | (np.abs(oy) < 1e-2) | ((iou > 0) & (iou < 1e-3))
    b = u.redraw_until_good(b, draw, is_bad, tries=200)
    return {"box_a": np.asarray(a, dtype.numpy), "box_b": np.asarray(b, dtype.numpy),
            **u.scalar_inputs(dtype, _IOU_CONSTS)}


def _iou_reference(inputs, params) -> dict:
    return {"iou": u.as_dtype_of(box_iou(inputs["box_a"], inputs["box_b"]),
                                 inputs["box_a"])}


BOX_IOU_PAIRS = KernelSpec(
    name="box_iou_pairs",
    description="The intersection over union of n pairs of axis-aligned boxes (rows of "
                "x0, y0, x1, y1): the overlap along each axis clamped at zero by fmax, "
                "the two areas and one division per pair.",
    parameters=("n",),
    variants=("xyxy",),
    build=_build_iou,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_iou_inputs,
    reference=_iou_reference,
    check_params={"n": 3000},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ GRU cell, element-wise part

_GRU_CONSTS = (("one", 1.0),)
_GRU_INPUTS = ("reset_pre", "update_pre", "cand_x", "cand_h", "hidden")


def _build_gru(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("gates_given",), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        for i
            <> r = one / (one + exp(-reset_pre[i])) {id=r}
            <> z = one / (one + exp(-update_pre[i])) {id=z}
            <> c = tanh(cand_x[i] + r * cand_h[i]) {id=c, dep=r}
            hidden_out[i] = (one - z) * c + z * hidden[i] {dep=z:c}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in (*_GRU_INPUTS, "hidden_out")),
         *u.scalar_args(req.dtype, _GRU_CONSTS), *u.size_args("n")],
        name="gru_cell_update", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def gru(rp, zp, cx, ch, h) -> np.ndarray:
    rp, zp, cx, ch, h = (np.asarray(a, np.float64) for a in (rp, zp, cx, ch, h))
    r, z = 1.0 / (1.0 + np.exp(-rp)), 1.0 / (1.0 + np.exp(-zp))
    return (1.0 - z) * np.tanh(cx + r * ch) + z * h


def _gru_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # pre-activations of both signs, from saturating to linear; redrawn while the new
    # state lies within 0.02 of zero
    def draw(k):
        return [rng.normal(0.0, 2.0, k) for _ in _GRU_INPUTS]
    arrays = u.redraw_until_good(draw(n), draw, lambda *a: np.abs(gru(*a)) < 0.02, tries=200)
    return {**{k: np.asarray(a, dtype.numpy) for k, a in zip(_GRU_INPUTS, arrays)},
            **u.scalar_inputs(dtype, _GRU_CONSTS)}


def _gru_reference(inputs, params) -> dict:
    return {"hidden_out": u.as_dtype_of(gru(*(inputs[k] for k in _GRU_INPUTS)),
                                        inputs["hidden"])}


GRU_CELL_UPDATE = KernelSpec(
    name="gru_cell_update",
    description="The element-wise part of a GRU cell over n units (the matrix products "
                "given): the reset and update gates by sigmoids, the candidate by a tanh "
                "of the input part plus the gated recurrent part, the blend with the old "
                "state; five arrays read, one written.",
    parameters=("n",),
    variants=("gates_given",),
    build=_build_gru,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_gru_inputs,
    reference=_gru_reference,
    check_params={"n": 3000},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ Legendre series

#: the series' terms (degrees 0 to LEGENDRE_TERMS - 1)
LEGENDRE_TERMS = 24
_LEG_CONSTS = (("zero", 0.0), ("one", 1.0), ("two", 2.0))


def _build_legendre(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("recurrence",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {LEGENDRE_TERMS}}}"],
        """
        for i
            <> x = xs[i] {id=x}
            <> p_prev = zero {id=pp0}
            <> p = one {id=p0}
            <> total = zero {id=total0}
            for k
                total = total + coeffs[k] * p {id=total_up, dep=p0:total0}
                <> p_next = ((two * k + one) * x * p - k * p_prev) / (k + one) \
                    {id=p_next, dep=x:pp0:total_up}
                p_prev = p {id=pp_up, dep=p_next}
                p = p_next {id=p_up, dep=pp_up}
            end
            values[i] = total {dep=total_up}
        end
        """,
        [u.array("xs", req.dtype, ("n",)), u.array("coeffs", req.dtype, (LEGENDRE_TERMS,)),
         u.array("values", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _LEG_CONSTS), *u.size_args("n")],
        name="legendre_series", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def legendre(xs, coeffs) -> np.ndarray:
    return np.polynomial.legendre.legval(np.asarray(xs, np.float64),
                                         np.asarray(coeffs, np.float64))


def _legendre_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # points over [-1, 1] (both ends included), coefficients of both signs decaying
    # like 1/(k + 1); points redrawn while the series lies within 0.05 of zero
    coeffs = rng.choice([-1.0, 1.0], LEGENDRE_TERMS) * rng.uniform(0.5, 1.0, LEGENDRE_TERMS) \
        / np.arange(1, LEGENDRE_TERMS + 1)
    coeffs[0] = 1.5
    x = rng.uniform(-1.0, 1.0, n)
    x[:2] = -1.0, 1.0
    x = u.redraw_until_good(x, lambda k: rng.uniform(-1.0, 1.0, k),
                            lambda x: np.abs(legendre(x, coeffs)) < 0.05, tries=200)
    return {"xs": np.asarray(x, dtype.numpy), "coeffs": np.asarray(coeffs, dtype.numpy),
            **u.scalar_inputs(dtype, _LEG_CONSTS)}


def _legendre_reference(inputs, params) -> dict:
    return {"values": u.as_dtype_of(legendre(inputs["xs"], inputs["coeffs"]), inputs["xs"])}


LEGENDRE_SERIES = KernelSpec(
    name="legendre_series",
    description=f"A Legendre series of {LEGENDRE_TERMS} terms (a coefficient table read "
                f"by every work item) at n points by Bonnet's three-term recurrence: per "
                f"term a multiply-add into the sum and a division by the degree plus one "
                f"(int32 degrees converted), two polynomials carried in registers.",
    parameters=("n",),
    variants=("recurrence",),
    build=_build_legendre,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_legendre_inputs,
    reference=_legendre_reference,
    check_params={"n": 2000},
    rtol=1e-3,
    **u.unseen_1d(),
)

# }}}


# {{{ directions to equirectangular coordinates

_EQUI_CONSTS = (("centre", 0.5), ("inv_2pi", 0.5 / np.pi), ("inv_pi", 1.0 / np.pi))


def _build_equirect(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("atan2_asin",), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        for i
            <> x = dirs[i, 0] {id=x}
            <> y = dirs[i, 1] {id=y}
            <> z = dirs[i, 2] {id=z}
            tex_u[i] = centre + atan2(y, x) * inv_2pi {dep=x:y}
            tex_v[i] = centre - asin(z / sqrt(x * x + y * y + z * z)) * inv_pi {dep=x:y:z}
        end
        """,
        [u.array("dirs", req.dtype, ("n", 3)),
         *(u.array(a, req.dtype, ("n",)) for a in ("tex_u", "tex_v")),
         *u.scalar_args(req.dtype, _EQUI_CONSTS), *u.size_args("n")],
        name="direction_to_equirect", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def equirect(dirs) -> tuple[np.ndarray, np.ndarray]:
    d = np.asarray(dirs, np.float64)
    r = np.sqrt((d * d).sum(axis=1))
    return (0.5 + np.arctan2(d[:, 1], d[:, 0]) / (2 * np.pi),
            0.5 - np.arcsin(d[:, 2] / r) / np.pi)


def _equirect_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # directions of every octant, lengths 0.1 to 10; redrawn while u lies within 0.01
    # of the seam (0 or 1: the azimuth near +-pi, where the sum with 0.5 cancels) or
    # either coordinate within 0.01 of 0.5 (where a small absolute error is a large
    # relative one), or the direction is within 0.01 (in sin) of a pole
    def draw(k):
        v = rng.normal(0.0, 1.0, (k, 3))
        return v * rng.uniform(0.1, 10.0, (k, 1)) / np.linalg.norm(v, axis=1, keepdims=True)

    def is_bad(d):
        tu, tv = equirect(d)
        s = d[:, 2] / np.linalg.norm(d, axis=1)
        return ((np.minimum(tu, 1.0 - tu) < 0.01) | (np.abs(tu - 0.5) < 0.01)
                | (np.abs(tv - 0.5) < 0.01) | (np.abs(s) > 0.99))
    d = u.redraw_until_good(draw(n), draw, is_bad, tries=200)
    return {"dirs": np.asarray(d, dtype.numpy), **u.scalar_inputs(dtype, _EQUI_CONSTS)}


def _equirect_reference(inputs, params) -> dict:
    tu, tv = equirect(inputs["dirs"])
    return {"tex_u": u.as_dtype_of(tu, inputs["dirs"]),
            "tex_v": u.as_dtype_of(tv, inputs["dirs"])}


DIRECTION_TO_EQUIRECT = KernelSpec(
    name="direction_to_equirect",
    description="The equirectangular (latitude-longitude) texture coordinates of n 3-D "
                "directions (rows of 3, not normalised): the longitude by atan2, the "
                "latitude by the arcsine of z over the length (a square root and a "
                "division); two arrays written.",
    parameters=("n",),
    variants=("atan2_asin",),
    build=_build_equirect,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_equirect_inputs,
    reference=_equirect_reference,
    check_params={"n": 3000},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (PLANCK_RADIANCE, BOX_IOU_PAIRS, GRU_CELL_UPDATE,
                                 LEGENDRE_SERIES, DIRECTION_TO_EQUIRECT)
