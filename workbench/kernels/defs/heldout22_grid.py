"""The twenty-second held-out set's image and field kernels on 2-D groups.

What the set is for, and the other kernels, are in :mod:`.heldout22`.

* ``saturation_adjust``: the colour saturation of an RGB image scaled about its luma,
  clamped to [0, 1].
* ``levelset_curvature``: the mean curvature of a level-set function's contours by
  central differences (a padded input).
* ``angular_spectrum_step``: a field's angular spectrum propagated a distance, the
  evanescent bins dropped.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec


# {{{ saturation about the luma

#: the Rec. 709 luma weights and the saturation factor
LUMA = (0.2126, 0.7152, 0.0722)
SATURATION = 1.8
_SAT_CONSTS = (("zero", 0.0), ("one", 1.0), ("sat", SATURATION),
               *((f"l{c}", w) for c, w in enumerate(LUMA)))
_RGB = ("red", "green", "blue")


def _build_saturation(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("luma_clamped",), 2)
    loads = "\n            ".join(f"<> c{c} = {a}[i, j] {{id=c{c}}}" for c, a in enumerate(_RGB))
    stores = "\n            ".join(
        f"{a}_out[i, j] = fmin(fmax(luma + sat * (c{c} - luma), zero), one) {{dep=luma}}"
        for c, a in enumerate(_RGB))
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {loads}
            <> luma = l0 * c0 + l1 * c1 + l2 * c2 {{id=luma, dep=c0:c1:c2}}
            {stores}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in (*_RGB, *(f"{a}_out" for a in _RGB))),
         *u.scalar_args(req.dtype, _SAT_CONSTS), *u.size_args("m", "n")],
        name="saturation_adjust", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def unclamped_saturation(rgb) -> np.ndarray:
    """(float64) the scaled channels before the clamp, stacked as the input."""
    rgb = np.asarray(rgb, np.float64)
    luma = sum(w * c for w, c in zip(LUMA, rgb))
    return luma + SATURATION * (rgb - luma)


def _saturation_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # channels over [0, 1]: grey pixels (unchanged but for rounding), pastel and vivid
    # ones (clamped below 0 or above 1); pixels redrawn while a scaled channel lies
    # within 0.01 of a clamp bound or under 0.03 (a small result of a cancellation)
    def draw(k):
        grey = rng.uniform(0.1, 0.9, k)
        spread = rng.uniform(0.0, 0.4, k)
        return np.clip(grey + spread * rng.uniform(-1.0, 1.0, (3, k)), 0.0, 1.0)

    def is_bad(rgb):
        s = unclamped_saturation(rgb)
        return ((np.abs(s) < 0.03) | (np.abs(s - 1.0) < 0.01)).any(axis=0)
    rgb = u.redraw_until_good(draw(int(np.prod(shape))).reshape(3, *shape), draw, is_bad,
                              tries=400, axis=1)
    return {**{a: np.asarray(c, dtype.numpy) for a, c in zip(_RGB, rgb)},
            **u.scalar_inputs(dtype, _SAT_CONSTS)}


def _saturation_reference(inputs, params) -> dict:
    s = np.clip(unclamped_saturation([inputs[a] for a in _RGB]), 0.0, 1.0)
    return {f"{a}_out": u.as_dtype_of(c, inputs["red"]) for a, c in zip(_RGB, s)}


SATURATION_ADJUST = KernelSpec(
    name="saturation_adjust",
    description=f"The saturation of an m x n RGB image (three planes) scaled by "
                f"{SATURATION} about each pixel's Rec. 709 luma, every channel clamped to "
                f"[0, 1] by fmax and fmin; three planes read, three written.",
    variants=("luma_clamped",),
    build=_build_saturation,
    make_inputs=_saturation_inputs,
    reference=_saturation_reference,
    rtol=1e-4,
    **u.unseen_2d(),
)

# }}}


# {{{ level-set curvature

_CURV_CONSTS = (("halved", 0.5), ("quartered", 0.25), ("two", 2.0), ("eps", 1e-6))


def _build_curvature(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("central_differences",), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        """
        for i, j
            <> c = phi[i + 1, j + 1] {id=c}
            <> w = phi[i + 1, j] {id=w}
            <> e = phi[i + 1, j + 2] {id=e}
            <> s = phi[i, j + 1] {id=s}
            <> nn = phi[i + 2, j + 1] {id=nn}
            <> gx = (e - w) * halved {id=gx, dep=e:w}
            <> gy = (nn - s) * halved {id=gy, dep=nn:s}
            <> gxx = e - two * c + w {id=gxx, dep=e:w:c}
            <> gyy = nn - two * c + s {id=gyy, dep=nn:s:c}
            <> gxy = (phi[i + 2, j + 2] - phi[i + 2, j] - phi[i, j + 2] + phi[i, j]) \
                * quartered {id=gxy}
            <> g2 = gx * gx + gy * gy {id=g2, dep=gx:gy}
            kappa[i, j] = (gxx * gy * gy - two * gx * gy * gxy + gyy * gx * gx) \
                / (g2 * sqrt(g2) + eps) {dep=g2:gxx:gyy:gxy}
        end
        """,
        [u.array("phi", req.dtype, ("m + 2", "n + 2")), u.array("kappa", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, _CURV_CONSTS), *u.size_args("m", "n")],
        name="levelset_curvature", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def curvature_parts(phi) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(float64) the numerator's three terms and the squared gradient at every pixel."""
    p = np.asarray(phi, np.float64)
    c, w, e = p[1:-1, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
    s, nn = p[:-2, 1:-1], p[2:, 1:-1]
    gx, gy = 0.5 * (e - w), 0.5 * (nn - s)
    gxy = 0.25 * (p[2:, 2:] - p[2:, :-2] - p[:-2, 2:] + p[:-2, :-2])
    terms = np.stack([(e - 2 * c + w) * gy * gy, -2.0 * gx * gy * gxy,
                      (nn - 2 * c + s) * gx * gx])
    return terms, gx * gx + gy * gy


def curvature(phi) -> np.ndarray:
    terms, g2 = curvature_parts(phi)
    return terms.sum(axis=0) / (g2 * np.sqrt(g2) + 1e-6)


def _curvature_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # a tilted plane plus bumps of random height at every sample: contours bent both
    # ways; the samples around any pixel whose numerator is under 5 % of its terms'
    # sizes or whose gradient is small redrawn until none is
    i, j = np.indices((m + 2, n + 2))
    base = 0.3 * i + 0.2 * j
    phi = base + rng.uniform(-0.4, 0.4, (m + 2, n + 2))
    for _ in range(1000):
        terms, g2 = curvature_parts(phi)
        bad = (np.abs(terms.sum(axis=0)) < 0.05 * np.abs(terms).sum(axis=0)) | (g2 < 0.01)
        if not bad.any():
            break
        redo = np.zeros(phi.shape, bool)
        bi, bj = np.nonzero(bad)
        pick = rng.integers(0, 5, bi.size)
        di, dj = np.array([1, 0, 2, 1, 1])[pick], np.array([1, 1, 1, 0, 2])[pick]
        redo[bi + di, bj + dj] = True
        phi[redo] = base[redo] + rng.uniform(-0.4, 0.4, redo.sum())
    return {"phi": np.asarray(phi, dtype.numpy), **u.scalar_inputs(dtype, _CURV_CONSTS)}


def _curvature_reference(inputs, params) -> dict:
    return {"kappa": u.as_dtype_of(curvature(inputs["phi"]), inputs["phi"])}


LEVELSET_CURVATURE = KernelSpec(
    name="levelset_curvature",
    description="The mean curvature of the contours of an m x n level-set function (an "
                "(m + 2) x (n + 2) padded input) by central differences: the gradient, "
                "the three second derivatives from a 3 x 3 neighbourhood (9 loads), "
                "one square root and one division per pixel.",
    variants=("central_differences",),
    build=_build_curvature,
    make_inputs=_curvature_inputs,
    reference=_curvature_reference,
    rtol=1e-3,
    **u.unseen_2d(),
)

# }}}


# {{{ angular spectrum propagation

#: the wavenumber (squared, 1), the spectral bin width, the centre bin of the check image
#: and the propagation distance (in wavelengths / 2 pi)
ASP_DK, ASP_CX, ASP_CY, ASP_DZ = 0.025, 35.0, 22.0, 40.0
_ASP_CONSTS = (("zero", 0.0), ("k2", 1.0), ("dk", ASP_DK), ("cx", ASP_CX), ("cy", ASP_CY),
               ("dz", ASP_DZ))


def _build_asp(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("evanescent_masked",), 2)
    ftype = req.dtype.value
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <{ftype}> kx = (j - cx) * dk {{id=kx}}
            <{ftype}> ky = (i - cy) * dk {{id=ky}}
            <> kz2 = k2 - kx * kx - ky * ky {{id=kz2, dep=kx:ky}}
            <{ftype}> travels = kz2 > zero {{id=travels, dep=kz2}}
            <> phase = sqrt(fmax(kz2, zero)) * dz {{id=phase, dep=kz2}}
            <> cr = cos(phase) * travels {{id=cr, dep=phase:travels}}
            <> ci = sin(phase) * travels {{id=ci, dep=phase:travels}}
            <> fr = spec_re[i, j] {{id=fr}}
            <> fi = spec_im[i, j] {{id=fi}}
            out_re[i, j] = fr * cr - fi * ci {{dep=cr:ci:fr:fi}}
            out_im[i, j] = fr * ci + fi * cr {{dep=cr:ci:fr:fi}}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in ("spec_re", "spec_im", "out_re",
                                                        "out_im")),
         *u.scalar_args(req.dtype, _ASP_CONSTS), *u.size_args("m", "n")],
        name="angular_spectrum_step", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def kz_squared(shape) -> np.ndarray:
    """(float64) the axial wavenumber squared at every bin (negative: evanescent)."""
    i, j = np.indices(shape)
    return 1.0 - ((j - ASP_CX) * ASP_DK) ** 2 - ((i - ASP_CY) * ASP_DK) ** 2


def propagator(shape) -> np.ndarray:
    kz2 = kz_squared(shape)
    return np.where(kz2 > 0, np.exp(1j * np.sqrt(np.maximum(kz2, 0.0)) * ASP_DZ), 0.0)


def _asp_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # a spectrum of every phase, moduli 0.1 to 2; bins redrawn while either part of the
    # propagated value is under 3 % of its modulus
    def draw(k):
        return rng.uniform(0.1, 2.0, k) * np.exp(1j * rng.uniform(0, 2 * np.pi, k))
    f = draw(int(np.prod(shape))).reshape(shape)
    h = propagator(shape)

    def is_bad(f):
        out = f * h
        return (np.minimum(np.abs(out.real), np.abs(out.imag)) < 0.03 * np.abs(out)) \
            & (np.abs(h) > 0)
    f = u.redraw_until_good(f, draw, is_bad, tries=400)
    return {"spec_re": np.ascontiguousarray(f.real, dtype.numpy),
            "spec_im": np.ascontiguousarray(f.imag, dtype.numpy),
            **u.scalar_inputs(dtype, _ASP_CONSTS)}


def _asp_reference(inputs, params) -> dict:
    f = inputs["spec_re"].astype(np.float64) + 1j * inputs["spec_im"]
    out = f * propagator(f.shape)
    return {"out_re": u.as_dtype_of(out.real, inputs["spec_re"]),
            "out_im": u.as_dtype_of(out.imag, inputs["spec_re"])}


ANGULAR_SPECTRUM_STEP = KernelSpec(
    name="angular_spectrum_step",
    description="An m x n angular spectrum (real and imaginary planes) propagated a "
                "distance: the transverse wavenumbers from the int32 bin indices, the "
                "axial one by a square root, its phase factor by a cosine and a sine, the "
                "evanescent bins (a comparison as 0 or 1) dropped; two planes read, two "
                "written.",
    variants=("evanescent_masked",),
    build=_build_asp,
    make_inputs=_asp_inputs,
    reference=_asp_reference,
    rtol=1e-3,
    **u.unseen_2d(),
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (SATURATION_ADJUST, LEVELSET_CURVATURE, ANGULAR_SPECTRUM_STEP)
