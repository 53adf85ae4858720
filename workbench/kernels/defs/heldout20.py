"""The twentieth held-out set (``--set heldout20``): kernels kept out of all fitting and design.

The nineteenth set (:mod:`.heldout19`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts). Every input is floating point
(the device runner's zero-filled integer arrays play no part).

* ``focal_loss``: the sigmoid focal loss of logits against 0/1 targets.
* ``pendulum_rk4``: a damped pendulum per element, a fixed number of RK4 steps.
* ``dew_point_magnus``: the dew point from temperature and relative humidity.
* ``lj_probe_energy``: the Lennard-Jones energy of 3-D points against a table of probe
  atoms, cut off at a radius.
* ``goertzel_rows``: the power of one frequency bin of each row by Goertzel's recurrence.

Those on 2-D groups (metaball_field, heightmap_normals, ssim_map3, ising_checkerboard)
are in :mod:`.heldout20_grid`.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec


# {{{ sigmoid focal loss

#: the positive class's weight alpha (the focusing exponent gamma is 2)
FOCAL_ALPHA = 0.25
_FOCAL_CONSTS = (("zero", 0.0), ("one", 1.0), ("two", 2.0), ("alpha", FOCAL_ALPHA))


def _build_focal(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("gamma_two",), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        for i
            <> z = logits[i] {id=z}
            <> t = targets[i] {id=t}
            <> s = (two * t - one) * z {id=s, dep=z:t}
            <> log_pt = -(fmax(-s, zero) + log(one + exp(-fabs(s)))) {id=lpt, dep=s}
            <> miss = one - exp(log_pt) {id=miss, dep=lpt}
            <> weight = t * alpha + (one - t) * (one - alpha) {id=w, dep=t}
            loss[i] = -weight * miss * miss * log_pt {dep=miss:w}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("logits", "targets", "loss")),
         *u.scalar_args(req.dtype, _FOCAL_CONSTS), *u.size_args("n")],
        name="focal_loss", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def focal(z, t) -> np.ndarray:
    """(float64) the focal loss with gamma 2."""
    z, t = np.asarray(z, np.float64), np.asarray(t, np.float64)
    p = 1.0 / (1.0 + np.exp(-z))
    pt = np.where(t > 0.5, p, 1.0 - p)
    weight = np.where(t > 0.5, FOCAL_ALPHA, 1.0 - FOCAL_ALPHA)
    return -weight * (1.0 - pt) ** 2 * np.log(pt)


def _focal_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # both targets; logits of both signs, so that the target's side of the sigmoid is
    # right (small loss) and wrong (large loss); the signed logit kept within [-8, 4]
    # (beyond 4 the float32 1 - p_t keeps too few digits)
    t = (rng.random(n) < 0.5).astype(np.float64)
    s = rng.uniform(-8.0, 4.0, n)
    z = np.where(t > 0.5, s, -s)
    return {"logits": np.asarray(z, dtype.numpy), "targets": np.asarray(t, dtype.numpy),
            **u.scalar_inputs(dtype, _FOCAL_CONSTS)}


def _focal_reference(inputs, params) -> dict:
    return {"loss": u.as_dtype_of(focal(inputs["logits"], inputs["targets"]),
                                  inputs["logits"])}


FOCAL_LOSS = KernelSpec(
    name="focal_loss",
    description=f"The sigmoid focal loss (gamma 2, alpha {FOCAL_ALPHA}) of n logits "
                f"against 0/1 targets (floats): the log of p_t by an overflow-free "
                f"softplus of the signed logit, an exponential back to p_t, the squared "
                f"(1 - p_t) and the class weight chosen arithmetically by the target.",
    parameters=("n",),
    variants=("gamma_two",),
    build=_build_focal,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_focal_inputs,
    reference=_focal_reference,
    check_params={"n": 3000},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ damped pendulum, RK4

#: steps, step length, damping (the gravity over the length is 1)
PEND_STEPS, PEND_DT, PEND_DAMP = 32, 0.05, 0.1
_PEND_CONSTS = (("two", 2.0), ("dt", PEND_DT), ("half_dt", PEND_DT / 2),
                ("dt_6", PEND_DT / 6), ("damp", PEND_DAMP))


def _build_pendulum(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("rk4",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[t]: 0 <= t < {PEND_STEPS}}}"],
        """
        for i
            <> th = theta[i] {id=th0}
            <> om = omega[i] {id=om0}
            for t
                <> k1o = -sin(th) - damp * om {id=k1o, dep=th0:om0}
                <> k2t = om + half_dt * k1o {id=k2t, dep=k1o}
                <> k2o = -sin(th + half_dt * om) - damp * k2t {id=k2o, dep=k2t}
                <> k3t = om + half_dt * k2o {id=k3t, dep=k2o}
                <> k3o = -sin(th + half_dt * k2t) - damp * k3t {id=k3o, dep=k3t}
                <> k4t = om + dt * k3o {id=k4t, dep=k3o}
                <> k4o = -sin(th + dt * k3t) - damp * k4t {id=k4o, dep=k4t}
                th = th + dt_6 * (om + two * k2t + two * k3t + k4t) {id=th_up, dep=k4o}
                om = om + dt_6 * (k1o + two * k2o + two * k3o + k4o) {id=om_up, dep=th_up}
            end
            theta_out[i] = th {dep=th_up}
            omega_out[i] = om {dep=om_up}
        end
        """,
        [*(u.array(a, req.dtype, ("n",))
           for a in ("theta", "omega", "theta_out", "omega_out")),
         *u.scalar_args(req.dtype, _PEND_CONSTS), *u.size_args("n")],
        name="pendulum_rk4", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def pendulum(theta, omega) -> tuple[np.ndarray, np.ndarray]:
    """(float64) the state after the fixed RK4 steps."""
    th, om = np.asarray(theta, np.float64), np.asarray(omega, np.float64)

    def acc(a, w):
        return -np.sin(a) - PEND_DAMP * w
    h = PEND_DT
    for _ in range(PEND_STEPS):
        k1t, k1o = om, acc(th, om)
        k2t, k2o = om + h / 2 * k1o, acc(th + h / 2 * k1t, om + h / 2 * k1o)
        k3t, k3o = om + h / 2 * k2o, acc(th + h / 2 * k2t, om + h / 2 * k2o)
        k4t, k4o = om + h * k3o, acc(th + h * k3t, om + h * k3o)
        th, om = (th + h / 6 * (k1t + 2 * k2t + 2 * k3t + k4t),
                  om + h / 6 * (k1o + 2 * k2o + 2 * k3o + k4o))
    return th, om


def _pendulum_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # small and large swings of both signs, some starting fast enough to go over the
    # top; redrawn while either final coordinate lies within 0.05 of zero
    def draw(k):
        return rng.uniform(-3.0, 3.0, k), rng.uniform(-2.5, 2.5, k)

    def is_bad(th, om):
        a, w = pendulum(th, om)
        return (np.abs(a) < 0.05) | (np.abs(w) < 0.05)
    th, om = u.redraw_until_good(draw(n), draw, is_bad, tries=200)
    return {"theta": np.asarray(th, dtype.numpy), "omega": np.asarray(om, dtype.numpy),
            **u.scalar_inputs(dtype, _PEND_CONSTS)}


def _pendulum_reference(inputs, params) -> dict:
    th, om = pendulum(inputs["theta"], inputs["omega"])
    return {"theta_out": u.as_dtype_of(th, inputs["theta"]),
            "omega_out": u.as_dtype_of(om, inputs["theta"])}


PENDULUM_RK4 = KernelSpec(
    name="pendulum_rk4",
    description=f"n damped pendulums (angle and angular velocity, one work item each) "
                f"advanced by {PEND_STEPS} classical Runge-Kutta steps of {PEND_DT}: four "
                f"sines per step, the state kept in registers, two arrays read and two "
                f"written.",
    parameters=("n",),
    variants=("rk4",),
    build=_build_pendulum,
    default_p=19,
    p_choices=(18, 19, 20),
    make_inputs=_pendulum_inputs,
    reference=_pendulum_reference,
    check_params={"n": 2000},
    rtol=2e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ dew point (Magnus)

#: the Magnus coefficients b and c (degrees Celsius)
MAGNUS_B, MAGNUS_C = 17.62, 243.12
_DEW_CONSTS = (("percent", 0.01), ("mag_b", MAGNUS_B), ("mag_c", MAGNUS_C))


def _build_dew(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("magnus",), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        for i
            <> tc = temp_c[i] {id=tc}
            <> g = log(rel_hum[i] * percent) + mag_b * tc / (mag_c + tc) {id=g, dep=tc}
            dew_c[i] = mag_c * g / (mag_b - g) {dep=g}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("temp_c", "rel_hum", "dew_c")),
         *u.scalar_args(req.dtype, _DEW_CONSTS), *u.size_args("n")],
        name="dew_point_magnus", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def dew_point(temp_c, rel_hum) -> np.ndarray:
    tc, rh = np.asarray(temp_c, np.float64), np.asarray(rel_hum, np.float64)
    g = np.log(rh / 100.0) + MAGNUS_B * tc / (MAGNUS_C + tc)
    return MAGNUS_C * g / (MAGNUS_B - g)


def _dew_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # -30 to 45 degrees, 5 to 100 % humidity; redrawn while the dew point lies within
    # 0.5 degrees of zero (its sign changes there)
    def draw(k):
        return rng.uniform(-30.0, 45.0, k), rng.uniform(5.0, 100.0, k)
    tc, rh = u.redraw_until_good(draw(n), draw, lambda tc, rh: np.abs(dew_point(tc, rh)) < 0.5,
                                 tries=200)
    return {"temp_c": np.asarray(tc, dtype.numpy), "rel_hum": np.asarray(rh, dtype.numpy),
            **u.scalar_inputs(dtype, _DEW_CONSTS)}


def _dew_reference(inputs, params) -> dict:
    return {"dew_c": u.as_dtype_of(dew_point(inputs["temp_c"], inputs["rel_hum"]),
                                   inputs["temp_c"])}


DEW_POINT_MAGNUS = KernelSpec(
    name="dew_point_magnus",
    description=f"The dew point (degrees Celsius) of n temperature and relative-humidity "
                f"pairs by the Magnus formula (b = {MAGNUS_B}, c = {MAGNUS_C}): a "
                f"logarithm and two divisions per element.",
    parameters=("n",),
    variants=("magnus",),
    build=_build_dew,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_dew_inputs,
    reference=_dew_reference,
    check_params={"n": 3000},
    rtol=1e-4,
    **u.unseen_1d(),
)

# }}}


# {{{ Lennard-Jones energy against probe atoms

#: probe atoms; the cut-off radius (sigma = 1, epsilon = 1)
LJ_PROBES, LJ_CUTOFF = 32, 2.5
_LJ_CONSTS = (("zero", 0.0), ("one", 1.0), ("four", 4.0), ("rc2", LJ_CUTOFF ** 2))


def _build_lj(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("cutoff",), 1)
    ftype = req.dtype.value
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {LJ_PROBES}}}"],
        f"""
        for i
            <> x = pts[i, 0] {{id=x}}
            <> y = pts[i, 1] {{id=y}}
            <> z = pts[i, 2] {{id=z}}
            <> total = zero {{id=total0}}
            for k
                <> dx = x - probes[k, 0] {{id=dx, dep=x}}
                <> dy = y - probes[k, 1] {{id=dy, dep=y}}
                <> dz = z - probes[k, 2] {{id=dz, dep=z}}
                <> r2 = dx * dx + dy * dy + dz * dz {{id=r2, dep=dx:dy:dz}}
                <> inv6 = one / (r2 * r2 * r2) {{id=inv6, dep=r2}}
                <{ftype}> inside = r2 < rc2 {{id=inside, dep=r2}}
                total = total + inside * four * (inv6 * inv6 - inv6) \
                    {{id=total_up, dep=inv6:inside:total0}}
            end
            energy[i] = total {{dep=total_up}}
        end
        """,
        [u.array("pts", req.dtype, ("n", 3)), u.array("probes", req.dtype, (LJ_PROBES, 3)),
         u.array("energy", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _LJ_CONSTS), *u.size_args("n")],
        name="lj_probe_energy", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def lj_energy(pts, probes) -> np.ndarray:
    """(float64) each point's truncated Lennard-Jones energy."""
    pts, probes = np.asarray(pts, np.float64), np.asarray(probes, np.float64)
    r2 = ((pts[:, None, :] - probes[None, :, :]) ** 2).sum(axis=2)
    inv6 = 1.0 / r2 ** 3
    return np.where(r2 < LJ_CUTOFF ** 2, 4.0 * (inv6 * inv6 - inv6), 0.0).sum(axis=1)


def _lj_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # probes in a box of 6; points in a box of 8 around it (some beyond every cut-off,
    # their energy exactly zero; most within the cut-off of several probes, both in the
    # repulsive and the attractive range); redrawn while a point comes within 0.9 of a
    # probe, lies within 1e-3 of a cut-off sphere, or has a nonzero energy under 0.02
    probes = rng.uniform(1.0, 7.0, (LJ_PROBES, 3))

    def draw(k):
        return rng.uniform(0.0, 8.0, (k, 3))

    def is_bad(pts):
        r = np.sqrt(((pts[:, None, :] - probes[None, :, :]) ** 2).sum(axis=2))
        e = lj_energy(pts, probes)
        return ((r.min(axis=1) < 0.9) | (np.abs(r - LJ_CUTOFF).min(axis=1) < 1e-3)
                | ((e != 0) & (np.abs(e) < 0.02)))
    pts = u.redraw_until_good(draw(n), draw, is_bad, tries=200)
    return {"pts": np.asarray(pts, dtype.numpy), "probes": np.asarray(probes, dtype.numpy),
            **u.scalar_inputs(dtype, _LJ_CONSTS)}


def _lj_reference(inputs, params) -> dict:
    return {"energy": u.as_dtype_of(lj_energy(inputs["pts"], inputs["probes"]),
                                    inputs["pts"])}


LJ_PROBE_ENERGY = KernelSpec(
    name="lj_probe_energy",
    description=f"The Lennard-Jones energy of n 3-D points (rows of 3) against a table of "
                f"{LJ_PROBES} probe atoms read by every work item, each pair cut off at "
                f"radius {LJ_CUTOFF} (the comparison as 0 or 1): per pair a squared "
                f"distance, a division and the r^-12 - r^-6 term.",
    parameters=("n",),
    variants=("cutoff",),
    build=_build_lj,
    default_p=19,
    p_choices=(18, 19, 20),
    make_inputs=_lj_inputs,
    reference=_lj_reference,
    check_params={"n": 2000},
    rtol=1e-3,
    **u.unseen_1d(),
)

# }}}


# {{{ Goertzel bin power

#: samples per row; the bin whose power is computed
GOERTZEL_N, GOERTZEL_BIN = 128, 10
_GOERTZEL_CONSTS = (("zero", 0.0),
                    ("coeff", 2.0 * np.cos(2.0 * np.pi * GOERTZEL_BIN / GOERTZEL_N)))


def _build_goertzel(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("recurrence",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {GOERTZEL_N}}}"],
        """
        for i
            <> s1 = zero {id=s1_0}
            <> s2 = zero {id=s2_0}
            for k
                <> s0 = signal[i, k] + coeff * s1 - s2 {id=s0, dep=s1_0:s2_0}
                s2 = s1 {id=s2_up, dep=s0}
                s1 = s0 {id=s1_up, dep=s2_up}
            end
            power[i] = s1 * s1 + s2 * s2 - coeff * s1 * s2 {dep=s1_up:s2_up}
        end
        """,
        [u.array("signal", req.dtype, ("n", GOERTZEL_N)), u.array("power", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _GOERTZEL_CONSTS), *u.size_args("n")],
        name="goertzel_rows", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _goertzel_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # each row a tone on the bin (amplitude 0.5 to 2, any phase), a tone off it and
    # noise, so that the bin's power is large and the recurrence's other terms cancel
    t = np.arange(GOERTZEL_N)
    amp = rng.uniform(0.5, 2.0, (n, 1))
    phase = rng.uniform(0.0, 2 * np.pi, (n, 2))
    off = rng.integers(20, 60, (n, 1))
    x = (amp * np.cos(2 * np.pi * GOERTZEL_BIN * t / GOERTZEL_N + phase[:, :1])
         + np.cos(2 * np.pi * off * t / GOERTZEL_N + phase[:, 1:])
         + rng.normal(0.0, 0.3, (n, GOERTZEL_N)))
    return {"signal": np.asarray(x, dtype.numpy), **u.scalar_inputs(dtype, _GOERTZEL_CONSTS)}


def _goertzel_reference(inputs, params) -> dict:
    x = inputs["signal"].astype(np.float64)
    return {"power": u.as_dtype_of(np.abs(np.fft.fft(x, axis=1)[:, GOERTZEL_BIN]) ** 2,
                                   inputs["signal"])}


GOERTZEL_ROWS = KernelSpec(
    name="goertzel_rows",
    description=f"The power of bin {GOERTZEL_BIN} of each of n rows of {GOERTZEL_N} "
                f"samples (row-major, one work item per row) by Goertzel's second-order "
                f"recurrence: a multiply-add per sample carried in two registers, the "
                f"power from the last two states.",
    parameters=("n",),
    variants=("recurrence",),
    build=_build_goertzel,
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=_goertzel_inputs,
    reference=_goertzel_reference,
    check_params={"n": 700},
    rtol=1e-3,
    **u.unseen_1d(),
)

# }}}


#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (FOCAL_LOSS, PENDULUM_RK4, DEW_POINT_MAGNUS, LJ_PROBE_ENERGY,
                                 GOERTZEL_ROWS)
