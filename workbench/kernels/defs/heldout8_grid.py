"""The eighth held-out set's kernels on 2-D groups: an escape-time fractal, a distance
matrix, a Kronecker product.

What the set is for, and the other kernels, are in :mod:`.heldout8`.

* ``mandelbrot_escape``: ``ESCAPE_ITERATIONS`` iterations of z <- z^2 + c per pixel of
  an m x n view, counting those still inside |z| <= 2 (the update masked once out);
  the Mandelbrot set (z from 0, c the pixel) or a Julia set (z from the pixel, c fixed).
* ``distance_matrix``: the m x n matrix of Euclidean distances between two point
  sets (3-D points interleaved), or the Gaussian kernel of those distances.
* ``kron_product``: the Kronecker product of an (m/Q) x (n/Q) matrix and a Q x Q
  matrix (Q = ``KRON_BLOCK``), written as it is or added to an accumulator.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _rectangles(p: int) -> tuple[dict[str, int], ...]:
    # m x n with m <= n <= 2 m: the point count doubles from case to case
    return tuple({"m": 2 ** (p + t // 2), "n": 2 ** (p + (t + 1) // 2)} for t in range(4))


# {{{ escape-time fractal

#: Iterations of z <- z^2 + c per pixel.
ESCAPE_ITERATIONS = 64
#: the view: a square whose every point stays bounded (converging orbits, so both
#: precisions count alike); the arithmetic is the same wherever the view is
_VIEW = (-0.17, 0.34)
_ESCAPE_CONSTS = (("four", 4.0), ("two", 2.0), ("one", 1.0), ("zero", 0.0),
                  ("julia_r", -0.1), ("julia_i", 0.1))
#: variant -> (z's start, c) in terms of the pixel's point (px, py)
_FRACTALS: Mapping[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "mandelbrot": (("zero", "zero"), ("px", "py")),
    "julia": (("px", "py"), ("julia_r", "julia_i")),
}


def _build_escape(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_FRACTALS), 2)
    (zr0, zi0), (cr, ci) = _FRACTALS[req.variant]
    inside = "zr*zr + zi*zi <= four"
    knl = u.make_kernel(
        ["{[i, j]: 0 <= i < m and 0 <= j < n}", f"{{[k]: 0 <= k < {ESCAPE_ITERATIONS}}}"],
        f"""
        for i, j
            <> px = x0 + step_x * j {{id=px}}
            <> py = y0 + step_y * i {{id=py}}
            <> zr = {zr0} {{id=zr0, dep=px:py}}
            <> zi = {zi0} {{id=zi0, dep=px:py}}
            <> count = zero {{id=count0}}
            for k
                <> mag = zr*zr + zi*zi {{id=mag, dep=zr0:zi0}}
                <> live = mag <= four {{id=live, dep=mag}}
                <> zr_next = live * (zr*zr - zi*zi + {cr}) + (1 - live) * zr \
{{id=zr_next, dep=live}}
                count = count + live {{id=counted, dep=count0:live}}
                zi = live * (two*zr*zi + {ci}) + (1 - live) * zi {{id=zi_set, dep=zr_next}}
                zr = zr_next {{id=zr_set, dep=zi_set}}
            end
            escape[i, j] = count {{dep=counted}}
            modulus[i, j] = zr*zr + zi*zi {{dep=zr_set:zi_set}}
        end
        """,
        [u.array("escape", req.dtype, ("m", "n")), u.array("modulus", req.dtype, ("m", "n")),
         *(lp.ValueArg(c, req.dtype.numpy) for c in ("x0", "y0", "step_x", "step_y")),
         *u.scalar_args(req.dtype, _ESCAPE_CONSTS),
         *u.size_args("m", "n")],
        name="mandelbrot_escape", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _escape_inputs(params, dtype, rng) -> dict:
    low, width = _VIEW
    view = {"x0": low, "y0": low, "step_x": width / params["n"],
            "step_y": width / params["m"]}
    return {**u.scalar_inputs(dtype, view.items()), **u.scalar_inputs(dtype, _ESCAPE_CONSTS)}


def _escape_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    px = float(inputs["x0"]) + float(inputs["step_x"]) * np.arange(n)[None, :]
    py = float(inputs["y0"]) + float(inputs["step_y"]) * np.arange(m)[:, None]
    px, py = np.broadcast_to(px, (m, n)), np.broadcast_to(py, (m, n))
    if variant == "mandelbrot":
        zr, zi, cr, ci = np.zeros((m, n)), np.zeros((m, n)), px, py
    else:
        zr, zi = px.copy(), py.copy()
        cr, ci = float(inputs["julia_r"]), float(inputs["julia_i"])
    count = np.zeros((m, n))
    for _ in range(ESCAPE_ITERATIONS):
        inside = zr * zr + zi * zi <= 4.0
        count += inside
        zr, zi = (np.where(inside, zr * zr - zi * zi + cr, zr),
                  np.where(inside, 2 * zr * zi + ci, zi))
    like = inputs["x0"]
    return {"escape": u.as_dtype_of(count, like),
            "modulus": u.as_dtype_of(zr * zr + zi * zi, like)}


MANDELBROT_ESCAPE = KernelSpec(
    name="mandelbrot_escape",
    role=KernelRole.UNSEEN,
    description=f"An escape-time fractal over an m x n view: {ESCAPE_ITERATIONS} "
                f"iterations of z <- z^2 + c per pixel, counting those with |z| <= 2 and "
                f"freezing z once out (selects, no branch), the count and the final |z|^2 "
                f"stored; the Mandelbrot set (c the pixel) or a Julia set (z starts at "
                f"the pixel).",
    parameters=("m", "n"),
    variants=tuple(_FRACTALS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_escape,
    size_cases=_rectangles,
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=_escape_inputs,
    reference=partial(_escape_reference, "mandelbrot"),
    variant_reference=_escape_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-3,
)

# }}}


# {{{ distance matrix

_DISTANCE_CONSTS = (("neg_gamma", -0.5),)
#: variant -> the entry for the squared distance d2
_DISTANCE_ENTRIES: Mapping[str, str] = {"euclidean": "sqrt(d2)",
                                        "gaussian": "exp(neg_gamma * d2)"}


def _build_distance(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_DISTANCE_ENTRIES), 2)
    diffs = "\n            ".join(
        f"<> diff{c} = a[i, {c}] - b[j, {c}] {{id=diff{c}}}" for c in range(3))
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {diffs}
            <> d2 = diff0*diff0 + diff1*diff1 + diff2*diff2 {{id=d2, dep=diff0:diff1:diff2}}
            dist[i, j] = {_DISTANCE_ENTRIES[req.variant]} {{dep=d2}}
        end
        """,
        [u.array("a", req.dtype, ("m", 3)), u.array("b", req.dtype, ("n", 3)),
         u.array("dist", req.dtype, ("m", "n")), *u.scalar_args(req.dtype, _DISTANCE_CONSTS),
         *u.size_args("m", "n")],
        name="distance_matrix", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _distance_inputs(params, dtype, rng) -> dict:
    return {"a": u.random_array(rng, (params["m"], 3), dtype),
            "b": u.random_array(rng, (params["n"], 3), dtype),
            **u.scalar_inputs(dtype, _DISTANCE_CONSTS)}


def _distance_reference(variant: str, inputs, params) -> dict:
    a, b = inputs["a"].astype(np.float64), inputs["b"].astype(np.float64)
    d2 = np.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=2)
    out = np.sqrt(d2) if variant == "euclidean" else np.exp(float(inputs["neg_gamma"]) * d2)
    return {"dist": u.as_dtype_of(out, inputs["a"])}


DISTANCE_MATRIX = KernelSpec(
    name="distance_matrix",
    role=KernelRole.UNSEEN,
    description="The m x n matrix of distances between two sets of 3-D points "
                "(coordinates interleaved, stride 3; a row's point shared along a row "
                "of the grid): three differences and a squared norm per entry, then its "
                "square root (Euclidean) or exp(-d^2/2) (a Gaussian kernel matrix).",
    parameters=("m", "n"),
    variants=tuple(_DISTANCE_ENTRIES),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_distance,
    size_cases=_rectangles,
    default_p=12,
    p_choices=(11, 12, 13),
    make_inputs=_distance_inputs,
    reference=partial(_distance_reference, "euclidean"),
    variant_reference=_distance_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ Kronecker product

#: Rows and columns of the small factor.
KRON_BLOCK = 16
_KRON_VARIANTS = ("overwrite", "accumulate")


def _build_kron(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _KRON_VARIANTS, 2)
    q = KRON_BLOCK
    product = f"big[i // {q}, j // {q}] * small[i % {q}, j % {q}]"
    acc = "acc[i, j] + " if req.variant == "accumulate" else ""
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"out[i, j] = {acc}{product}",
        [u.array("big", req.dtype, (f"m // {q}", f"n // {q}")),
         u.array("small", req.dtype, (q, q)),
         *([u.array("acc", req.dtype, ("m", "n"))] if acc else []),
         u.array("out", req.dtype, ("m", "n")), *u.size_args("m", "n")],
        name="kron_product",
        assumptions=f"m >= {q} and n >= {q} and m mod {q} = 0 and n mod {q} = 0")
    return u.split_2d(knl, "i", "j", req.group_size)


def _kron_inputs(variant: str, params, dtype, rng) -> dict:
    m, n, q = params["m"], params["n"], KRON_BLOCK
    inputs = {"big": u.random_array(rng, (m // q, n // q), dtype, low=0.1),
              "small": u.random_array(rng, (q, q), dtype, low=0.1)}
    if variant == "accumulate":
        inputs["acc"] = u.random_array(rng, (m, n), dtype)
    return inputs


def _kron_reference(variant: str, inputs, params) -> dict:
    out = np.kron(inputs["big"].astype(np.float64), inputs["small"].astype(np.float64))
    if variant == "accumulate":
        out = out + inputs["acc"].astype(np.float64)
    return {"out": u.as_dtype_of(out, inputs["big"])}


KRON_PRODUCT = KernelSpec(
    name="kron_product",
    role=KernelRole.UNSEEN,
    description=f"The Kronecker product of an (m/{KRON_BLOCK}) x (n/{KRON_BLOCK}) "
                f"matrix and a {KRON_BLOCK} x {KRON_BLOCK} matrix into an m x n one "
                f"(both factors' entries by floor divisions and remainders of the "
                f"output's indices, each reused from cache); written as it is or added "
                f"to an accumulator (a second m x n read).",
    parameters=("m", "n"),
    variants=_KRON_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_kron,
    size_cases=_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_kron_inputs, "overwrite"),
    reference=partial(_kron_reference, "overwrite"),
    variant_make_inputs=_kron_inputs,
    variant_reference=_kron_reference,
    check_params={"m": 48, "n": 80},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (MANDELBROT_ESCAPE, DISTANCE_MATRIX, KRON_PRODUCT)
