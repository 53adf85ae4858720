"""The eighteenth held-out set (``--set heldout18``): kernels kept out of all fitting and design.

The seventeenth set (:mod:`.heldout17`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts). Every input is floating point
(the device runner's zero-filled integer arrays play no part).

* ``kahan_row_sum``: the compensated (Kahan) sum of each row of samples.
* ``batched_cholesky4``: the Cholesky factor of each of n 4 x 4 SPD matrices.
* ``heat_index``: the US weather service's heat index per reading (a simple formula,
  the Rothfusz regression above 80 F and its two corrections).
* ``lif_neurons``: leaky integrate-and-fire neurons stepped a fixed number of times,
  spikes counted and the potential reset.

The geometry kernels on 1-D groups (spring_chain_forces, point_in_polygon) are in
:mod:`.heldout18_geometry`; those on 2-D groups (nonmax_suppress, gray_scott_step,
box_filter_sat) are in :mod:`.heldout18_grid`.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ Kahan row sum

#: samples per row
KAHAN_SAMPLES = 128


def _build_kahan(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("compensated",), 1)
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {KAHAN_SAMPLES}}}"],
        """
        for i
            <> s = zero {id=s0}
            <> c = zero {id=c0}
            for k
                <> y = x[i, k] - c {id=y, dep=c0}
                <> t = s + y {id=t, dep=y:s0}
                c = (t - s) - y {id=c_up, dep=t}
                s = t {id=s_up, dep=c_up}
            end
            total[i] = s {dep=s_up}
        end
        """,
        [u.array("x", req.dtype, ("n", KAHAN_SAMPLES)), u.array("total", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, (("zero", 0.0),)), *u.size_args("n")],
        name="kahan_row_sum", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _kahan_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # a large first sample (of either sign) then small ones: an uncompensated float32
    # sum is off by up to 1.3e-6, six times the tolerance
    x = rng.uniform(0.0, 1e-2, (n, KAHAN_SAMPLES))
    x[:, 0] = rng.uniform(1e3, 1e4, n) * np.where(rng.random(n) < 0.3, -1.0, 1.0)
    return {"x": np.asarray(x, dtype.numpy), **u.scalar_inputs(dtype, (("zero", 0.0),))}


def _kahan_reference(inputs, params) -> dict:
    x = inputs["x"]
    return {"total": u.as_dtype_of(x.astype(np.float64).sum(axis=1), x)}


KAHAN_ROW_SUM = KernelSpec(
    name="kahan_row_sum",
    role=KernelRole.UNSEEN,
    description=f"The sum of each of n rows of {KAHAN_SAMPLES} samples (row-major, one "
                f"work item per row) with Kahan's compensation: four dependent additions "
                f"per sample carrying the lost low-order part.",
    parameters=("n",),
    variants=("compensated",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_kahan,
    size_cases=u.doubling_lengths,
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=_kahan_inputs,
    reference=_kahan_reference,
    check_params={"n": 700},
    rtol=2e-7,
)

# }}}


# {{{ batched 4 x 4 Cholesky

#: the matrices' order; the factor's lower triangle is stored packed, row by row
CHOL_N = 4
CHOL_PACKED = tuple((r, c) for r in range(CHOL_N) for c in range(r + 1))


def _build_cholesky(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("packed_lower",), 1)
    lines = []
    for j in range(CHOL_N):
        sq = "".join(f" - l{j}{k} * l{j}{k}" for k in range(j))
        deps = ":".join(f"l{j}{k}" for k in range(j)) or "s0"
        lines += [f"<> l{j}{j} = sqrt(a[i, {j * CHOL_N + j}]{sq}) {{id=l{j}{j}, dep={deps}}}",
                  f"<> inv{j} = one / l{j}{j} {{id=inv{j}, dep=l{j}{j}}}"]
        for r in range(j + 1, CHOL_N):
            dot = "".join(f" - l{r}{k} * l{j}{k}" for k in range(j))
            rdeps = ":".join([f"inv{j}", *(f"l{r}{k}" for k in range(j))])
            lines.append(f"<> l{r}{j} = (a[i, {r * CHOL_N + j}]{dot}) * inv{j} "
                         f"{{id=l{r}{j}, dep={rdeps}}}")
    lines += [f"chol[i, {p}] = l{r}{c} {{dep=l{r}{c}}}" for p, (r, c) in enumerate(CHOL_PACKED)]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> start = one {{id=s0}}
            {body}
        end
        """,
        [u.array("a", req.dtype, ("n", CHOL_N * CHOL_N)),
         u.array("chol", req.dtype, ("n", len(CHOL_PACKED))),
         *u.scalar_args(req.dtype, (("one", 1.0),)), *u.size_args("n")],
        name="batched_cholesky4", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _cholesky_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # B B^T + I: symmetric positive definite, off-diagonal entries of both signs, the
    # full matrix stored (the kernel reads the lower triangle only)
    b = rng.normal(size=(n, CHOL_N, CHOL_N))
    a = b @ b.transpose(0, 2, 1) + np.eye(CHOL_N)
    return {"a": np.asarray(a.reshape(n, CHOL_N * CHOL_N), dtype.numpy),
            **u.scalar_inputs(dtype, (("one", 1.0),))}


def _cholesky_reference(inputs, params) -> dict:
    a = inputs["a"].astype(np.float64).reshape(-1, CHOL_N, CHOL_N)
    low = np.linalg.cholesky(a)
    packed = np.stack([low[:, r, c] for r, c in CHOL_PACKED], axis=1)
    return {"chol": u.as_dtype_of(packed, inputs["a"])}


BATCHED_CHOLESKY4 = KernelSpec(
    name="batched_cholesky4",
    role=KernelRole.UNSEEN,
    description=f"The Cholesky factor L (A = L L^T) of each of n symmetric positive "
                f"definite {CHOL_N} x {CHOL_N} matrices (rows of {CHOL_N * CHOL_N}, one work "
                f"item per matrix, the lower triangle read): {CHOL_N} square roots and "
                f"reciprocals, the factor's {len(CHOL_PACKED)} entries written packed.",
    parameters=("n",),
    variants=("packed_lower",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_cholesky,
    size_cases=u.doubling_lengths,
    default_p=19,
    p_choices=(18, 19, 20),
    make_inputs=_cholesky_inputs,
    reference=_cholesky_reference,
    check_params={"n": 2000},
    rtol=2e-3,
)

# }}}


# {{{ heat index

#: the Rothfusz regression's coefficients (T in F, RH in %)
HEAT_COEFFS = (-42.379, 2.04901523, 10.14333127, -0.22475541, -6.83783e-3, -5.481717e-2,
               1.22874e-3, 8.5282e-4, -1.99e-6)
_HEAT_CONSTS = (("zero", 0.0), ("one", 1.0), ("one_half", 0.5), *(
    (f"h{k}", c) for k, c in enumerate(HEAT_COEFFS)), ("t61", 61.0), ("t68", 68.0),
    ("slope", 1.2), ("rh_w", 0.094), ("t80", 80.0), ("t87", 87.0), ("t95", 95.0),
    ("t112", 112.0), ("rh13", 13.0), ("rh85", 85.0), ("inv4", 0.25), ("inv5", 0.2),
    ("inv10", 0.1), ("t17", 17.0), ("inv17", 1.0 / 17.0))


def _build_heat(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("rothfusz",), 1)
    ftype = req.dtype.value
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> t = temp_f[i] {{id=t}}
            <> rh = humidity[i] {{id=rh}}
            <> simple = one_half * (t + t61 + (t - t68) * slope + rh * rh_w) {{id=simple, dep=t:rh}}
            <{ftype}> hot = one_half * (simple + t) >= t80 {{id=hot, dep=simple}}
            <> reg = h0 + h1 * t + h2 * rh + h3 * t * rh + h4 * t * t + h5 * rh * rh \
                + h6 * t * t * rh + h7 * t * rh * rh + h8 * t * t * rh * rh {{id=reg, dep=t:rh}}
            <{ftype}> warm = (t >= t80) * (t <= t112) {{id=warm, dep=t}}
            <{ftype}> dry = (rh < rh13) * warm {{id=dry, dep=warm:rh}}
            <{ftype}> humid = (rh > rh85) * (t >= t80) * (t <= t87) {{id=humid, dep=t:rh}}
            <> dry_fix = (rh13 - rh) * inv4 * sqrt(fmax(t17 - fabs(t - t95), zero) * inv17) \
                {{id=dry_fix, dep=t:rh}}
            <> humid_fix = (rh - rh85) * inv10 * (t87 - t) * inv5 {{id=humid_fix, dep=t:rh}}
            <> adjusted = reg - dry * dry_fix + humid * humid_fix \
                {{id=adjusted, dep=reg:dry:humid:dry_fix:humid_fix}}
            heat_out[i] = hot * adjusted + (one - hot) * simple {{dep=hot:adjusted:simple}}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("temp_f", "humidity", "heat_out")),
         *u.scalar_args(req.dtype, _HEAT_CONSTS), *u.size_args("n")],
        name="heat_index", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def heat(temp_f, humidity) -> np.ndarray:
    """(float64) the heat index (F) of readings of temperature (F) and humidity (%)."""
    t, rh = np.asarray(temp_f, np.float64), np.asarray(humidity, np.float64)
    simple = 0.5 * (t + 61.0 + (t - 68.0) * 1.2 + rh * 0.094)
    c = HEAT_COEFFS
    reg = (c[0] + c[1] * t + c[2] * rh + c[3] * t * rh + c[4] * t * t + c[5] * rh * rh
           + c[6] * t * t * rh + c[7] * t * rh * rh + c[8] * t * t * rh * rh)
    dry = (rh < 13) & (t >= 80) & (t <= 112)
    humid = (rh > 85) & (t >= 80) & (t <= 87)
    reg = reg - np.where(dry, (13 - rh) / 4 * np.sqrt(np.maximum(17 - np.abs(t - 95), 0) / 17),
                         0.0)
    reg = reg + np.where(humid, (rh - 85) / 10 * (87 - t) / 5, 0.0)
    return np.where(0.5 * (simple + t) >= 80, reg, simple)


def heat_arms(temp_f, humidity) -> dict[str, np.ndarray]:
    """Which arm each reading takes (the tests count them)."""
    t, rh = np.asarray(temp_f, np.float64), np.asarray(humidity, np.float64)
    simple = 0.5 * (t + 61.0 + (t - 68.0) * 1.2 + rh * 0.094)
    hot = 0.5 * (simple + t) >= 80
    return {"simple": ~hot, "regression": hot,
            "dry": hot & (rh < 13) & (t >= 80) & (t <= 112),
            "humid": hot & (rh > 85) & (t >= 80) & (t <= 87)}


def _heat_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # readings 50 F to 112 F at 2 % to 100 %, a fifth of them dry and a fifth humid hot
    # days; redrawn where a reading lies within 0.01 of a threshold (both precisions
    # take the same arm) or the index within 1 of zero
    def draw(k):
        t = rng.uniform(50.0, 112.0, k)
        rh = rng.uniform(2.0, 100.0, k)
        kind = rng.random(k)
        t[kind < 0.2] = rng.uniform(80.0, 112.0, (kind < 0.2).sum())
        rh[kind < 0.2] = rng.uniform(2.0, 13.0, (kind < 0.2).sum())
        humid = (kind >= 0.2) & (kind < 0.4)
        t[humid] = rng.uniform(80.0, 87.0, humid.sum())
        rh[humid] = rng.uniform(85.0, 100.0, humid.sum())
        return t, rh

    def is_bad(t, rh):
        simple = 0.5 * (t + 61.0 + (t - 68.0) * 1.2 + rh * 0.094)
        return ((np.abs(0.5 * (simple + t) - 80) < 0.01) | (np.abs(heat(t, rh)) < 1)
                | (np.abs(np.subtract.outer(np.array([80.0, 87.0, 112.0]), t)) < 0.01).any(0)
                | (np.abs(np.subtract.outer(np.array([13.0, 85.0]), rh)) < 0.01).any(0))
    t, rh = u.redraw_until_good(draw(n), draw, is_bad, tries=200)
    return {"temp_f": np.asarray(t, dtype.numpy), "humidity": np.asarray(rh, dtype.numpy),
            **u.scalar_inputs(dtype, _HEAT_CONSTS)}


def _heat_reference(inputs, params) -> dict:
    return {"heat_out": u.as_dtype_of(heat(inputs["temp_f"], inputs["humidity"]),
                                   inputs["temp_f"])}


HEAT_INDEX = KernelSpec(
    name="heat_index",
    role=KernelRole.UNSEEN,
    description="The heat index of n readings (temperature in F, relative humidity in %; "
                "two planes): a linear estimate, or where it averages 80 F or more the "
                "nine-term Rothfusz regression, less a square-root correction when dry "
                "or plus a linear one when humid (the arms blended by comparisons as 0 "
                "or 1).",
    parameters=("n",),
    variants=("rothfusz",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_heat,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_heat_inputs,
    reference=_heat_reference,
    check_params={"n": 3000},
    rtol=1e-4,
)

# }}}


# {{{ leaky integrate-and-fire neurons

#: time steps per launch; the leak per step (a power of two, so that a product is exact
#: and contraction into a fused multiply-add changes no rounding); the firing threshold
LIF_STEPS, LIF_LEAK, LIF_THRESHOLD = 96, 0.125, 1.0
_LIF_CONSTS = (("zero", 0.0), ("one", 1.0), ("leak", LIF_LEAK), ("threshold", LIF_THRESHOLD))


def _build_lif(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("reset_to_zero",), 1)
    ftype = req.dtype.value
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[t]: 0 <= t < {LIF_STEPS}}}"],
        f"""
        for i
            <> v = potential[i] {{id=v0}}
            <> drive = current[i] {{id=drive}}
            <> count = zero {{id=n0}}
            for t
                <> w = v + (drive - v) * leak {{id=w, dep=v0:drive}}
                <{ftype}> fired = w >= threshold {{id=fired, dep=w}}
                count = count + fired {{id=n_up, dep=fired:n0}}
                v = w * (one - fired) {{id=v_up, dep=fired}}
            end
            potential_out[i] = v {{dep=v_up}}
            spikes[i] = count {{dep=n_up}}
        end
        """,
        [*(u.array(a, req.dtype, ("n",))
           for a in ("potential", "current", "potential_out", "spikes")),
         *u.scalar_args(req.dtype, _LIF_CONSTS), *u.size_args("n")],
        name="lif_neurons", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def lif(potential, current, dtype) -> tuple[np.ndarray, np.ndarray]:
    """The final potential and the spike count of each neuron, in *dtype* with the
    kernel's operations in its order (every rounding the kernel's)."""
    dt = np.dtype(dtype)
    v, drive = np.asarray(potential, dt), np.asarray(current, dt)
    leak, thr = dt.type(LIF_LEAK), dt.type(LIF_THRESHOLD)
    count = np.zeros_like(v)
    for _ in range(LIF_STEPS):
        w = v + (drive - v) * leak
        fired = w >= thr
        count = count + fired.astype(dt)
        v = np.where(fired, dt.type(0), w)
    return v, count


def _lif_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # a third of the neurons below threshold for good (they never fire), the others
    # driven 1.05 to 4 times past it; resting potentials of both signs
    current = rng.uniform(1.05, 4.0, n)
    quiet = rng.random(n) < 1 / 3
    current[quiet] = rng.uniform(0.2, 0.95, quiet.sum())
    return {"potential": u.random_array(rng, (n,), dtype, low=-0.5, high=0.9),
            "current": np.asarray(current, dtype.numpy), **u.scalar_inputs(dtype, _LIF_CONSTS)}


def _lif_reference(inputs, params) -> dict:
    v, count = lif(inputs["potential"], inputs["current"], inputs["current"].dtype)
    return {"potential_out": v, "spikes": count}


LIF_NEURONS = KernelSpec(
    name="lif_neurons",
    role=KernelRole.UNSEEN,
    description=f"n leaky integrate-and-fire neurons (potential and input current) "
                f"stepped {LIF_STEPS} times: the potential relaxes toward the current, "
                f"and past the threshold it counts a spike and is reset to zero (the "
                f"comparison as 0 or 1); the final potential and the spike count written.",
    parameters=("n",),
    variants=("reset_to_zero",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_lif,
    size_cases=u.doubling_lengths,
    default_p=18,
    p_choices=(17, 18, 19),
    make_inputs=_lif_inputs,
    reference=_lif_reference,
    check_params={"n": 2000},
    rtol=1e-6,
)

# }}}


#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (KAHAN_ROW_SUM, BATCHED_CHOLESKY4, HEAT_INDEX, LIF_NEURONS)
