"""The fourth held-out set (``--set heldout4``): kernels kept out of all fitting and design.

The third set (:mod:`.heldout3`) has been read kernel by kernel since it was reported,
so it no longer tells how a finished method does on code nobody looked at; this set
takes its place. Like every unseen set its kernels have role :attr:`KernelRole.UNSEEN`,
so every fit's exclusion of that role covers them. They were written after the models,
without looking at the models' internals or at any model's errors on other sets: they
must never be used to fit a model, choose features or settings, or pick a default, and
their results are reported apart. They keep the catalog's conventions (symbolic int32
sizes, the contiguous index on work-group axis 0, numpy references, exact counts).

* ``decimate_fir``: a ``FIR_TAPS``-tap filter that keeps every second output,
  out[i] = sum_k f[k] x[2 i + k] (stride-2 windows), the tap loop kept or unrolled.
* ``softplus_rounds``: v <- sqrt(log(1 + exp(v)) + c), 2 or 12 dependent rounds per
  entry: exponentials, logarithms and square roots, one load and one store.
* ``rigid_transform3``: q = R p + t for n points of three coordinates, a 3 x 3 matrix
  and offset shared by all items, points stored as xyz triples (stride 3) or as three
  coordinate arrays.
* ``tridiag_matvec``: y = T x for a tridiagonal T, its diagonals as three arrays or
  packed as rows of three (stride 3).
* ``batched_quadform``: s_e = x_e^T M x_e for nb vectors of ``QF_SIZE`` entries
  (interleaved over the batch), M x_e kept in a private array; M shared by all items
  or one per item (interleaved too).
* ``keyed_bucket_sums``: each work item sums its chunk of ``BUCKET_CHUNK`` values into
  ``BUCKET_KEYS`` private sums picked by an integer key per value (a data-dependent
  index into a private array), then writes them; chunks contiguous (lanes a chunk
  apart) or interleaved (adjacent lanes).

The kernels on 2-D groups (transpose_add, outer_update, star13_3d) are in
:mod:`.heldout4_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _scaled(p: int, scale: int = 1) -> tuple[int, ...]:
    return u.pow2(p, range(4), scale=scale)


def _values(dtype, pairs) -> dict:
    return {name: dtype.numpy.type(v) for name, v in pairs}


# {{{ decimating FIR filter

#: Taps of the filter.
FIR_TAPS = 32
_FIR_VARIANTS = ("tap_loop", "unrolled")


def _build_fir(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _FIR_VARIANTS, 1)
    knl = u.make_kernel(
        f"{{[i, k]: 0 <= i < n and 0 <= k < {FIR_TAPS}}}",
        "out[i] = sum(k, f[k] * x[2*i + k])",
        [u.array("x", req.dtype, (f"2*n+{FIR_TAPS - 2}",)),
         u.array("f", req.dtype, (FIR_TAPS,)), u.array("out", req.dtype, ("n",)),
         *u.size_args("n")],
        name="decimate_fir", assumptions="n >= 1")
    knl = u.split_1d(knl, "i", req.group_size)
    if req.variant == "unrolled":
        knl = lp.tag_inames(knl, {"k": "unr"})
    return knl


def _fir_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    return {"x": u.random_array(rng, (2 * n + FIR_TAPS - 2,), dtype),
            "f": u.random_array(rng, (FIR_TAPS,), dtype, low=0.1)}


def _fir_reference(inputs, params) -> dict:
    x, f, n = inputs["x"].astype(np.float64), inputs["f"].astype(np.float64), params["n"]
    out = sum(f[k] * x[k:k + 2 * n:2] for k in range(FIR_TAPS))
    return {"out": u.as_dtype_of(out, inputs["x"])}


DECIMATE_FIR = KernelSpec(
    name="decimate_fir",
    role=KernelRole.UNSEEN,
    description=f"A {FIR_TAPS}-tap FIR filter keeping every second output, out[i] = "
                f"sum_k f[k] x[2i + k]: overlapping stride-2 windows, the filter shared "
                f"by all items; the tap loop kept or unrolled.",
    parameters=("n",),
    variants=_FIR_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_fir,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_fir_inputs,
    reference=_fir_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ rounds of special functions per entry

#: variant -> dependent rounds per entry
_SOFTPLUS_ROUNDS: Mapping[str, int] = {"rounds2": 2, "rounds12": 12}
_SOFTPLUS_SHIFT = (("c", 0.5),)


def _build_softplus(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_SOFTPLUS_ROUNDS), 1)
    knl = u.make_kernel(
        f"{{[i, r]: 0 <= i < n and 0 <= r < {_SOFTPLUS_ROUNDS[req.variant]}}}",
        """
        for i
            <> v = x[i] {id=init}
            for r
                v = sqrt(log(1 + exp(v)) + c) {id=round, dep=init}
            end
            y[i] = v {dep=round}
        end
        """,
        [u.array("x", req.dtype, ("n",)), u.array("y", req.dtype, ("n",)),
         lp.ValueArg("c", req.dtype.numpy), *u.size_args("n")],
        name="softplus_rounds", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _softplus_inputs(params, dtype, rng) -> dict:
    return {"x": u.random_array(rng, (params["n"],), dtype, low=-2, high=2),
            **_values(dtype, _SOFTPLUS_SHIFT)}


def _softplus_reference(variant: str, inputs, params) -> dict:
    v, c = inputs["x"].astype(np.float64), float(inputs["c"])
    for _ in range(_SOFTPLUS_ROUNDS[variant]):
        v = np.sqrt(np.log1p(np.exp(v)) + c)
    return {"y": u.as_dtype_of(v, inputs["x"])}


SOFTPLUS_ROUNDS = KernelSpec(
    name="softplus_rounds",
    role=KernelRole.UNSEEN,
    description="v <- sqrt(log(1 + exp(v)) + c), 2 or 12 dependent rounds per entry "
                "(an exponential, a logarithm and a square root each), one load and one "
                "store per entry.",
    parameters=("n",),
    variants=tuple(_SOFTPLUS_ROUNDS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_softplus,
    size_cases=u.doubling_lengths,
    default_p=19,
    p_choices=(18, 19, 20),
    make_inputs=_softplus_inputs,
    reference=partial(_softplus_reference, "rounds2"),
    variant_reference=_softplus_reference,
    check_params={"n": 1000},
)

# }}}



# {{{ rigid transform of 3-D points

#: variant -> (index of coordinate d of point i, shape of a point array)
_POINTS: Mapping[str, tuple[str, tuple]] = {
    "xyz_triples": ("{a}[i, {d}]", ("n", 3)),
    "coordinate_arrays": ("{a}[{d}, i]", (3, "n")),
}


def _build_rigid(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_POINTS), 1)
    entry, shape = _POINTS[req.variant]
    loads = "\n".join(f"<> p{d} = {entry.format(a='pts', d=d)} {{id=p{d}}}"
                      for d in range(3))
    stores = "\n".join(
        f"{entry.format(a='out', d=c)} = "
        f"{' + '.join(f'rot[{c}, {d}]*p{d}' for d in range(3))} + shift[{c}] "
        f"{{dep=p0:p1:p2}}" for c in range(3))
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}", f"{loads}\n{stores}",
        [u.array("pts", req.dtype, shape), u.array("out", req.dtype, shape),
         u.array("rot", req.dtype, (3, 3)), u.array("shift", req.dtype, (3,)),
         *u.size_args("n")],
        name="rigid_transform3", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _rigid_inputs(variant: str, params, dtype, rng) -> dict:
    _, shape = _POINTS[variant]
    shape = tuple(params["n"] if d == "n" else d for d in shape)
    # positive entries: no cancellation, so float32 keeps a relative 1e-4
    return {"pts": u.random_array(rng, shape, dtype),
            "rot": u.random_array(rng, (3, 3), dtype, low=0.2),
            "shift": u.random_array(rng, (3,), dtype)}


def _rigid_reference(variant: str, inputs, params) -> dict:
    pts = inputs["pts"].astype(np.float64)
    rot, shift = inputs["rot"].astype(np.float64), inputs["shift"].astype(np.float64)
    if variant == "xyz_triples":
        out = pts @ rot.T + shift
    else:
        out = rot @ pts + shift[:, None]
    return {"out": u.as_dtype_of(out, inputs["pts"])}


RIGID_TRANSFORM3 = KernelSpec(
    name="rigid_transform3",
    role=KernelRole.UNSEEN,
    description="q = R p + t for n 3-D points, R (3 x 3) and t shared by all items: "
                "points stored as xyz triples (stride-3 loads and stores) or as three "
                "coordinate arrays (stride 1).",
    parameters=("n",),
    variants=tuple(_POINTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_rigid,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_rigid_inputs, "xyz_triples"),
    reference=partial(_rigid_reference, "xyz_triples"),
    variant_make_inputs=_rigid_inputs,
    variant_reference=_rigid_reference,
    check_params={"n": 1000},
)

# }}}



# {{{ tridiagonal matrix-vector product

#: variant -> (index of band b of row i, shape of the bands)
_BANDS: Mapping[str, tuple[str, tuple]] = {
    "band_arrays": ("bands[{b}, i]", (3, "n")),
    "packed_rows": ("bands[i, {b}]", ("n", 3)),
}


def _build_tridiag(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_BANDS), 1)
    entry, shape = _BANDS[req.variant]
    # x is padded by one entry at each end, so row i reads x[i], x[i+1], x[i+2]
    row = " + ".join(f"{entry.format(b=b)}*x[i+{b}]" for b in range(3))
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}", f"y[i] = {row}",
        [u.array("bands", req.dtype, shape), u.array("x", req.dtype, ("n+2",)),
         u.array("y", req.dtype, ("n",)), *u.size_args("n")],
        name="tridiag_matvec", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _tridiag_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    bands = u.random_array(rng, (3, n), dtype)
    if variant == "packed_rows":
        bands = np.ascontiguousarray(bands.T)
    return {"bands": bands, "x": u.random_array(rng, (n + 2,), dtype)}


def _tridiag_reference(variant: str, inputs, params) -> dict:
    bands, x, n = inputs["bands"].astype(np.float64), inputs["x"].astype(np.float64), \
        params["n"]
    if variant == "packed_rows":
        bands = bands.T
    y = sum(bands[b] * x[b:b + n] for b in range(3))
    return {"y": u.as_dtype_of(y, inputs["x"])}


TRIDIAG_MATVEC = KernelSpec(
    name="tridiag_matvec",
    role=KernelRole.UNSEEN,
    description="y = T x for a tridiagonal n x n matrix T: its three diagonals as "
                "separate arrays (stride 1) or packed as rows of three (stride 3), x "
                "padded by one at each end and read three times (cache reuse).",
    parameters=("n",),
    variants=tuple(_BANDS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_tridiag,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_tridiag_inputs, "band_arrays"),
    reference=partial(_tridiag_reference, "band_arrays"),
    variant_make_inputs=_tridiag_inputs,
    variant_reference=_tridiag_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ batched quadratic forms with a private product

#: Entries of each vector (and rows and columns of M).
QF_SIZE = 8

#: variant -> (entry (i, j) of the matrix of item e, shape of the matrix argument)
_QF_MATRIX: Mapping[str, tuple[str, tuple]] = {
    "shared_matrix": ("mat[{i}, {j}]", (QF_SIZE, QF_SIZE)),
    "own_matrix": ("mat[{i}, {j}, e]", (QF_SIZE, QF_SIZE, "nb")),
}


def _build_quadform(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_QF_MATRIX), 1)
    entry, shape = _QF_MATRIX[req.variant]
    s = QF_SIZE
    knl = u.make_kernel(
        f"{{[e, i0, i, j, i2]: 0 <= e < nb and 0 <= i0, i, j, i2 < {s}}}",
        f"""
        for e
            xv[i0] = x[i0, e] {{id=load}}
            mx[i] = sum(j, {entry.format(i="i", j="j")} * xv[j]) {{id=prod, dep=load}}
            q[e] = sum(i2, xv[i2] * mx[i2]) {{dep=prod}}
        end
        """,
        [u.array("x", req.dtype, (s, "nb")), u.array("mat", req.dtype, shape),
         u.array("q", req.dtype, ("nb",)),
         *(lp.TemporaryVariable(t, req.dtype.numpy, shape=(s,),
                                address_space=lp.AddressSpace.PRIVATE)
           for t in ("xv", "mx")),
         *u.size_args("nb")],
        name="batched_quadform", assumptions="nb >= 1")
    return u.split_1d(knl, "e", req.group_size)


def _quadform_inputs(variant: str, params, dtype, rng) -> dict:
    nb, s = params["nb"], QF_SIZE
    _, shape = _QF_MATRIX[variant]
    shape = tuple(nb if d == "nb" else d for d in shape)
    return {"x": u.random_array(rng, (s, nb), dtype),
            "mat": u.random_array(rng, shape, dtype)}


def _quadform_reference(variant: str, inputs, params) -> dict:
    x, mat = inputs["x"].astype(np.float64), inputs["mat"].astype(np.float64)
    if variant == "shared_matrix":
        q = np.einsum("ie,ij,je->e", x, mat, x)
    else:
        q = np.einsum("ie,ije,je->e", x, mat, x)
    return {"q": u.as_dtype_of(q, inputs["x"])}


BATCHED_QUADFORM = KernelSpec(
    name="batched_quadform",
    role=KernelRole.UNSEEN,
    description=f"s_e = x_e^T M x_e for nb vectors of {QF_SIZE} entries stored "
                f"interleaved over the batch, one work item per vector with x_e and "
                f"M x_e in private arrays; M shared by all items (broadcast loads) or "
                f"one {QF_SIZE} x {QF_SIZE} matrix per item, interleaved too.",
    parameters=("nb",),
    variants=tuple(_QF_MATRIX),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_quadform,
    size_cases=lambda p: tuple({"nb": nb} for nb in _scaled(p)),
    default_p=17,
    p_choices=(16, 17, 18),
    make_inputs=partial(_quadform_inputs, "shared_matrix"),
    reference=partial(_quadform_reference, "shared_matrix"),
    variant_make_inputs=_quadform_inputs,
    variant_reference=_quadform_reference,
    check_params={"nb": 300},
)

# }}}


# {{{ sums by key into private buckets

#: Values summed by each work item.
BUCKET_CHUNK = 64
#: Keys (private sums) per work item.
BUCKET_KEYS = 16

#: variant -> index of entry k of chunk c
_CHUNKS: Mapping[str, str] = {
    "contiguous": f"c*{BUCKET_CHUNK} + k",
    "interleaved": "k*nc + c",
}


def _build_buckets(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_CHUNKS), 1)
    at = _CHUNKS[req.variant]
    knl = u.make_kernel(
        f"{{[c, b0, k, b1]: 0 <= c < nc and 0 <= b0, b1 < {BUCKET_KEYS} "
        f"and 0 <= k < {BUCKET_CHUNK}}}",
        f"""
        for c
            acc[b0] = 0 {{id=zero}}
            for k
                <> key = keys[{at}] {{id=key}}
                acc[key] = acc[key] + vals[{at}] {{id=add, dep=zero:key}}
            end
            sums[b1, c] = acc[b1] {{dep=add}}
        end
        """,
        [lp.GlobalArg("keys", np.int32, shape=(f"{BUCKET_CHUNK}*nc",)),
         u.array("vals", req.dtype, (f"{BUCKET_CHUNK}*nc",)),
         u.array("sums", req.dtype, (BUCKET_KEYS, "nc")),
         lp.TemporaryVariable("acc", req.dtype.numpy, shape=(BUCKET_KEYS,),
                              address_space=lp.AddressSpace.PRIVATE),
         *u.size_args("nc")],
        name="keyed_bucket_sums", assumptions="nc >= 1")
    return u.split_1d(knl, "c", req.group_size)


def _bucket_inputs(params, dtype, rng) -> dict:
    size = BUCKET_CHUNK * params["nc"]
    return {"keys": rng.integers(0, BUCKET_KEYS, size, dtype=np.int32),
            "vals": u.random_array(rng, (size,), dtype)}


def _bucket_reference(variant: str, inputs, params) -> dict:
    nc = params["nc"]
    keys, vals = inputs["keys"], inputs["vals"].astype(np.float64)
    if variant == "contiguous":       # chunk c is row c
        keys, vals = keys.reshape(nc, BUCKET_CHUNK), vals.reshape(nc, BUCKET_CHUNK)
    else:                             # chunk c is column c
        keys, vals = keys.reshape(BUCKET_CHUNK, nc).T, vals.reshape(BUCKET_CHUNK, nc).T
    sums = np.stack([np.where(keys == b, vals, 0.0).sum(axis=1)
                     for b in range(BUCKET_KEYS)])
    return {"sums": u.as_dtype_of(sums, inputs["vals"])}


KEYED_BUCKET_SUMS = KernelSpec(
    name="keyed_bucket_sums",
    role=KernelRole.UNSEEN,
    description=f"Each work item sums its chunk of {BUCKET_CHUNK} values into "
                f"{BUCKET_KEYS} private sums chosen by an integer key per value (a "
                f"data-dependent index into a private array, no atomics), then writes "
                f"them; chunks contiguous (lanes a chunk apart) or interleaved over the "
                f"items (adjacent lanes).",
    parameters=("nc",),
    variants=tuple(_CHUNKS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_buckets,
    size_cases=lambda p: tuple({"nc": nc} for nc in _scaled(p)),
    default_p=14,
    p_choices=(13, 14, 15),
    make_inputs=_bucket_inputs,
    reference=partial(_bucket_reference, "contiguous"),
    variant_reference=_bucket_reference,
    check_params={"nc": 300},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (DECIMATE_FIR, SOFTPLUS_ROUNDS, RIGID_TRANSFORM3,
                                 TRIDIAG_MATVEC, BATCHED_QUADFORM, KEYED_BUCKET_SUMS)
