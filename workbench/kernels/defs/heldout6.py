"""The sixth held-out set (``--set heldout6``): kernels kept out of all fitting and design.

The fifth set (:mod:`.heldout5`) has been read kernel by kernel since it was measured,
and models are being shaped against it, so it no longer tells how a finished method
does on code nobody looked at; this set takes its place. Like every unseen set its
kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion of that role
covers them. They were written blind: without running any model on them and without
reading any model's errors on any set. They must never be used to fit a model, choose
features or settings, or pick a default, and their results are reported apart. They
keep the catalog's conventions (symbolic int32 sizes, the contiguous index on
work-group axis 0, numpy references, exact counts).

* ``particle_push``: one explicit Euler step of n particles in 3-D: the velocity
  from the force and the inverse mass, then the position from the new velocity;
  three components per array stored per particle (``aos``, stride 3) or as three
  arrays (``soa``, stride 1).
* ``newton_cbrt``: the cube root of each entry by a fixed number of Newton steps (4
  or 16) from the upper guess (2 + a) / 3: one division per step, a dependent chain.
* ``tril_matvec``: y = L x for a lower triangular n x n matrix, one row per work item
  (rows of growing length); L stored by rows (lanes a row apart) or by columns
  (lanes adjacent).
* ``fake_quantize``: rounds each entry to the nearest multiple of a scale, clamped to
  [-127, 127] steps, and scales back (int8 quantisation simulated in floating point);
  one scale for the whole array or one per block of 64 entries.
* ``nearest_center_dist``: the squared distance from each 2-D point to the nearest of
  16 or 64 centres shared by all items (broadcast loads, a min reduction).
* ``alpha_composite``: Porter-Duff "over" of an RGBA source onto an RGBA destination,
  channels interleaved per pixel (stride 4) or stored as four planes (stride 1).

The kernels on 2-D groups (max_pool2d, column_march3d, bias_gelu) are in
:mod:`.heldout6_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


#: variant -> (index of component c of item i, shape of an array of items with *comps*)
_COMPONENT_LAYOUTS: Mapping[str, tuple[str, str]] = {
    "aos": ("{a}[i, {c}]", "items_first"),
    "soa": ("{a}[{c}, i]", "components_first"),
}


def _component_shape(variant: str, comps: int, n: int | str = "n") -> tuple:
    return (n, comps) if _COMPONENT_LAYOUTS[variant][1] == "items_first" else (comps, n)


# {{{ particle push

_PUSH_STEP = (("dt", 1e-3),)


def _build_push(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_COMPONENT_LAYOUTS), 1)
    at, _ = _COMPONENT_LAYOUTS[req.variant]
    shape = _component_shape(req.variant, 3)

    def a(name, c="c"):
        return at.format(a=name, c=c)
    knl = u.make_kernel(
        "{[i, c]: 0 <= i < n and 0 <= c < 3}",
        f"""
        for i
            <> step = dt * inv_mass[i] {{id=step}}
            for c
                <> v = {a('vel')} + step * {a('force')} {{id=v, dep=step}}
                {a('vel_next')} = v {{dep=v}}
                {a('pos_next')} = {a('pos')} + dt * v {{dep=v}}
            end
        end
        """,
        [*(u.array(name, req.dtype, shape)
           for name in ("pos", "vel", "force", "pos_next", "vel_next")),
         u.array("inv_mass", req.dtype, ("n",)), lp.ValueArg("dt", req.dtype.numpy),
         *u.size_args("n")],
        name="particle_push", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _push_inputs(variant: str, params, dtype, rng) -> dict:
    shape = _component_shape(variant, 3, params["n"])
    return {"pos": u.random_array(rng, shape, dtype, low=1.0, high=2.0),
            "vel": u.random_array(rng, shape, dtype, low=0.5),
            "force": u.random_array(rng, shape, dtype),
            "inv_mass": u.random_array(rng, (params["n"],), dtype, low=0.5, high=2.0),
            **{name: dtype.numpy.type(v) for name, v in _PUSH_STEP}}


def _push_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    step = f["dt"] * (f["inv_mass"][:, None] if variant == "aos" else f["inv_mass"][None, :])
    vel = f["vel"] + step * f["force"]
    pos = f["pos"] + f["dt"] * vel
    like = inputs["pos"]
    return {"vel_next": u.as_dtype_of(vel, like), "pos_next": u.as_dtype_of(pos, like)}


PARTICLE_PUSH = KernelSpec(
    name="particle_push",
    role=KernelRole.UNSEEN,
    description="One explicit Euler step of n particles in 3-D (velocity from force "
                "times inverse mass, position from the new velocity): three arrays of "
                "3-vectors read, two written, components stored per particle (stride "
                "3) or as separate arrays (stride 1).",
    parameters=("n",),
    variants=tuple(_COMPONENT_LAYOUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_push,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_push_inputs, "aos"),
    reference=partial(_push_reference, "aos"),
    variant_make_inputs=_push_inputs,
    variant_reference=_push_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ cube roots by Newton's method

#: variant -> Newton steps
_NEWTON_STEPS: Mapping[str, int] = {"steps4": 4, "steps16": 16}
_THIRD = (("third", 1 / 3),)


def _build_cbrt(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_NEWTON_STEPS), 1)
    steps = _NEWTON_STEPS[req.variant]
    knl = u.make_kernel(
        f"{{[i, t]: 0 <= i < n and 0 <= t < {steps}}}",
        """
        for i
            <> a = x[i] {id=load}
            <> r = (2 + a) * third {id=guess, dep=load}
            for t
                r = (2*r + a / (r*r)) * third {id=step, dep=guess}
            end
            y[i] = r {dep=step}
        end
        """,
        [u.array("x", req.dtype, ("n",)), u.array("y", req.dtype, ("n",)),
         lp.ValueArg("third", req.dtype.numpy), *u.size_args("n")],
        name="newton_cbrt", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _cbrt_inputs(params, dtype, rng) -> dict:
    return {"x": u.random_array(rng, (params["n"],), dtype, low=0.2, high=8.0),
            **{name: dtype.numpy.type(v) for name, v in _THIRD}}


def _cbrt_reference(variant: str, inputs, params) -> dict:
    a, third = inputs["x"].astype(np.float64), float(inputs["third"])
    # (2 + a) / 3 >= cbrt(a) (the means of 1, 1, a): the steps descend monotonically
    r = (2 + a) * third
    for _ in range(_NEWTON_STEPS[variant]):
        r = (2 * r + a / (r * r)) * third
    return {"y": u.as_dtype_of(r, inputs["x"])}


NEWTON_CBRT = KernelSpec(
    name="newton_cbrt",
    role=KernelRole.UNSEEN,
    description="The cube root of each entry by 4 or 16 Newton steps r <- (2r + a/r^2)/3 "
                "from the guess (2 + a)/3: a chain of dependent divisions and "
                "multiply-adds per entry, one load and one store.",
    parameters=("n",),
    variants=tuple(_NEWTON_STEPS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_cbrt,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_cbrt_inputs,
    reference=partial(_cbrt_reference, "steps4"),
    variant_reference=_cbrt_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ lower triangular matrix-vector product

#: variant -> entry (i, j) of the matrix
_TRIANGLE_LAYOUTS: Mapping[str, str] = {"by_rows": "tri[i, j]", "by_columns": "tri[j, i]"}


def _build_tril(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_TRIANGLE_LAYOUTS), 1)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < n and 0 <= j <= i}",
        f"y[i] = sum(j, {_TRIANGLE_LAYOUTS[req.variant]} * x[j])",
        [u.array("tri", req.dtype, ("n", "n")), u.array("x", req.dtype, ("n",)),
         u.array("y", req.dtype, ("n",)), *u.size_args("n")],
        name="tril_matvec", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _tril_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # the upper triangle holds garbage the kernel must not read into its sums
    tri = u.random_array(rng, (n, n), dtype).astype(np.float64)
    tri[np.triu_indices(n, 1)] = 1e3
    if variant == "by_columns":
        tri = tri.T
    return {"tri": np.ascontiguousarray(tri, dtype=dtype.numpy),
            "x": u.random_array(rng, (n,), dtype)}


def _tril_reference(variant: str, inputs, params) -> dict:
    tri = inputs["tri"].astype(np.float64)
    if variant == "by_columns":
        tri = tri.T
    y = np.tril(tri) @ inputs["x"].astype(np.float64)
    return {"y": u.as_dtype_of(y, inputs["x"])}


TRIL_MATVEC = KernelSpec(
    name="tril_matvec",
    role=KernelRole.UNSEEN,
    description="y = L x for a lower triangular n x n matrix, one work item per row "
                "(row i sums i + 1 products: uneven work across items); L stored by "
                "rows (lanes a row apart) or by columns (adjacent lanes adjacent).",
    parameters=("n",),
    variants=tuple(_TRIANGLE_LAYOUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_tril,
    size_cases=u.doubling_lengths,
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=partial(_tril_inputs, "by_rows"),
    reference=partial(_tril_reference, "by_rows"),
    variant_make_inputs=_tril_inputs,
    variant_reference=_tril_reference,
    check_params={"n": 300},
)

# }}}


# {{{ simulated int8 quantisation

#: Entries sharing one scale in the per-block variant.
QUANT_BLOCK = 64
QUANT_LEVELS = 127
#: variant -> the scale of entry i
_QUANT_SCALES: Mapping[str, str] = {"per_tensor": "qscale",
                                    "per_block": f"scales[i // {QUANT_BLOCK}]"}


def _build_quantize(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_QUANT_SCALES), 1)
    if req.variant == "per_tensor":
        scale_args = [lp.ValueArg("qscale", req.dtype.numpy)]
    else:
        scale_args = [u.array("scales", req.dtype, (f"(n + {QUANT_BLOCK - 1}) // "
                                                    f"{QUANT_BLOCK}",))]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> s = {_QUANT_SCALES[req.variant]} {{id=s}}
            <> q = floor(x[i] / s + 0.5) {{id=q, dep=s}}
            y[i] = s * fmin(fmax(q, -qmax), qmax) {{dep=q}}
        end
        """,
        # the clamp bound is an argument of the kernel's precision: integer literals
        # would promote fmin/fmax to double
        [u.array("x", req.dtype, ("n",)), u.array("y", req.dtype, ("n",)), *scale_args,
         lp.ValueArg("qmax", req.dtype.numpy), *u.size_args("n")],
        name="fake_quantize", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _quantize_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    blocks = -(-n // QUANT_BLOCK)
    scales = 2.0 ** rng.integers(-8, -2, blocks)
    # whole steps (some beyond the clamp) plus a fraction kept away from 1/2, so
    # that rounding cannot depend on the last bit of the division
    steps = rng.integers(-150, 150, n) + rng.choice([0.1, 0.3, 0.7, 0.9], n)
    per_entry = np.repeat(scales, QUANT_BLOCK)[:n] if variant == "per_block" \
        else np.full(n, scales[0])
    inputs = {"x": np.asarray(steps * per_entry, dtype=dtype.numpy),
              "qmax": dtype.numpy.type(QUANT_LEVELS)}
    if variant == "per_block":
        inputs["scales"] = np.asarray(scales, dtype=dtype.numpy)
    else:
        inputs["qscale"] = dtype.numpy.type(scales[0])
    return inputs


def _quantize_reference(variant: str, inputs, params) -> dict:
    n, x = params["n"], inputs["x"].astype(np.float64)
    if variant == "per_block":
        s = np.repeat(inputs["scales"].astype(np.float64), QUANT_BLOCK)[:n]
    else:
        s = float(inputs["qscale"])
    qmax = float(inputs["qmax"])
    q = np.clip(np.floor(x / s + 0.5), -qmax, qmax)
    return {"y": u.as_dtype_of(s * q, inputs["x"])}


FAKE_QUANTIZE = KernelSpec(
    name="fake_quantize",
    role=KernelRole.UNSEEN,
    description=f"Simulated int8 quantisation: each entry rounded to the nearest "
                f"multiple of its scale, clamped to +-{QUANT_LEVELS} steps and scaled "
                f"back (a division, a floor, two clamps); one scale for the array or "
                f"one per block of {QUANT_BLOCK} entries (a second, broadcast load).",
    parameters=("n",),
    variants=tuple(_QUANT_SCALES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_quantize,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_quantize_inputs, "per_tensor"),
    reference=partial(_quantize_reference, "per_tensor"),
    variant_make_inputs=_quantize_inputs,
    variant_reference=_quantize_reference,
    check_params={"n": 5000},
)

# }}}


# {{{ distance to the nearest centre

#: variant -> number of centres
_CENTRES: Mapping[str, int] = {"k16": 16, "k64": 64}


def _build_nearest(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_CENTRES), 1)
    k = _CENTRES[req.variant]
    knl = u.make_kernel(
        f"{{[i, c]: 0 <= i < n and 0 <= c < {k}}}",
        """
        for i
            <> px = xs[i] {id=px}
            <> py = ys[i] {id=py}
            d2[i] = min(c, (px - cx[c])*(px - cx[c]) + (py - cy[c])*(py - cy[c])) \
                {dep=px:py}
        end
        """,
        [u.array("xs", req.dtype, ("n",)), u.array("ys", req.dtype, ("n",)),
         u.array("cx", req.dtype, (k,)), u.array("cy", req.dtype, (k,)),
         u.array("d2", req.dtype, ("n",)), *u.size_args("n")],
        name="nearest_center_dist", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _nearest_inputs(variant: str, params, dtype, rng) -> dict:
    n, k = params["n"], _CENTRES[variant]
    return {"xs": u.random_array(rng, (n,), dtype), "ys": u.random_array(rng, (n,), dtype),
            "cx": u.random_array(rng, (k,), dtype), "cy": u.random_array(rng, (k,), dtype)}


def _nearest_reference(variant: str, inputs, params) -> dict:
    f = {k: v.astype(np.float64) for k, v in inputs.items()}
    d2 = (f["xs"][:, None] - f["cx"][None, :]) ** 2 \
        + (f["ys"][:, None] - f["cy"][None, :]) ** 2
    return {"d2": u.as_dtype_of(d2.min(axis=1), inputs["xs"])}


NEAREST_CENTER_DIST = KernelSpec(
    name="nearest_center_dist",
    role=KernelRole.UNSEEN,
    description="The squared distance from each 2-D point (two arrays) to the nearest "
                "of 16 or 64 centres shared by all items (broadcast loads): a min "
                "reduction over the centres, one store per point.",
    parameters=("n",),
    variants=tuple(_CENTRES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_nearest,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_nearest_inputs, "k16"),
    reference=partial(_nearest_reference, "k16"),
    variant_make_inputs=_nearest_inputs,
    variant_reference=_nearest_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ alpha compositing

#: variant -> layout of the four channels (the component layouts, renamed for pixels)
_CHANNEL_LAYOUTS: Mapping[str, str] = {"interleaved": "aos", "planar": "soa"}


def _build_composite(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_CHANNEL_LAYOUTS), 1)
    layout = _CHANNEL_LAYOUTS[req.variant]
    at, _ = _COMPONENT_LAYOUTS[layout]
    shape = _component_shape(layout, 4)

    def a(name, c="c"):
        return at.format(a=name, c=c)
    knl = u.make_kernel(
        "{[i, c]: 0 <= i < n and 0 <= c < 3}",
        f"""
        for i
            <> alpha = {a('src', 3)} {{id=alpha}}
            <> keep = 1 - alpha {{id=keep, dep=alpha}}
            for c
                {a('out')} = alpha * {a('src')} + keep * {a('dst')} {{dep=keep}}
            end
            {a('out', 3)} = alpha + keep * {a('dst', 3)} {{dep=keep}}
        end
        """,
        [u.array("src", req.dtype, shape), u.array("dst", req.dtype, shape),
         u.array("out", req.dtype, shape), *u.size_args("n")],
        name="alpha_composite", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _composite_inputs(variant: str, params, dtype, rng) -> dict:
    shape = _component_shape(_CHANNEL_LAYOUTS[variant], 4, params["n"])
    return {"src": u.random_array(rng, shape, dtype, low=0.1),
            "dst": u.random_array(rng, shape, dtype, low=0.1)}


def _composite_reference(variant: str, inputs, params) -> dict:
    planar = variant == "planar"
    src, dst = (inputs[k].astype(np.float64) for k in ("src", "dst"))
    if planar:
        src, dst = src.T, dst.T
    alpha = src[:, 3:4]
    out = np.concatenate([alpha * src[:, :3] + (1 - alpha) * dst[:, :3],
                          alpha + (1 - alpha) * dst[:, 3:4]], axis=1)
    if planar:
        out = out.T
    return {"out": u.as_dtype_of(np.ascontiguousarray(out), inputs["src"])}


ALPHA_COMPOSITE = KernelSpec(
    name="alpha_composite",
    role=KernelRole.UNSEEN,
    description="Porter-Duff 'over' of an RGBA source onto an RGBA destination: the "
                "colour channels blended by the source alpha, the alphas combined; "
                "channels interleaved per pixel (stride 4) or stored as four planes "
                "(stride 1).",
    parameters=("n",),
    variants=tuple(_CHANNEL_LAYOUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_composite,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_composite_inputs, "interleaved"),
    reference=partial(_composite_reference, "interleaved"),
    variant_make_inputs=_composite_inputs,
    variant_reference=_composite_reference,
    check_params={"n": 1000},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (PARTICLE_PUSH, NEWTON_CBRT, TRIL_MATVEC, FAKE_QUANTIZE,
                                 NEAREST_CENTER_DIST, ALPHA_COMPOSITE)
