"""The ninth held-out set's kernels on 2-D groups: an attention mask, an alpha
premultiplication, a two-sided diagonal scaling.

What the set is for, and the other kernels, are in :mod:`.heldout9`.

* ``causal_mask``: an m x n matrix of attention scores scaled, the entries above the
  diagonal (or outside a band of ``MASK_WINDOW`` below it) set to a large negative
  value.
* ``rgba_premultiply``: an m x n RGBA image (four channels interleaved, stride 4)
  with its colour multiplied by its alpha, or divided by it (zero where alpha is zero).
* ``diag_scale_matrix``: diag(r) A diag(c) for an m x n matrix (matrix
  equilibration), or diag(d) A diag(d) with one vector for rows and columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ causal attention mask

#: Keys a query sees in the sliding-window variant (itself and those just before).
MASK_WINDOW = 16
_MASK_CONSTS = (("scale", 0.125), ("masked", -1.0e4))
#: variant -> the condition under which entry (i, j) is kept
_MASKS: Mapping[str, str] = {
    "causal": "(j <= i)",
    "sliding_window": f"(j <= i) * (j > i - {MASK_WINDOW})",
}


def _build_mask(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_MASKS), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        # the select as arithmetic on the condition (0 or 1), as the catalog writes
        # selects, so that every operation is counted exactly
        f"""
        for i, j
            <> keep = {_MASKS[req.variant]} {{id=keep}}
            out[i, j] = keep * (scale * scores[i, j]) + (1 - keep) * masked {{dep=keep}}
        end
        """,
        [u.array("scores", req.dtype, ("m", "n")), u.array("out", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, _MASK_CONSTS), *u.size_args("m", "n")],
        name="causal_mask", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _mask_inputs(params, dtype, rng) -> dict:
    return {"scores": u.random_array(rng, (params["m"], params["n"]), dtype, low=0.5,
                                     high=4.0),
            **u.scalar_inputs(dtype, _MASK_CONSTS)}


def _mask_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = j <= i
    if variant == "sliding_window":
        keep = keep & (j > i - MASK_WINDOW)
    out = np.where(keep, 0.125 * inputs["scores"].astype(np.float64), -1.0e4)
    return {"out": u.as_dtype_of(out, inputs["scores"])}


CAUSAL_MASK = KernelSpec(
    name="causal_mask",
    role=KernelRole.UNSEEN,
    description=f"The mask of an m x n matrix of attention scores: each entry scaled, "
                f"those above the diagonal (causal) or also {MASK_WINDOW} or more below "
                f"it (a sliding window) replaced by a large negative value (a select on "
                f"the entry's indices, written as arithmetic; the scores are read "
                f"either way).",
    parameters=("m", "n"),
    variants=tuple(_MASKS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_mask,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_mask_inputs,
    reference=partial(_mask_reference, "causal"),
    variant_reference=_mask_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ RGBA alpha premultiplication

_RGBA_CONSTS = (("zero", 0.0),)
#: variant -> colour channel c's output in terms of the channel value v and alpha
_ALPHA_OPS: Mapping[str, str] = {
    "premultiply": "v{c} * alpha",
    # zero where alpha is zero: the division is then by one, its quotient multiplied by 0
    "unpremultiply": "opaque * v{c} / (alpha + (1 - opaque))",
}


def _build_rgba(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_ALPHA_OPS), 2)
    op = _ALPHA_OPS[req.variant]
    lines = ["<> alpha = img[i, j, 3] {id=alpha}",
             "<> opaque = alpha > zero {id=opaque, dep=alpha}",
             *(f"<> v{c} = img[i, j, {c}] {{id=v{c}}}" for c in range(3)),
             *(f"out[i, j, {c}] = {op.format(c=c)} {{dep=opaque:v{c}}}" for c in range(3)),
             "out[i, j, 3] = alpha {dep=alpha}"]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {body}
        end
        """,
        [u.array("img", req.dtype, ("m", "n", 4)), u.array("out", req.dtype, ("m", "n", 4)),
         *u.scalar_args(req.dtype, _RGBA_CONSTS), *u.size_args("m", "n")],
        name="rgba_premultiply", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _rgba_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    img = rng.uniform(0.1, 1.0, (m, n, 4))
    # an eighth of the pixels fully transparent: the division's guard is taken
    img[..., 3] = np.where(rng.random((m, n)) < 0.125, 0.0, img[..., 3])
    return {"img": np.asarray(img, dtype=dtype.numpy), **u.scalar_inputs(dtype, _RGBA_CONSTS)}


def _rgba_reference(variant: str, inputs, params) -> dict:
    img = inputs["img"].astype(np.float64)
    alpha = img[..., 3:]
    if variant == "premultiply":
        colour = img[..., :3] * alpha
    else:
        safe = np.where(alpha > 0, alpha, 1.0)
        colour = np.where(alpha > 0, img[..., :3] / safe, 0.0)
    out = np.concatenate([colour, alpha], axis=2)
    return {"out": u.as_dtype_of(out, inputs["img"])}


RGBA_PREMULTIPLY = KernelSpec(
    name="rgba_premultiply",
    role=KernelRole.UNSEEN,
    description="The alpha premultiplication of an m x n RGBA image (four channels "
                "interleaved, stride 4 in and out): the three colour channels multiplied "
                "by alpha, or divided by it (undoing it; zero where alpha is zero, by a "
                "select written as arithmetic), alpha copied.",
    parameters=("m", "n"),
    variants=tuple(_ALPHA_OPS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_rgba,
    size_cases=u.doubling_rectangles,
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=_rgba_inputs,
    reference=partial(_rgba_reference, "premultiply"),
    variant_reference=_rgba_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ two-sided diagonal scaling

#: variant -> (the entry, the scaling vectors' arrays)
_DIAG_SCALINGS: Mapping[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "two_sided": ("r[i] * a[i, j] * c[j]", (("r", "m"), ("c", "n"))),
    "symmetric": ("d[i] * a[i, j] * d[j]", (("d", "n"),)),
}


def _build_diag_scale(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_DIAG_SCALINGS), 2)
    entry, vectors = _DIAG_SCALINGS[req.variant]
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"out[i, j] = {entry}",
        [u.array("a", req.dtype, ("m", "n")),
         *(u.array(name, req.dtype, (size,)) for name, size in vectors),
         u.array("out", req.dtype, ("m", "n")), *u.size_args("m", "n")],
        # the symmetric variant's vector has n entries and is indexed by rows too
        name="diag_scale_matrix", assumptions="m >= 1 and n >= m")
    return u.split_2d(knl, "i", "j", req.group_size)


def _diag_inputs(variant: str, params, dtype, rng) -> dict:
    sizes = {"m": params["m"], "n": params["n"]}
    _, vectors = _DIAG_SCALINGS[variant]
    return {"a": u.random_array(rng, (params["m"], params["n"]), dtype, low=0.1),
            **{name: u.random_array(rng, (sizes[size],), dtype, low=0.5, high=2.0)
               for name, size in vectors}}


def _diag_reference(variant: str, inputs, params) -> dict:
    f = {k: v.astype(np.float64) for k, v in inputs.items()}
    m = params["m"]
    if variant == "two_sided":
        out = f["r"][:, None] * f["a"] * f["c"][None, :]
    else:
        out = f["d"][:m, None] * f["a"] * f["d"][None, :]
    return {"out": u.as_dtype_of(out, inputs["a"])}


DIAG_SCALE_MATRIX = KernelSpec(
    name="diag_scale_matrix",
    role=KernelRole.UNSEEN,
    description="An m x n matrix scaled on both sides, diag(r) A diag(c) (matrix "
                "equilibration: a row factor and a column factor per entry, each reused "
                "from cache), or diag(d) A diag(d) with one vector of n factors.",
    parameters=("m", "n"),
    variants=tuple(_DIAG_SCALINGS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_diag_scale,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_diag_inputs, "two_sided"),
    reference=partial(_diag_reference, "two_sided"),
    variant_make_inputs=_diag_inputs,
    variant_reference=_diag_reference,
    check_params={"m": 45, "n": 70},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (CAUSAL_MASK, RGBA_PREMULTIPLY, DIAG_SCALE_MATRIX)
