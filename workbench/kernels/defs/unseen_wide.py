"""The wider unseen set (``--set unseen2``): irregular access, sequential work, reductions.

Like :mod:`.unseen`, these kernels have role :attr:`KernelRole.UNSEEN` and are never
fitted on; they form a second set, measured and reported apart from the first, of
kinds neither the catalog nor the first unseen set has. They keep the catalog's
conventions (symbolic int32 sizes, contiguous index on work-group axis 0, numpy
references, exact counts).

* ``spmv_ell``: sparse matrix-vector product in the ELL layout (``ELL_WIDTH``
  entries per row, stored column-major so lanes read adjacent entries), the vector
  read through the column indices: an indirect, data-dependent access that loopy
  counts but cannot give a stride. Both variants build the same kernel; only the
  matrix differs, banded (columns within +-``ELL_BAND`` of the row: cache reuse of x)
  or scattered (uniformly random columns). A model that sees only the code cannot
  tell them apart.
* ``complex_axpy``: ``z = a x + y`` for complex vectors, real and imaginary parts
  interleaved in one array (stride-2 lanes, both halves used) or in split arrays.
* ``atx_partial``: the first stage of ``A^T x`` for a tall n x ``ATX_COLS`` matrix, a
  reduction over the long dimension: each work group sums ``ATX_CHUNK`` rows for its
  columns, lanes along the rows combining in a local-memory tree.
* ``batched_trsv``: ``L_e x_e = b_e`` for nb lower-triangular ``TRSV_SIZE`` squared
  systems by forward substitution, one work item per system, the solution in a
  private array (registers or spilled to local/stack memory); L_e either stored
  per system (lanes a whole matrix apart) or interleaved over the batch (adjacent).
* ``column_cumsum``: running sums down each column of an m x n matrix, one work item
  per column: a long sequential loop per item and few work groups (latency-bound
  small grids; the campaign's size search cannot fill the device with it).

The grid kernels of this set are in :mod:`.unseen_wide_grid`.
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


def _scaled(p: int, steps=range(4), scale: int = 2) -> tuple[int, ...]:
    # four sizes 4x apart: from a few microseconds to DRAM-bound milliseconds
    return u.pow2(p, steps, scale=scale)


# {{{ ELL sparse matrix-vector product

#: Stored entries per row.
ELL_WIDTH = 8
#: Half-width of the banded variant's column range.
ELL_BAND = 32

_ELL_VARIANTS = ("banded", "scattered")

# Loaded once through a temporary, as the compiled code does: one load per entry.
_ELL_INSN = f"""
for i
    <> acc = 0 {{id=init}}
    for k
        <> c = col[k, i] {{id=load_col}}
        acc = acc + val[k, i] * x[c] {{id=update, dep=init:load_col}}
    end
    y[i] = acc {{dep=update}}
end
"""


def _build_ell(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _ELL_VARIANTS, 1)
    w = ELL_WIDTH
    knl = u.make_kernel(
        f"{{[i, k]: 0 <= i < n and 0 <= k < {w}}}", _ELL_INSN,
        [u.array("val", req.dtype, (w, "n")), lp.GlobalArg("col", np.int32, shape=(w, "n")),
         u.array("x", req.dtype, ("n",)), u.array("y", req.dtype, ("n",)),
         *u.size_args("n")],
        name="spmv_ell", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _ell_inputs(variant: str, params, dtype, rng) -> dict:
    n, w = params["n"], ELL_WIDTH
    rows = np.arange(n)[None, :]
    if variant == "banded":
        col = (rows + rng.integers(-ELL_BAND, ELL_BAND + 1, size=(w, n))) % n
    else:
        col = rng.integers(0, n, size=(w, n))
    return {"val": u.random_array(rng, (w, n), dtype), "col": col.astype(np.int32),
            "x": u.random_array(rng, (n,), dtype)}


def _ell_reference(inputs, params) -> dict:
    val, x = inputs["val"].astype(np.float64), inputs["x"].astype(np.float64)
    return {"y": u.as_dtype_of((val * x[inputs["col"]]).sum(axis=0), inputs["val"])}


SPMV_ELL = KernelSpec(
    name="spmv_ell",
    role=KernelRole.UNSEEN,
    description=f"Sparse y = A x in the ELL layout ({ELL_WIDTH} entries per row, "
                f"column-major), x read through the column indices (indirect); "
                f"banded (columns within +-{ELL_BAND} of the row) or scattered "
                f"(uniformly random) matrices, the same code.",
    parameters=("n",),
    variants=_ELL_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_ell,
    size_cases=lambda p: tuple({"n": n} for n in _scaled(p)),
    default_p=17,
    p_choices=(16, 17, 18),
    make_inputs=partial(_ell_inputs, "banded"),
    reference=_ell_reference,
    variant_make_inputs=_ell_inputs,
    check_params={"n": 1000},
)

# }}}


# {{{ complex axpy

_CAXPY: Mapping[str, str] = {
    "interleaved": """
        <> xr = x[2*i] {id=xr}
        <> xi = x[2*i + 1] {id=xi}
        z[2*i] = ar*xr - ai*xi + y[2*i] {dep=xr:xi}
        z[2*i + 1] = ar*xi + ai*xr + y[2*i + 1] {dep=xr:xi}
        """,
    "split": """
        <> xr = x_re[i] {id=xr}
        <> xi = x_im[i] {id=xi}
        z_re[i] = ar*xr - ai*xi + y_re[i] {dep=xr:xi}
        z_im[i] = ar*xi + ai*xr + y_im[i] {dep=xr:xi}
        """,
}

_CAXPY_WEIGHTS = (("ar", 0.75), ("ai", -0.5))


def _caxpy_arrays(variant: str) -> tuple[tuple[str, str], ...]:
    # (name, shape) of every array argument of a variant
    if variant == "interleaved":
        return (("x", "2*n"), ("y", "2*n"), ("z", "2*n"))
    return tuple((f"{v}_{part}", "n") for v in "xyz" for part in ("re", "im"))


def _build_caxpy(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_CAXPY), 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}", _CAXPY[req.variant],
        [*(u.array(name, req.dtype, (shape,)) for name, shape in _caxpy_arrays(req.variant)),
         *(lp.ValueArg(w, req.dtype.numpy) for w, _ in _CAXPY_WEIGHTS), *u.size_args("n")],
        name="complex_axpy", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _caxpy_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    weights = {w: dtype.numpy.type(v) for w, v in _CAXPY_WEIGHTS}
    arrays = {name: u.random_array(rng, (2 * n if shape == "2*n" else n,), dtype)
              for name, shape in _caxpy_arrays(variant) if not name.startswith("z")}
    return {**arrays, **weights}


def _caxpy_reference(variant: str, inputs, params) -> dict:
    a = complex(float(inputs["ar"]), float(inputs["ai"]))
    if variant == "interleaved":
        x = inputs["x"].astype(np.float64).view(np.complex128)
        y = inputs["y"].astype(np.float64).view(np.complex128)
        return {"z": u.as_dtype_of((a * x + y).view(np.float64), inputs["x"])}
    x = inputs["x_re"].astype(np.float64) + 1j * inputs["x_im"]
    y = inputs["y_re"].astype(np.float64) + 1j * inputs["y_im"]
    z = a * x + y
    return {"z_re": u.as_dtype_of(z.real, inputs["x_re"]),
            "z_im": u.as_dtype_of(z.imag, inputs["x_re"])}


COMPLEX_AXPY = KernelSpec(
    name="complex_axpy",
    role=KernelRole.UNSEEN,
    description="Complex z = a x + y: real and imaginary parts interleaved in one array "
                "(stride-2 lanes, both halves used) or in separate arrays.",
    parameters=("n",),
    variants=tuple(_CAXPY),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_caxpy,
    size_cases=lambda p: tuple({"n": n} for n in _scaled(p)),
    default_p=18,
    p_choices=(17, 18, 19),
    make_inputs=partial(_caxpy_inputs, "interleaved"),
    reference=partial(_caxpy_reference, "interleaved"),
    variant_make_inputs=_caxpy_inputs,
    variant_reference=_caxpy_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ partial A^T x for a tall, skinny matrix

#: Columns of A (and entries of the result per chunk).
ATX_COLS = 64
#: Rows summed by one work group.
ATX_CHUNK = 1024


def _build_atx(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("tree",), 2)
    g0, g1 = req.group_size
    k, c = ATX_COLS, ATX_CHUNK
    knl = u.make_kernel(
        f"{{[ch, j, r]: 0 <= ch and {c}*ch < n and 0 <= j < {k} and 0 <= r < {c}}}",
        f"part[ch, j] = sum(r, a[{c}*ch + r, j] * x[{c}*ch + r]) {{id=result}}",
        [u.array("a", req.dtype, ("n", k)), u.array("x", req.dtype, ("n",)),
         u.array("part", req.dtype, (f"n // {c}", k)), *u.size_args("n")],
        name="atx_partial", assumptions=f"n >= {c} and n mod {c} = 0",
        silenced=_TREE_SILENCED)
    # columns (contiguous) on axis 0, passes over them on grid axis 1; the chunk's
    # rows shared by the g1 lanes of axis 1, which then add up in local memory
    knl = lp.tag_inames(knl, {"ch": "g.0"})
    knl = lp.split_iname(knl, "j", g0, inner_tag="l.0", outer_tag="g.1")
    knl = lp.split_iname(knl, "r", g1, inner_tag="l.1")
    return lp.split_reduction_inward(knl, "r_outer")


def _atx_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    return {"a": u.random_array(rng, (n, ATX_COLS), dtype),
            "x": u.random_array(rng, (n,), dtype)}


def _atx_reference(inputs, params) -> dict:
    a, x = inputs["a"].astype(np.float64), inputs["x"].astype(np.float64)
    prod = (a * x[:, None]).reshape(-1, ATX_CHUNK, ATX_COLS).sum(axis=1)
    return {"part": u.as_dtype_of(prod, inputs["a"])}


ATX_PARTIAL = KernelSpec(
    name="atx_partial",
    role=KernelRole.UNSEEN,
    description=f"First stage of A^T x for a tall n x {ATX_COLS} matrix: each work "
                f"group sums {ATX_CHUNK} rows for its columns, lanes along the rows "
                f"combining in a local-memory tree.",
    parameters=("n",),
    variants=("tree",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_atx,
    size_cases=lambda p: tuple({"n": n} for n in _scaled(p)),
    default_p=14,
    p_choices=(13, 14, 15),
    make_inputs=_atx_inputs,
    reference=_atx_reference,
    check_params={"n": 3 * ATX_CHUNK},
)

# }}}


# {{{ batched triangular solves

#: Unknowns of each system.
TRSV_SIZE = 24

#: variant -> how L_e[i, j] and b_e[i] are indexed
_TRSV: Mapping[str, tuple[str, str, tuple, tuple]] = {
    "batch_major": ("L[e, {i}, {j}]", "b[e, i]", ("nb", TRSV_SIZE, TRSV_SIZE),
                    ("nb", TRSV_SIZE)),
    "batch_minor": ("L[{i}, {j}, e]", "b[i, e]", (TRSV_SIZE, TRSV_SIZE, "nb"),
                    (TRSV_SIZE, "nb")),
}


def _build_trsv(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_TRSV), 1)
    lmat, bvec, lshape, bshape = _TRSV[req.variant]
    xout = "x[e, i]" if req.variant == "batch_major" else "x[i, e]"
    knl = u.make_kernel(
        ["{[e, i]: 0 <= e < nb and 0 <= i < %d}" % TRSV_SIZE, "{[j]: 0 <= j < i}"],
        f"""
        for e
            for i
                <> acc = {bvec} {{id=init}}
                for j
                    acc = acc - {lmat.format(i="i", j="j")} * xp[j] {{id=update, dep=*init}}
                end
                xp[i] = acc / {lmat.format(i='i', j='i')} {{id=solve, dep=update}}
                {xout} = xp[i] {{dep=solve}}
            end
        end
        """,
        [u.array("L", req.dtype, lshape), u.array("b", req.dtype, bshape),
         u.array("x", req.dtype, bshape),
         lp.TemporaryVariable("xp", req.dtype.numpy, shape=(TRSV_SIZE,),
                              address_space=lp.AddressSpace.PRIVATE),
         *u.size_args("nb")],
        name="batched_trsv", assumptions="nb >= 1")
    return u.split_1d(knl, "e", req.group_size)


def _trsv_inputs(variant: str, params, dtype, rng) -> dict:
    nb, s = params["nb"], TRSV_SIZE
    # diagonally dominant: the solve is well conditioned in float32
    low = np.tril(rng.random((nb, s, s)) - 0.5, -1) / s
    mat = low + np.eye(s) * (1.0 + rng.random((nb, s, 1)))
    rhs = rng.random((nb, s))
    if variant == "batch_minor":
        mat, rhs = mat.transpose(1, 2, 0), rhs.T
    return {"L": np.ascontiguousarray(mat, dtype=dtype.numpy),
            "b": np.ascontiguousarray(rhs, dtype=dtype.numpy)}


def _trsv_reference(variant: str, inputs, params) -> dict:
    mat, rhs = inputs["L"].astype(np.float64), inputs["b"].astype(np.float64)
    if variant == "batch_minor":
        mat, rhs = mat.transpose(2, 0, 1), rhs.T
    x = np.linalg.solve(mat, rhs[..., None])[..., 0]
    if variant == "batch_minor":
        x = x.T
    return {"x": u.as_dtype_of(np.ascontiguousarray(x), inputs["L"])}


BATCHED_TRSV = KernelSpec(
    name="batched_trsv",
    role=KernelRole.UNSEEN,
    description=f"Forward substitution L_e x_e = b_e for nb lower-triangular "
                f"{TRSV_SIZE} x {TRSV_SIZE} systems, one work item per system, the "
                f"solution in a private array; L_e stored per system (lanes a matrix "
                f"apart) or interleaved over the batch (adjacent lanes).",
    parameters=("nb",),
    variants=tuple(_TRSV),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_trsv,
    size_cases=lambda p: tuple({"nb": nb} for nb in _scaled(p)),
    default_p=12,
    p_choices=(11, 12, 13),
    make_inputs=partial(_trsv_inputs, "batch_major"),
    reference=partial(_trsv_reference, "batch_major"),
    variant_make_inputs=_trsv_inputs,
    variant_reference=_trsv_reference,
    rtol=1e-3,
    check_params={"nb": 300},
)

# }}}


# {{{ column-wise running sums

def _build_cumsum(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("sequential",), 1)
    knl = u.make_kernel(
        "{[i, t]: 0 <= i < n and 0 <= t < m}",
        """
        for i
            <> acc = 0 {id=init}
            for t
                acc = acc + a[t, i] {id=update, dep=init}
                out[t, i] = acc {id=store, dep=update}
            end
        end
        """,
        [u.array("a", req.dtype, ("m", "n")), u.array("out", req.dtype, ("m", "n")),
         *u.size_args("n", "m")],
        name="column_cumsum", assumptions="n >= 1 and m >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _cumsum_inputs(params, dtype, rng) -> dict:
    return {"a": u.random_array(rng, (params["m"], params["n"]), dtype)}


def _cumsum_reference(inputs, params) -> dict:
    return {"out": u.as_dtype_of(np.cumsum(inputs["a"].astype(np.float64), axis=0),
                                 inputs["a"])}


def _cumsum_cases(p: int) -> tuple[dict[str, int], ...]:
    # 1024 to 8192 columns: 2 to 64 work groups, far fewer than an H100's 132 SMs
    return tuple({"n": 2 ** (10 + t), "m": 2 ** p} for t in range(4))


COLUMN_CUMSUM = KernelSpec(
    name="column_cumsum",
    role=KernelRole.UNSEEN,
    description="Running sums down the columns of an m x n matrix, one work item per "
                "column looping over m rows: few work groups, long sequential work "
                "(latency-bound small grids).",
    parameters=("n", "m"),
    variants=("sequential",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_cumsum,
    size_cases=_cumsum_cases,
    default_p=10,
    p_choices=(9, 10),
    make_inputs=_cumsum_inputs,
    reference=_cumsum_reference,
    check_params={"n": 300, "m": 77},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (SPMV_ELL, COMPLEX_AXPY, ATX_PARTIAL, BATCHED_TRSV,
                                 COLUMN_CUMSUM)
