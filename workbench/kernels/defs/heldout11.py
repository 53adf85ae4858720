"""The eleventh held-out set (``--set heldout11``): kernels kept out of all fitting and design.

The tenth set (:mod:`.heldout10`) has been read kernel by kernel since it was
measured, and a model is being designed against it, so it no longer tells how a
finished method does on code nobody looked at; this set takes its place. Like every
unseen set its kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion
of that role covers them. They were written blind: without running any model on them
and without reading any model's errors on any set. They must never be used to fit a
model, choose features or settings, or pick a default, and their results are reported
apart. They keep the catalog's conventions (symbolic int32 sizes, the contiguous index
on work-group axis 0, numpy references, exact counts).

* ``cross_entropy_rows``: the softmax cross-entropy loss of each row of ``CE_CLASSES``
  logits against an integer label (a max, a log-sum-exp, the label's logit gathered),
  with or without label smoothing.
* ``bce_with_logits``: the binary cross-entropy of logits against soft targets, in
  the stable form (a clamp, an absolute value, an exp and a log), plain or with a
  weight on the positive class.
* ``option_payoff_paths``: the discounted call payoff of simulated price paths of
  ``PAY_STEPS`` steps each: on the last price (European) or on the path's mean
  (Asian), clamped at zero.
* ``chaotic_map_iterate``: ``MAP_STEPS`` iterations of the logistic map or of the tent
  map (a min) per element, the parameter read per element.
* ``axis_angle_rotate``: Rodrigues' rotation from an axis (three planes) and an angle:
  the 3 x 3 matrix written per item (stride 9), or a vector rotated directly.
* ``hsv_to_rgb``: colour conversion from hue, saturation and value (three planes) by
  the branchless ramp form (a wrap-around and clamps per channel), to three planes or
  to interleaved RGB.

The kernels on 2-D groups (morph_erode_dilate, red_black_relax, unsharp_mask) are in
:mod:`.heldout11_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _scaled(p: int) -> tuple[int, ...]:
    return u.pow2(p, range(4))


# {{{ softmax cross-entropy per row

CE_CLASSES = 128
CE_SMOOTHING = 0.1
_CE_CONSTS = (("keep", 1.0 - CE_SMOOTHING), ("spread", CE_SMOOTHING / CE_CLASSES))
_CE_VARIANTS = ("hard", "smoothed")


def _build_cross_entropy(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _CE_VARIANTS, 1)
    if req.variant == "hard":
        loss = "loss[r] = mx + log(se) - x[r, lab] {dep=mx:se:lab}"
    else:
        loss = ("loss[r] = mx + log(se) - keep * x[r, lab] - spread * sum(k2, x[r, k2])"
                " {dep=mx:se:lab}")
    inames = "k, k1" if req.variant == "hard" else "k, k1, k2"
    knl = u.make_kernel(
        f"{{[r, {inames}]: 0 <= r < nr and 0 <= {inames} < {CE_CLASSES}}}",
        f"""
        for r
            <> lab = label[r] {{id=lab}}
            <> mx = max(k, x[r, k]) {{id=mx}}
            <> se = sum(k1, exp(x[r, k1] - mx)) {{id=se, dep=mx}}
            {loss}
        end
        """,
        [u.array("x", req.dtype, ("nr", CE_CLASSES)), lp.GlobalArg("label", np.int32, ("nr",)),
         u.array("loss", req.dtype, ("nr",)),
         *(u.scalar_args(req.dtype, _CE_CONSTS) if req.variant == "smoothed" else []),
         *u.size_args("nr")],
        name="cross_entropy_rows", assumptions="nr >= 1")
    return u.split_1d(knl, "r", req.group_size)


def _ce_inputs(variant: str, params, dtype, rng) -> dict:
    nr = params["nr"]
    # logits in [-3, 3]: the loss is at least log(1 + 127 e^-6) > 0.2 (relative tolerance)
    inputs = {"x": u.random_array(rng, (nr, CE_CLASSES), dtype, low=-3.0, high=3.0),
              "label": rng.integers(0, CE_CLASSES, nr).astype(np.int32)}
    if variant == "smoothed":
        inputs.update(u.scalar_inputs(dtype, _CE_CONSTS))
    return inputs


def _ce_reference(variant: str, inputs, params) -> dict:
    x = inputs["x"].astype(np.float64)
    mx = x.max(axis=1)
    lse = mx + np.log(np.exp(x - mx[:, None]).sum(axis=1))
    picked = x[np.arange(x.shape[0]), inputs["label"]]
    if variant == "hard":
        loss = lse - picked
    else:
        loss = lse - (1.0 - CE_SMOOTHING) * picked - CE_SMOOTHING / CE_CLASSES * x.sum(axis=1)
    return {"loss": u.as_dtype_of(loss, inputs["x"])}


CROSS_ENTROPY_ROWS = KernelSpec(
    name="cross_entropy_rows",
    role=KernelRole.UNSEEN,
    description=f"The softmax cross-entropy loss of each of nr rows of {CE_CLASSES} "
                f"logits (a work item per row): the row's max, the sum of exponentials "
                f"of the shifted logits, its log, less the logit at the row's integer "
                f"label (a gather); with label smoothing a third pass sums the row.",
    parameters=("nr",),
    variants=_CE_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_cross_entropy,
    size_cases=lambda p: tuple({"nr": n} for n in _scaled(p)),
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=partial(_ce_inputs, "hard"),
    reference=partial(_ce_reference, "hard"),
    variant_make_inputs=_ce_inputs,
    variant_reference=_ce_reference,
    check_params={"nr": 500},
    rtol=1e-3,
)

# }}}


# {{{ binary cross-entropy with logits

_BCE_CONSTS = (("zero", 0.0), ("one", 1.0), ("pos_weight", 3.0))
_BCE_VARIANTS = ("plain", "pos_weighted")


def _build_bce(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _BCE_VARIANTS, 1)
    if req.variant == "plain":
        loss = "loss[i] = fmax(z, zero) - z * t + soft {dep=soft}"
    else:
        # (1 - t) z + (1 + (w - 1) t) (log(1 + e^-|z|) + max(-z, 0))
        loss = ("loss[i] = (one - t) * z + (one + (pos_weight - one) * t)"
                " * (soft + fmax(-z, zero)) {dep=soft}")
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> z = logit[i] {{id=z}}
            <> t = target[i] {{id=t}}
            <> soft = log(one + exp(-fabs(z))) {{id=soft, dep=z}}
            {loss}
        end
        """,
        [u.array("logit", req.dtype, ("n",)), u.array("target", req.dtype, ("n",)),
         u.array("loss", req.dtype, ("n",)), *u.scalar_args(req.dtype, _BCE_CONSTS),
         *u.size_args("n")],
        name="bce_with_logits", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _bce_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # logits of both signs (both sides of the clamp and of the absolute value), kept
    # off zero; soft targets in [0, 1]: the loss stays positive
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return {"logit": np.asarray(sign * rng.uniform(0.1, 4.0, n), dtype=dtype.numpy),
            "target": u.random_array(rng, (n,), dtype, low=0.0, high=1.0),
            **u.scalar_inputs(dtype, _BCE_CONSTS)}


def _bce_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    z, t = f["logit"], f["target"]
    soft = np.log1p(np.exp(-np.abs(z)))
    if variant == "plain":
        loss = np.maximum(z, 0.0) - z * t + soft
    else:
        loss = (1.0 - t) * z + (1.0 + 2.0 * t) * (soft + np.maximum(-z, 0.0))
    return {"loss": u.as_dtype_of(loss, inputs["logit"])}


BCE_WITH_LOGITS = KernelSpec(
    name="bce_with_logits",
    role=KernelRole.UNSEEN,
    description="The binary cross-entropy of n logits against soft targets in the "
                "numerically stable form: max(z, 0) - z t + log(1 + exp(-|z|)); or with "
                "the positive class weighted (a second clamp, more multiplications).",
    parameters=("n",),
    variants=_BCE_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_bce,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_bce_inputs,
    reference=partial(_bce_reference, "plain"),
    variant_reference=_bce_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ option payoff on simulated paths

PAY_STEPS = 64
_PAY_CONSTS = (("strike", 1.0), ("discount", 0.95), ("zero", 0.0), ("inv_steps", 1.0 / PAY_STEPS))
_PAY_VARIANTS = ("european", "asian")


def _build_payoff(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _PAY_VARIANTS, 1)
    price = (f"s[p, {PAY_STEPS - 1}]" if req.variant == "european"
             else "inv_steps * sum(t, s[p, t])")
    knl = u.make_kernel(
        (f"{{[p, t]: 0 <= p < npaths and 0 <= t < {PAY_STEPS}}}" if req.variant == "asian"
         else "{[p]: 0 <= p < npaths}"),
        f"""
        for p
            <> level = {price} {{id=level}}
            payoff[p] = discount * fmax(level - strike, zero) {{dep=level}}
        end
        """,
        [u.array("s", req.dtype, ("npaths", PAY_STEPS)), u.array("payoff", req.dtype, ("npaths",)),
         *u.scalar_args(req.dtype, _PAY_CONSTS), *u.size_args("npaths")],
        name="option_payoff_paths", assumptions="npaths >= 1")
    return u.split_1d(knl, "p", req.group_size)


def _payoff_inputs(params, dtype, rng) -> dict:
    npaths = params["npaths"]
    # half the paths end (and average) well above the strike, half well below: both
    # sides of the clamp taken, none near it (the zeros are exact)
    level = np.where(rng.random(npaths) < 0.5, rng.uniform(0.6, 0.85, npaths),
                     rng.uniform(1.15, 1.4, npaths))
    s = level[:, None] * rng.uniform(0.95, 1.05, (npaths, PAY_STEPS))
    return {"s": np.asarray(s, dtype=dtype.numpy), **u.scalar_inputs(dtype, _PAY_CONSTS)}


def _payoff_reference(variant: str, inputs, params) -> dict:
    s = inputs["s"].astype(np.float64)
    level = s[:, -1] if variant == "european" else s.mean(axis=1)
    return {"payoff": u.as_dtype_of(0.95 * np.maximum(level - 1.0, 0.0), inputs["s"])}


OPTION_PAYOFF_PATHS = KernelSpec(
    name="option_payoff_paths",
    role=KernelRole.UNSEEN,
    description=f"The discounted call payoff of npaths simulated price paths of "
                f"{PAY_STEPS} steps each (row-major, a work item per path): on the "
                f"path's last price (one strided load per path) or on its mean (a row "
                f"sum), clamped at zero.",
    parameters=("npaths",),
    variants=_PAY_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_payoff,
    size_cases=lambda p: tuple({"npaths": n} for n in _scaled(p)),
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=_payoff_inputs,
    reference=partial(_payoff_reference, "european"),
    variant_reference=_payoff_reference,
    check_params={"npaths": 500},
    rtol=1e-4,
)

# }}}


# {{{ iterated chaotic maps

MAP_STEPS = 24
_MAP_CONSTS = (("one", 1.0),)
#: variant -> one step of the map of x with parameter a
MAP_STEP: Mapping[str, str] = {
    "logistic": "a * x * (one - x)",
    "tent": "a * fmin(x, one - x)",
}


def _build_map(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(MAP_STEP), 1)
    lines, previous = [], "x0"
    for k in range(MAP_STEPS):
        lines.append(f"x = {MAP_STEP[req.variant]} {{id=s{k}, dep={previous}}}")
        previous = f"s{k}"
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> a = param[i] {{id=a}}
            <> x = x_init[i] {{id=x0, dep=a}}
            {body}
            x_out[i] = x {{dep={previous}}}
        end
        """,
        [u.array("x_init", req.dtype, ("n",)), u.array("param", req.dtype, ("n",)),
         u.array("x_out", req.dtype, ("n",)), *u.scalar_args(req.dtype, _MAP_CONSTS),
         *u.size_args("n")],
        name="chaotic_map_iterate", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _map_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # parameters where the map contracts (rounding errors shrink, the relative
    # tolerance holds); starting points on both sides of 1/2 (both arms of the tent)
    low, high = (2.5, 2.95) if variant == "logistic" else (0.85, 0.97)
    return {"x_init": u.random_array(rng, (n,), dtype, low=0.05, high=0.95),
            "param": u.random_array(rng, (n,), dtype, low=low, high=high),
            **u.scalar_inputs(dtype, _MAP_CONSTS)}


def _map_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    x, a = f["x_init"], f["param"]
    for _ in range(MAP_STEPS):
        x = a * x * (1.0 - x) if variant == "logistic" else a * np.minimum(x, 1.0 - x)
    return {"x_out": u.as_dtype_of(x, inputs["x_init"])}


CHAOTIC_MAP_ITERATE = KernelSpec(
    name="chaotic_map_iterate",
    role=KernelRole.UNSEEN,
    description=f"{MAP_STEPS} iterations of a one-dimensional map per element, its "
                f"parameter read per element: the logistic map a x (1 - x), or the tent "
                f"map a min(x, 1 - x); one load of each input, one store.",
    parameters=("n",),
    variants=tuple(MAP_STEP),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_map,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_map_inputs, "logistic"),
    reference=partial(_map_reference, "logistic"),
    variant_make_inputs=_map_inputs,
    variant_reference=_map_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ axis-angle rotation (Rodrigues)

_ROT_CONSTS = (("one", 1.0),)
_ROT_VARIANTS = ("matrix", "apply")


def _build_axis_angle(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _ROT_VARIANTS, 1)
    if req.variant == "matrix":
        # R = cos I + (1 - cos) k k^T + sin [k]x, row by row
        cross = {(0, 1): "- s * kz", (0, 2): "+ s * ky", (1, 0): "+ s * kz",
                 (1, 2): "- s * kx", (2, 0): "- s * ky", (2, 1): "+ s * kx"}
        ks = ("kx", "ky", "kz")
        lines = []
        for r in range(3):
            for col in range(3):
                extra = "+ c" if r == col else cross[(r, col)]
                lines.append(f"rot[i, {3 * r + col}] = omc * {ks[r]} * {ks[col]} {extra} "
                             f"{{dep=kx:ky:kz:cos:sin:omc}}")
        outs = [u.array("rot", req.dtype, ("n", 9))]
        ins = []
    else:
        # v cos + (k x v) sin + k (k . v)(1 - cos)
        after = "{dep=kv:cos:sin:omc}"
        lines = ["<> kv = kx * vx[i] + ky * vy[i] + kz * vz[i] {id=kv, dep=kx:ky:kz}",
                 f"wx[i] = vx[i] * c + (ky * vz[i] - kz * vy[i]) * s + kx * kv * omc {after}",
                 f"wy[i] = vy[i] * c + (kz * vx[i] - kx * vz[i]) * s + ky * kv * omc {after}",
                 f"wz[i] = vz[i] * c + (kx * vy[i] - ky * vx[i]) * s + kz * kv * omc {after}"]
        ins = [u.array(f"v{c}", req.dtype, ("n",)) for c in "xyz"]
        outs = [u.array(f"w{c}", req.dtype, ("n",)) for c in "xyz"]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> kx = axis_x[i] {{id=kx}}
            <> ky = axis_y[i] {{id=ky}}
            <> kz = axis_z[i] {{id=kz}}
            <> c = cos(angle[i]) {{id=cos}}
            <> s = sin(angle[i]) {{id=sin}}
            <> omc = one - c {{id=omc, dep=cos}}
            {body}
        end
        """,
        [*(u.array(f"axis_{c}", req.dtype, ("n",)) for c in "xyz"),
         u.array("angle", req.dtype, ("n",)), *ins, *outs,
         *u.scalar_args(req.dtype, _ROT_CONSTS), *u.size_args("n")],
        name="axis_angle_rotate", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _axis_angle_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # unit axes near the diagonal and angles in [0.1, 0.5]: every matrix entry (and
    # every rotated component of a positive vector) stays away from zero
    axis = 1.0 + rng.uniform(-0.2, 0.2, (3, n))
    axis /= np.sqrt((axis * axis).sum(axis=0))
    inputs = {**{f"axis_{c}": np.asarray(axis[k], dtype=dtype.numpy)
                 for k, c in enumerate("xyz")},
              "angle": u.random_array(rng, (n,), dtype, low=0.1, high=0.5),
              **u.scalar_inputs(dtype, _ROT_CONSTS)}
    if variant == "apply":
        inputs.update({f"v{c}": u.random_array(rng, (n,), dtype, low=1.0, high=2.0)
                       for c in "xyz"})
    return inputs


def rodrigues_matrices(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """The n x 3 x 3 rotations about unit axes (3 x n) by angles (n), in float64."""
    c, s = np.cos(angle), np.sin(angle)
    kx, ky, kz = axis
    zero = np.zeros_like(kx)
    skew = np.stack([np.stack([zero, -kz, ky]), np.stack([kz, zero, -kx]),
                     np.stack([-ky, kx, zero])])              # 3 x 3 x n
    outer = axis[:, None, :] * axis[None, :, :]
    rot = c * np.eye(3)[:, :, None] + (1.0 - c) * outer + s * skew
    return np.moveaxis(rot, 2, 0)


def _axis_angle_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    axis = np.stack([f[f"axis_{c}"] for c in "xyz"])
    rot = rodrigues_matrices(axis, f["angle"])
    like = inputs["angle"]
    if variant == "matrix":
        return {"rot": u.as_dtype_of(rot.reshape(-1, 9), like)}
    w = np.einsum("nij,jn->in", rot, np.stack([f[f"v{c}"] for c in "xyz"]))
    return {f"w{c}": u.as_dtype_of(w[k], like) for k, c in enumerate("xyz")}


AXIS_ANGLE_ROTATE = KernelSpec(
    name="axis_angle_rotate",
    role=KernelRole.UNSEEN,
    description="Rodrigues' rotation from n unit axes (three planes) and angles: the "
                "3 x 3 rotation matrix of each written row by row (stride 9), or a "
                "vector (three planes) rotated directly (a dot and a cross product); a "
                "cosine and a sine per item.",
    parameters=("n",),
    variants=_ROT_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_axis_angle,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_axis_angle_inputs, "matrix"),
    reference=partial(_axis_angle_reference, "matrix"),
    variant_make_inputs=_axis_angle_inputs,
    variant_reference=_axis_angle_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ HSV to RGB

_HSV_CONSTS = (("zero", 0.0), ("one", 1.0), ("four", 4.0), ("six", 6.0))
_HSV_VARIANTS = ("planar", "interleaved")
#: channel -> its offset n in the branchless form v - v s max(0, min(k, 4 - k, 1)),
#: k = (n + h) mod 6
_HSV_OFFSETS = {"r": 5.0, "g": 3.0, "b": 1.0}


def _hsv_offset_consts() -> tuple[tuple[str, float], ...]:
    return tuple((f"off_{ch}", n) for ch, n in _HSV_OFFSETS.items())


def _build_hsv(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _HSV_VARIANTS, 1)
    lines = []
    for ch in _HSV_OFFSETS:
        # (n + h) mod 6 for n + h in [1, 11): less 6 where it reaches 6
        lines += [f"<> w{ch} = off_{ch} + h {{id=w{ch}, dep=ld}}",
                  f"<> k{ch} = w{ch} - six * (w{ch} >= six) {{id=k{ch}, dep=w{ch}}}",
                  f"<> ramp_{ch} = fmax(zero, fmin(fmin(k{ch}, four - k{ch}), one)) "
                  f"{{id=ramp_{ch}, dep=k{ch}}}"]
    if req.variant == "planar":
        lines += [f"{ch}_out[i] = v - vs * ramp_{ch} {{dep=vs:ramp_{ch}}}" for ch in _HSV_OFFSETS]
        outs = [u.array(f"{ch}_out", req.dtype, ("n",)) for ch in _HSV_OFFSETS]
    else:
        lines += [f"rgb[i, {k}] = v - vs * ramp_{ch} {{dep=vs:ramp_{ch}}}"
                  for k, ch in enumerate(_HSV_OFFSETS)]
        outs = [u.array("rgb", req.dtype, ("n", 3))]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> h = hue[i] {{id=ld}}
            <> v = value[i] {{id=ldv}}
            <> vs = v * saturation[i] {{id=vs, dep=ldv}}
            {body}
        end
        """,
        [u.array("hue", req.dtype, ("n",)), u.array("saturation", req.dtype, ("n",)),
         u.array("value", req.dtype, ("n",)), *outs,
         *u.scalar_args(req.dtype, (*_HSV_CONSTS, *_hsv_offset_consts())),
         *u.size_args("n")],
        name="hsv_to_rgb", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _hsv_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # hues (in sixths of a turn) in all six sectors, off their edges (every arm of
    # both clamps of every channel taken); channels stay above 0.07 (relative tolerances)
    hue = rng.integers(0, 6, n) + rng.uniform(0.05, 0.95, n)
    return {"hue": np.asarray(hue, dtype=dtype.numpy),
            "saturation": u.random_array(rng, (n,), dtype, low=0.1, high=0.8),
            "value": u.random_array(rng, (n,), dtype, low=0.3, high=1.0),
            **u.scalar_inputs(dtype, (*_HSV_CONSTS, *_hsv_offset_consts()))}


def hsv_reference_rgb(h: np.ndarray, s: np.ndarray, v: np.ndarray) -> np.ndarray:
    """n x 3 RGB of hues in sixths of a turn [0, 6), saturations and values, float64."""
    sector = np.floor(h).astype(int)
    f = h - sector
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    table = np.stack([np.stack(c, axis=1) for c in
                      ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))])
    return table[sector, np.arange(h.size)]


def _hsv_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    rgb = hsv_reference_rgb(f["hue"], f["saturation"], f["value"])
    like = inputs["hue"]
    if variant == "interleaved":
        return {"rgb": u.as_dtype_of(rgb, like)}
    return {f"{ch}_out": u.as_dtype_of(rgb[:, k], like) for k, ch in enumerate("rgb")}


HSV_TO_RGB = KernelSpec(
    name="hsv_to_rgb",
    role=KernelRole.UNSEEN,
    description="Colour conversion of n pixels from hue (in sixths of a turn), "
                "saturation and value (three planes) to RGB in the branchless form: per "
                "channel v - v s max(0, min(k, 4 - k, 1)) with k = (n + h) mod 6 (a "
                "wrap-around by a comparison, three clamps); written as three planes or "
                "interleaved (stride 3).",
    parameters=("n",),
    variants=_HSV_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_hsv,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_hsv_inputs, "planar"),
    reference=partial(_hsv_reference, "planar"),
    variant_make_inputs=_hsv_inputs,
    variant_reference=_hsv_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (CROSS_ENTROPY_ROWS, BCE_WITH_LOGITS, OPTION_PAYOFF_PATHS,
                                 CHAOTIC_MAP_ITERATE, AXIS_ANGLE_ROTATE, HSV_TO_RGB)
