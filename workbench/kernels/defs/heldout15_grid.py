"""The fifteenth held-out set's kernels on 2-D groups: a median filter, a separable
blur pass, the gradient's orientation, Givens rotations of row pairs.

What the set is for, and the other kernels, are in :mod:`.heldout15`.

* ``median_filter``: each pixel of an image with a one-pixel border replaced by the
  median of its 3 x 3 neighbourhood (a 19-step min/max exchange network) or of the
  five pixels of its plus-shaped cross (7 steps).
* ``gauss_blur_pass``: one pass of a separable 5-tap binomial (Gaussian) blur, along
  the rows or along the columns of an image with a two-pixel border on that axis.
* ``grad_orientation``: the gradient's direction per pixel from central differences
  (an atan2), alone or with the gradient's magnitude.
* ``givens_rotate_rows``: a Givens rotation (cosine and sine per pair) applied to each
  pair of rows (2k, 2k + 1) of a matrix into a new one, the cosine and sine given or
  computed from the angle.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _bordered_inputs(params, dtype, rng) -> dict:
    # distinct values in [0.5, 1.5]: a wrong neighbour or order never gives the right value
    m, n = params["m"], params["n"]
    return {"img": u.random_array(rng, (m + 2, n + 2), dtype, low=0.5, high=1.5)}


# {{{ median filter

#: variant -> the neighbourhood's offsets (row, column), in the order the network takes
MEDIAN_WINDOWS: Mapping[str, tuple[tuple[int, int], ...]] = {
    "square3x3": tuple((di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1)),
    "cross5": ((-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)),
}
#: variant -> (its exchange network as pairs of slots sorted to (low, high), the slot
#: holding the median at the end): Paeth's 9-input and 5-input median networks
MEDIAN_NETWORKS: Mapping[str, tuple[tuple[tuple[int, int], ...], int]] = {
    "square3x3": (((1, 2), (4, 5), (7, 8), (0, 1), (3, 4), (6, 7), (1, 2), (4, 5), (7, 8),
                   (0, 3), (5, 8), (4, 7), (3, 6), (1, 4), (2, 5), (4, 7), (4, 2), (6, 4),
                   (4, 2)), 4),
    "cross5": (((0, 1), (3, 4), (0, 3), (1, 4), (1, 2), (2, 3), (1, 2)), 2),
}


def _build_median(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(MEDIAN_WINDOWS), 2)
    slots = []
    lines = []
    for k, (di, dj) in enumerate(MEDIAN_WINDOWS[req.variant]):
        lines.append(f"<> v{k}_0 = img[i + {1 + di}, j + {1 + dj}] {{id=v{k}_0}}")
        slots.append(f"v{k}_0")
    network, middle = MEDIAN_NETWORKS[req.variant]
    for step, (lo, hi) in enumerate(network, start=1):
        a, b = slots[lo], slots[hi]
        slots[lo], slots[hi] = f"v{lo}_{step}", f"v{hi}_{step}"
        lines += [f"<> {slots[lo]} = fmin({a}, {b}) {{id={slots[lo]}, dep={a}:{b}}}",
                  f"<> {slots[hi]} = fmax({a}, {b}) {{id={slots[hi]}, dep={a}:{b}}}"]
    lines.append(f"out[i, j] = {slots[middle]} {{dep={slots[middle]}}}")
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {body}
        end
        """,
        [u.array("img", req.dtype, ("m + 2", "n + 2")), u.array("out", req.dtype, ("m", "n")),
         *u.size_args("m", "n")],
        name="median_filter", assumptions="m >= 1 and n >= 1")
    # the network's unused halves are left to the compiler
    return u.split_2d(knl, "i", "j", req.group_size)


def _median_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    img = inputs["img"]
    window = np.stack([img[1 + di:1 + di + m, 1 + dj:1 + dj + n]
                       for di, dj in MEDIAN_WINDOWS[variant]])
    return {"out": np.median(window, axis=0).astype(img.dtype)}


MEDIAN_FILTER = KernelSpec(
    name="median_filter",
    role=KernelRole.UNSEEN,
    description="A median filter of an m x n image stored with a one-pixel border: each "
                "output pixel the median of its 3 x 3 neighbourhood (square3x3: nine "
                "reads, a 19-step network of min/max exchanges) or of its plus-shaped "
                "cross (cross5: five reads, seven exchanges).",
    parameters=("m", "n"),
    variants=tuple(MEDIAN_WINDOWS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_median,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_bordered_inputs,
    reference=partial(_median_reference, "square3x3"),
    variant_reference=_median_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-7,
)

# }}}


# {{{ separable Gaussian blur, one pass

#: the binomial weights (1, 4, 6, 4, 1) / 16, symmetric about the centre
BLUR_WEIGHTS = (1 / 16, 4 / 16, 6 / 16)
_BLUR_CONSTS = tuple((f"w{k}", w) for k, w in enumerate(BLUR_WEIGHTS))
#: variant -> (the input's shape, the tap at offset k in 0..4)
_BLUR_AXES: Mapping[str, tuple[tuple[str, str], str]] = {
    "rows": (("m", "n + 4"), "img[i, j + {k}]"),
    "columns": (("m + 4", "n"), "img[i + {k}, j]"),
}


def _build_blur(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_BLUR_AXES), 2)
    shape, tap = _BLUR_AXES[req.variant]
    t = [tap.format(k=k) for k in range(5)]
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            out[i, j] = w0 * ({t[0]} + {t[4]}) + w1 * ({t[1]} + {t[3]}) + w2 * {t[2]}
        end
        """,
        [u.array("img", req.dtype, shape), u.array("out", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, _BLUR_CONSTS), *u.size_args("m", "n")],
        name="gauss_blur_pass", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _blur_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    shape = (m, n + 4) if variant == "rows" else (m + 4, n)
    return {"img": u.random_array(rng, shape, dtype, low=0.5, high=1.5),
            **u.scalar_inputs(dtype, _BLUR_CONSTS)}


def _blur_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    img = inputs["img"].astype(np.float64)
    weights = (*BLUR_WEIGHTS, *BLUR_WEIGHTS[1::-1])
    if variant == "rows":
        out = sum(w * img[:, k:k + n] for k, w in enumerate(weights))
    else:
        out = sum(w * img[k:k + m, :] for k, w in enumerate(weights))
    return {"out": u.as_dtype_of(out, inputs["img"])}


GAUSS_BLUR_PASS = KernelSpec(
    name="gauss_blur_pass",
    role=KernelRole.UNSEEN,
    description="One pass of a separable Gaussian blur of an m x n image: the 5-tap "
                "binomial filter (1, 4, 6, 4, 1) / 16 (three multiplies, symmetric taps "
                "added first) along each row (rows; input m x (n + 4)) or down each "
                "column (columns; input (m + 4) x n).",
    parameters=("m", "n"),
    variants=tuple(_BLUR_AXES),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_blur,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_blur_inputs, "rows"),
    reference=partial(_blur_reference, "rows"),
    variant_make_inputs=_blur_inputs,
    variant_reference=_blur_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-5,
)

# }}}


# {{{ gradient orientation

_ORIENT_CONSTS = (("one_half", 0.5),)
_ORIENT_VARIANTS = ("angle", "angle_magnitude")


def _build_orientation(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _ORIENT_VARIANTS, 2)
    stores = ["angle[i, j] = atan2(gy, gx) {dep=gx:gy}"]
    if req.variant == "angle_magnitude":
        stores.append("magnitude[i, j] = sqrt(gx * gx + gy * gy) {dep=gx:gy}")
    body = "\n            ".join(stores)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <> gx = one_half * (img[i + 1, j + 2] - img[i + 1, j]) {{id=gx}}
            <> gy = one_half * (img[i + 2, j + 1] - img[i, j + 1]) {{id=gy}}
            {body}
        end
        """,
        [u.array("img", req.dtype, ("m + 2", "n + 2")), u.array("angle", req.dtype, ("m", "n")),
         *([u.array("magnitude", req.dtype, ("m", "n"))]
           if req.variant == "angle_magnitude" else []),
         *u.scalar_args(req.dtype, _ORIENT_CONSTS), *u.size_args("m", "n")],
        name="grad_orientation", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def central_gradients(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(float64) the central differences across columns and down rows of a bordered image."""
    f = np.asarray(img, np.float64)
    return 0.5 * (f[1:-1, 2:] - f[1:-1, :-2]), 0.5 * (f[2:, 1:-1] - f[:-2, 1:-1])


def _orientation_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # a random image (gradients of every direction, all four quadrants); pixels whose
    # gradient component is near zero redrawn (the angle's branch cut at +-pi and the
    # quadrant must come out the same in both precisions)
    img = rng.uniform(0.5, 1.5, (m + 2, n + 2))
    for _ in range(200):
        gx, gy = central_gradients(img)
        bad = (np.abs(gx) < 1e-3) | (np.abs(gy) < 1e-3)
        if not bad.any():
            break
        rows, cols = np.nonzero(bad)
        img[rows + rng.integers(0, 2, rows.size) * 2, cols + 1] = rng.uniform(0.5, 1.5, rows.size)
        img[rows + 1, cols + rng.integers(0, 2, rows.size) * 2] = rng.uniform(0.5, 1.5, rows.size)
    return {"img": np.asarray(img, dtype=dtype.numpy), **u.scalar_inputs(dtype, _ORIENT_CONSTS)}


def _orientation_reference(variant: str, inputs, params) -> dict:
    gx, gy = central_gradients(inputs["img"])
    out = {"angle": np.arctan2(gy, gx)}
    if variant == "angle_magnitude":
        out["magnitude"] = np.hypot(gx, gy)
    return {k: u.as_dtype_of(v, inputs["img"]) for k, v in out.items()}


GRAD_ORIENTATION = KernelSpec(
    name="grad_orientation",
    role=KernelRole.UNSEEN,
    description="The direction of the gradient of an m x n image stored with a "
                "one-pixel border, from central differences across and down (four "
                "reads): atan2(gy, gx) per pixel (angle), and also the gradient's length "
                "by a square root (angle_magnitude).",
    parameters=("m", "n"),
    variants=_ORIENT_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_orientation,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_orientation_inputs,
    reference=partial(_orientation_reference, "angle"),
    variant_reference=_orientation_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-3,
)

# }}}


# {{{ Givens rotations of row pairs

_GIVENS_VARIANTS = ("given_cos_sin", "from_angle")


def _build_givens(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _GIVENS_VARIANTS, 2)
    if req.variant == "given_cos_sin":
        rotation = ["<> c = cos_k[k] {id=c}", "<> s = sin_k[k] {id=s}"]
        args = [u.array("cos_k", req.dtype, ("m",)), u.array("sin_k", req.dtype, ("m",))]
    else:
        rotation = ["<> c = cos(theta[k]) {id=c}", "<> s = sin(theta[k]) {id=s}"]
        args = [u.array("theta", req.dtype, ("m",))]
    head = "\n            ".join(rotation)
    knl = u.make_kernel(
        "{[k, j]: 0 <= k < m and 0 <= j < n}",
        f"""
        for k, j
            {head}
            <> top = mat[2 * k, j] {{id=top}}
            <> bot = mat[2 * k + 1, j] {{id=bot}}
            rot[2 * k, j] = c * top + s * bot {{dep=top:bot:c:s}}
            rot[2 * k + 1, j] = c * bot - s * top {{dep=top:bot:c:s}}
        end
        """,
        [u.array("mat", req.dtype, ("2 * m", "n")), u.array("rot", req.dtype, ("2 * m", "n")),
         *args, *u.size_args("m", "n")],
        name="givens_rotate_rows", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "k", "j", req.group_size)


def _givens_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # angles in all four quadrants; entries positive with rows of different scales, and
    # rows whose rotated value would come near zero redrawn (a relative tolerance holds)
    theta = rng.uniform(-np.pi, np.pi, m)
    mat = rng.uniform(0.5, 1.5, (2 * m, n)) * rng.uniform(0.5, 4.0, (2 * m, 1))

    def is_bad(theta):
        rot = _rotated(mat, np.cos(theta), np.sin(theta))
        return (np.abs(rot) < 0.05).reshape(m, 2, n).any(axis=(1, 2))
    theta = u.redraw_until_good(theta, lambda k: rng.uniform(-np.pi, np.pi, k), is_bad,
                                tries=200)
    rotation = ({"cos_k": np.cos(theta), "sin_k": np.sin(theta)} if variant == "given_cos_sin"
                else {"theta": theta})
    return {"mat": np.asarray(mat, dtype=dtype.numpy),
            **{k: np.asarray(v, dtype=dtype.numpy) for k, v in rotation.items()}}


def _rotated(mat, c, s) -> np.ndarray:
    top, bot = mat[0::2], mat[1::2]
    out = np.empty_like(mat)
    out[0::2] = c[:, None] * top + s[:, None] * bot
    out[1::2] = c[:, None] * bot - s[:, None] * top
    return out


def _givens_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    if variant == "given_cos_sin":
        c, s = f["cos_k"], f["sin_k"]
    else:
        c, s = np.cos(f["theta"]), np.sin(f["theta"])
    return {"rot": u.as_dtype_of(_rotated(f["mat"], c, s), inputs["mat"])}


GIVENS_ROTATE_ROWS = KernelSpec(
    name="givens_rotate_rows",
    role=KernelRole.UNSEEN,
    description="m Givens rotations, one per pair of rows (2k, 2k + 1) of a 2m x n "
                "matrix: each work item reads the two "
                "entries of a column and writes c t + s b and c b - s t into a new "
                "matrix; the cosine and sine read per pair (given_cos_sin) or computed "
                "per work item from the pair's angle (from_angle).",
    parameters=("m", "n"),
    variants=_GIVENS_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_givens,
    size_cases=u.doubling_rectangles,
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=partial(_givens_inputs, "given_cos_sin"),
    reference=partial(_givens_reference, "given_cos_sin"),
    variant_make_inputs=_givens_inputs,
    variant_reference=_givens_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (MEDIAN_FILTER, GAUSS_BLUR_PASS, GRAD_ORIENTATION,
                                 GIVENS_ROTATE_ROWS)
