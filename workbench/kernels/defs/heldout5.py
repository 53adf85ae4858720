"""The fifth held-out set (``--set heldout5``): kernels kept out of all fitting and design.

The fourth set (:mod:`.heldout4`) has been read kernel by kernel since it was measured,
and models are being shaped against it, so it no longer tells how a finished method
does on code nobody looked at; this set takes its place. Like every unseen set its
kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion of that role
covers them. They were written blind: without running any model on them and without
reading any model's errors on the other sets. They must never be used to fit a model,
choose features or settings, or pick a default, and their results are reported apart.
They keep the catalog's conventions (symbolic int32 sizes, the contiguous index on
work-group axis 0, numpy references, exact counts).

* ``horner_poly``: y = p(x) for a polynomial of degree 8 or 32 evaluated by Horner's
  rule, the coefficients shared by all items: a chain of dependent multiply-adds per
  entry, one load and one store.
* ``rms_norm_rows``: each work item scales one row of ``RMS_COLS`` entries by a gain
  vector and the inverse of the row's root mean square: two passes over the row; rows
  stored one after the other (lanes a row apart) or interleaved over the rows.
* ``batched_inverse3``: the inverse of nb 3 x 3 matrices by cofactors and the
  determinant, one matrix per work item, stored as nine consecutive entries (stride
  9) or as nine arrays of entries (stride 1).
* ``hash_dropout``: keeps an entry with probability 3/4, scaled by 4/3, by an integer
  hash of its index and a seed (multiply-xorshift rounds on uint32, one or four
  rounds); dropped entries become zero (an arithmetic 0/1 mask, no branch).
* ``haversine_dist``: the great-circle distance between pairs of points given by
  latitude and longitude (sines, cosines, a square root and an arcsine), each point
  to its own partner or every point to one reference point.
* ``row_peak_to_peak``: each work item finds the range (largest minus smallest
  entry) of its row of ``RANGE_COLS``: a max and a min reduction; rows stored one
  after the other or interleaved.

The kernels on 2-D groups (sobel_gradient, image_flip, resize_bilinear) are in
:mod:`.heldout5_grid`.
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


# {{{ Horner polynomial evaluation

#: variant -> degree of the polynomial
_HORNER_DEGREES: Mapping[str, int] = {"degree8": 8, "degree32": 32}


def _build_horner(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_HORNER_DEGREES), 1)
    deg = _HORNER_DEGREES[req.variant]
    knl = u.make_kernel(
        f"{{[i, k]: 0 <= i < n and 0 <= k < {deg}}}",
        f"""
        for i
            <> xi = x[i] {{id=load}}
            <> acc = coef[{deg}] {{id=init}}
            for k
                acc = acc*xi + coef[{deg - 1} - k] {{id=step, dep=init:load}}
            end
            y[i] = acc {{dep=step}}
        end
        """,
        [u.array("x", req.dtype, ("n",)), u.array("coef", req.dtype, (deg + 1,)),
         u.array("y", req.dtype, ("n",)), *u.size_args("n")],
        name="horner_poly", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _horner_inputs(variant: str, params, dtype, rng) -> dict:
    deg = _HORNER_DEGREES[variant]
    # positive coefficients and arguments: no cancellation in float32
    return {"x": u.random_array(rng, (params["n"],), dtype, low=0.0, high=0.99),
            "coef": u.random_array(rng, (deg + 1,), dtype, low=0.1)}


def _horner_reference(variant: str, inputs, params) -> dict:
    x, coef = inputs["x"].astype(np.float64), inputs["coef"].astype(np.float64)
    return {"y": u.as_dtype_of(np.polyval(coef[::-1], x), inputs["x"])}


HORNER_POLY = KernelSpec(
    name="horner_poly",
    role=KernelRole.UNSEEN,
    description="y = p(x) by Horner's rule for a polynomial of degree 8 or 32, its "
                "coefficients shared by all items (broadcast loads): a chain of "
                "dependent multiply-adds per entry, one load and one store.",
    parameters=("n",),
    variants=tuple(_HORNER_DEGREES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_horner,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_horner_inputs, "degree8"),
    reference=partial(_horner_reference, "degree8"),
    variant_make_inputs=_horner_inputs,
    variant_reference=_horner_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ RMS normalisation of rows

#: Entries of each row.
RMS_COLS = 64
_RMS_EPS = (("eps", 1e-6),)

#: variant -> (index of entry k of row r, shape of the matrix, "cols" for the row length)
_ROW_LAYOUTS: Mapping[str, tuple[str, tuple]] = {
    "row_major": ("{a}[r, {k}]", ("nr", "cols")),
    "interleaved": ("{a}[{k}, r]", ("cols", "nr")),
}


def _row_shape(variant: str, cols: int, nr: int | str = "nr") -> tuple:
    return tuple({"nr": nr, "cols": cols}[d] for d in _ROW_LAYOUTS[variant][1])


def _build_rms(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_ROW_LAYOUTS), 1)
    at, _ = _ROW_LAYOUTS[req.variant]
    shape = _row_shape(req.variant, RMS_COLS)
    knl = u.make_kernel(
        f"{{[r, k, k2]: 0 <= r < nr and 0 <= k, k2 < {RMS_COLS}}}",
        f"""
        for r
            <> ss = sum(k, {at.format(a='x', k='k')} * {at.format(a='x', k='k')}) {{id=ss}}
            <> scale = 1 / sqrt(ss / {RMS_COLS} + eps) {{id=scale, dep=ss}}
            {at.format(a='y', k='k2')} = {at.format(a='x', k='k2')} * g[k2] * scale \
                {{dep=scale}}
        end
        """,
        [u.array("x", req.dtype, shape), u.array("y", req.dtype, shape),
         u.array("g", req.dtype, (RMS_COLS,)), lp.ValueArg("eps", req.dtype.numpy),
         *u.size_args("nr")],
        name="rms_norm_rows", assumptions="nr >= 1")
    return u.split_1d(knl, "r", req.group_size)


def _rms_inputs(variant: str, params, dtype, rng) -> dict:
    shape = _row_shape(variant, RMS_COLS, params["nr"])
    return {"x": u.random_array(rng, shape, dtype, low=0.05),
            "g": u.random_array(rng, (RMS_COLS,), dtype, low=0.5, high=1.5),
            **{name: dtype.numpy.type(v) for name, v in _RMS_EPS}}


def _rms_reference(variant: str, inputs, params) -> dict:
    x, g = inputs["x"].astype(np.float64), inputs["g"].astype(np.float64)
    axis = 1 if variant == "row_major" else 0
    scale = 1 / np.sqrt((x * x).mean(axis=axis, keepdims=True) + float(inputs["eps"]))
    gain = g[None, :] if variant == "row_major" else g[:, None]
    return {"y": u.as_dtype_of(x * gain * scale, inputs["x"])}


RMS_NORM_ROWS = KernelSpec(
    name="rms_norm_rows",
    role=KernelRole.UNSEEN,
    description=f"y = g x / sqrt(mean(x^2) + eps) for each row of {RMS_COLS} entries, "
                f"one work item per row: a sum-of-squares pass over the row, then a "
                f"scaling pass with a gain vector shared by all items; rows stored "
                f"one after the other (lanes a row apart) or interleaved over the rows.",
    parameters=("nr",),
    variants=tuple(_ROW_LAYOUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_rms,
    size_cases=lambda p: tuple({"nr": nr} for nr in _scaled(p)),
    default_p=15,
    p_choices=(14, 15, 16),
    make_inputs=partial(_rms_inputs, "row_major"),
    reference=partial(_rms_reference, "row_major"),
    variant_make_inputs=_rms_inputs,
    variant_reference=_rms_reference,
    check_params={"nr": 300},
)

# }}}


# {{{ batched 3 x 3 inverses

#: variant -> (index of entry e of matrix b, shape of a batch of matrices)
_MAT_LAYOUTS: Mapping[str, tuple[str, tuple]] = {
    "consecutive": ("{a}[b, {e}]", ("nb", 9)),
    "entry_arrays": ("{a}[{e}, b]", (9, "nb")),
}


def _cofactor(r: int, c: int) -> str:
    """Cofactor (r, c) of the matrix with entries m0..m8 (row-major), sign included."""
    r1, r2 = (r + 1) % 3, (r + 2) % 3
    c1, c2 = (c + 1) % 3, (c + 2) % 3
    return f"m{3*r1 + c1}*m{3*r2 + c2} - m{3*r1 + c2}*m{3*r2 + c1}"


def _build_inverse3(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_MAT_LAYOUTS), 1)
    at, shape = _MAT_LAYOUTS[req.variant]
    loads = "\n".join(f"<> m{e} = {at.format(a='m', e=e)} {{id=m{e}}}" for e in range(9))
    deps = ":".join(f"m{e}" for e in range(9))
    cofs = "\n".join(f"<> c{r}{c} = {_cofactor(r, c)} {{id=c{r}{c}, dep={deps}}}"
                     for r in range(3) for c in range(3))
    cdeps = ":".join(f"c{r}{c}" for r in range(3) for c in range(3))
    # the inverse is the transposed cofactor matrix over the determinant
    stores = "\n".join(f"{at.format(a='inv', e=3*r + c)} = c{c}{r} * rdet {{dep=rdet}}"
                       for r in range(3) for c in range(3))
    knl = u.make_kernel(
        "{[b]: 0 <= b < nb}",
        f"""
        {loads}
        {cofs}
        <> rdet = 1 / (m0*c00 + m1*c01 + m2*c02) {{id=rdet, dep={cdeps}}}
        {stores}
        """,
        [u.array("m", req.dtype, shape), u.array("inv", req.dtype, shape),
         *u.size_args("nb")],
        name="batched_inverse3", assumptions="nb >= 1")
    return u.split_1d(knl, "b", req.group_size)


def _inverse3_inputs(variant: str, params, dtype, rng) -> dict:
    nb = params["nb"]
    # diagonally dominant with negative off-diagonal entries (an M-matrix): the
    # cofactors and the determinant add terms of one sign, so float32 stays accurate
    mats = -u.random_array(rng, (nb, 3, 3), dtype, low=0.1, high=1.0).astype(np.float64)
    mats[:, range(3), range(3)] = 3 + rng.random((nb, 3))
    flat = mats.reshape(nb, 9)
    if variant == "entry_arrays":
        flat = flat.T
    return {"m": np.ascontiguousarray(flat, dtype=dtype.numpy)}


def _inverse3_reference(variant: str, inputs, params) -> dict:
    nb, m = params["nb"], inputs["m"].astype(np.float64)
    mats = (m if variant == "consecutive" else m.T).reshape(nb, 3, 3)
    inv = np.linalg.inv(mats).reshape(nb, 9)
    if variant == "entry_arrays":
        inv = inv.T
    return {"inv": u.as_dtype_of(np.ascontiguousarray(inv), inputs["m"])}


BATCHED_INVERSE3 = KernelSpec(
    name="batched_inverse3",
    role=KernelRole.UNSEEN,
    description="The inverses of nb 3 x 3 matrices by cofactors and one division by "
                "the determinant, one matrix per work item: its nine entries stored "
                "one after the other (stride 9) or as nine arrays (stride 1).",
    parameters=("nb",),
    variants=tuple(_MAT_LAYOUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_inverse3,
    size_cases=lambda p: tuple({"nb": nb} for nb in _scaled(p)),
    default_p=18,
    p_choices=(17, 18, 19),
    make_inputs=partial(_inverse3_inputs, "consecutive"),
    reference=partial(_inverse3_reference, "consecutive"),
    variant_make_inputs=_inverse3_inputs,
    variant_reference=_inverse3_reference,
    check_params={"nb": 1000},
)

# }}}


# {{{ dropout by an integer hash

#: variant -> multiply-xorshift rounds of the hash
_HASH_ROUNDS: Mapping[str, int] = {"fmix1": 1, "fmix4": 4}
_HASH_MUL = 0x45D9F3B
#: entries whose low 16 hash bits fall below this are kept (3/4 of them)
_HASH_KEEP = 3 * 2 ** 14
_DROP_SCALE = (("keep_scale", 4 / 3),)


def _build_dropout(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_HASH_ROUNDS), 1)
    rounds = _HASH_ROUNDS[req.variant]
    mix = []
    prev = "seed0"
    for t in range(rounds):
        mix.append(f"<uint32> a{t} = h{t} ^ (h{t} >> 16) {{id=a{t}, dep={prev}}}")
        mix.append(f"<uint32> h{t + 1} = a{t} * mulc {{id=h{t + 1}, dep=a{t}}}")
        prev = f"h{t + 1}"
    mixing = "\n".join(mix)
    # kept when the top two of the low 16 bits are not both set (3/4 of entries): an
    # arithmetic 0/1 mask rather than an if-expression, whose branches loopy's counters
    # would both count
    dt = req.dtype.numpy.name
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        <uint32> h0 = i + seed {{id=seed0}}
        {mixing}
        <uint32> hf = h{rounds} ^ (h{rounds} >> 16) {{id=hf, dep={prev}}}
        <uint32> low = hf & 65535 {{id=low, dep=hf}}
        <int32> quarter = low >> 14 {{id=quarter, dep=low}}
        <{dt}> keep = 1 - quarter // 3 {{id=keep, dep=quarter}}
        y[i] = x[i] * keep_scale * keep {{dep=keep}}
        """,
        [u.array("x", req.dtype, ("n",)), u.array("y", req.dtype, ("n",)),
         lp.ValueArg("seed", np.uint32), lp.ValueArg("mulc", np.uint32),
         lp.ValueArg("keep_scale", req.dtype.numpy), *u.size_args("n")],
        name="hash_dropout", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _dropout_inputs(params, dtype, rng) -> dict:
    return {"x": u.random_array(rng, (params["n"],), dtype),
            "seed": np.uint32(0x2545F491), "mulc": np.uint32(_HASH_MUL),
            **{name: dtype.numpy.type(v) for name, v in _DROP_SCALE}}


def _dropout_reference(variant: str, inputs, params) -> dict:
    n, mul = params["n"], np.uint32(inputs["mulc"])
    h = np.arange(n, dtype=np.uint32) + np.uint32(inputs["seed"])
    for _ in range(_HASH_ROUNDS[variant]):
        h = (h ^ (h >> np.uint32(16))) * mul
    h = h ^ (h >> np.uint32(16))
    x = inputs["x"].astype(np.float64)
    y = np.where((h & np.uint32(0xFFFF)) < _HASH_KEEP, x * float(inputs["keep_scale"]), 0.0)
    return {"y": u.as_dtype_of(y, inputs["x"])}


HASH_DROPOUT = KernelSpec(
    name="hash_dropout",
    role=KernelRole.UNSEEN,
    description="Dropout by an integer hash: entry i is kept (scaled by 4/3) when the "
                "low 16 bits of a multiply-xorshift hash of i + seed (uint32, one or "
                "four rounds) fall in the lower three quarters, else set to zero.",
    parameters=("n",),
    variants=tuple(_HASH_ROUNDS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_dropout,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_dropout_inputs,
    reference=partial(_dropout_reference, "fmix1"),
    variant_reference=_dropout_reference,
    check_params={"n": 5000},
)

# }}}


# {{{ great-circle distances

_EARTH_RADIUS = (("radius", 6371.0),)
_REFERENCE_POINT = (("lat_ref", 0.31), ("lon_ref", -0.42))

#: variant -> (latitude, longitude) of the partner of point i
_PARTNERS: Mapping[str, tuple[str, str]] = {
    "pairs": ("lat2[i]", "lon2[i]"),
    "to_point": ("lat_ref", "lon_ref"),
}


def _build_haversine(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_PARTNERS), 1)
    lat2, lon2 = _PARTNERS[req.variant]
    if req.variant == "pairs":
        partner = [u.array("lat2", req.dtype, ("n",)), u.array("lon2", req.dtype, ("n",))]
    else:
        partner = [lp.ValueArg(a, req.dtype.numpy) for a, _ in _REFERENCE_POINT]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
        <> la1 = lat1[i] {{id=la1}}
        <> la2 = {lat2} {{id=la2}}
        <> sdlat = sin((la2 - la1) / 2) {{id=sdlat, dep=la1:la2}}
        <> sdlon = sin(({lon2} - lon1[i]) / 2) {{id=sdlon}}
        <> hav = sdlat*sdlat + cos(la1)*cos(la2)*sdlon*sdlon {{id=hav, dep=sdlat:sdlon}}
        dist[i] = 2 * radius * asin(sqrt(hav)) {{dep=hav}}
        end
        """,
        [u.array("lat1", req.dtype, ("n",)), u.array("lon1", req.dtype, ("n",)),
         *partner, u.array("dist", req.dtype, ("n",)),
         lp.ValueArg("radius", req.dtype.numpy), *u.size_args("n")],
        name="haversine_dist", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _haversine_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # a regional data set (|lat| < 0.7, |lon| < 1 radian): no antipodal pair, where
    # the arcsine's slope would magnify float32 rounding
    def coords():
        return (u.random_array(rng, (n,), dtype, low=-0.7, high=0.7),
                u.random_array(rng, (n,), dtype, low=-1.0, high=1.0))
    lat1, lon1 = coords()
    inputs = {"lat1": lat1, "lon1": lon1,
              **{a: dtype.numpy.type(v) for a, v in _EARTH_RADIUS}}
    if variant == "pairs":
        inputs["lat2"], inputs["lon2"] = coords()
    else:
        inputs.update({a: dtype.numpy.type(v) for a, v in _REFERENCE_POINT})
    return inputs


def _haversine_reference(variant: str, inputs, params) -> dict:
    f = {k: np.asarray(v, dtype=np.float64) for k, v in inputs.items()}
    lat2, lon2 = (f["lat2"], f["lon2"]) if variant == "pairs" else (f["lat_ref"],
                                                                     f["lon_ref"])
    hav = np.sin((lat2 - f["lat1"]) / 2) ** 2 \
        + np.cos(f["lat1"]) * np.cos(lat2) * np.sin((lon2 - f["lon1"]) / 2) ** 2
    dist = 2 * f["radius"] * np.arcsin(np.sqrt(hav))
    return {"dist": u.as_dtype_of(dist, inputs["lat1"])}


HAVERSINE_DIST = KernelSpec(
    name="haversine_dist",
    role=KernelRole.UNSEEN,
    description="Great-circle distance by the haversine formula (sines, cosines, a "
                "square root and an arcsine per entry) between point i and its own "
                "partner (four arrays read) or one reference point (two arrays read).",
    parameters=("n",),
    variants=tuple(_PARTNERS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_haversine,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_haversine_inputs, "pairs"),
    reference=partial(_haversine_reference, "pairs"),
    variant_make_inputs=_haversine_inputs,
    variant_reference=_haversine_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ peak-to-peak range of each row

#: Entries of each row.
RANGE_COLS = 128


def _build_range(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_ROW_LAYOUTS), 1)
    at, _ = _ROW_LAYOUTS[req.variant]
    entry = at.format(a="x", k="k")
    knl = u.make_kernel(
        f"{{[r, k]: 0 <= r < nr and 0 <= k < {RANGE_COLS}}}",
        f"span[r] = max(k, {entry}) - min(k, {entry})",
        [u.array("x", req.dtype, _row_shape(req.variant, RANGE_COLS)),
         u.array("span", req.dtype, ("nr",)), *u.size_args("nr")],
        name="row_peak_to_peak", assumptions="nr >= 1")
    return u.split_1d(knl, "r", req.group_size)


def _range_inputs(variant: str, params, dtype, rng) -> dict:
    shape = _row_shape(variant, RANGE_COLS, params["nr"])
    return {"x": u.random_array(rng, shape, dtype, low=-1.0)}


def _range_reference(variant: str, inputs, params) -> dict:
    axis = 1 if variant == "row_major" else 0
    x = inputs["x"]
    return {"span": x.max(axis=axis) - x.min(axis=axis)}


ROW_PEAK_TO_PEAK = KernelSpec(
    name="row_peak_to_peak",
    role=KernelRole.UNSEEN,
    description=f"The range (largest minus smallest entry) of each row of {RANGE_COLS}, "
                f"one work item per row: a max and a min reduction over the same loads; "
                f"rows stored one after the other (lanes a row apart) or interleaved "
                f"over the rows.",
    parameters=("nr",),
    variants=tuple(_ROW_LAYOUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_range,
    size_cases=lambda p: tuple({"nr": nr} for nr in _scaled(p)),
    default_p=14,
    p_choices=(13, 14, 15),
    make_inputs=partial(_range_inputs, "row_major"),
    reference=partial(_range_reference, "row_major"),
    variant_make_inputs=_range_inputs,
    variant_reference=_range_reference,
    check_params={"nr": 300},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (HORNER_POLY, RMS_NORM_ROWS, BATCHED_INVERSE3,
                                 HASH_DROPOUT, HAVERSINE_DIST, ROW_PEAK_TO_PEAK)
