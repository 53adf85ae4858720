"""The sixteenth held-out set (``--set heldout16``): kernels kept out of all fitting and design.

The fifteenth set (:mod:`.heldout15`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``phong_shade``: a shading value per pixel from its (unnormalised) normal (three
  planes): an ambient term, a clamped Lambert term, and a Blinn-Phong highlight (a
  power) or none.
* ``trilinear_sample``: a 3-D volume sampled at points given in normalised coordinates
  (three planes), clamped to the volume: eight reads weighted by the fractions.
* ``line_fit_rows``: a least-squares line through each row of samples (rows stored
  row-major, one work item per row), at positions shared by all rows: slope and
  intercept, unweighted or with a weight per sample.
* ``sigma_clip_rows``: per row, the mean of the samples within two standard deviations
  of the row's mean (two passes over the row, a mask in the second), and optionally the
  count kept.

Those on 2-D groups (yuv420_to_rgb, structure_tensor_corners, affine_warp,
autocorr_lags) and the resampler (catmull_rom_resample) are in :mod:`.heldout16_grid`.
"""

from __future__ import annotations

from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ Blinn-Phong shading

#: the light's and the half vector's directions (unit length), the material
LIGHT_DIR = tuple(np.array((0.3, 0.5, 0.81)) / np.linalg.norm((0.3, 0.5, 0.81)))
_HALFWAY = np.array(LIGHT_DIR) + (0.0, 0.0, 1.0)    # the viewer looks down z
HALF_DIR = tuple(_HALFWAY / np.linalg.norm(_HALFWAY))
AMBIENT, DIFFUSE, SPECULAR, SHININESS = 0.1, 0.7, 0.4, 24.0
_PHONG_CONSTS = (("zero", 0.0), ("one", 1.0), *zip(("lx", "ly", "lz"), LIGHT_DIR),
                 ("ka", AMBIENT), ("kd", DIFFUSE))
_SPEC_CONSTS = (*zip(("hx", "hy", "hz"), HALF_DIR), ("ks", SPECULAR), ("shininess", SHININESS))
_PHONG_VARIANTS = ("blinn_phong", "lambert")


def _phong_consts(variant: str):
    return _PHONG_CONSTS + (_SPEC_CONSTS if variant == "blinn_phong" else ())


def _build_phong(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _PHONG_VARIANTS, 1)
    if req.variant == "blinn_phong":
        tail = ("<> ndh = (x * hx + y * hy + z * hz) * inv_len {id=ndh, dep=inv_len}\n"
                "            shade[i] = ka + kd * fmax(ndl, zero) + ks * fmax(ndh, zero) "
                "** shininess {dep=ndl:ndh}")
    else:
        tail = "shade[i] = ka + kd * fmax(ndl, zero) {dep=ndl}"
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> x = nx[i] {{id=x}}
            <> y = ny[i] {{id=y}}
            <> z = nz[i] {{id=z}}
            <> inv_len = one / sqrt(x * x + y * y + z * z) {{id=inv_len, dep=x:y:z}}
            <> ndl = (x * lx + y * ly + z * lz) * inv_len {{id=ndl, dep=inv_len}}
            {tail}
        end
        """,
        [*(u.array(f"n{k}", req.dtype, ("n",)) for k in "xyz"),
         u.array("shade", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _phong_consts(req.variant)), *u.size_args("n")],
        name="phong_shade", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _phong_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # normals of every direction and length (about half facing away from the light,
    # some facing the highlight: both clamps and the power take effect)
    normals = rng.normal(size=(n, 3)) * rng.uniform(0.5, 3.0, (n, 1))
    toward = rng.random(n) < 0.3
    normals[toward] = (np.asarray(HALF_DIR) + 0.2 * rng.normal(size=(toward.sum(), 3))) \
        * rng.uniform(0.5, 3.0, (toward.sum(), 1))
    return {f"n{k}": np.ascontiguousarray(normals[:, c], dtype=dtype.numpy)
            for c, k in enumerate("xyz")} | u.scalar_inputs(dtype, _phong_consts(variant))


def _phong_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    normals = np.stack([f["nx"], f["ny"], f["nz"]], axis=1)
    unit = normals / np.linalg.norm(normals, axis=1, keepdims=True)
    shade = AMBIENT + DIFFUSE * np.maximum(unit @ np.asarray(LIGHT_DIR), 0.0)
    if variant == "blinn_phong":
        shade += SPECULAR * np.maximum(unit @ np.asarray(HALF_DIR), 0.0) ** SHININESS
    return {"shade": u.as_dtype_of(shade, inputs["nx"])}


PHONG_SHADE = KernelSpec(
    name="phong_shade",
    role=KernelRole.UNSEEN,
    description="Shading of n pixels from their normals (three planes, not of unit "
                "length): one reciprocal square root for the length, an ambient term "
                "plus a Lambert term clamped at zero, plus a Blinn-Phong highlight "
                "(the clamped cosine to a fixed half vector to the power 24) "
                "(blinn_phong) or not (lambert).",
    parameters=("n",),
    variants=_PHONG_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_phong,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_phong_inputs, "blinn_phong"),
    reference=partial(_phong_reference, "blinn_phong"),
    variant_make_inputs=_phong_inputs,
    variant_reference=_phong_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ trilinear volume sampling

#: the volume's edge (voxels)
VOLUME = 96
_TRI_CONSTS = (("zero", 0.0), ("one", 1.0), ("edge", VOLUME - 1.0), ("last_cell", VOLUME - 2.0))


def _build_trilinear(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("trilinear",), 1)
    lines = []
    for c, p in zip("xyz", ("px", "py", "pz")):
        lines += [f"<> s{c} = fmin(fmax({p}[i], zero), one) * edge {{id=s{c}}}",
                  f"<> f0{c} = fmin(floor(s{c}), last_cell) {{id=f0{c}, dep=s{c}}}",
                  f"<int32> k{c} = f0{c} {{id=k{c}, dep=f0{c}}}",
                  f"<> w{c} = s{c} - f0{c} {{id=w{c}, dep=f0{c}}}"]
    def corner(a, b, c):
        return f"vol[kz + {c}, ky + {b}, kx + {a}]"
    lines += [
        f"<> c00 = {corner(0, 0, 0)} + wx * ({corner(1, 0, 0)} - {corner(0, 0, 0)}) "
        "{id=c00, dep=k*:w*}",
        f"<> c10 = {corner(0, 1, 0)} + wx * ({corner(1, 1, 0)} - {corner(0, 1, 0)}) "
        "{id=c10, dep=k*:w*}",
        f"<> c01 = {corner(0, 0, 1)} + wx * ({corner(1, 0, 1)} - {corner(0, 0, 1)}) "
        "{id=c01, dep=k*:w*}",
        f"<> c11 = {corner(0, 1, 1)} + wx * ({corner(1, 1, 1)} - {corner(0, 1, 1)}) "
        "{id=c11, dep=k*:w*}",
        "<> c0 = c00 + wy * (c10 - c00) {id=c0, dep=c00:c10}",
        "<> c1 = c01 + wy * (c11 - c01) {id=c1, dep=c01:c11}",
        "val[i] = c0 + wz * (c1 - c0) {dep=c0:c1}"]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
        end
        """,
        [*(u.array(p, req.dtype, ("n",)) for p in ("px", "py", "pz")),
         u.array("vol", req.dtype, (VOLUME, VOLUME, VOLUME)), u.array("val", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _TRI_CONSTS), *u.size_args("n")],
        name="trilinear_sample", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _trilinear_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # a tenth of the coordinates outside [0, 1] on either side (clamped to a face), a
    # few exactly 1 (the last cell's far corner); values positive
    pts = rng.uniform(-0.1, 1.1, (3, n))
    pts[:, rng.random(n) < 0.02] = 1.0
    return {**{p: np.asarray(pts[k], dtype=dtype.numpy)
               for k, p in enumerate(("px", "py", "pz"))},
            "vol": u.random_array(rng, (VOLUME,) * 3, dtype, low=0.5, high=1.5),
            **u.scalar_inputs(dtype, _TRI_CONSTS)}


def _trilinear_reference(inputs, params) -> dict:
    vol = inputs["vol"].astype(np.float64)
    idx, wts = [], []
    for p in ("px", "py", "pz"):
        # the scaled coordinate in the kernel's precision (its rounding picks the cell)
        s = np.clip(inputs[p], 0, 1) * inputs["edge"]
        f0 = np.minimum(np.floor(s), VOLUME - 2)
        idx.append(f0.astype(np.int64))
        wts.append(s.astype(np.float64) - f0)
    kx, ky, kz = idx
    wx, wy, wz = wts
    out = 0.0
    for a in (0, 1):
        for b in (0, 1):
            for c in (0, 1):
                w = (wx if a else 1 - wx) * (wy if b else 1 - wy) * (wz if c else 1 - wz)
                out = out + w * vol[kz + c, ky + b, kx + a]
    return {"val": u.as_dtype_of(out, inputs["px"])}


TRILINEAR_SAMPLE = KernelSpec(
    name="trilinear_sample",
    role=KernelRole.UNSEEN,
    description=f"n points (three planes of normalised coordinates) sampled in a "
                f"{VOLUME}^3 volume: each coordinate clamped to [0, 1] and scaled, the "
                f"cell's corner by a floor (the last cell for the far face), eight reads "
                f"blended by seven linear interpolations.",
    parameters=("n",),
    variants=("trilinear",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_trilinear,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_trilinear_inputs,
    reference=_trilinear_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ least-squares line per row

#: samples per row
FIT_SAMPLES = 48
_FIT_VARIANTS = ("unweighted", "weighted")


def _build_line_fit(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _FIT_VARIANTS, 1)
    w = "w[i, k] * " if req.variant == "weighted" else ""
    count = f"<> s0 = sum(k, {w}one) {{id=s0}}" if w else "<> s0 = samples {id=s0}"
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k]: 0 <= k < {FIT_SAMPLES}}}"],
        f"""
        for i
            {count}
            <> sx = sum(k, {w}xs[k]) {{id=sx}}
            <> sy = sum(k, {w}y[i, k]) {{id=sy}}
            <> sxx = sum(k, {w}xs[k] * xs[k]) {{id=sxx}}
            <> sxy = sum(k, {w}xs[k] * y[i, k]) {{id=sxy}}
            <> b = (s0 * sxy - sx * sy) / (s0 * sxx - sx * sx) {{id=b, dep=s0:sx:sy:sxx:sxy}}
            slope[i] = b {{dep=b}}
            intercept[i] = (sy - b * sx) / s0 {{dep=b}}
        end
        """,
        [u.array("y", req.dtype, ("n", FIT_SAMPLES)), u.array("xs", req.dtype, (FIT_SAMPLES,)),
         *([u.array("w", req.dtype, ("n", FIT_SAMPLES))] if w else []),
         u.array("slope", req.dtype, ("n",)), u.array("intercept", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, (("one", 1.0),) if w else (("samples", float(FIT_SAMPLES)),)),
         *u.size_args("n")],
        name="line_fit_rows", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _fit_consts(variant: str):
    return (("one", 1.0),) if variant == "weighted" else (("samples", float(FIT_SAMPLES)),)


def _line_fit_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # rows on lines of either sign of slope (|slope| >= 0.5) and intercept (|.| >= 2)
    # with noise; positions in [0, 1] not evenly spaced
    xs = np.sort(rng.uniform(0.0, 1.0, FIT_SAMPLES))
    sign = lambda: np.where(rng.random(n) < 0.5, -1.0, 1.0)  # noqa: E731
    slope = sign() * rng.uniform(0.5, 2.0, n)
    icept = sign() * rng.uniform(2.0, 4.0, n)
    y = icept[:, None] + slope[:, None] * xs[None, :] + 0.05 * rng.normal(size=(n, FIT_SAMPLES))
    out = {"y": np.asarray(y, dtype=dtype.numpy), "xs": np.asarray(xs, dtype=dtype.numpy)}
    if variant == "weighted":
        out["w"] = u.random_array(rng, (n, FIT_SAMPLES), dtype, low=0.1, high=2.0)
    return out | u.scalar_inputs(dtype, _fit_consts(variant))


def line_fit(xs, y, w=None) -> tuple[np.ndarray, np.ndarray]:
    """(float64) the weighted least-squares slope and intercept of each row of y."""
    xs, y = np.asarray(xs, np.float64), np.asarray(y, np.float64)
    w = np.ones_like(y) if w is None else np.asarray(w, np.float64)
    s0, sx, sy = w.sum(1), (w * xs).sum(1), (w * y).sum(1)
    sxx, sxy = (w * xs * xs).sum(1), (w * xs * y).sum(1)
    b = (s0 * sxy - sx * sy) / (s0 * sxx - sx * sx)
    return b, (sy - b * sx) / s0


def _line_fit_reference(variant: str, inputs, params) -> dict:
    b, a = line_fit(inputs["xs"], inputs["y"], inputs.get("w"))
    return {"slope": u.as_dtype_of(b, inputs["y"]), "intercept": u.as_dtype_of(a, inputs["y"])}


LINE_FIT_ROWS = KernelSpec(
    name="line_fit_rows",
    role=KernelRole.UNSEEN,
    description=f"A least-squares line through each of n rows of {FIT_SAMPLES} samples "
                f"(row-major, one work item per row) at positions shared by all rows: "
                f"four or five sums over the row, then slope and intercept by two "
                f"divisions; unweighted, or with a weight per sample read beside it "
                f"(weighted).",
    parameters=("n",),
    variants=_FIT_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_line_fit,
    size_cases=u.doubling_lengths,
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=partial(_line_fit_inputs, "unweighted"),
    reference=partial(_line_fit_reference, "unweighted"),
    variant_make_inputs=_line_fit_inputs,
    variant_reference=_line_fit_reference,
    check_params={"n": 700},
    rtol=1e-3,
)

# }}}


# {{{ sigma-clipped mean per row

#: samples per row, the clipping threshold in standard deviations
CLIP_SAMPLES = 40
CLIP_KAPPA = 2.0
_CLIP_CONSTS = (("zero", 0.0), ("one", 1.0), ("inv_count", 1.0 / CLIP_SAMPLES),
                ("kappa", CLIP_KAPPA))
_CLIP_VARIANTS = ("mean", "mean_count")


def _build_clip(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _CLIP_VARIANTS, 1)
    count_store = "kept[i] = nk {dep=nk_add}" if req.variant == "mean_count" else ""
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[k, k2, k3]: 0 <= k, k2, k3 < {CLIP_SAMPLES}}}"],
        f"""
        for i
            <> mu = sum(k, x[i, k]) * inv_count {{id=mu}}
            <> var = sum(k2, (x[i, k2] - mu) * (x[i, k2] - mu)) * inv_count {{id=var, dep=mu}}
            <> bound = kappa * sqrt(var) {{id=bound, dep=var}}
            <> nk = zero {{id=nk_init}}
            <> sk = zero {{id=sk_init}}
            for k3
                <> keep = fabs(x[i, k3] - mu) <= bound {{id=keep, dep=bound}}
                nk = nk + keep {{id=nk_add, dep=keep:nk_init}}
                sk = sk + keep * x[i, k3] {{id=sk_add, dep=keep:sk_init}}
            end
            clipped[i] = sk / nk {{dep=nk_add:sk_add}}
            {count_store}
        end
        """,
        [u.array("x", req.dtype, ("n", CLIP_SAMPLES)), u.array("clipped", req.dtype, ("n",)),
         *([u.array("kept", req.dtype, ("n",))] if req.variant == "mean_count" else []),
         *u.scalar_args(req.dtype, _CLIP_CONSTS), *u.size_args("n")],
        name="sigma_clip_rows", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def sigma_clip(x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(float64) per row: the clipped mean, the count kept, and each sample's distance
    from the threshold in units of the row's standard deviation."""
    x = np.asarray(x, np.float64)
    mu = x.mean(1, keepdims=True)
    sd = np.sqrt(((x - mu) ** 2).mean(1, keepdims=True))
    keep = np.abs(x - mu) <= CLIP_KAPPA * sd
    margin = np.abs(np.abs(x - mu) / sd - CLIP_KAPPA)
    return (x * keep).sum(1) / keep.sum(1), keep.sum(1).astype(np.float64), margin


def _clip_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # samples about 10 with one to three outliers per row (some rows none), redrawn
    # until no sample lies within 2 % of the threshold (both precisions clip the same)
    def draw(rows):
        x = rng.uniform(9.0, 11.0, (rows, CLIP_SAMPLES))
        outliers = rng.integers(0, 4, rows)
        for r in range(rows):
            cols = rng.choice(CLIP_SAMPLES, outliers[r], replace=False)
            x[r, cols] = 10.0 + np.where(rng.random(outliers[r]) < 0.5, -1, 1) \
                * rng.uniform(4.0, 8.0, outliers[r])
        return x
    x = u.redraw_until_good(draw(n), draw, lambda x: (sigma_clip(x)[2] < 0.02).any(axis=1),
                            tries=200)
    return {"x": np.asarray(x, dtype=dtype.numpy), **u.scalar_inputs(dtype, _CLIP_CONSTS)}


def _clip_reference(variant: str, inputs, params) -> dict:
    mean, kept, _ = sigma_clip(inputs["x"])
    out = {"clipped": mean} | ({"kept": kept} if variant == "mean_count" else {})
    return {k: u.as_dtype_of(v, inputs["x"]) for k, v in out.items()}


SIGMA_CLIP_ROWS = KernelSpec(
    name="sigma_clip_rows",
    role=KernelRole.UNSEEN,
    description=f"The sigma-clipped mean of each of n rows of {CLIP_SAMPLES} samples "
                f"(row-major, one work item per row): the row's mean, its standard "
                f"deviation (a second pass), then the mean of the samples within "
                f"{CLIP_KAPPA:g} standard deviations of it (a third pass, a comparison per "
                f"sample added as 0 or 1); also the count kept (mean_count).",
    parameters=("n",),
    variants=_CLIP_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_clip,
    size_cases=u.doubling_lengths,
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=partial(_clip_inputs, "mean"),
    reference=partial(_clip_reference, "mean"),
    variant_make_inputs=_clip_inputs,
    variant_reference=_clip_reference,
    check_params={"n": 500},
    rtol=1e-5,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (PHONG_SHADE, TRILINEAR_SAMPLE, LINE_FIT_ROWS, SIGMA_CLIP_ROWS)
