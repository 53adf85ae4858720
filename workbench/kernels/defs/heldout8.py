"""The eighth held-out set (``--set heldout8``): kernels kept out of all fitting and design.

The seventh set (:mod:`.heldout7`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``polar_to_cartesian``: (r, theta) to (x, y) by a cosine and a sine per point, the
  output as two planes or interleaved (stride 2).
* ``leaky_relu_residual``: a leaky ReLU added to a residual stream, plain or with a
  scale per channel (``CHANNELS`` channels, the channel by a remainder).
* ``quaternion_product``: the Hamilton product of two quaternions per work item,
  stored interleaved (stride 4, AoS) or as four planes (SoA).
* ``table_interp``: a function tabulated at ``TABLE_SIZE`` points, looked up at a
  computed index (a data-dependent gather into a small table), interpolated linearly
  or taken at the nearest point.
* ``fft_butterfly``: one radix-2 stage of a complex FFT over interleaved complex data,
  pairs ``FFT_HALF`` apart, the twiddle factors read from a table or computed by a
  cosine and a sine.
* ``ray_sphere_hit``: the distance along each ray (origin and direction interleaved)
  to one sphere, or to the nearer of two.

The kernels on 2-D groups (mandelbrot_escape, distance_matrix, kron_product) are in
:mod:`.heldout8_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ polar to cartesian

#: variant -> (the stores of x and y, the output arrays' shapes)
_POLAR_OUTPUTS: Mapping[str, tuple[tuple[str, str], tuple[tuple[str, tuple], ...]]] = {
    "planar": (("x[i]", "y[i]"), (("x", ("n",)), ("y", ("n",)))),
    "interleaved": (("xy[i, 0]", "xy[i, 1]"), (("xy", ("n", 2)),)),
}


def _build_polar(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_POLAR_OUTPUTS), 1)
    (x_at, y_at), outputs = _POLAR_OUTPUTS[req.variant]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> radius = r[i] {{id=radius}}
            <> angle = theta[i] {{id=angle}}
            {x_at} = radius * cos(angle) {{dep=radius:angle}}
            {y_at} = radius * sin(angle) {{dep=radius:angle}}
        end
        """,
        [u.array("r", req.dtype, ("n",)), u.array("theta", req.dtype, ("n",)),
         *(u.array(name, req.dtype, shape) for name, shape in outputs), *u.size_args("n")],
        name="polar_to_cartesian", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _polar_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # the first quadrant away from its axes: neither coordinate comes near zero
    return {"r": u.random_array(rng, (n,), dtype, low=0.5, high=2.0),
            "theta": u.random_array(rng, (n,), dtype, low=0.1, high=1.4)}


def _polar_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    x, y = f["r"] * np.cos(f["theta"]), f["r"] * np.sin(f["theta"])
    like = inputs["r"]
    if variant == "planar":
        return {"x": u.as_dtype_of(x, like), "y": u.as_dtype_of(y, like)}
    return {"xy": u.as_dtype_of(np.stack([x, y], axis=1), like)}


POLAR_TO_CARTESIAN = KernelSpec(
    name="polar_to_cartesian",
    role=KernelRole.UNSEEN,
    description="Polar to cartesian coordinates of n points (radius and angle arrays): "
                "a cosine, a sine and two multiplications per point; x and y written as "
                "two planes or interleaved (stride 2).",
    parameters=("n",),
    variants=tuple(_POLAR_OUTPUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_polar,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_polar_inputs,
    reference=partial(_polar_reference, "planar"),
    variant_reference=_polar_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ leaky ReLU on a residual stream

#: Channels of the per-channel scale (the innermost dimension of an activation).
CHANNELS = 768
_LEAKY_CONSTS = (("slope", 0.01), ("zero", 0.0))
_LEAKY_VARIANTS = ("plain", "channel_scaled")


def _build_leaky(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _LEAKY_VARIANTS, 1)
    scaled = req.variant == "channel_scaled"
    act = f"gamma[i % {CHANNELS}] * act" if scaled else "act"
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> v = x[i] {{id=v}}
            <> act = fmax(v, zero) + slope * fmin(v, zero) {{id=act, dep=v}}
            out[i] = residual[i] + {act} {{dep=act}}
        end
        """,
        [u.array("x", req.dtype, ("n",)), u.array("residual", req.dtype, ("n",)),
         *([u.array("gamma", req.dtype, (CHANNELS,))] if scaled else []),
         u.array("out", req.dtype, ("n",)), *u.scalar_args(req.dtype, _LEAKY_CONSTS),
         *u.size_args("n")],
        name="leaky_relu_residual", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _leaky_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # the residual keeps every sum away from zero (relative tolerances)
    inputs = {"x": u.random_array(rng, (n,), dtype, low=-1.0, high=1.0),
              "residual": u.random_array(rng, (n,), dtype, low=2.0, high=3.0),
              **u.scalar_inputs(dtype, _LEAKY_CONSTS)}
    if variant == "channel_scaled":
        inputs["gamma"] = u.random_array(rng, (CHANNELS,), dtype, low=0.5, high=1.5)
    return inputs


def _leaky_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    act = np.where(f["x"] > 0, f["x"], f["slope"] * f["x"])
    if variant == "channel_scaled":
        act = act * f["gamma"][np.arange(params["n"]) % CHANNELS]
    return {"out": u.as_dtype_of(f["residual"] + act, inputs["x"])}


LEAKY_RELU_RESIDUAL = KernelSpec(
    name="leaky_relu_residual",
    role=KernelRole.UNSEEN,
    description=f"A leaky ReLU (slope 0.01 below zero, by a max and a min) added to a "
                f"residual stream of n entries; plain, or scaled by a per-channel factor "
                f"of {CHANNELS} channels (the channel by a remainder, the factors reused "
                f"from cache).",
    parameters=("n",),
    variants=_LEAKY_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_leaky,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=partial(_leaky_inputs, "plain"),
    reference=partial(_leaky_reference, "plain"),
    variant_make_inputs=_leaky_inputs,
    variant_reference=_leaky_reference,
    check_params={"n": 2000},
)

# }}}


# {{{ quaternion product

#: variant -> component c of quaternion i of array a
_QUAT_LAYOUTS: Mapping[str, str] = {"aos": "{a}[i, {c}]", "soa": "{a}[{c}, i]"}
#: the Hamilton product p = q r, component by component: (sign, q's, r's) terms
_HAMILTON = (
    ((1, 0, 0), (-1, 1, 1), (-1, 2, 2), (-1, 3, 3)),
    ((1, 0, 1), (1, 1, 0), (1, 2, 3), (-1, 3, 2)),
    ((1, 0, 2), (-1, 1, 3), (1, 2, 0), (1, 3, 1)),
    ((1, 0, 3), (1, 1, 2), (-1, 2, 1), (1, 3, 0)),
)


def _quat_shape(variant: str, n: int | str = "n") -> tuple:
    return (n, 4) if variant == "aos" else (4, n)


def _build_quaternion(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_QUAT_LAYOUTS), 1)
    at = _QUAT_LAYOUTS[req.variant]
    loads = [f"<> {a}{c} = {at.format(a=a, c=c)} {{id={a}{c}}}"
             for a in "qr" for c in range(4)]
    stores = []
    for c, terms in enumerate(_HAMILTON):
        expr = " ".join(f"{'+' if s > 0 else '-'} q{qa}*r{rb}" for s, qa, rb in terms)
        stores.append(f"{at.format(a='prod', c=c)} = {expr.lstrip('+ ')} "
                      f"{{dep={':'.join(f'{a}{k}' for a in 'qr' for k in range(4))}}}")
    body = "\n            ".join([*loads, *stores])
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
        end
        """,
        [*(u.array(a, req.dtype, _quat_shape(req.variant)) for a in ("q", "r", "prod")),
         *u.size_args("n")],
        name="quaternion_product", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _quat_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    out = {}
    for a in "qr":
        # a dominant real part keeps every component of the product away from zero
        parts = [u.random_array(rng, (n,), dtype, low=2.0, high=3.0),
                 *(u.random_array(rng, (n,), dtype, low=0.1, high=0.5) for _ in range(3))]
        stacked = np.stack(parts, axis=1 if variant == "aos" else 0)
        out[a] = np.ascontiguousarray(stacked)
    return out


def _quat_reference(variant: str, inputs, params) -> dict:
    q, r = (inputs[a].astype(np.float64) for a in "qr")
    if variant == "soa":
        q, r = q.T, r.T
    prod = np.stack([sum(s * q[:, qa] * r[:, rb] for s, qa, rb in terms)
                     for terms in _HAMILTON], axis=1)
    if variant == "soa":
        prod = prod.T
    return {"prod": u.as_dtype_of(np.ascontiguousarray(prod), inputs["q"])}


QUATERNION_PRODUCT = KernelSpec(
    name="quaternion_product",
    role=KernelRole.UNSEEN,
    description="The Hamilton product of n pairs of quaternions (16 multiplications, 12 "
                "additions per pair); quaternions stored interleaved (AoS, stride 4 in "
                "and out) or as four planes (SoA, stride 1).",
    parameters=("n",),
    variants=tuple(_QUAT_LAYOUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_quaternion,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_quat_inputs, "aos"),
    reference=partial(_quat_reference, "aos"),
    variant_make_inputs=_quat_inputs,
    variant_reference=_quat_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ table interpolation

#: Points of the tabulated function (uniform on [0, 1]).
TABLE_SIZE = 1024
_TABLE_CONSTS = (("scale", TABLE_SIZE - 1.0), ("k_half", 0.5))
#: variant -> (the table index of position pos, the value at x)
_TABLE_LOOKUPS: Mapping[str, tuple[str, str]] = {
    "linear": ("pos", "table[k] + (pos - k) * (table[k + 1] - table[k])"),
    "nearest": ("pos + k_half", "table[k]"),
}


def _build_table(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_TABLE_LOOKUPS), 1)
    index, value = _TABLE_LOOKUPS[req.variant]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        # the index goes through a private int32 value, as the catalog's gathers do
        f"""
        for i
            <> pos = x[i] * scale {{id=pos}}
            <int32> k = floor({index}) {{id=k, dep=pos}}
            y[i] = {value} {{dep=k}}
        end
        """,
        [u.array("x", req.dtype, ("n",)), u.array("table", req.dtype, (TABLE_SIZE,)),
         u.array("y", req.dtype, ("n",)), *u.scalar_args(req.dtype, _TABLE_CONSTS),
         *u.size_args("n")],
        name="table_interp", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _table_inputs(params, dtype, rng) -> dict:
    grid = np.linspace(0.0, 1.0, TABLE_SIZE)
    # a smooth positive function, as a tabulated curve would be
    table = np.asarray(1.5 + np.sin(6.0 * grid) * 0.5, dtype=dtype.numpy)
    # below the last point, so that the linear lookup's k + 1 stays in the table
    return {"x": u.random_array(rng, (params["n"],), dtype, high=0.999),
            "table": table, **u.scalar_inputs(dtype, _TABLE_CONSTS)}


def _table_reference(variant: str, inputs, params) -> dict:
    # the index in the kernel's precision (its rounding decides the nearest point)
    pos = inputs["x"] * inputs["scale"]
    table = inputs["table"].astype(np.float64)
    if variant == "nearest":
        y = table[np.floor(pos + inputs["k_half"]).astype(np.int64)]
    else:
        k = np.floor(pos).astype(np.int64)
        y = table[k] + (pos.astype(np.float64) - k) * (table[k + 1] - table[k])
    return {"y": u.as_dtype_of(y, inputs["x"])}


TABLE_INTERP = KernelSpec(
    name="table_interp",
    role=KernelRole.UNSEEN,
    description=f"A function tabulated at {TABLE_SIZE} uniform points on [0, 1], "
                f"evaluated at n arguments: the table index computed from the argument "
                f"(a floor, a data-dependent gather from a small cached table), "
                f"interpolated linearly (two entries) or taken at the nearest point (one).",
    parameters=("n",),
    variants=tuple(_TABLE_LOOKUPS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_table,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_table_inputs,
    reference=partial(_table_reference, "linear"),
    variant_reference=_table_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ radix-2 FFT butterfly

#: Distance between the two points of a butterfly (half the length of a stage's block).
FFT_HALF = 256
_FFT_CONSTS = (("angle_step", -np.pi / FFT_HALF),)
_FFT_TWIDDLES: Mapping[str, str] = {
    "table": "<> wr = tw[j, 0] {id=wr}\n<> wi = tw[j, 1] {id=wi}",
    "sincos": "<> wr = cos(angle_step * j) {id=wr}\n<> wi = sin(angle_step * j) {id=wi}",
}


def _build_fft(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_FFT_TWIDDLES), 1)
    h = FFT_HALF
    lo, j = f"{2 * h}*(p // {h}) + p % {h}", f"(p % {h})"
    twiddle = _FFT_TWIDDLES[req.variant].replace("[j", f"[{j}").replace("* j", f"* {j}")
    twiddle = "\n            ".join(twiddle.split("\n"))
    table = ([u.array("tw", req.dtype, (h, 2))] if req.variant == "table"
             else u.scalar_args(req.dtype, _FFT_CONSTS))
    knl = u.make_kernel(
        "{[p]: 0 <= p < n}",
        f"""
        for p
            {twiddle}
            <> ar = z[{lo}, 0] {{id=ar}}
            <> ai = z[{lo}, 1] {{id=ai}}
            <> br = z[{lo} + {h}, 0] {{id=br}}
            <> bi = z[{lo} + {h}, 1] {{id=bi}}
            <> tr = wr*br - wi*bi {{id=tr, dep=wr:wi:br:bi}}
            <> ti = wr*bi + wi*br {{id=ti, dep=wr:wi:br:bi}}
            out[{lo}, 0] = ar + tr {{dep=ar:tr}}
            out[{lo}, 1] = ai + ti {{dep=ai:ti}}
            out[{lo} + {h}, 0] = ar - tr {{dep=ar:tr}}
            out[{lo} + {h}, 1] = ai - ti {{dep=ai:ti}}
        end
        """,
        [u.array("z", req.dtype, ("2*n", 2)), *table, u.array("out", req.dtype, ("2*n", 2)),
         *u.size_args("n")],
        name="fft_butterfly", assumptions=f"n >= {h} and n mod {h} = 0")
    return u.split_1d(knl, "p", req.group_size)


def _fft_inputs(variant: str, params, dtype, rng) -> dict:
    n, h = params["n"], FFT_HALF
    z = 0.1 + 0.4 * rng.random((n // h, 2, h, 2))
    # the first point of each pair dominates: sums and differences stay away from zero
    z[:, 0] += 2.0
    inputs = {"z": np.asarray(z.reshape(2 * n, 2), dtype=dtype.numpy)}
    if variant == "table":
        angle = -np.pi * np.arange(h) / h
        inputs["tw"] = np.asarray(np.stack([np.cos(angle), np.sin(angle)], axis=1),
                                  dtype=dtype.numpy)
    else:
        inputs.update(u.scalar_inputs(dtype, _FFT_CONSTS))
    return inputs


def _fft_reference(variant: str, inputs, params) -> dict:
    h = FFT_HALF
    z = inputs["z"].astype(np.float64).reshape(-1, 2, h, 2)
    a = z[:, 0, :, 0] + 1j * z[:, 0, :, 1]
    b = z[:, 1, :, 0] + 1j * z[:, 1, :, 1]
    w = np.exp(-1j * np.pi * np.arange(h) / h)
    t = w[None, :] * b
    out = np.stack([a + t, a - t], axis=1)
    out = np.stack([out.real, out.imag], axis=-1).reshape(-1, 2)
    return {"out": u.as_dtype_of(out, inputs["z"])}


FFT_BUTTERFLY = KernelSpec(
    name="fft_butterfly",
    role=KernelRole.UNSEEN,
    description=f"One radix-2 decimation-in-time stage of a complex FFT over 2n "
                f"interleaved complex points, out of place: work item p combines the two "
                f"points {FFT_HALF} apart that p names (a floor division and a "
                f"remainder) through a complex twiddle multiplication; the twiddles read "
                f"from a table or computed by a cosine and a sine.",
    parameters=("n",),
    variants=tuple(_FFT_TWIDDLES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_fft,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_fft_inputs, "table"),
    reference=partial(_fft_reference, "table"),
    variant_make_inputs=_fft_inputs,
    variant_reference=_fft_reference,
    check_params={"n": 1024},
)

# }}}


# {{{ ray-sphere intersection

#: variant -> the spheres (centre x, y, z and radius)
_SPHERES: Mapping[str, tuple[tuple[float, float, float, float], ...]] = {
    "one_sphere": ((0.0, 0.0, 0.0, 2.0),),
    "two_spheres": ((0.0, 0.0, 0.0, 2.0), (0.2, -0.1, -1.0, 1.5)),
}


def _sphere_consts(variant: str) -> tuple[tuple[str, float], ...]:
    return tuple((f"{name}{s}", v) for s, sphere in enumerate(_SPHERES[variant])
                 for name, v in zip(("cx", "cy", "cz", "rad"), sphere))


def _build_ray_sphere(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_SPHERES), 1)
    lines, hits = [], []
    for s in range(len(_SPHERES[req.variant])):
        lines += [
            *(f"<> oc{c}{s} = o{c} - c{c}{s} {{id=oc{c}{s}, dep=o{c}}}" for c in "xyz"),
            f"<> b{s} = oc{'x'}{s}*dx + ocy{s}*dy + ocz{s}*dz "
            f"{{id=b{s}, dep=ocx{s}:ocy{s}:ocz{s}:dx:dy:dz}}",
            f"<> cc{s} = ocx{s}*ocx{s} + ocy{s}*ocy{s} + ocz{s}*ocz{s} - rad{s}*rad{s} "
            f"{{id=cc{s}, dep=ocx{s}:ocy{s}:ocz{s}}}",
            f"<> t{s} = -b{s} - sqrt(fmax(b{s}*b{s} - cc{s}, zero)) {{id=t{s}, dep=b{s}:cc{s}}}",
        ]
        hits.append(f"t{s}")
    nearest = hits[0] if len(hits) == 1 else f"fmin({', '.join(hits)})"
    loads = [f"<> {a}{c} = {a}[i, {k}] {{id={a}{c}}}" for a, arr in (("o", "o"), ("d", "d"))
             for k, c in enumerate("xyz")]
    body = "\n            ".join([*loads, *lines])
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
            dist[i] = {nearest} {{dep={':'.join(hits)}}}
        end
        """,
        [u.array("o", req.dtype, ("n", 3)), u.array("d", req.dtype, ("n", 3)),
         u.array("dist", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, (*_sphere_consts(req.variant), ("zero", 0.0))),
         *u.size_args("n")],
        name="ray_sphere_hit", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _ray_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    origin = np.stack([rng.uniform(-1, 1, n), rng.uniform(-1, 1, n),
                       rng.uniform(-12, -10, n)], axis=1)
    # aimed near the first sphere's centre: every ray hits each sphere
    aim = -origin + rng.uniform(-0.3, 0.3, (n, 3))
    direction = aim / np.linalg.norm(aim, axis=1, keepdims=True)
    return {"o": np.asarray(origin, dtype=dtype.numpy),
            "d": np.asarray(direction, dtype=dtype.numpy),
            **u.scalar_inputs(dtype, (*_sphere_consts(variant), ("zero", 0.0)))}


def _ray_reference(variant: str, inputs, params) -> dict:
    o, d = inputs["o"].astype(np.float64), inputs["d"].astype(np.float64)
    hits = []
    for *centre, rad in _SPHERES[variant]:
        oc = o - np.array(centre)
        b = np.sum(oc * d, axis=1)
        cc = np.sum(oc * oc, axis=1) - rad * rad
        hits.append(-b - np.sqrt(np.maximum(b * b - cc, 0.0)))
    return {"dist": u.as_dtype_of(np.minimum.reduce(hits), inputs["o"])}


RAY_SPHERE_HIT = KernelSpec(
    name="ray_sphere_hit",
    role=KernelRole.UNSEEN,
    description="The distance along each of n rays (origins and unit directions "
                "interleaved, stride 3) to its first hit of a sphere: two dot products, "
                "a discriminant and a square root per sphere; one sphere, or the nearer "
                "hit of two.",
    parameters=("n",),
    variants=tuple(_SPHERES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_ray_sphere,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_ray_inputs, "one_sphere"),
    reference=partial(_ray_reference, "one_sphere"),
    variant_make_inputs=_ray_inputs,
    variant_reference=_ray_reference,
    check_params={"n": 1000},
    rtol=1e-3,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (POLAR_TO_CARTESIAN, LEAKY_RELU_RESIDUAL, QUATERNION_PRODUCT,
                                 TABLE_INTERP, FFT_BUTTERFLY, RAY_SPHERE_HIT)
