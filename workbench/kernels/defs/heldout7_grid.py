"""The seventh held-out set's kernels on 2-D groups: a dense layer, a diffusion step, a lookup.

What the set is for, and the other kernels, are in :mod:`.heldout7`.

* ``dense_layer``: y = x W^T + b for a batch of m rows, n outputs and
  ``DENSE_INPUTS`` inputs, one output per work item; W stored output-major (as a
  framework keeps it: lanes a row of W apart) or input-major (lanes adjacent).
* ``diffusion_varcoef``: one explicit step of diffusion with a coefficient per cell
  on an m x n grid (5-point), the face coefficients the arithmetic or the harmonic
  mean of the two cells'.
* ``embedding_lookup``: row i of the output is row ids[i] of an embedding table (an
  indirect row gather), or the sum of a token and a position row.
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


# {{{ dense layer

#: Inputs per output (the reduction length).
DENSE_INPUTS = 256
#: variant -> weight of input k for output j, and the weight matrix's shape
_WEIGHT_LAYOUTS: Mapping[str, tuple[str, tuple]] = {
    "out_major": ("w[j, k]", ("n", DENSE_INPUTS)),
    "in_major": ("w[k, j]", (DENSE_INPUTS, "n")),
}


def _build_dense(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_WEIGHT_LAYOUTS), 2)
    weight, shape = _WEIGHT_LAYOUTS[req.variant]
    knl = u.make_kernel(
        f"{{[i, j, k]: 0 <= i < m and 0 <= j < n and 0 <= k < {DENSE_INPUTS}}}",
        f"y[i, j] = bias[j] + sum(k, x[i, k] * {weight})",
        [u.array("x", req.dtype, ("m", DENSE_INPUTS)), u.array("w", req.dtype, shape),
         u.array("bias", req.dtype, ("n",)), u.array("y", req.dtype, ("m", "n")),
         *u.size_args("m", "n")],
        name="dense_layer", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _dense_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    shape = (n, DENSE_INPUTS) if variant == "out_major" else (DENSE_INPUTS, n)
    return {"x": u.random_array(rng, (m, DENSE_INPUTS), dtype),
            "w": u.random_array(rng, shape, dtype),
            "bias": u.random_array(rng, (n,), dtype)}


def _dense_reference(variant: str, inputs, params) -> dict:
    w = inputs["w"].astype(np.float64)
    if variant == "out_major":
        w = w.T
    y = inputs["x"].astype(np.float64) @ w + inputs["bias"].astype(np.float64)[None, :]
    return {"y": u.as_dtype_of(y, inputs["x"])}


DENSE_LAYER = KernelSpec(
    name="dense_layer",
    role=KernelRole.UNSEEN,
    description=f"A fully connected layer y = x W^T + b over a batch of m rows and n "
                f"outputs, {DENSE_INPUTS} inputs each, one output per work item (a "
                f"{DENSE_INPUTS}-term dot product, x shared along a row of the grid); W "
                f"stored output-major (lanes a row of W apart) or input-major (lanes "
                f"adjacent).",
    parameters=("m", "n"),
    variants=tuple(_WEIGHT_LAYOUTS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_dense,
    size_cases=_rectangles,
    default_p=9,
    p_choices=(8, 9, 10),
    make_inputs=partial(_dense_inputs, "out_major"),
    reference=partial(_dense_reference, "out_major"),
    variant_make_inputs=_dense_inputs,
    variant_reference=_dense_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ diffusion with a variable coefficient

_DIFFUSION_CONSTS = (("dt", 0.05), ("k_half", 0.5), ("two", 2.0))
#: variant -> the coefficient of the face between cells a and b
_FACE_MEANS: Mapping[str, str] = {"arithmetic": "k_half*({a} + {b})",
                                  "harmonic": "two*{a}*{b} / ({a} + {b})"}
_NEIGHBOURS = (("s", "i", "j+1"), ("n", "i+2", "j+1"), ("w", "i+1", "j"),
               ("e", "i+1", "j+2"))


def _build_diffusion(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_FACE_MEANS), 2)
    mean = _FACE_MEANS[req.variant]
    faces = [f"<> k_{d} = {mean.format(a='kc', b=f'kappa[{r}, {c}]')} "
             f"{{id=k_{d}, dep=kc}}" for d, r, c in _NEIGHBOURS]
    flux = " + ".join(f"k_{d}*(temp[{r}, {c}] - tc)" for d, r, c in _NEIGHBOURS)
    body = "\n            ".join(faces)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <> kc = kappa[i+1, j+1] {{id=kc}}
            <> tc = temp[i+1, j+1] {{id=tc}}
            {body}
            temp_next[i, j] = tc + dt*({flux}) {{dep=tc:k_s:k_n:k_w:k_e}}
        end
        """,
        [u.array("temp", req.dtype, ("m+2", "n+2")), u.array("kappa", req.dtype, ("m+2", "n+2")),
         u.array("temp_next", req.dtype, ("m", "n")),
         *(lp.ValueArg(c, req.dtype.numpy) for c, _ in _DIFFUSION_CONSTS),
         *u.size_args("m", "n")],
        name="diffusion_varcoef", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _diffusion_inputs(params, dtype, rng) -> dict:
    shape = (params["m"] + 2, params["n"] + 2)
    return {"temp": u.random_array(rng, shape, dtype, low=1.0, high=2.0),
            "kappa": u.random_array(rng, shape, dtype, low=0.5, high=1.5),
            **{c: dtype.numpy.type(v) for c, v in _DIFFUSION_CONSTS}}


def _diffusion_reference(variant: str, inputs, params) -> dict:
    t, k = inputs["temp"].astype(np.float64), inputs["kappa"].astype(np.float64)
    m, n, dt = params["m"], params["n"], float(inputs["dt"])

    def at(a, di, dj):
        return a[di:di + m, dj:dj + n]
    tc, kc = at(t, 1, 1), at(k, 1, 1)
    total = np.zeros_like(tc)
    for di, dj in ((0, 1), (2, 1), (1, 0), (1, 2)):
        kn = at(k, di, dj)
        face = 0.5 * (kc + kn) if variant == "arithmetic" else 2 * kc * kn / (kc + kn)
        total += face * (at(t, di, dj) - tc)
    return {"temp_next": u.as_dtype_of(tc + dt * total, inputs["temp"])}


DIFFUSION_VARCOEF = KernelSpec(
    name="diffusion_varcoef",
    role=KernelRole.UNSEEN,
    description="One explicit step of heat diffusion with a conductivity per cell on "
                "an m x n grid (one ghost layer): five temperatures and five "
                "conductivities read per point, the face conductivity the arithmetic "
                "mean or the harmonic mean (a division per face) of its two cells'.",
    parameters=("m", "n"),
    variants=tuple(_FACE_MEANS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_diffusion,
    size_cases=_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_diffusion_inputs,
    reference=partial(_diffusion_reference, "arithmetic"),
    variant_reference=_diffusion_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ embedding lookup

#: Rows of the embedding table (a vocabulary), and of the position table.
VOCABULARY = 4096
POSITIONS = 512
_LOOKUPS: Mapping[str, str] = {
    "token": "table[row, j]",
    "token_position": f"table[row, j] + positions[i % {POSITIONS}, j]",
}


def _build_lookup(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_LOOKUPS), 2)
    positions = ([u.array("positions", req.dtype, (POSITIONS, "n"))]
                 if req.variant == "token_position" else [])
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        # the row index goes through a private value, as the catalog's gathers do
        f"""
        for i, j
            <> row = ids[i] {{id=row}}
            out[i, j] = {_LOOKUPS[req.variant]} {{dep=row}}
        end
        """,
        [lp.GlobalArg("ids", np.int32, ("m",)),
         u.array("table", req.dtype, (VOCABULARY, "n")), *positions,
         u.array("out", req.dtype, ("m", "n")), *u.size_args("m", "n")],
        name="embedding_lookup", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _lookup_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    inputs = {"ids": rng.integers(0, VOCABULARY, m).astype(np.int32),
              "table": u.random_array(rng, (VOCABULARY, n), dtype)}
    if variant == "token_position":
        inputs["positions"] = u.random_array(rng, (POSITIONS, n), dtype)
    return inputs


def _lookup_reference(variant: str, inputs, params) -> dict:
    out = inputs["table"].astype(np.float64)[inputs["ids"]]
    if variant == "token_position":
        rows = np.arange(params["m"]) % POSITIONS
        out = out + inputs["positions"].astype(np.float64)[rows]
    return {"out": u.as_dtype_of(out, inputs["table"])}


EMBEDDING_LOOKUP = KernelSpec(
    name="embedding_lookup",
    role=KernelRole.UNSEEN,
    description=f"Embedding lookup for m tokens of width n: row i of the output is row "
                f"ids[i] of a {VOCABULARY}-row table (an indirect row gather, rows "
                f"contiguous), or that row plus row i mod {POSITIONS} of a position "
                f"table.",
    parameters=("m", "n"),
    variants=tuple(_LOOKUPS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_lookup,
    size_cases=lambda p: tuple({"m": 2 ** (p + t), "n": 256} for t in range(4)),
    default_p=14,
    p_choices=(13, 14, 15),
    make_inputs=partial(_lookup_inputs, "token"),
    reference=partial(_lookup_reference, "token"),
    variant_make_inputs=_lookup_inputs,
    variant_reference=_lookup_reference,
    check_params={"m": 600, "n": 40},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (DENSE_LAYER, DIFFUSION_VARCOEF, EMBEDDING_LOOKUP)
