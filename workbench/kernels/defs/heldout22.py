"""The twenty-second held-out set (``--set heldout22``): kernels kept out of all fitting and design.

The twenty-first set (:mod:`.heldout21`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts). Every input is floating point
(the device runner's zero-filled integer arrays play no part).

* ``arrhenius_rates``: modified Arrhenius rate constants (a logarithm and an exponential).
* ``point_segment_dist``: the distance of 3-D points from 3-D segments (a clamped
  projection).
* ``complex_horner``: a complex polynomial at complex points by Horner's rule.
* ``householder_reflect3``: 3-vectors reflected in the planes of given normals.
* ``drag_projectile_steps``: projectiles under gravity and quadratic drag, stepped in
  registers.
* ``row_geomean``: the geometric mean of each row (a logarithm per entry).
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec


# {{{ modified Arrhenius rate constants

def _build_arrhenius(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("log_form",), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        for i
            <> t = temp[i] {id=t}
            rate[i] = exp(ln_a[i] + beta[i] * log(t) - ea_over_r[i] / t) {dep=t}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("temp", "ln_a", "beta", "ea_over_r",
                                                    "rate")),
         *u.size_args("n")],
        name="arrhenius_rates", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def arrhenius(t, ln_a, beta, ea_r) -> np.ndarray:
    t, ln_a, beta, ea_r = (np.asarray(a, np.float64) for a in (t, ln_a, beta, ea_r))
    return np.exp(ln_a + beta * np.log(t) - ea_r / t)


def _arrhenius_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # 300 to 3000 K, pre-exponential factors e^5 to e^30, temperature exponents of both
    # signs, activation temperatures 1000 to 40000 K: rates over many decades, the
    # exponent kept within +-60 so that neither precision overflows
    def draw(k):
        return (rng.uniform(300.0, 3000.0, k), rng.uniform(5.0, 30.0, k),
                rng.uniform(-2.0, 3.0, k), rng.uniform(1e3, 4e4, k))

    def is_bad(t, ln_a, beta, ea_r):
        return np.abs(ln_a + beta * np.log(t) - ea_r / t) > 60.0
    arrays = u.redraw_until_good(draw(n), draw, is_bad, tries=200)
    return {k: np.asarray(a, dtype.numpy)
            for k, a in zip(("temp", "ln_a", "beta", "ea_over_r"), arrays)}


def _arrhenius_reference(inputs, params) -> dict:
    return {"rate": u.as_dtype_of(arrhenius(inputs["temp"], inputs["ln_a"], inputs["beta"],
                                            inputs["ea_over_r"]), inputs["temp"])}


ARRHENIUS_RATES = KernelSpec(
    name="arrhenius_rates",
    description="Modified Arrhenius rate constants A T^b exp(-Ea / RT) of n reactions "
                "(ln A, b and Ea / R per reaction, a temperature each) in log form: a "
                "logarithm, a division and an exponential per element, four arrays read.",
    parameters=("n",),
    variants=("log_form",),
    build=_build_arrhenius,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_arrhenius_inputs,
    reference=_arrhenius_reference,
    check_params={"n": 3000},
    rtol=5e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ point-to-segment distance

_SEG_CONSTS = (("zero", 0.0), ("one", 1.0))


def _build_segdist(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("clamped_projection",), 1)
    comps = "\n            ".join(
        f"<> d{c} = seg_b[i, {c}] - seg_a[i, {c}] {{id=d{c}}}\n"
        f"            <> w{c} = pts[i, {c}] - seg_a[i, {c}] {{id=w{c}}}" for c in range(3))
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {comps}
            <> t = (w0 * d0 + w1 * d1 + w2 * d2) / (d0 * d0 + d1 * d1 + d2 * d2) \
                {{id=t, dep=d0:d1:d2:w0:w1:w2}}
            <> tc = fmin(fmax(t, zero), one) {{id=tc, dep=t}}
            <> e0 = w0 - tc * d0 {{id=e0, dep=tc}}
            <> e1 = w1 - tc * d1 {{id=e1, dep=tc}}
            <> e2 = w2 - tc * d2 {{id=e2, dep=tc}}
            dist[i] = sqrt(e0 * e0 + e1 * e1 + e2 * e2) {{dep=e0:e1:e2}}
        end
        """,
        [*(u.array(a, req.dtype, ("n", 3)) for a in ("pts", "seg_a", "seg_b")),
         u.array("dist", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _SEG_CONSTS), *u.size_args("n")],
        name="point_segment_dist", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def segment_param(p, a, b) -> np.ndarray:
    """(float64) the unclamped parameter of each point's projection on its segment."""
    p, a, b = (np.asarray(x, np.float64) for x in (p, a, b))
    d = b - a
    return ((p - a) * d).sum(axis=1) / (d * d).sum(axis=1)


def segment_dist(p, a, b) -> np.ndarray:
    p, a, b = (np.asarray(x, np.float64) for x in (p, a, b))
    t = np.clip(segment_param(p, a, b), 0.0, 1.0)[:, None]
    return np.linalg.norm(p - a - t * (b - a), axis=1)


def _segdist_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # segments 0.5 to 5 long anywhere in a 20-cube, points around them so that the
    # projection falls before, on and past the segment; redrawn while the distance is
    # under 0.05 (a small distance is a large relative error of the differences)
    def draw(k):
        a = rng.uniform(-10.0, 10.0, (k, 3))
        d = rng.normal(0.0, 1.0, (k, 3))
        b = a + d * rng.uniform(0.5, 5.0, (k, 1)) / np.linalg.norm(d, axis=1, keepdims=True)
        s = rng.uniform(-1.0, 2.0, (k, 1))
        p = a + s * (b - a) + rng.normal(0.0, 1.0, (k, 3))
        return p, a, b
    p, a, b = u.redraw_until_good(draw(n), draw, lambda p, a, b: segment_dist(p, a, b) < 0.05,
                                  tries=200)
    return {"pts": np.asarray(p, dtype.numpy), "seg_a": np.asarray(a, dtype.numpy),
            "seg_b": np.asarray(b, dtype.numpy), **u.scalar_inputs(dtype, _SEG_CONSTS)}


def _segdist_reference(inputs, params) -> dict:
    return {"dist": u.as_dtype_of(segment_dist(inputs["pts"], inputs["seg_a"],
                                               inputs["seg_b"]), inputs["pts"])}


POINT_SEGMENT_DIST = KernelSpec(
    name="point_segment_dist",
    description="The distance of n 3-D points from n 3-D segments (rows of 3): the "
                "projection parameter by a division, clamped to [0, 1] by fmax and fmin, "
                "the length of the remainder by a square root; three arrays read.",
    parameters=("n",),
    variants=("clamped_projection",),
    build=_build_segdist,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_segdist_inputs,
    reference=_segdist_reference,
    check_params={"n": 3000},
    rtol=1e-3,
    **u.unseen_1d(),
)

# }}}


# {{{ complex polynomial by Horner's rule

#: the polynomial's degree (DEGREE + 1 complex coefficients, highest first)
HORNER_DEGREE = 12


def _build_chorner(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("horner",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {HORNER_DEGREE}}}"],
        """
        for i
            <> zr = z_re[i] {id=zr}
            <> zi = z_im[i] {id=zi}
            <> ar = coeffs[0, 0] {id=ar0}
            <> ai = coeffs[0, 1] {id=ai0}
            for k
                <> br = ar * zr - ai * zi + coeffs[k + 1, 0] {id=br, dep=zr:zi:ar0:ai0}
                <> bi = ar * zi + ai * zr + coeffs[k + 1, 1] {id=bi, dep=zr:zi:ar0:ai0}
                ar = br {id=ar_up, dep=br:bi}
                ai = bi {id=ai_up, dep=br:bi}
            end
            p_re[i] = ar {dep=ar_up}
            p_im[i] = ai {dep=ai_up}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("z_re", "z_im", "p_re", "p_im")),
         u.array("coeffs", req.dtype, (HORNER_DEGREE + 1, 2)), *u.size_args("n")],
        name="complex_horner", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def complex_poly(z_re, z_im, coeffs) -> np.ndarray:
    """(complex128) the polynomial (coefficients highest first) at each point."""
    c = np.asarray(coeffs, np.float64)
    return np.polyval(c[:, 0] + 1j * c[:, 1],
                      np.asarray(z_re, np.float64) + 1j * np.asarray(z_im, np.float64))


def _chorner_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # coefficients of every phase, moduli 0.5 to 1.5; points in the disc of radius 1.2
    # (every quadrant); redrawn while either part of the value is under 3 % of its
    # modulus or the modulus under 0.05 (where cancellation is a large relative error)
    coeffs = rng.uniform(0.5, 1.5, HORNER_DEGREE + 1)[:, None] * np.stack(
        [np.cos(ph := rng.uniform(0, 2 * np.pi, HORNER_DEGREE + 1)), np.sin(ph)], axis=1)

    def draw(k):
        r, ph = 1.2 * np.sqrt(rng.uniform(0.0, 1.0, k)), rng.uniform(0, 2 * np.pi, k)
        return r * np.cos(ph), r * np.sin(ph)

    def is_bad(zr, zi):
        p = complex_poly(zr, zi, coeffs)
        return (np.minimum(np.abs(p.real), np.abs(p.imag)) < 0.03 * np.abs(p)) \
            | (np.abs(p) < 0.05)
    zr, zi = u.redraw_until_good(draw(n), draw, is_bad, tries=400)
    return {"z_re": np.asarray(zr, dtype.numpy), "z_im": np.asarray(zi, dtype.numpy),
            "coeffs": np.asarray(coeffs, dtype.numpy)}


def _chorner_reference(inputs, params) -> dict:
    p = complex_poly(inputs["z_re"], inputs["z_im"], inputs["coeffs"])
    return {"p_re": u.as_dtype_of(p.real, inputs["z_re"]),
            "p_im": u.as_dtype_of(p.imag, inputs["z_re"])}


COMPLEX_HORNER = KernelSpec(
    name="complex_horner",
    description=f"A complex polynomial of degree {HORNER_DEGREE} (a table of complex "
                f"coefficients read by every work item) at n complex points (real and "
                f"imaginary arrays) by Horner's rule: a complex multiply-add per degree "
                f"carried in two registers, two arrays written.",
    parameters=("n",),
    variants=("horner",),
    build=_build_chorner,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_chorner_inputs,
    reference=_chorner_reference,
    check_params={"n": 3000},
    rtol=2e-3,
    **u.unseen_1d(),
)

# }}}


# {{{ Householder reflection of 3-vectors

_HH_CONSTS = (("two", 2.0),)


def _build_householder(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("normal_given",), 1)
    loads = "\n            ".join(
        f"<> u{c} = normals[i, {c}] {{id=u{c}}}\n"
        f"            <> v{c} = vecs[i, {c}] {{id=v{c}}}" for c in range(3))
    stores = "\n            ".join(
        f"reflected[i, {c}] = v{c} - s * u{c} {{dep=s}}" for c in range(3))
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {loads}
            <> s = two * (u0 * v0 + u1 * v1 + u2 * v2) / (u0 * u0 + u1 * u1 + u2 * u2) \
                {{id=s, dep=u0:u1:u2:v0:v1:v2}}
            {stores}
        end
        """,
        [*(u.array(a, req.dtype, ("n", 3)) for a in ("normals", "vecs", "reflected")),
         *u.scalar_args(req.dtype, _HH_CONSTS), *u.size_args("n")],
        name="householder_reflect3", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def householder(normals, vecs) -> np.ndarray:
    un, v = np.asarray(normals, np.float64), np.asarray(vecs, np.float64)
    s = 2.0 * (un * v).sum(axis=1) / (un * un).sum(axis=1)
    return v - s[:, None] * un


def _householder_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # normals of lengths 0.2 to 5 (not unit: the division normalises), vectors of every
    # direction; redrawn while a component of the reflection is under 5 % of its length
    def draw(k):
        un = rng.normal(0.0, 1.0, (k, 3))
        un *= rng.uniform(0.2, 5.0, (k, 1)) / np.linalg.norm(un, axis=1, keepdims=True)
        return un, rng.normal(0.0, 2.0, (k, 3))

    def is_bad(un, v):
        w = householder(un, v)
        return np.abs(w).min(axis=1) < 0.05 * np.linalg.norm(w, axis=1)
    un, v = u.redraw_until_good(draw(n), draw, is_bad, tries=400)
    return {"normals": np.asarray(un, dtype.numpy), "vecs": np.asarray(v, dtype.numpy),
            **u.scalar_inputs(dtype, _HH_CONSTS)}


def _householder_reference(inputs, params) -> dict:
    return {"reflected": u.as_dtype_of(householder(inputs["normals"], inputs["vecs"]),
                                       inputs["vecs"])}


HOUSEHOLDER_REFLECT3 = KernelSpec(
    name="householder_reflect3",
    description="n 3-vectors reflected in the planes of n normals (rows of 3, not "
                "normalised): v - 2 (u.v / u.u) u, two dot products and one division per "
                "vector, rows of 3 read twice and written once.",
    parameters=("n",),
    variants=("normal_given",),
    build=_build_householder,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_householder_inputs,
    reference=_householder_reference,
    check_params={"n": 3000},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ projectiles with quadratic drag

#: semi-implicit Euler steps per projectile; the step and gravity
DRAG_STEPS, DRAG_DT, DRAG_G = 40, 0.02, 9.81
_DRAG_CONSTS = (("dt", DRAG_DT), ("g", DRAG_G))
_DRAG_STATE = ("x", "y", "vx", "vy")


def _build_drag(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("semi_implicit",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[s]: 0 <= s < {DRAG_STEPS}}}"],
        """
        for i
            <> px = x[i] {id=px0}
            <> py = y[i] {id=py0}
            <> qx = vx[i] {id=qx0}
            <> qy = vy[i] {id=qy0}
            <> kd = drag[i] {id=kd}
            for s
                <> speed = sqrt(qx * qx + qy * qy) {id=speed, dep=qx0:qy0:kd:px0:py0}
                qx = qx - dt * kd * speed * qx {id=qx_up, dep=speed}
                qy = qy - dt * (g + kd * speed * qy) {id=qy_up, dep=speed}
                px = px + dt * qx {id=px_up, dep=qx_up}
                py = py + dt * qy {id=py_up, dep=qy_up}
            end
            x_out[i] = px {dep=px_up}
            y_out[i] = py {dep=py_up}
            vx_out[i] = qx {dep=qx_up}
            vy_out[i] = qy {dep=qy_up}
        end
        """,
        [*(u.array(a, req.dtype, ("n",))
           for a in (*_DRAG_STATE, "drag", *(f"{s}_out" for s in _DRAG_STATE))),
         *u.scalar_args(req.dtype, _DRAG_CONSTS), *u.size_args("n")],
        name="drag_projectile_steps", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def drag_steps(x, y, vx, vy, kd) -> tuple[np.ndarray, ...]:
    x, y, vx, vy, kd = (np.array(a, np.float64) for a in (x, y, vx, vy, kd))
    for _ in range(DRAG_STEPS):
        speed = np.sqrt(vx * vx + vy * vy)
        vx = vx - DRAG_DT * kd * speed * vx
        vy = vy - DRAG_DT * (DRAG_G + kd * speed * vy)
        x, y = x + DRAG_DT * vx, y + DRAG_DT * vy
    return x, y, vx, vy


def _drag_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # launches from around the origin at 5 to 30 m/s, from 30 degrees down to 80 up,
    # drag coefficients 0.001 to 0.2 per metre: rising, falling and past the apex;
    # redrawn while a final coordinate or velocity lies within 0.1 of zero
    def draw(k):
        speed, ang = rng.uniform(5.0, 30.0, k), np.radians(rng.uniform(-30.0, 80.0, k))
        return [rng.uniform(-5.0, 5.0, k), rng.uniform(-5.0, 5.0, k),
                speed * np.cos(ang), speed * np.sin(ang),
                np.exp(rng.uniform(np.log(1e-3), np.log(0.2), k))]
    arrays = u.redraw_until_good(
        draw(n), draw, lambda *a: np.min([np.abs(s) for s in drag_steps(*a)], axis=0) < 0.1,
        tries=400)
    return {**{k: np.asarray(a, dtype.numpy)
               for k, a in zip((*_DRAG_STATE, "drag"), arrays)},
            **u.scalar_inputs(dtype, _DRAG_CONSTS)}


def _drag_reference(inputs, params) -> dict:
    final = drag_steps(*(inputs[k] for k in (*_DRAG_STATE, "drag")))
    return {f"{k}_out": u.as_dtype_of(a, inputs["x"]) for k, a in zip(_DRAG_STATE, final)}


DRAG_PROJECTILE_STEPS = KernelSpec(
    name="drag_projectile_steps",
    description=f"n projectiles under gravity and quadratic air drag (a coefficient "
                f"each), {DRAG_STEPS} semi-implicit Euler steps in registers: per step a "
                f"square root of the speed, the velocity then the position updated; five "
                f"arrays read, four written.",
    parameters=("n",),
    variants=("semi_implicit",),
    build=_build_drag,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_drag_inputs,
    reference=_drag_reference,
    check_params={"n": 3000},
    rtol=1e-3,
    **u.unseen_1d(),
)

# }}}


# {{{ geometric mean of rows

#: the entries per row
GEOMEAN_COLS = 32
_GEO_CONSTS = (("zero", 0.0), ("inv_cols", 1.0 / GEOMEAN_COLS))


def _build_geomean(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("log_sum",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {GEOMEAN_COLS}}}"],
        """
        for i
            <> total = zero {id=total0}
            for k
                total = total + log(rows[i, k]) {id=total_up, dep=total0}
            end
            geomean[i] = exp(total * inv_cols) {dep=total_up}
        end
        """,
        [u.array("rows", req.dtype, ("n", GEOMEAN_COLS)), u.array("geomean", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _GEO_CONSTS), *u.size_args("n")],
        name="row_geomean", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def geomean(rows) -> np.ndarray:
    return np.exp(np.log(np.asarray(rows, np.float64)).mean(axis=1))


def _geomean_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # positive entries over six decades (1e-3 to 1e3), each row's scale drawn apart, so
    # that the logarithms take both signs and the means spread over decades
    scale = np.exp(rng.uniform(-3.0, 3.0, (n, 1)))
    rows = scale * np.exp(rng.uniform(np.log(1e-3), np.log(1e3), (n, GEOMEAN_COLS)))
    return {"rows": np.asarray(rows, dtype.numpy), **u.scalar_inputs(dtype, _GEO_CONSTS)}


def _geomean_reference(inputs, params) -> dict:
    return {"geomean": u.as_dtype_of(geomean(inputs["rows"]), inputs["rows"])}


ROW_GEOMEAN = KernelSpec(
    name="row_geomean",
    description=f"The geometric mean of each of n rows of {GEOMEAN_COLS} positive values "
                f"(row-major, one work item per row): a logarithm per entry summed in a "
                f"register, one exponential of the mean per row.",
    parameters=("n",),
    variants=("log_sum",),
    build=_build_geomean,
    default_p=18,
    p_choices=(17, 18, 19),
    make_inputs=_geomean_inputs,
    reference=_geomean_reference,
    check_params={"n": 1500},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (ARRHENIUS_RATES, POINT_SEGMENT_DIST, COMPLEX_HORNER,
                                 HOUSEHOLDER_REFLECT3, DRAG_PROJECTILE_STEPS, ROW_GEOMEAN)
