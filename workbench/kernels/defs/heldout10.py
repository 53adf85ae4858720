"""The tenth held-out set (``--set heldout10``): kernels kept out of all fitting and design.

The ninth set (:mod:`.heldout9`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``box_muller``: pairs of uniform random numbers turned into normal ones (a log, a
  square root, a cosine and a sine), both normals kept or the first only.
* ``lorenz_ensemble``: n independent Lorenz systems advanced a few time steps each
  (state in three planes): four classical Runge-Kutta steps, or sixteen Euler steps.
* ``column_stats``: per column of a ``STATS_ROWS`` x n matrix, its mean and standard
  deviation (two passes down the column), or its Euclidean norm.
* ``spectrum_mag_phase``: complex values (interleaved) to magnitude and phase, or to
  power in decibels.
* ``cosine_similarity_rows``: the cosine similarity of two rows of ``SIM_COLS``
  entries each, or their Pearson correlation (the row means taken out first).
* ``groupwise_dequant``: quantized weights turned back into numbers with a scale (and
  a zero point) shared by each group of ``QUANT_GROUP`` entries.

The kernels on 2-D groups (rope_rotate, game_of_life, wave_leapfrog) are in
:mod:`.heldout10_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _scaled(p: int) -> tuple[int, ...]:
    return u.pow2(p, range(4))


# {{{ Box-Muller transform

_BOX_CONSTS = (("minus_two", -2.0), ("two_pi", 2.0 * np.pi))
_BOX_VARIANTS = ("pair", "single")


def _build_box_muller(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _BOX_VARIANTS, 1)
    second = ("z1[i] = r * sin(t) {dep=r:t}" if req.variant == "pair" else "")
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> r = sqrt(minus_two * log(u1[i])) {{id=r}}
            <> t = two_pi * u2[i] {{id=t}}
            z0[i] = r * cos(t) {{dep=r:t}}
            {second}
        end
        """,
        [u.array("u1", req.dtype, ("n",)), u.array("u2", req.dtype, ("n",)),
         u.array("z0", req.dtype, ("n",)),
         *([u.array("z1", req.dtype, ("n",))] if req.variant == "pair" else []),
         *u.scalar_args(req.dtype, _BOX_CONSTS), *u.size_args("n")],
        name="box_muller", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _box_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # angles in all four quadrants, kept off the zeros of the sine and the cosine
    # (relative tolerances), radii away from zero (u1 below 0.9)
    quadrant = rng.integers(0, 4, n)
    u2 = 0.25 * quadrant + rng.uniform(0.02, 0.23, n)
    return {"u1": np.asarray(rng.uniform(0.05, 0.9, n), dtype=dtype.numpy),
            "u2": np.asarray(u2, dtype=dtype.numpy), **u.scalar_inputs(dtype, _BOX_CONSTS)}


def _box_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    r, t = np.sqrt(-2.0 * np.log(f["u1"])), 2.0 * np.pi * f["u2"]
    out = {"z0": u.as_dtype_of(r * np.cos(t), inputs["u1"])}
    if variant == "pair":
        out["z1"] = u.as_dtype_of(r * np.sin(t), inputs["u1"])
    return out


BOX_MULLER = KernelSpec(
    name="box_muller",
    role=KernelRole.UNSEEN,
    description="The Box-Muller transform of n pairs of uniform random numbers into "
                "normal ones: a logarithm and a square root for the radius, a cosine "
                "(and a sine) of the angle; both normals written, or the first only.",
    parameters=("n",),
    variants=_BOX_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_box_muller,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_box_inputs,
    reference=partial(_box_reference, "pair"),
    variant_reference=_box_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ an ensemble of Lorenz systems

_LORENZ_CONSTS = (("sigma", 10.0), ("rho", 28.0), ("beta", 8.0 / 3.0), ("dt", 1e-3),
                  ("one_half", 0.5), ("sixth", 1.0 / 6.0), ("two", 2.0))
#: variant -> time steps taken
LORENZ_STEPS: Mapping[str, int] = {"rk4": 4, "euler": 16}


def _lorenz_rates(suffix: str, x: str, y: str, z: str) -> list[str]:
    """dx/dt, dy/dt, dz/dt of the Lorenz system at (x, y, z), as temporaries."""
    return [f"<> fx{suffix} = sigma * ({y} - {x})",
            f"<> fy{suffix} = {x} * (rho - {z}) - {y}",
            f"<> fz{suffix} = {x} * {y} - beta * {z}"]


def _lorenz_body(variant: str) -> tuple[str, str]:
    if variant == "euler":
        lines = [*_lorenz_rates("1", "x", "y", "z"),
                 "x = x + dt * fx1", "y = y + dt * fy1", "z = z + dt * fz1"]
    else:
        lines = [*_lorenz_rates("1", "x", "y", "z")]
        # each stage's state a temporary of its own, its rates from it
        for k, h in ((2, "one_half * dt"), (3, "one_half * dt"), (4, "dt")):
            lines += [f"<> {c}s{k} = {c} + {h} * f{c}{k - 1}" for c in "xyz"]
            lines += _lorenz_rates(str(k), *(f"{c}s{k}" for c in "xyz"))
        lines += [f"{c} = {c} + sixth * dt * (f{c}1 + two * f{c}2 + two * f{c}3 + f{c}4)"
                  for c in "xyz"]
    # every instruction of a step after the one before it; the state updates last
    tagged, previous = [], "init"
    for k, line in enumerate(lines):
        tagged.append(f"{line} {{id=s{k}, dep={previous}}}")
        previous = f"s{k}"
    return "\n                ".join(tagged), previous


def _build_lorenz(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(LORENZ_STEPS), 1)
    body, last = _lorenz_body(req.variant)
    knl = u.make_kernel(
        f"{{[i, s]: 0 <= i < n and 0 <= s < {LORENZ_STEPS[req.variant]}}}",
        f"""
        for i
            <> x = x0[i] {{id=ix}}
            <> y = y0[i] {{id=iy}}
            <> z = z0[i] {{id=iz}}
            ... nop {{id=init, dep=ix:iy:iz}}
            for s
                {body}
            end
            x1[i] = x {{dep={last}}}
            y1[i] = y {{dep={last}}}
            z1[i] = z {{dep={last}}}
        end
        """,
        [*(u.array(f"{c}0", req.dtype, ("n",)) for c in "xyz"),
         *(u.array(f"{c}1", req.dtype, ("n",)) for c in "xyz"),
         *u.scalar_args(req.dtype, _LORENZ_CONSTS), *u.size_args("n")],
        name="lorenz_ensemble", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _lorenz_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # near the attractor, every coordinate kept away from zero over the short run
    return {"x0": u.random_array(rng, (n,), dtype, low=5.0, high=10.0),
            "y0": u.random_array(rng, (n,), dtype, low=5.0, high=10.0),
            "z0": u.random_array(rng, (n,), dtype, low=20.0, high=30.0),
            **u.scalar_inputs(dtype, _LORENZ_CONSTS)}


def _lorenz_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    s, r, b, dt = 10.0, 28.0, 8.0 / 3.0, 1e-3
    state = np.stack([f["x0"], f["y0"], f["z0"]])

    def rate(v):
        x, y, z = v
        return np.stack([s * (y - x), x * (r - z) - y, x * y - b * z])

    for _ in range(LORENZ_STEPS[variant]):
        if variant == "euler":
            state = state + dt * rate(state)
        else:
            k1 = rate(state)
            k2 = rate(state + 0.5 * dt * k1)
            k3 = rate(state + 0.5 * dt * k2)
            k4 = rate(state + dt * k3)
            state = state + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return {f"{c}1": u.as_dtype_of(v, inputs["x0"]) for c, v in zip("xyz", state)}


LORENZ_ENSEMBLE = KernelSpec(
    name="lorenz_ensemble",
    role=KernelRole.UNSEEN,
    description="n independent Lorenz systems (x, y, z in three planes) advanced "
                "in registers: four classical Runge-Kutta steps (four rate evaluations "
                "each) or sixteen explicit Euler steps; a few loads and stores around a "
                "loop of dependent multiply-adds.",
    parameters=("n",),
    variants=tuple(LORENZ_STEPS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_lorenz,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_lorenz_inputs,
    reference=partial(_lorenz_reference, "rk4"),
    variant_reference=_lorenz_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ column statistics

#: Rows of the matrix whose columns are summarised.
STATS_ROWS = 256
_STATS_CONSTS = (("inv_rows", 1.0 / STATS_ROWS),)
_STATS_VARIANTS = ("mean_std", "l2_norm")


def _build_column_stats(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _STATS_VARIANTS, 1)
    if req.variant == "mean_std":
        body = """
            <> mu = inv_rows * sum(k, a[k, j]) {id=mu}
            <> var = inv_rows * sum(k2, (a[k2, j] - mu) * (a[k2, j] - mu)) {id=var, dep=mu}
            mean[j] = mu {dep=mu}
            std[j] = sqrt(var) {dep=var}
        """
        outs = [u.array("mean", req.dtype, ("n",)), u.array("std", req.dtype, ("n",))]
    else:
        body = "norm[j] = sqrt(sum(k, a[k, j] * a[k, j]))"
        outs = [u.array("norm", req.dtype, ("n",))]
    knl = u.make_kernel(
        f"{{[j, k, k2]: 0 <= j < n and 0 <= k, k2 < {STATS_ROWS}}}",
        f"for j\n{body}\nend",
        [u.array("a", req.dtype, (STATS_ROWS, "n")), *outs,
         *(u.scalar_args(req.dtype, _STATS_CONSTS) if req.variant == "mean_std" else []),
         *u.size_args("n")],
        name="column_stats", assumptions="n >= 1")
    return u.split_1d(knl, "j", req.group_size)


def _stats_inputs(variant: str, params, dtype, rng) -> dict:
    inputs = {"a": u.random_array(rng, (STATS_ROWS, params["n"]), dtype, low=0.5, high=1.5)}
    if variant == "mean_std":
        inputs.update(u.scalar_inputs(dtype, _STATS_CONSTS))
    return inputs


def _stats_reference(variant: str, inputs, params) -> dict:
    a = inputs["a"].astype(np.float64)
    if variant == "mean_std":
        return {"mean": u.as_dtype_of(a.mean(axis=0), inputs["a"]),
                "std": u.as_dtype_of(a.std(axis=0), inputs["a"])}
    return {"norm": u.as_dtype_of(np.sqrt((a * a).sum(axis=0)), inputs["a"])}


COLUMN_STATS = KernelSpec(
    name="column_stats",
    role=KernelRole.UNSEEN,
    description=f"Per column of a {STATS_ROWS} x n row-major matrix (a work item per "
                f"column walking down it, neighbours reading neighbouring columns): its "
                f"mean and standard deviation (two passes, the second on the deviations "
                f"from the mean), or its Euclidean norm (one pass and a square root).",
    parameters=("n",),
    variants=_STATS_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_column_stats,
    size_cases=u.doubling_lengths,
    default_p=15,
    p_choices=(14, 15, 16),
    make_inputs=partial(_stats_inputs, "mean_std"),
    reference=partial(_stats_reference, "mean_std"),
    variant_make_inputs=_stats_inputs,
    variant_reference=_stats_reference,
    check_params={"n": 300},
)

# }}}


# {{{ magnitude and phase of a complex spectrum

_SPECTRUM_CONSTS = (("ten", 10.0),)
_SPECTRUM_VARIANTS = ("mag_phase", "power_db")


def _build_spectrum(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _SPECTRUM_VARIANTS, 1)
    if req.variant == "mag_phase":
        stores = """
            mag[i] = sqrt(re * re + im * im) {dep=re:im}
            phase[i] = atan2(im, re) {dep=re:im}
        """
        outs = [u.array("mag", req.dtype, ("n",)), u.array("phase", req.dtype, ("n",))]
    else:
        stores = "power_db[i] = ten * log10(re * re + im * im) {dep=re:im}"
        outs = [u.array("power_db", req.dtype, ("n",))]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> re = z[i, 0] {{id=re}}
            <> im = z[i, 1] {{id=im}}
            {stores}
        end
        """,
        [u.array("z", req.dtype, ("n", 2)), *outs,
         *(u.scalar_args(req.dtype, _SPECTRUM_CONSTS) if req.variant == "power_db" else []),
         *u.size_args("n")],
        name="spectrum_mag_phase", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _spectrum_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # all four quadrants, each part of magnitude 0.1 to 2: phases away from zero and
    # from +-pi's cut, powers on both sides of 1 (decibels of both signs, off zero)
    sign = rng.choice([-1.0, 1.0], (n, 2))
    magnitude = np.where(rng.random((n, 1)) < 0.5, rng.uniform(0.1, 0.6, (n, 2)),
                         rng.uniform(1.0, 2.0, (n, 2)))
    inputs = {"z": np.asarray(sign * magnitude, dtype=dtype.numpy)}
    if variant == "power_db":
        inputs.update(u.scalar_inputs(dtype, _SPECTRUM_CONSTS))
    return inputs


def _spectrum_reference(variant: str, inputs, params) -> dict:
    z = inputs["z"].astype(np.float64)
    re, im = z[:, 0], z[:, 1]
    if variant == "mag_phase":
        return {"mag": u.as_dtype_of(np.hypot(re, im), inputs["z"]),
                "phase": u.as_dtype_of(np.arctan2(im, re), inputs["z"])}
    return {"power_db": u.as_dtype_of(10.0 * np.log10(re * re + im * im), inputs["z"])}


SPECTRUM_MAG_PHASE = KernelSpec(
    name="spectrum_mag_phase",
    role=KernelRole.UNSEEN,
    description="The n complex values of a spectrum (real and imaginary parts "
                "interleaved, stride 2) turned into magnitude and phase (a square root "
                "and a two-argument arc tangent, two planes written), or into power in "
                "decibels (a base-10 logarithm, one plane).",
    parameters=("n",),
    variants=_SPECTRUM_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_spectrum,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_spectrum_inputs, "mag_phase"),
    reference=partial(_spectrum_reference, "mag_phase"),
    variant_make_inputs=_spectrum_inputs,
    variant_reference=_spectrum_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ row-wise cosine similarity

#: Entries per row compared.
SIM_COLS = 64
_SIM_CONSTS = (("inv_cols", 1.0 / SIM_COLS),)
_SIM_VARIANTS = ("cosine", "pearson")


def _build_cosine(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _SIM_VARIANTS, 1)
    if req.variant == "pearson":
        centre = """
            <> ma = inv_cols * sum(k0, a[r, k0]) {id=ma}
            <> mb = inv_cols * sum(k1, b[r, k1]) {id=mb}
        """
        da, db, dep = "(a[r, k] - ma)", "(b[r, k] - mb)", ", dep=ma:mb"
    else:
        centre, da, db, dep = "", "a[r, k]", "b[r, k]", ""
    knl = u.make_kernel(
        f"{{[r, k, k0, k1]: 0 <= r < nr and 0 <= k, k0, k1 < {SIM_COLS}}}",
        f"""
        for r
            {centre}
            <> ab = sum(k, {da} * {db}) {{id=ab{dep}}}
            <> aa = sum(k, {da} * {da}) {{id=aa{dep}}}
            <> bb = sum(k, {db} * {db}) {{id=bb{dep}}}
            sim[r] = ab / sqrt(aa * bb) {{dep=ab:aa:bb}}
        end
        """,
        [u.array("a", req.dtype, ("nr", SIM_COLS)), u.array("b", req.dtype, ("nr", SIM_COLS)),
         u.array("sim", req.dtype, ("nr",)),
         *(u.scalar_args(req.dtype, _SIM_CONSTS) if req.variant == "pearson" else []),
         *u.size_args("nr")],
        name="cosine_similarity_rows", assumptions="nr >= 1")
    return u.split_1d(knl, "r", req.group_size)


def _cosine_inputs(variant: str, params, dtype, rng) -> dict:
    nr = params["nr"]
    a = rng.uniform(0.0, 1.0, (nr, SIM_COLS))
    # b a noisy copy of a, of either sign by row: similarities and correlations near
    # +-0.9, far from zero (relative tolerances), both signs taken
    sign = np.where(rng.random((nr, 1)) < 0.5, -1.0, 1.0)
    b = sign * (a + 0.2 * rng.uniform(0.0, 1.0, (nr, SIM_COLS)))
    inputs = {"a": np.asarray(a, dtype=dtype.numpy), "b": np.asarray(b, dtype=dtype.numpy)}
    if variant == "pearson":
        inputs.update(u.scalar_inputs(dtype, _SIM_CONSTS))
    return inputs


def _cosine_reference(variant: str, inputs, params) -> dict:
    a, b = inputs["a"].astype(np.float64), inputs["b"].astype(np.float64)
    if variant == "pearson":
        a, b = a - a.mean(axis=1, keepdims=True), b - b.mean(axis=1, keepdims=True)
    sim = (a * b).sum(axis=1) / np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    return {"sim": u.as_dtype_of(sim, inputs["a"])}


COSINE_SIMILARITY_ROWS = KernelSpec(
    name="cosine_similarity_rows",
    role=KernelRole.UNSEEN,
    description=f"The cosine similarity of row r of two nr x {SIM_COLS} row-major "
                f"matrices (a work item per row: three sums of products along it, a "
                f"square root and a division), or their Pearson correlation (the two "
                f"row means taken first and subtracted in every product).",
    parameters=("nr",),
    variants=_SIM_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_cosine,
    size_cases=lambda p: tuple({"nr": n} for n in _scaled(p)),
    default_p=17,
    p_choices=(16, 17, 18),
    make_inputs=partial(_cosine_inputs, "cosine"),
    reference=partial(_cosine_reference, "cosine"),
    variant_make_inputs=_cosine_inputs,
    variant_reference=_cosine_reference,
    check_params={"nr": 500},
    rtol=1e-3,
)

# }}}


# {{{ group-wise dequantization

#: Consecutive weights sharing one scale (and zero point).
QUANT_GROUP = 64
#: variant -> the weight in terms of the quantized value q, the group's scale and zero
_DEQUANT: Mapping[str, str] = {
    "symmetric": "q[i] * scale[i // {g}]",
    "affine": "(q[i] - zero[i // {g}]) * scale[i // {g}]",
}


def _build_dequant(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_DEQUANT), 1)
    groups = f"n // {QUANT_GROUP}"
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"w[i] = {_DEQUANT[req.variant].format(g=QUANT_GROUP)}",
        [u.array("q", req.dtype, ("n",)), u.array("scale", req.dtype, (groups,)),
         *([u.array("zero", req.dtype, (groups,))] if req.variant == "affine" else []),
         u.array("w", req.dtype, ("n",)), *u.size_args("n")],
        name="groupwise_dequant",
        assumptions=f"n >= {QUANT_GROUP} and n mod {QUANT_GROUP} = 0")
    return u.split_1d(knl, "i", req.group_size)


def _dequant_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    groups = n // QUANT_GROUP
    # 4-bit codes 0..15 stored as floats; zero points off the grid (0.5 steps), so that
    # q - zero is never zero
    inputs = {"q": np.asarray(rng.integers(0, 16, n), dtype=dtype.numpy),
              "scale": u.random_array(rng, (groups,), dtype, low=0.01, high=0.1)}
    if variant == "affine":
        inputs["zero"] = np.asarray(rng.integers(0, 16, groups) + 0.5, dtype=dtype.numpy)
    else:
        inputs["q"] = inputs["q"] - dtype.numpy.type(7.5)
    return inputs


def _dequant_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    scale = np.repeat(f["scale"], QUANT_GROUP)
    q = f["q"] - np.repeat(f["zero"], QUANT_GROUP) if variant == "affine" else f["q"]
    return {"w": u.as_dtype_of(q * scale, inputs["q"])}


GROUPWISE_DEQUANT = KernelSpec(
    name="groupwise_dequant",
    role=KernelRole.UNSEEN,
    description=f"n quantized weights (4-bit codes stored as floats) turned back into "
                f"numbers: times the scale of their group of {QUANT_GROUP} (a floor "
                f"division picks it, read from cache by the whole group), after "
                f"subtracting the group's zero point (affine) or not (symmetric).",
    parameters=("n",),
    variants=tuple(_DEQUANT),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_dequant,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=partial(_dequant_inputs, "symmetric"),
    reference=partial(_dequant_reference, "symmetric"),
    variant_make_inputs=_dequant_inputs,
    variant_reference=_dequant_reference,
    check_params={"n": 64 * 40},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (BOX_MULLER, LORENZ_ENSEMBLE, COLUMN_STATS, SPECTRUM_MAG_PHASE,
                                 COSINE_SIMILARITY_ROWS, GROUPWISE_DEQUANT)
