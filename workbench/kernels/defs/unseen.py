"""Unseen kernels: reductions and batched small linear algebra.

Kernels of our own design that no fit ever sees (:attr:`KernelRole.UNSEEN`). They
are measured and reported apart from the measurement and the paper's test kernels,
to judge a fitted model on code it was not shaped around. They follow the catalog's
conventions (symbolic int32 sizes, the contiguous index on work-group axis 0, numpy
references) and, like every catalog kernel, count exactly: no data-dependent bounds
or indices.

* ``row_sum_squares``: ``out[i] = sum_j a[i, j]^2`` for an n x m matrix; one work
  item per row over row-major data (lanes m apart), the same over column-major data
  (lanes adjacent), or one work group per row with a local-memory tree reduction.
* ``dot_partial``: the first stage of a two-stage dot product, one partial sum per
  work group over a fixed chunk of ``DOT_CHUNK`` elements.
* ``batched_gemv``: ``y_e = A_e x_e`` for nb dense 64 x 64 matrices, A row- or
  column-major within each matrix.
* ``batched_small_gemm``: ``C_e = A_e B_e`` for nb 32 x 32 matrices, one work group
  per matrix, straight from global memory or from local-memory copies of A_e, B_e.

The stencils and the strided gather are in :mod:`.unseen_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec

# loopy's local-parallel reduction stores the result from its last stage, in which
# only lane 0 is active; its race check does not see that and warns.
_TREE_SILENCED = ("write_race(result)",)


# {{{ row-wise sum of squares

_ROW_LAYOUT: Mapping[str, str] = {"row_per_item": "C", "col_major": "F",
                                  "group_per_row": "C"}

# The element goes through a temporary so that it is loaded (and counted) once, as
# the compiled code loads it; ``a[i, j]*a[i, j]`` would count two loads.
_ROW_LOOP_INSN = """
for i
    <> acc = 0 {id=init}
    for j
        <> v = a[i, j] {id=load}
        acc = acc + v*v {id=update, dep=init:load}
    end
    out[i] = acc {dep=update}
end
"""


def _build_row_sum_squares(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_ROW_LAYOUT), 1)
    args = [u.array("a", req.dtype, ("n", "m"), order=_ROW_LAYOUT[req.variant]),
            u.array("out", req.dtype, ("n",)), *u.size_args("n", "m")]
    if req.variant != "group_per_row":
        knl = u.make_kernel("{[i, j]: 0 <= i < n and 0 <= j < m}", _ROW_LOOP_INSN, args,
                            name="row_sum_squares", assumptions="n >= 1 and m >= 1")
        return u.split_1d(knl, "i", req.group_size)
    # Lane k of row i's group sums a[i, k], a[i, k + g0], ... (adjacent lanes read
    # adjacent elements), then loopy's tree reduction adds the g0 partial sums in
    # local memory. The partial sum is a private temporary rather than an inner
    # ``sum(jo, ...)`` for the same reason as above: one load per element.
    (g0,) = req.group_size
    knl = u.make_kernel(
        f"{{[i, k, jo]: 0 <= i < n and 0 <= k < {g0} and 0 <= jo "
        f"and {g0}*jo + k < m}}",
        f"""
        for i, k
            <> part = 0 {{id=init}}
            for jo
                <> v = a[i, {g0}*jo + k] {{id=load}}
                part = part + v*v {{id=update, dep=init:load}}
            end
        end
        out[i] = sum(k, part) {{id=result, dep=update}}
        """,
        args, name="row_sum_squares", assumptions="n >= 1 and m >= 1",
        silenced=_TREE_SILENCED)
    return lp.tag_inames(knl, {"i": "g.0", "k": "l.0"})


def _row_inputs(variant: str, params, dtype, rng) -> dict:
    shape = (params["n"], params["m"])
    return {"a": u.random_array(rng, shape, dtype, order=_ROW_LAYOUT[variant])}


def _row_reference(inputs, params) -> dict:
    a = inputs["a"].astype(np.float64)
    return {"out": u.as_dtype_of((a * a).sum(axis=1), inputs["a"])}


def _tall(p: int) -> tuple[dict[str, int], ...]:
    # Four times as many rows as columns: enough rows for one work item each.
    return tuple({"n": n, "m": n // 4} for n in u.pow2(p, range(4)))


ROW_SUM_SQUARES = KernelSpec(
    name="row_sum_squares",
    role=KernelRole.UNSEEN,
    description="out[i] = sum_j a[i, j]^2 for an n x m matrix: one work item per row "
                "(row-major: lanes m apart; col_major: lanes adjacent), or one work "
                "group per row with a local-memory tree reduction.",
    parameters=("n", "m"),
    variants=tuple(_ROW_LAYOUT),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_row_sum_squares,
    size_cases=_tall,
    default_p=13,
    p_choices=(12, 13),
    make_inputs=partial(_row_inputs, "row_per_item"),
    reference=_row_reference,
    variant_make_inputs=_row_inputs,
    # m below the largest group size leaves some lanes of group_per_row idle
    check_params={"n": 150, "m": 333},
)

# }}}


# {{{ partial dot products

#: Elements per partial sum, i.e. per work group.
DOT_CHUNK = 4096


def _build_dot(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("tree",), 1)
    (g0,) = req.group_size
    knl = u.make_kernel(
        f"{{[c, k]: 0 <= c and {DOT_CHUNK}*c < n and 0 <= k < {DOT_CHUNK}}}",
        f"part[c] = sum(k, x[{DOT_CHUNK}*c + k] * y[{DOT_CHUNK}*c + k]) {{id=result}}",
        [u.array("x", req.dtype, ("n",)), u.array("y", req.dtype, ("n",)),
         u.array("part", req.dtype, (f"n // {DOT_CHUNK}",)), *u.size_args("n")],
        name="dot_partial", assumptions=f"n >= {DOT_CHUNK} and n mod {DOT_CHUNK} = 0",
        silenced=_TREE_SILENCED)
    knl = lp.tag_inames(knl, {"c": "g.0"})
    # Lanes stride through the chunk together (stride-1 loads); each keeps a
    # sequential partial sum, then the tree adds the lanes' sums in local memory.
    knl = lp.split_iname(knl, "k", g0, inner_tag="l.0")
    return lp.split_reduction_inward(knl, "k_outer")


def _dot_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    return {"x": u.random_array(rng, (n,), dtype), "y": u.random_array(rng, (n,), dtype)}


def _dot_reference(inputs, params) -> dict:
    prod = inputs["x"].astype(np.float64) * inputs["y"].astype(np.float64)
    return {"part": u.as_dtype_of(prod.reshape(-1, DOT_CHUNK).sum(axis=1), inputs["x"])}


DOT_PARTIAL = KernelSpec(
    name="dot_partial",
    role=KernelRole.UNSEEN,
    description=f"First stage of a two-stage dot product: part[c] = sum of x*y over "
                f"chunk c of {DOT_CHUNK} elements, one work group per chunk, local-"
                f"memory tree reduction.",
    parameters=("n",),
    variants=("tree",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_dot,
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(4))),
    default_p=24,
    p_choices=(23, 24, 25),
    make_inputs=_dot_inputs,
    reference=_dot_reference,
    check_params={"n": 3 * DOT_CHUNK},
)

# }}}


# {{{ batched matrix-vector products

#: Rows and columns of each matrix of batched_gemv.
GEMV_SIZE = 64

#: variant -> how a[e, ., .] is indexed: A_e row-major, or stored transposed.
_GEMV: Mapping[str, str] = {"row_major": "a[e, i, j]", "col_major": "a[e, j, i]"}


def _build_gemv(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_GEMV), 2)
    k = GEMV_SIZE
    knl = u.make_kernel(
        f"{{[e, i, j]: 0 <= e < nb and 0 <= i, j < {k}}}",
        f"y[e, i] = sum(j, {_GEMV[req.variant]} * x[e, j])",
        [u.array("a", req.dtype, ("nb", k, k)), u.array("x", req.dtype, ("nb", k)),
         u.array("y", req.dtype, ("nb", k)), *u.size_args("nb")],
        name="batched_gemv", assumptions="nb >= 1")
    # One work item per output row: i (contiguous in y) on axis 0, the batch on
    # axis 1. Row-major A is then read with stride 64 across lanes, transposed A
    # with stride 1; x_e is the same for all lanes (stride 0).
    return u.split_2d(knl, "e", "i", req.group_size)


def _gemv_inputs(params, dtype, rng) -> dict:
    nb, k = params["nb"], GEMV_SIZE
    return {"a": u.random_array(rng, (nb, k, k), dtype),
            "x": u.random_array(rng, (nb, k), dtype)}


def _gemv_reference(variant: str, inputs, params) -> dict:
    a, x = inputs["a"].astype(np.float64), inputs["x"].astype(np.float64)
    spec = "eij,ej->ei" if variant == "row_major" else "eji,ej->ei"
    return {"y": u.as_dtype_of(np.einsum(spec, a, x), inputs["a"])}


def _batches(p: int) -> tuple[dict[str, int], ...]:
    return tuple({"nb": nb} for nb in u.pow2(p, range(4)))


BATCHED_GEMV = KernelSpec(
    name="batched_gemv",
    role=KernelRole.UNSEEN,
    description=f"y_e = A_e x_e for nb dense {GEMV_SIZE} x {GEMV_SIZE} matrices, one "
                f"work item per output row; A_e row-major (strided lanes) or "
                f"column-major (adjacent lanes).",
    parameters=("nb",),
    variants=tuple(_GEMV),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_gemv,
    size_cases=_batches,
    default_p=12,
    p_choices=(11, 12, 13),
    make_inputs=_gemv_inputs,
    reference=partial(_gemv_reference, "row_major"),
    variant_reference=_gemv_reference,
    check_params={"nb": 21},
)

# }}}


# {{{ batched small matrix multiplication

#: Rows, columns and inner dimension of each matrix of batched_small_gemm.
GEMM_SIZE = 32

_GEMM_VARIANTS = ("direct", "prefetch")


def _build_gemm(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _GEMM_VARIANTS, 2)
    g0, g1 = req.group_size
    k = GEMM_SIZE
    knl = u.make_kernel(
        f"{{[e, i, j, k]: 0 <= e < nb and 0 <= i, j, k < {k}}}",
        "c[e, i, j] = sum(k, a[e, i, k] * b[e, k, j])",
        [*(u.array(v, req.dtype, ("nb", k, k)) for v in "abc"), *u.size_args("nb")],
        name="batched_small_gemm", assumptions="nb >= 1")
    # One group per matrix: it covers the 32 x 32 result in passes of g1 rows by
    # g0 columns (j, contiguous, on axis 0); partial passes are guarded.
    knl = lp.tag_inames(knl, {"e": "g.0"})
    knl = lp.split_iname(knl, "i", g1, inner_tag="l.1")
    knl = lp.split_iname(knl, "j", g0, inner_tag="l.0")
    if req.variant == "prefetch":
        # A_e and B_e whole, each read once per group with stride-1 lanes ('l.auto'
        # puts the contiguous axis on l.0 and loops where the tile exceeds the group).
        knl = lp.add_prefetch(knl, "a", ["i_outer", "i_inner", "k"],
                              fetch_outer_inames="e", default_tag="l.auto")
        knl = lp.add_prefetch(knl, "b", ["k", "j_outer", "j_inner"],
                              fetch_outer_inames="e", default_tag="l.auto")
    return lp.prioritize_loops(knl, "i_outer,j_outer")


def _gemm_inputs(params, dtype, rng) -> dict:
    shape = (params["nb"], GEMM_SIZE, GEMM_SIZE)
    return {"a": u.random_array(rng, shape, dtype), "b": u.random_array(rng, shape, dtype)}


def _gemm_reference(inputs, params) -> dict:
    a, b = inputs["a"].astype(np.float64), inputs["b"].astype(np.float64)
    return {"c": u.as_dtype_of(a @ b, inputs["a"])}


BATCHED_SMALL_GEMM = KernelSpec(
    name="batched_small_gemm",
    role=KernelRole.UNSEEN,
    description=f"C_e = A_e B_e for nb {GEMM_SIZE} x {GEMM_SIZE} row-major matrices, "
                f"one work group per matrix; operands read from global memory, or "
                f"whole A_e and B_e prefetched to local memory.",
    parameters=("nb",),
    variants=_GEMM_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_gemm,
    size_cases=_batches,
    default_p=13,
    p_choices=(12, 13, 14),
    make_inputs=_gemm_inputs,
    reference=_gemm_reference,
    check_params={"nb": 5},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (ROW_SUM_SQUARES, DOT_PARTIAL, BATCHED_GEMV,
                                 BATCHED_SMALL_GEMM)
