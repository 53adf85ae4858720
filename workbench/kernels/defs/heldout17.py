"""The seventeenth held-out set (``--set heldout17``): kernels kept out of all fitting and design.

The sixteenth set (:mod:`.heldout16`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``loan_payment``: the monthly payment of an annuity loan per element (a power), the
  zero-rate loans by a division instead; also the total interest.
* ``geodetic_to_ecef``: WGS-84 latitude, longitude and height to Earth-centred
  Cartesian coordinates (sines, cosines, a reciprocal square root).
* ``argmax_rows``: the position and value of the largest sample of each row.
* ``particle_bounce``: a 2-D particle step under gravity in a box, reflected with
  restitution at each wall it crosses.
* ``sh9_basis``: the nine real spherical harmonics (degree <= 2) of a direction.
* ``dct8_blocks``: the 8-point DCT-II of each block of eight samples, by a cosine table.

Those on 2-D groups (bayer_superpixel, census_transform3x3, vignette_correct) are in
:mod:`.heldout17_grid`.
"""

from __future__ import annotations

from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ annuity loan payment

_LOAN_CONSTS = (("zero", 0.0), ("one", 1.0), ("months", 12.0))
_LOAN_VARIANTS = ("payment", "payment_interest")


def _build_loan(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _LOAN_VARIANTS, 1)
    # the interest-free loans (free = 1) take the division; their rate is replaced by 1
    # in the other arm so that it stays finite, and their interest is zero exactly
    interest = ("interest[i] = (one - free) * (pay * count - p) {dep=pay}"
                if req.variant == "payment_interest" else "")
    ftype = req.dtype.value
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> p = principal[i] {{id=p}}
            <> r = rate[i] / months {{id=r}}
            <> count = years[i] * months {{id=count}}
            <{ftype}> free = r <= zero {{id=free, dep=r}}
            <> rs = r + free {{id=rs, dep=free}}
            <> pay = (one - free) * p * rs / (one - (one + rs) ** (-count)) + free * p / count \
                {{id=pay, dep=p:rs:count}}
            payment[i] = pay {{dep=pay}}
            {interest}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("principal", "rate", "years", "payment")),
         *([u.array("interest", req.dtype, ("n",))] if interest else []),
         *u.scalar_args(req.dtype, _LOAN_CONSTS), *u.size_args("n")],
        name="loan_payment", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _loan_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # annual rates 2 % to 12 %, a tenth of the loans interest-free (the other arm)
    rate = rng.uniform(0.02, 0.12, n)
    rate[rng.random(n) < 0.1] = 0.0
    return {"principal": u.random_array(rng, (n,), dtype, low=1e4, high=5e5),
            "rate": np.asarray(rate, dtype=dtype.numpy),
            "years": np.asarray(rng.integers(5, 31, n), dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _LOAN_CONSTS)}


def loan(principal, rate, years) -> tuple[np.ndarray, np.ndarray]:
    """(float64) the monthly payment and the total interest of each loan."""
    p, r, count = (np.asarray(principal, np.float64), np.asarray(rate, np.float64) / 12.0,
                   np.asarray(years, np.float64) * 12.0)
    safe = np.where(r > 0, r, 1.0)
    pay = np.where(r > 0, p * safe / (1.0 - (1.0 + safe) ** (-count)), p / count)
    return pay, np.where(r > 0, pay * count - p, 0.0)


def _loan_reference(variant: str, inputs, params) -> dict:
    pay, interest = loan(inputs["principal"], inputs["rate"], inputs["years"])
    out = {"payment": pay} | ({"interest": interest} if variant == "payment_interest" else {})
    return {k: u.as_dtype_of(v, inputs["rate"]) for k, v in out.items()}


LOAN_PAYMENT = KernelSpec(
    name="loan_payment",
    role=KernelRole.UNSEEN,
    description="The monthly payment of n annuity loans (principal, annual rate, years): "
                "P r / (1 - (1 + r)^-N) with a power per loan, or P / N where the rate "
                "is zero (the two arms blended by the comparison as 0 or 1); also the total interest paid (payment_interest).",
    parameters=("n",),
    variants=_LOAN_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_loan,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_loan_inputs, "payment"),
    reference=partial(_loan_reference, "payment"),
    variant_make_inputs=_loan_inputs,
    variant_reference=_loan_reference,
    check_params={"n": 2000},
    rtol=2e-3,
)

# }}}


# {{{ geodetic to Earth-centred coordinates

#: WGS-84: the semi-major axis (m) and the first eccentricity squared
WGS84_A, WGS84_E2 = 6378137.0, 6.69437999014e-3
_ECEF_CONSTS = (("one", 1.0), ("semi_major", WGS84_A), ("e2", WGS84_E2))


def _build_ecef(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("wgs84",), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        for i
            <> sl = sin(lat[i]) {id=sl}
            <> cl = cos(lat[i]) {id=cl}
            <> h = height[i] {id=h}
            <> rn = semi_major / sqrt(one - e2 * sl * sl) {id=rn, dep=sl}
            <> horiz = (rn + h) * cl {id=horiz, dep=rn:cl:h}
            x[i] = horiz * cos(lon[i]) {dep=horiz}
            y[i] = horiz * sin(lon[i]) {dep=horiz}
            z[i] = (rn * (one - e2) + h) * sl {dep=rn:h}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("lat", "lon", "height", "x", "y", "z")),
         *u.scalar_args(req.dtype, _ECEF_CONSTS), *u.size_args("n")],
        name="geodetic_to_ecef", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _away_from_zeros(rng, n, low, high, period, margin):
    """n uniform angles in [low, high] at least *margin* from every multiple of *period*
    (no result lies near zero, so a relative tolerance holds)."""
    def draw(k):
        return rng.uniform(low, high, k)
    return u.redraw_until_good(
        draw(n), draw, lambda a: np.abs(a / period - np.round(a / period)) * period < margin,
        tries=200)


def _ecef_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # both hemispheres, every quadrant of longitude, heights below and above the ellipsoid
    return {"lat": np.asarray(_away_from_zeros(rng, n, -1.45, 1.45, np.pi, 0.05), dtype.numpy),
            "lon": np.asarray(_away_from_zeros(rng, n, -np.pi, np.pi, np.pi / 2, 0.05),
                              dtype.numpy),
            "height": u.random_array(rng, (n,), dtype, low=-400.0, high=9000.0),
            **u.scalar_inputs(dtype, _ECEF_CONSTS)}


def ecef(lat, lon, height) -> np.ndarray:
    """(float64) the Earth-centred x, y, z (3, n) of geodetic points."""
    lat, lon, h = (np.asarray(a, np.float64) for a in (lat, lon, height))
    rn = WGS84_A / np.sqrt(1.0 - WGS84_E2 * np.sin(lat) ** 2)
    return np.stack([(rn + h) * np.cos(lat) * np.cos(lon), (rn + h) * np.cos(lat) * np.sin(lon),
                     (rn * (1.0 - WGS84_E2) + h) * np.sin(lat)])


def _ecef_reference(inputs, params) -> dict:
    xyz = ecef(inputs["lat"], inputs["lon"], inputs["height"])
    return {c: u.as_dtype_of(xyz[k], inputs["lat"]) for k, c in enumerate("xyz")}


GEODETIC_TO_ECEF = KernelSpec(
    name="geodetic_to_ecef",
    role=KernelRole.UNSEEN,
    description="n WGS-84 geodetic points (latitude, longitude in radians, height in m; "
                "three planes) to Earth-centred x, y, z: the prime vertical radius by a "
                "square root and a division, four sines and cosines.",
    parameters=("n",),
    variants=("wgs84",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_ecef,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_ecef_inputs,
    reference=_ecef_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ argmax per row

#: samples per row
ARGMAX_SAMPLES = 64


def _build_argmax(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("first_max",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 1 <= k < {ARGMAX_SAMPLES}}}"],
        """
        for i
            <> best = x[i, 0] {id=b0}
            <int32> at = 0 {id=a0}
            for k
                <> v = x[i, k] {id=v}
                <int32> gt = v > best {id=gt, dep=v:b0}
                at = at + gt * (k - at) {id=a_up, dep=gt:a0}
                best = fmax(best, v) {id=b_up, dep=gt:a_up}
            end
            peak[i] = best {dep=b_up}
            position[i] = at {dep=a_up}
        end
        """,
        [u.array("x", req.dtype, ("n", ARGMAX_SAMPLES)), u.array("peak", req.dtype, ("n",)),
         u.array("position", req.dtype, ("n",)), *u.size_args("n")],
        name="argmax_rows", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _argmax_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    x = rng.normal(size=(n, ARGMAX_SAMPLES))
    # some rows peak at the first sample (never replaced), some at the last
    x[rng.random(n) < 0.1, 0] = 10.0
    x[rng.random(n) < 0.1, -1] = 9.0
    # and some rows' maximum repeated later in the row (a tie: the first one counts)
    first = x.argmax(axis=1)
    tied = np.flatnonzero((rng.random(n) < 0.15) & (first < ARGMAX_SAMPLES - 1))
    x[tied, rng.integers(first[tied] + 1, ARGMAX_SAMPLES)] = x[tied, first[tied]]
    return {"x": np.asarray(x, dtype=dtype.numpy)}


def _argmax_reference(inputs, params) -> dict:
    x = inputs["x"]
    return {"peak": x.max(axis=1), "position": x.argmax(axis=1).astype(x.dtype)}


ARGMAX_ROWS = KernelSpec(
    name="argmax_rows",
    role=KernelRole.UNSEEN,
    description=f"The largest of each of n rows of {ARGMAX_SAMPLES} samples (row-major, "
                f"one work item per row) and its first position (int32): a comparison "
                f"per sample selecting the new value and index.",
    parameters=("n",),
    variants=("first_max",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_argmax,
    size_cases=u.doubling_lengths,
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=_argmax_inputs,
    reference=_argmax_reference,
    check_params={"n": 700},
    rtol=1e-6,
)

# }}}


# {{{ particle step with wall bounces

#: the box's edge, the time step, gravity, the restitution at a wall
BOX, DT, GRAVITY, RESTITUTION = 10.0, 0.05, 9.81, 0.8
_BOUNCE_CONSTS = (("zero", 0.0), ("one", 1.0), ("two", 2.0), ("box", BOX),
                  ("twice_box", 2 * BOX), ("dt", DT), ("gravity", GRAVITY),
                  ("one_plus_e", 1.0 + RESTITUTION))


def _build_bounce(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("restitution",), 1)
    # the wall tests as 0 or 1 in the kernel's precision, blended in without branches
    ftype = req.dtype.value
    lines = ["<> vy0 = vy[i] - gravity * dt {id=vy0}", "<> vx0 = vx[i] {id=vx0}"]
    for c in "xy":
        lines += [
            f"<> {c}1 = {c}[i] + dt * v{c}0 {{id={c}1, dep=v{c}0}}",
            f"<{ftype}> lo{c} = {c}1 < zero {{id=lo{c}, dep={c}1}}",
            f"<{ftype}> hi{c} = {c}1 > box {{id=hi{c}, dep={c}1}}",
            f"<> hit{c} = lo{c} + hi{c} {{id=hit{c}, dep=lo{c}:hi{c}}}",
            f"{c}_out[i] = (one - two * hit{c}) * {c}1 + hi{c} * twice_box {{dep=hit{c}}}",
            f"v{c}_out[i] = v{c}0 * (one - hit{c} * one_plus_e) {{dep=hit{c}}}"]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
        end
        """,
        [*(u.array(a, req.dtype, ("n",))
           for a in ("x", "y", "vx", "vy", "x_out", "y_out", "vx_out", "vy_out")),
         *u.scalar_args(req.dtype, _BOUNCE_CONSTS), *u.size_args("n")],
        name="particle_bounce", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def bounce(x, y, vx, vy) -> dict[str, np.ndarray]:
    """(float64) one step of the particles, reflected at the walls they cross."""
    x, y, vx, vy = (np.asarray(a, np.float64) for a in (x, y, vx, vy))
    vy = vy - GRAVITY * DT
    out = {}
    for c, pos, vel in (("x", x, vx), ("y", y, vy)):
        new = pos + DT * vel
        lo, hi = new < 0, new > BOX
        out[f"{c}_out"] = np.where(lo, -new, np.where(hi, 2 * BOX - new, new))
        out[f"v{c}_out"] = np.where(lo | hi, -RESTITUTION * vel, vel)
    return out


def _bounce_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # a quarter of the particles near a wall moving out (each wall, both axes), fast
    # enough to cross it; positions redrawn where the step ends within 1e-3 of a wall
    # or of zero (both precisions take the same arm, a relative tolerance holds)
    def draw(k):
        pos = rng.uniform(0.5, BOX - 0.5, (2, k))
        vel = rng.uniform(-20.0, 20.0, (2, k))
        near = rng.random((2, k)) < 0.25
        pos[near] = np.where(vel[near] < 0, rng.uniform(0.01, 0.5, near.sum()),
                             BOX - rng.uniform(0.01, 0.5, near.sum()))
        return pos, vel

    def is_bad(pos, vel):
        out = bounce(pos[0], pos[1], vel[0], vel[1])
        ends = np.stack([out["x_out"], out["y_out"], out["vx_out"], out["vy_out"]])
        return ((np.abs(np.stack([pos[0] + DT * vel[0], pos[1] + DT * (vel[1] - GRAVITY * DT)]))
                 < 1e-3) | (np.abs(np.stack([pos[0] + DT * vel[0],
                                             pos[1] + DT * (vel[1] - GRAVITY * DT)]) - BOX)
                            < 1e-3)).any(0) | (np.abs(ends) < 1e-3).any(0)
    pos, vel = u.redraw_until_good(draw(n), draw, is_bad, tries=200, axis=1)
    return {"x": np.asarray(pos[0], dtype.numpy), "y": np.asarray(pos[1], dtype.numpy),
            "vx": np.asarray(vel[0], dtype.numpy), "vy": np.asarray(vel[1], dtype.numpy),
            **u.scalar_inputs(dtype, _BOUNCE_CONSTS)}


def _bounce_reference(inputs, params) -> dict:
    return {k: u.as_dtype_of(v, inputs["x"])
            for k, v in bounce(inputs["x"], inputs["y"], inputs["vx"], inputs["vy"]).items()}


PARTICLE_BOUNCE = KernelSpec(
    name="particle_bounce",
    role=KernelRole.UNSEEN,
    description=f"One explicit step of n particles in a {BOX:g} x {BOX:g} box (positions "
                f"and velocities, four planes in, four out) under gravity: a particle "
                f"past a wall is mirrored back into the box and its velocity along that "
                f"axis reversed and damped by {RESTITUTION:g} (two comparisons per axis "
                f"as 0 or 1, blended in arithmetically).",
    parameters=("n",),
    variants=("restitution",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_bounce,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_bounce_inputs,
    reference=_bounce_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ spherical harmonics basis

#: the real spherical harmonics' normalisations for degrees 0, 1, 2
SH_C0, SH_C1, SH_C2, SH_C3, SH_C4 = 0.28209479177387814, 0.4886025119029199, \
    1.0925484305920792, 0.31539156525252005, 0.5462742152960396
_SH_CONSTS = (("one", 1.0), ("three", 3.0), ("c0", SH_C0), ("c1", SH_C1), ("c2", SH_C2),
              ("c3", SH_C3), ("c4", SH_C4))
#: the nine basis functions of the unit direction (x, y, z), in the usual order
SH_TERMS = ("c0", "c1 * y", "c1 * z", "c1 * x", "c2 * x * y", "c2 * y * z",
            "c3 * (three * z * z - one)", "c2 * x * z", "c4 * (x * x - y * y)")


def _build_sh9(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("normalize",), 1)
    stores = "\n            ".join(f"sh[i, {k}] = {t} {{dep=x:y:z}}"
                                   for k, t in enumerate(SH_TERMS))
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> dx = dir_x[i] {{id=dx}}
            <> dy = dir_y[i] {{id=dy}}
            <> dz = dir_z[i] {{id=dz}}
            <> inv = one / sqrt(dx * dx + dy * dy + dz * dz) {{id=inv, dep=dx:dy:dz}}
            <> x = dx * inv {{id=x, dep=inv}}
            <> y = dy * inv {{id=y, dep=inv}}
            <> z = dz * inv {{id=z, dep=inv}}
            {stores}
        end
        """,
        [*(u.array(f"dir_{c}", req.dtype, ("n",)) for c in "xyz"),
         u.array("sh", req.dtype, ("n", len(SH_TERMS))),
         *u.scalar_args(req.dtype, _SH_CONSTS), *u.size_args("n")],
        name="sh9_basis", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def sh9(dirs) -> np.ndarray:
    """(float64) the nine basis values (n, 9) of directions (3, n), not of unit length."""
    d = np.asarray(dirs, np.float64)
    x, y, z = d / np.linalg.norm(d, axis=0)
    one = np.ones_like(x)
    return np.stack([SH_C0 * one, SH_C1 * y, SH_C1 * z, SH_C1 * x, SH_C2 * x * y,
                     SH_C2 * y * z, SH_C3 * (3 * z * z - 1), SH_C2 * x * z,
                     SH_C4 * (x * x - y * y)], axis=1)


def _sh9_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # directions of every octant and length 0.2 to 5, redrawn where a basis value lies
    # within 1e-2 of zero (a relative tolerance holds)
    def draw(k):
        return rng.normal(size=(3, k)) * rng.uniform(0.2, 5.0, k)
    dirs = u.redraw_until_good(draw(n), draw, lambda d: (np.abs(sh9(d)) < 1e-2).any(axis=1),
                               tries=500, axis=1)
    return {f"dir_{c}": np.asarray(dirs[k], dtype.numpy) for k, c in enumerate("xyz")} \
        | u.scalar_inputs(dtype, _SH_CONSTS)


def _sh9_reference(inputs, params) -> dict:
    dirs = np.stack([inputs[f"dir_{c}"] for c in "xyz"])
    return {"sh": u.as_dtype_of(sh9(dirs), inputs["dir_x"])}


SH9_BASIS = KernelSpec(
    name="sh9_basis",
    role=KernelRole.UNSEEN,
    description="The nine real spherical harmonics of degree <= 2 of n directions "
                "(three planes, normalised in the kernel by a reciprocal square root), "
                "written as n rows of nine (row-major): a constant, three linear and "
                "five quadratic terms.",
    parameters=("n",),
    variants=("normalize",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_sh9,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_sh9_inputs,
    reference=_sh9_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ 8-point DCT-II per block

#: samples per block
DCT_SIZE = 8
_DCT_CONSTS = (("angle", np.pi / (2 * DCT_SIZE)), ("dc_scale", np.sqrt(1.0 / DCT_SIZE)),
               ("ac_scale", np.sqrt(2.0 / DCT_SIZE)))


def _build_dct8(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("orthonormal",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k, j]: 0 <= k, j < {DCT_SIZE}}}"],
        f"""
        for i, k
            <> acc = sum(j, x[i, j] * cos(angle * ((2 * j + 1) * k))) {{id=acc}}
            <{req.dtype.value}> is_dc = k == 0 {{id=is_dc}}
            coef[i, k] = (ac_scale + is_dc * (dc_scale - ac_scale)) * acc {{dep=acc:is_dc}}
        end
        """,
        [u.array("x", req.dtype, ("n", DCT_SIZE)), u.array("coef", req.dtype, ("n", DCT_SIZE)),
         *u.scalar_args(req.dtype, _DCT_CONSTS), *u.size_args("n")],
        name="dct8_blocks", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def dct8(x) -> np.ndarray:
    """(float64) the orthonormal DCT-II of each row of eight."""
    x = np.asarray(x, np.float64)
    j, k = np.meshgrid(np.arange(DCT_SIZE), np.arange(DCT_SIZE))
    basis = np.cos(np.pi / (2 * DCT_SIZE) * (2 * j + 1) * k)
    scale = np.where(np.arange(DCT_SIZE) == 0, np.sqrt(1.0 / DCT_SIZE), np.sqrt(2.0 / DCT_SIZE))
    return (x @ basis.T) * scale


def _dct8_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # pixel-like blocks (an offset, a ramp, noise), redrawn where a coefficient lies
    # within 2 % of the block's largest (a relative tolerance holds)
    def draw(k):
        ramp = rng.uniform(-0.5, 0.5, (k, 1)) * np.arange(DCT_SIZE)
        return rng.uniform(0.0, 1.0, (k, 1)) + ramp + rng.normal(0.0, 0.5, (k, DCT_SIZE))

    def is_bad(x):
        c = np.abs(dct8(x))
        return (c < 0.02 * c.max(axis=1, keepdims=True)).any(axis=1)
    x = u.redraw_until_good(draw(n), draw, is_bad, tries=500)
    return {"x": np.asarray(x, dtype.numpy), **u.scalar_inputs(dtype, _DCT_CONSTS)}


def _dct8_reference(inputs, params) -> dict:
    return {"coef": u.as_dtype_of(dct8(inputs["x"]), inputs["x"])}


DCT8_BLOCKS = KernelSpec(
    name="dct8_blocks",
    role=KernelRole.UNSEEN,
    description=f"The orthonormal {DCT_SIZE}-point DCT-II of each of n blocks (rows of "
                f"{DCT_SIZE}, one work item per block): each coefficient a sum over the "
                f"block of a sample times a cosine computed in the kernel (of a constant "
                f"times the index product, in the kernel's precision), scaled for the DC "
                f"term or the others.",
    parameters=("n",),
    variants=("orthonormal",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_dct8,
    size_cases=u.doubling_lengths,
    default_p=17,
    p_choices=(16, 17, 18),
    make_inputs=_dct8_inputs,
    reference=_dct8_reference,
    check_params={"n": 700},
    rtol=1e-3,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (LOAN_PAYMENT, GEODETIC_TO_ECEF, ARGMAX_ROWS, PARTICLE_BOUNCE,
                                 SH9_BASIS, DCT8_BLOCKS)
