"""The twenty-first held-out set's image and field kernels on 2-D groups.

What the set is for, and the other kernels, are in :mod:`.heldout21`.

* ``hdr_merge3``: the radiance of each pixel from three exposures, weighted by a hat
  function of the pixel value.
* ``lbm_bgk_collide``: the BGK collision of a D2Q9 lattice Boltzmann field.
* ``wiener_filter_spectrum``: Wiener deconvolution of a spectrum by a transfer function.
* ``depth_unproject``: a depth image to three planes of camera-space points, invalid
  depths masked.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec


# {{{ HDR merge of three exposures

#: the exposure times (relative)
HDR_TIMES = (1.0, 4.0, 16.0)
_HDR_CONSTS = (("one", 1.0), ("two", 2.0), ("eps", 1e-6),
               *((f"inv_t{k}", 1.0 / t) for k, t in enumerate(HDR_TIMES)))


def _build_hdr(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("hat_weights",), 2)
    loads = "\n            ".join(
        f"<> z{k} = exposure{k}[i, j] {{id=z{k}}}\n"
        f"            <> w{k} = one - fabs(two * z{k} - one) {{id=w{k}, dep=z{k}}}"
        for k in range(3))
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {loads}
            radiance[i, j] = (w0 * z0 * inv_t0 + w1 * z1 * inv_t1 + w2 * z2 * inv_t2) \
                / (w0 + w1 + w2 + eps) {{dep=w0:w1:w2}}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n"))
           for a in ("exposure0", "exposure1", "exposure2", "radiance")),
         *u.scalar_args(req.dtype, _HDR_CONSTS), *u.size_args("m", "n")],
        name="hdr_merge3", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def hdr_merge(*exposures) -> np.ndarray:
    zs = [np.asarray(z, np.float64) for z in exposures]
    ws = [1.0 - np.abs(2.0 * z - 1.0) for z in zs]
    return (sum(w * z / t for w, z, t in zip(ws, zs, HDR_TIMES))
            / (sum(ws) + 1e-6))


def _hdr_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # radiances over four decades, each exposure the radiance times its time plus noise,
    # clipped to [0, 1]: dark pixels (the short exposures near 0), bright ones (the long
    # exposures saturated at 1, weight 0) and a few saturated in all three (result 0)
    radiance = np.exp(rng.uniform(np.log(1e-3), np.log(10.0), shape))
    radiance[: 3, :] = 5.0
    zs = [np.clip(radiance * t + rng.normal(0.0, 0.01, shape), 0.0, 1.0) for t in HDR_TIMES]
    return {**{f"exposure{k}": np.asarray(z, dtype.numpy) for k, z in enumerate(zs)},
            **u.scalar_inputs(dtype, _HDR_CONSTS)}


def _hdr_reference(inputs, params) -> dict:
    zs = [inputs[f"exposure{k}"] for k in range(3)]
    return {"radiance": u.as_dtype_of(hdr_merge(*zs), zs[0])}


HDR_MERGE3 = KernelSpec(
    name="hdr_merge3",
    description=f"The radiance of an m x n image merged from three exposures (times "
                f"{HDR_TIMES}): per exposure a hat weight 1 - |2z - 1| (zero where "
                f"saturated), the weighted mean of value over time, one division.",
    variants=("hat_weights",),
    build=_build_hdr,
    make_inputs=_hdr_inputs,
    reference=_hdr_reference,
    rtol=1e-4,
    **u.unseen_2d(),
)

# }}}


# {{{ D2Q9 lattice Boltzmann, BGK collision

#: the D2Q9 velocities and weights; the relaxation rate
D2Q9_C = ((0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))
D2Q9_W = (4 / 9, *(1 / 9,) * 4, *(1 / 36,) * 4)
LBM_OMEGA = 1.2
_LBM_CONSTS = (("one", 1.0), ("omega", LBM_OMEGA), ("three", 3.0), ("c45", 4.5),
               ("c15", 1.5), *((f"w{q}", w) for q, w in enumerate(D2Q9_W)))


def _signed_sum(q_terms, comp) -> str:
    parts = [("+ " if c[comp] > 0 else "- ") + f"f{q}"
             for q, c in enumerate(D2Q9_C) if c[comp] != 0]
    return " ".join(parts).lstrip("+ ")


def _build_lbm(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("bgk",), 2)
    loads = "\n            ".join(f"<> f{q} = f_in[{q}, i, j] {{id=f{q}}}" for q in range(9))
    fdeps = ":".join(f"f{q}" for q in range(9))
    rho = " + ".join(f"f{q}" for q in range(9))
    stores = []
    for q, (cx, cy) in enumerate(D2Q9_C):
        cu = " + ".join(([f"{cx} * ux"] if cx else []) + ([f"{cy} * uy"] if cy else [])) \
            or "0"
        if cu == "0":
            feq = f"w{q} * rho * (one - usq)"
        else:
            stores.append(f"<> cu{q} = {cu} {{id=cu{q}, dep=ux:uy}}")
            feq = f"w{q} * rho * (one + three * cu{q} + c45 * cu{q} * cu{q} - usq)"
            stores[-1] = stores[-1]
        dep = f"usq:cu{q}" if cu != "0" else "usq"
        stores.append(f"f_out[{q}, i, j] = f{q} - omega * (f{q} - {feq}) {{dep={dep}}}")
    body = "\n            ".join(stores)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {loads}
            <> rho = {rho} {{id=rho, dep={fdeps}}}
            <> inv_rho = one / rho {{id=inv_rho, dep=rho}}
            <> ux = ({_signed_sum(None, 0)}) * inv_rho {{id=ux, dep=inv_rho}}
            <> uy = ({_signed_sum(None, 1)}) * inv_rho {{id=uy, dep=inv_rho}}
            <> usq = c15 * (ux * ux + uy * uy) {{id=usq, dep=ux:uy}}
            {body}
        end
        """,
        [u.array("f_in", req.dtype, (9, "m", "n")), u.array("f_out", req.dtype, (9, "m", "n")),
         *u.scalar_args(req.dtype, _LBM_CONSTS), *u.size_args("m", "n")],
        name="lbm_bgk_collide", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _equilibrium(rho, ux, uy) -> np.ndarray:
    c = np.asarray(D2Q9_C, np.float64)
    cu = c[:, 0, None, None] * ux + c[:, 1, None, None] * uy
    w = np.asarray(D2Q9_W)[:, None, None]
    return w * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * (ux * ux + uy * uy))


def lbm_collide(f) -> np.ndarray:
    f = np.asarray(f, np.float64)
    c = np.asarray(D2Q9_C, np.float64)
    rho = f.sum(axis=0)
    ux = (c[:, 0, None, None] * f).sum(axis=0) / rho
    uy = (c[:, 1, None, None] * f).sum(axis=0) / rho
    return f - LBM_OMEGA * (f - _equilibrium(rho, ux, uy))


def _lbm_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # the equilibrium of densities 0.8 to 1.2 and velocities of both signs up to 0.15
    # per axis, perturbed by up to 20 % per direction (so that the collision changes
    # every population and the velocities are the populations', not the draw's)
    rho = rng.uniform(0.8, 1.2, shape)
    ux, uy = rng.uniform(-0.15, 0.15, shape), rng.uniform(-0.15, 0.15, shape)
    f = _equilibrium(rho, ux, uy) * rng.uniform(0.8, 1.2, (9, *shape))
    return {"f_in": np.asarray(f, dtype.numpy), **u.scalar_inputs(dtype, _LBM_CONSTS)}


def _lbm_reference(inputs, params) -> dict:
    return {"f_out": u.as_dtype_of(lbm_collide(inputs["f_in"]), inputs["f_in"])}


LBM_BGK_COLLIDE = KernelSpec(
    name="lbm_bgk_collide",
    description=f"The BGK collision (relaxation rate {LBM_OMEGA}) of an m x n D2Q9 lattice "
                f"Boltzmann field (nine planes in, nine out): the density and velocity "
                f"from the nine populations (one division), each population relaxed "
                f"toward its second-order equilibrium.",
    variants=("bgk",),
    build=_build_lbm,
    make_inputs=_lbm_inputs,
    reference=_lbm_reference,
    rtol=1e-4,
    **u.unseen_2d(default_p=10, p_choices=(9, 10, 11)),
)

# }}}


# {{{ Wiener deconvolution in the frequency domain

_WIENER_CONSTS = (("one", 1.0), ("noise_k", 0.01))


def _build_wiener(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("constant_snr",), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        """
        for i, j
            <> hr = h_re[i, j] {id=hr}
            <> hi = h_im[i, j] {id=hi}
            <> yr = y_re[i, j] {id=yr}
            <> yi = y_im[i, j] {id=yi}
            <> inv = one / (hr * hr + hi * hi + noise_k) {id=inv, dep=hr:hi}
            x_re[i, j] = (hr * yr + hi * yi) * inv {dep=inv:yr:yi}
            x_im[i, j] = (hr * yi - hi * yr) * inv {dep=inv:yr:yi}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n"))
           for a in ("h_re", "h_im", "y_re", "y_im", "x_re", "x_im")),
         *u.scalar_args(req.dtype, _WIENER_CONSTS), *u.size_args("m", "n")],
        name="wiener_filter_spectrum", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def wiener(h, y) -> np.ndarray:
    return np.conj(h) * y / (np.abs(h) ** 2 + 0.01)


def _wiener_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # a transfer function from strong (|H| ~ 1) to far below the noise level, spectra of
    # every phase; bins redrawn while either part of the result is small against its
    # modulus
    def draw(k):
        mag = np.exp(rng.uniform(np.log(1e-3), np.log(2.0), k))
        h = mag * np.exp(1j * rng.uniform(0, 2 * np.pi, k))
        y = rng.uniform(0.1, 2.0, k) * np.exp(1j * rng.uniform(0, 2 * np.pi, k))
        return h, y

    def is_bad(h, y):
        x = wiener(h, y)
        return np.minimum(np.abs(x.real), np.abs(x.imag)) < 0.02 * np.abs(x)
    h, y = u.redraw_until_good(tuple(a.reshape(shape) for a in draw(int(np.prod(shape)))),
                               draw, is_bad, tries=200)
    parts = {"h_re": h.real, "h_im": h.imag, "y_re": y.real, "y_im": y.imag}
    return {**{k: np.ascontiguousarray(a, dtype.numpy) for k, a in parts.items()},
            **u.scalar_inputs(dtype, _WIENER_CONSTS)}


def _wiener_reference(inputs, params) -> dict:
    h = inputs["h_re"].astype(np.float64) + 1j * inputs["h_im"]
    y = inputs["y_re"].astype(np.float64) + 1j * inputs["y_im"]
    x = wiener(h, y)
    return {"x_re": u.as_dtype_of(x.real, inputs["h_re"]),
            "x_im": u.as_dtype_of(x.imag, inputs["h_re"])}


WIENER_FILTER_SPECTRUM = KernelSpec(
    name="wiener_filter_spectrum",
    description="Wiener deconvolution of an m x n complex spectrum (real and imaginary "
                "planes) by a transfer function with a constant noise-to-signal ratio "
                "of 0.01: conj(H) Y / (|H|^2 + K), one division per bin, four planes "
                "read and two written.",
    variants=("constant_snr",),
    build=_build_wiener,
    make_inputs=_wiener_inputs,
    reference=_wiener_reference,
    rtol=1e-4,
    **u.unseen_2d(),
)

# }}}


# {{{ depth image to camera-space points

_DEPTH_CONSTS = (("zero", 0.0), ("max_depth", 10.0), ("cx", 35.0), ("cy", 22.0),
                 ("inv_fx", 1.0 / 60.0), ("inv_fy", 1.0 / 58.0))


def _build_unproject(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("pinhole",), 2)
    ftype = req.dtype.value
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <> d = depth[i, j] {{id=d}}
            <{ftype}> valid = (d > zero) & (d < max_depth) {{id=valid, dep=d}}
            <> dv = d * valid {{id=dv, dep=valid}}
            px[i, j] = (j - cx) * inv_fx * dv {{dep=dv}}
            py[i, j] = (i - cy) * inv_fy * dv {{dep=dv}}
            pz[i, j] = dv {{dep=dv}}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in ("depth", "px", "py", "pz")),
         *u.scalar_args(req.dtype, _DEPTH_CONSTS), *u.size_args("m", "n")],
        name="depth_unproject", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def unproject(depth) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = np.asarray(depth, np.float64)
    c = dict(_DEPTH_CONSTS)
    dv = np.where((d > 0) & (d < c["max_depth"]), d, 0.0)
    i, j = np.indices(d.shape)
    return (j - c["cx"]) * c["inv_fx"] * dv, (i - c["cy"]) * c["inv_fy"] * dv, dv


def _unproject_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # depths 0.3 to 9.5 with holes (0, negative) and far readings (10.5 to 20) that the
    # mask drops; the principal point inside the check image, so both signs of x and y
    d = rng.uniform(0.3, 9.5, shape)
    r = rng.random(shape)
    d[r < 0.1] = 0.0
    d[(r >= 0.1) & (r < 0.15)] = -1.0
    far = (r >= 0.15) & (r < 0.25)
    d[far] = rng.uniform(10.5, 20.0, far.sum())
    return {"depth": np.asarray(d, dtype.numpy), **u.scalar_inputs(dtype, _DEPTH_CONSTS)}


def _unproject_reference(inputs, params) -> dict:
    x, y, z = unproject(inputs["depth"])
    like = inputs["depth"]
    return {"px": u.as_dtype_of(x, like), "py": u.as_dtype_of(y, like),
            "pz": u.as_dtype_of(z, like)}


DEPTH_UNPROJECT = KernelSpec(
    name="depth_unproject",
    description="An m x n depth image to camera-space points by a pinhole model (the "
                "pixel coordinates from the int32 indices): depths outside (0, 10) "
                "masked to zero (the comparisons as 0 or 1), three planes written.",
    variants=("pinhole",),
    build=_build_unproject,
    make_inputs=_unproject_inputs,
    reference=_unproject_reference,
    rtol=1e-5,
    **u.unseen_2d(),
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (HDR_MERGE3, LBM_BGK_COLLIDE, WIENER_FILTER_SPECTRUM,
                                 DEPTH_UNPROJECT)
