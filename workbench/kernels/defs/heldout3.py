"""The third held-out set (``--set heldout3``): kernels kept out of all fitting and design.

Like the unseen sets (:mod:`.unseen`, :mod:`.unseen_wide`), these kernels have role
:attr:`KernelRole.UNSEEN`, so every fit's exclusion of that role covers them. They
were written after the models, by someone who did not look at the models' internals,
to check a finished method on code nobody shaped it around: they must never be used
to fit a model, choose features or settings, or pick a default, and their results are
reported apart from the other unseen sets. They keep the catalog's conventions.

* ``lcg_chain``: each work item runs a long dependent recurrence x = a x + b
  (``CHAIN_STEPS`` steps) on one value: latency of a serial chain, almost no memory
  traffic; the smallest case launches a few dozen work groups.
* ``row_serial_sum``: one work item per row sums ``ROW_LEN`` entries in a sequential
  loop; lanes read a whole row apart, and there are few work items.
* ``gather_perm``: out[i] = w[i] x[idx[i]] through a permutation; the same code for a
  permutation that shuffles within blocks of ``GATHER_BLOCK`` (local) or one that
  scatters over the whole vector (random).
* ``star19_3d``: the 19-point stencil (centre, faces, edges) on a 3-D grid, one point
  per work item with z on grid axis 2, or each item marching ``STAR_Z_CHUNK`` planes.
* ``batched_lu``: LU factorization without pivoting of nb ``LU_SIZE`` squared
  matrices, one work item per matrix, in a private array; matrices stored one after
  the other (lanes a matrix apart) or interleaved over the batch (adjacent lanes).
* ``softmax_rows``: softmax of each row of ``SOFTMAX_COLS`` entries, one work group
  per row: a max and a sum reduced across the group's lanes in local memory (with
  barriers), exponentials, then the normalized row.
* ``upsample2x``: bilinear upsampling of an (n+1)^2 image to 2n x 2n, each work item
  writing a 2 x 2 block (stride-2 stores).
* ``complex_strided_mul``: z = x y for complex numbers read every S-th entry of
  interleaved complex arrays (a column of a complex matrix), S = 2 or 8.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec

# loopy's local-parallel reduction keeps its result in the last stage, where only
# lane 0 is active; its race check does not see that and warns.
_TREE_SILENCED = ("write_race(*)",)


def _scaled(p: int, scale: int = 1) -> tuple[int, ...]:
    return u.pow2(p, range(4), scale=scale)


# {{{ a long dependent recurrence per work item

#: Steps of each work item's chain.
CHAIN_STEPS = 2048
_CHAIN_COEFFS = (("ca", 0.999), ("cb", 0.001))


def _build_chain(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("recurrence",), 1)
    knl = u.make_kernel(
        f"{{[i, t]: 0 <= i < n and 0 <= t < {CHAIN_STEPS}}}",
        """
        for i
            <> v = x0[i] {id=init}
            for t
                v = ca*v + cb {id=step, dep=init}
            end
            x[i] = v {dep=step}
        end
        """,
        [u.array("x0", req.dtype, ("n",)), u.array("x", req.dtype, ("n",)),
         *(lp.ValueArg(c, req.dtype.numpy) for c, _ in _CHAIN_COEFFS),
         *u.size_args("n")],
        name="lcg_chain", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _chain_inputs(params, dtype, rng) -> dict:
    return {"x0": u.random_array(rng, (params["n"],), dtype),
            **{c: dtype.numpy.type(v) for c, v in _CHAIN_COEFFS}}


def _chain_reference(inputs, params) -> dict:
    v = inputs["x0"].astype(np.float64)
    a, b = float(inputs["ca"]), float(inputs["cb"])
    for _ in range(CHAIN_STEPS):
        v = a * v + b
    return {"x": u.as_dtype_of(v, inputs["x0"])}


LCG_CHAIN = KernelSpec(
    name="lcg_chain",
    role=KernelRole.UNSEEN,
    description=f"Each work item runs the dependent recurrence x = a x + b for "
                f"{CHAIN_STEPS} steps on one value (a serial chain of multiply-adds, "
                f"one load and one store per item).",
    parameters=("n",),
    variants=("recurrence",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_chain,
    # 4096 to 262144 work items: from 32 groups to a few waves
    size_cases=lambda p: tuple({"n": n} for n in _scaled(p, 2)),
    default_p=12,
    p_choices=(11, 12, 13),
    make_inputs=_chain_inputs,
    reference=_chain_reference,
    rtol=1e-3,
    check_params={"n": 1000},
)

# }}}


# {{{ one sequential loop per row

#: Entries of each row.
ROW_LEN = 2048


def _build_row_serial(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("sequential",), 1)
    knl = u.make_kernel(
        f"{{[r, c]: 0 <= r < m and 0 <= c < {ROW_LEN}}}",
        "out[r] = sum(c, a[r, c])",
        [u.array("a", req.dtype, ("m", ROW_LEN)), u.array("out", req.dtype, ("m",)),
         *u.size_args("m")],
        name="row_serial_sum", assumptions="m >= 1")
    return u.split_1d(knl, "r", req.group_size)


def _row_serial_inputs(params, dtype, rng) -> dict:
    return {"a": u.random_array(rng, (params["m"], ROW_LEN), dtype)}


def _row_serial_reference(inputs, params) -> dict:
    return {"out": u.as_dtype_of(inputs["a"].astype(np.float64).sum(axis=1), inputs["a"])}


ROW_SERIAL_SUM = KernelSpec(
    name="row_serial_sum",
    role=KernelRole.UNSEEN,
    description=f"Row sums of an m x {ROW_LEN} matrix, one work item per row looping "
                f"over its entries: lanes a row apart, few work items.",
    parameters=("m",),
    variants=("sequential",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_row_serial,
    # 1024 to 8192 rows: 3 to 64 work groups
    size_cases=lambda p: tuple({"m": m} for m in _scaled(p)),
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=_row_serial_inputs,
    reference=_row_serial_reference,
    check_params={"m": 300},
)

# }}}


# {{{ gather through a permutation

#: The local permutation shuffles within blocks of this many entries.
GATHER_BLOCK = 4096
_GATHER_VARIANTS = ("local", "random")

_GATHER_INSN = """
<> k = idx[i] {id=load_idx}
out[i] = w[i] * x[k] {dep=load_idx}
"""


def _build_gather(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _GATHER_VARIANTS, 1)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}", _GATHER_INSN,
        [lp.GlobalArg("idx", np.int32, shape=("n",)), u.array("w", req.dtype, ("n",)),
         u.array("x", req.dtype, ("n",)), u.array("out", req.dtype, ("n",)),
         *u.size_args("n")],
        name="gather_perm", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _gather_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    if variant == "local":
        starts = np.arange(0, n, GATHER_BLOCK)
        idx = np.concatenate([s + rng.permutation(min(GATHER_BLOCK, n - s))
                              for s in starts])
    else:
        idx = rng.permutation(n)
    return {"idx": idx.astype(np.int32), "w": u.random_array(rng, (n,), dtype),
            "x": u.random_array(rng, (n,), dtype)}


def _gather_reference(inputs, params) -> dict:
    w, x = inputs["w"].astype(np.float64), inputs["x"].astype(np.float64)
    return {"out": u.as_dtype_of(w * x[inputs["idx"]], inputs["w"])}


GATHER_PERM = KernelSpec(
    name="gather_perm",
    role=KernelRole.UNSEEN,
    description=f"out[i] = w[i] x[idx[i]] through a permutation (indirect loads): "
                f"shuffled within blocks of {GATHER_BLOCK} (local) or over the whole "
                f"vector (random), the same code.",
    parameters=("n",),
    variants=_GATHER_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_gather,
    size_cases=lambda p: tuple({"n": n} for n in _scaled(p, 2)),
    default_p=18,
    p_choices=(17, 18, 19),
    make_inputs=partial(_gather_inputs, "local"),
    reference=_gather_reference,
    variant_make_inputs=_gather_inputs,
    check_params={"n": 10000},
)

# }}}


# {{{ 19-point 3-D stencil

STAR_Z_CHUNK = 16
_STAR_VARIANTS = ("flat", "zchunk")
_STAR_WEIGHTS = (("c0", 0.4), ("c1", 0.05), ("c2", 0.025))


def _star19_offsets() -> dict[int, list[tuple[int, int, int]]]:
    # the neighbours within one step along at most two axes, by how many axes move
    classes: dict[int, list[tuple[int, int, int]]] = {0: [], 1: [], 2: []}
    for off in itertools.product((0, 1, 2), repeat=3):
        far = sum(d != 1 for d in off)
        if far <= 2:
            classes[far].append(off)
    return classes


def _build_star19(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _STAR_VARIANTS, 2)
    terms = " + ".join(
        f"c{k}*({' + '.join(f'u[z+{dz}, y+{dy}, x+{dx}]' for dz, dy, dx in offs)})"
        for k, offs in _star19_offsets().items())
    knl = u.make_kernel(
        "{[x, y, z]: 0 <= x < nx and 0 <= y < ny and 0 <= z < nz}",
        f"out[z, y, x] = {terms}",
        [u.array("u", req.dtype, ("nz+2", "ny+2", "nx+2")),
         u.array("out", req.dtype, ("nz", "ny", "nx")),
         *(lp.ValueArg(w, req.dtype.numpy) for w, _ in _STAR_WEIGHTS),
         *u.size_args("nx", "ny", "nz")],
        name="star19_3d", assumptions="nx >= 1 and ny >= 1 and nz >= 1")
    knl = u.split_2d(knl, "y", "x", req.group_size)
    if req.variant == "flat":
        return lp.tag_inames(knl, {"z": "g.2"})
    return lp.split_iname(knl, "z", STAR_Z_CHUNK, outer_tag="g.2")


def _star19_inputs(params, dtype, rng) -> dict:
    shape = (params["nz"] + 2, params["ny"] + 2, params["nx"] + 2)
    return {"u": u.random_array(rng, shape, dtype),
            **{w: dtype.numpy.type(v) for w, v in _STAR_WEIGHTS}}


def _star19_reference(inputs, params) -> dict:
    v = inputs["u"].astype(np.float64)
    nz, ny, nx = (s - 2 for s in v.shape)
    res = np.zeros((nz, ny, nx))
    for far, offs in _star19_offsets().items():
        for dz, dy, dx in offs:
            res += float(inputs[f"c{far}"]) * v[dz:dz + nz, dy:dy + ny, dx:dx + nx]
    return {"out": u.as_dtype_of(res, inputs["u"])}


def _star19_cases(p: int) -> tuple[dict[str, int], ...]:
    # the point count doubles from case to case: z, then y, then x
    return tuple({"nx": 2 ** (p + t // 3), "ny": 2 ** (p + (t + 1) // 3),
                  "nz": 2 ** (p + (t + 2) // 3)} for t in range(4))


STAR19_3D = KernelSpec(
    name="star19_3d",
    role=KernelRole.UNSEEN,
    description=f"19-point stencil (centre, 6 faces, 12 edges; three weights) on an "
                f"nx x ny x nz grid (padded input), 19 global loads per point; one "
                f"point per work item, or each marching through {STAR_Z_CHUNK} z planes.",
    parameters=("nx", "ny", "nz"),
    variants=_STAR_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_star19,
    size_cases=_star19_cases,
    default_p=7,
    p_choices=(6, 7, 8),
    make_inputs=_star19_inputs,
    reference=_star19_reference,
    check_params={"nx": 37, "ny": 19, "nz": 21},
)

# }}}


# {{{ batched LU without pivoting

#: Rows (and columns) of each matrix.
LU_SIZE = 8

#: variant -> (index of entry (i, j) of matrix e, shape)
_LU: Mapping[str, tuple[str, tuple]] = {
    "batch_major": ("{a}[e, {i}, {j}]", ("nb", LU_SIZE, LU_SIZE)),
    "batch_minor": ("{a}[{i}, {j}, e]", (LU_SIZE, LU_SIZE, "nb")),
}


def _build_lu(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_LU), 1)
    entry, shape = _LU[req.variant]
    s = LU_SIZE
    # row k is final once step k starts, so each step reads it and the rows below
    # as the previous steps left them: the loop order carries the dependence
    knl = u.make_kernel(
        [f"{{[e, i0, j0, i1, j1, k]: 0 <= e < nb and 0 <= i0, j0, i1, j1, k < {s}}}",
         f"{{[i, j]: k < i < {s} and k < j < {s}}}"],
        f"""
        for e
            m[i0, j0] = {entry.format(a="a", i="i0", j="j0")} {{id=load}}
            for k
                for i
                    <> piv = m[i, k] / m[k, k] {{id=piv, dep=load, nosync=update}}
                    m[i, k] = piv {{id=store_l, dep=piv}}
                    for j
                        m[i, j] = m[i, j] - piv*m[k, j] {{id=update, dep=store_l}}
                    end
                end
            end
            {entry.format(a="lu", i="i1", j="j1")} = m[i1, j1] {{dep=update:store_l}}
        end
        """,
        [u.array("a", req.dtype, shape), u.array("lu", req.dtype, shape),
         lp.TemporaryVariable("m", req.dtype.numpy, shape=(s, s),
                              address_space=lp.AddressSpace.PRIVATE),
         *u.size_args("nb")],
        name="batched_lu", assumptions="nb >= 1")
    return u.split_1d(knl, "e", req.group_size)


def _lu_inputs(variant: str, params, dtype, rng) -> dict:
    nb, s = params["nb"], LU_SIZE
    # diagonally dominant: no pivoting needed, well conditioned in float32
    mat = (rng.random((nb, s, s)) - 0.5) / s + np.eye(s) * (1.0 + rng.random((nb, s, 1)))
    if variant == "batch_minor":
        mat = mat.transpose(1, 2, 0)
    return {"a": np.ascontiguousarray(mat, dtype=dtype.numpy)}


def _lu_reference(variant: str, inputs, params) -> dict:
    m = inputs["a"].astype(np.float64)
    if variant == "batch_minor":
        m = m.transpose(2, 0, 1)
    m = m.copy()
    for k in range(LU_SIZE - 1):
        m[:, k + 1:, k] /= m[:, k:k + 1, k]
        m[:, k + 1:, k + 1:] -= m[:, k + 1:, k:k + 1] * m[:, k:k + 1, k + 1:]
    if variant == "batch_minor":
        m = m.transpose(1, 2, 0)
    return {"lu": u.as_dtype_of(np.ascontiguousarray(m), inputs["a"])}


BATCHED_LU = KernelSpec(
    name="batched_lu",
    role=KernelRole.UNSEEN,
    description=f"LU factorization without pivoting of nb {LU_SIZE} x {LU_SIZE} "
                f"matrices, one work item per matrix in a private array; matrices "
                f"stored one after the other (lanes a matrix apart) or interleaved "
                f"over the batch (adjacent lanes).",
    parameters=("nb",),
    variants=tuple(_LU),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_lu,
    size_cases=lambda p: tuple({"nb": nb} for nb in _scaled(p, 2)),
    default_p=12,
    p_choices=(11, 12, 13),
    make_inputs=partial(_lu_inputs, "batch_major"),
    reference=partial(_lu_reference, "batch_major"),
    variant_make_inputs=_lu_inputs,
    variant_reference=_lu_reference,
    rtol=1e-3,
    check_params={"nb": 300},
)

# }}}


# {{{ row-wise softmax, one work group per row

#: Entries of each row.
SOFTMAX_COLS = 1024


def _build_softmax(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("group_per_row",), 1)
    (g,) = req.group_size
    c = SOFTMAX_COLS
    knl = u.make_kernel(
        f"{{[r, j, jj, jo]: 0 <= r < m and 0 <= j, jj, jo < {c}}}",
        """
        mx = reduce(max, j, a[r, j]) {id=mx}
        ... lbarrier {id=sync_mx, dep=mx}
        den = sum(jj, exp(a[r, jj] - mx)) {id=den, dep=sync_mx}
        ... lbarrier {id=sync_den, dep=den}
        out[r, jo] = exp(a[r, jo] - mx) / den {dep=sync_den}
        """,
        [u.array("a", req.dtype, ("m", c)), u.array("out", req.dtype, ("m", c)),
         # the tree's last stage leaves each result with lane 0: local memory and
         # a barrier hand it to every lane
         *(lp.TemporaryVariable(t, req.dtype.numpy, shape=(),
                                address_space=lp.AddressSpace.LOCAL) for t in ("mx", "den")),
         *u.size_args("m")],
        name="softmax_rows", assumptions="m >= 1", silenced=_TREE_SILENCED)
    knl = lp.tag_inames(knl, {"r": "g.0"})
    # each lane takes entries l, l + g, ... of its row; the lanes then combine the
    # max and the sum in local memory
    for red in ("j", "jj"):
        knl = lp.split_iname(knl, red, g, inner_tag="l.0")
        knl = lp.split_reduction_inward(knl, f"{red}_outer")
    return lp.split_iname(knl, "jo", g, inner_tag="l.0")


def _softmax_inputs(params, dtype, rng) -> dict:
    return {"a": u.random_array(rng, (params["m"], SOFTMAX_COLS), dtype, low=-4, high=4)}


def _softmax_reference(inputs, params) -> dict:
    a = inputs["a"].astype(np.float64)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return {"out": u.as_dtype_of(e / e.sum(axis=1, keepdims=True), inputs["a"])}


SOFTMAX_ROWS = KernelSpec(
    name="softmax_rows",
    role=KernelRole.UNSEEN,
    description=f"Softmax of each row of an m x {SOFTMAX_COLS} matrix, one work group "
                f"per row: the row's max and sum of exponentials reduced across the "
                f"lanes in local memory (barriers), then the normalized row.",
    parameters=("m",),
    variants=("group_per_row",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_softmax,
    size_cases=lambda p: tuple({"m": m} for m in _scaled(p, 2)),
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=_softmax_inputs,
    reference=_softmax_reference,
    rtol=1e-3,
    check_params={"m": 37},
)

# }}}


# {{{ bilinear 2x upsampling

_UPSAMPLE_INSN = """
out[2*i, 2*j] = u[i, j]
out[2*i, 2*j + 1] = 0.5*(u[i, j] + u[i, j+1])
out[2*i + 1, 2*j] = 0.5*(u[i, j] + u[i+1, j])
out[2*i + 1, 2*j + 1] = 0.25*(u[i, j] + u[i, j+1] + u[i+1, j] + u[i+1, j+1])
"""


def _build_upsample(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("bilinear",), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i, j < n}", _UPSAMPLE_INSN,
        [u.array("u", req.dtype, ("n+1", "n+1")),
         u.array("out", req.dtype, ("2*n", "2*n")), *u.size_args("n")],
        name="upsample2x", assumptions="n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _upsample_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    return {"u": u.random_array(rng, (n + 1, n + 1), dtype)}


def _upsample_reference(inputs, params) -> dict:
    v, n = inputs["u"].astype(np.float64), params["n"]
    out = np.empty((2 * n, 2 * n))
    c, r, d, rd = v[:n, :n], v[:n, 1:], v[1:, :n], v[1:, 1:]
    out[0::2, 0::2] = c
    out[0::2, 1::2] = 0.5 * (c + r)
    out[1::2, 0::2] = 0.5 * (c + d)
    out[1::2, 1::2] = 0.25 * (c + r + d + rd)
    return {"out": u.as_dtype_of(out, inputs["u"])}


UPSAMPLE2X = KernelSpec(
    name="upsample2x",
    role=KernelRole.UNSEEN,
    description="Bilinear upsampling of an (n+1) x (n+1) image to 2n x 2n, each work "
                "item reading four pixels and writing a 2 x 2 block (stride-2 stores).",
    parameters=("n",),
    variants=("bilinear",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_upsample,
    size_cases=u.doubling_lengths,
    default_p=9,
    p_choices=(8, 9, 10),
    make_inputs=_upsample_inputs,
    reference=_upsample_reference,
    check_params={"n": 45},
)

# }}}


# {{{ complex product with strided reads

#: variant -> the stride, in complex numbers, between entries read
_CSTRIDES: Mapping[str, int] = {"stride2": 2, "stride8": 8}

_CMUL_INSN = """
<> xr = x[{s}*i, 0] {{id=xr}}
<> xi = x[{s}*i, 1] {{id=xi}}
<> yr = y[{s}*i, 0] {{id=yr}}
<> yi = y[{s}*i, 1] {{id=yi}}
z[i, 0] = xr*yr - xi*yi {{dep=xr:xi:yr:yi}}
z[i, 1] = xr*yi + xi*yr {{dep=xr:xi:yr:yi}}
"""


def _build_cmul(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_CSTRIDES), 1)
    s = _CSTRIDES[req.variant]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}", _CMUL_INSN.format(s=s),
        [u.array("x", req.dtype, (f"{s}*n", 2)), u.array("y", req.dtype, (f"{s}*n", 2)),
         u.array("z", req.dtype, ("n", 2)), *u.size_args("n")],
        name="complex_strided_mul", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _cmul_inputs(variant: str, params, dtype, rng) -> dict:
    rows = _CSTRIDES[variant] * params["n"]
    return {"x": u.random_array(rng, (rows, 2), dtype),
            "y": u.random_array(rng, (rows, 2), dtype)}


def _cmul_reference(variant: str, inputs, params) -> dict:
    s = _CSTRIDES[variant]

    def picked(v):
        v = v[::s].astype(np.float64)
        return v[:, 0] + 1j * v[:, 1]

    z = picked(inputs["x"]) * picked(inputs["y"])
    return {"z": u.as_dtype_of(np.stack([z.real, z.imag], axis=1), inputs["x"])}


COMPLEX_STRIDED_MUL = KernelSpec(
    name="complex_strided_mul",
    role=KernelRole.UNSEEN,
    description="Complex z = x y, x and y read every S-th entry of interleaved complex "
                "arrays (a column of a complex matrix; S = 2 or 8), z written densely.",
    parameters=("n",),
    variants=tuple(_CSTRIDES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_cmul,
    size_cases=lambda p: tuple({"n": n} for n in _scaled(p, 2)),
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=partial(_cmul_inputs, "stride2"),
    reference=partial(_cmul_reference, "stride2"),
    variant_make_inputs=_cmul_inputs,
    variant_reference=_cmul_reference,
    check_params={"n": 1000},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (LCG_CHAIN, ROW_SERIAL_SUM, GATHER_PERM, STAR19_3D,
                                 BATCHED_LU, SOFTMAX_ROWS, UPSAMPLE2X,
                                 COMPLEX_STRIDED_MUL)
