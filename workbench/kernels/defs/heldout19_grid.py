"""The nineteenth held-out set's image and field kernels on 2-D groups.

What the set is for, and the other kernels, are in :mod:`.heldout19`.

* ``perona_malik_step``: one explicit step of Perona and Malik's anisotropic diffusion
  (an edge-stopping conductance per neighbour, zero flux at the image's edges).
* ``local_contrast_norm3``: each pixel less its 3 x 3 window's mean, divided by the
  window's standard deviation (edges replicated).
* ``chroma_key_matte``: a green-screen matte: the alpha ramped by the distance of each
  pixel's colour from the key, and the green channel despilled.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec


#: the clamped neighbour indices (replicated edges) every kernel here uses
_CLAMPED = """
            <int32> up = i - (i > 0) {id=up}
            <int32> down = i + (i < m - 1) {id=down}
            <int32> left = j - (j > 0) {id=left}
            <int32> right = j + (j < n - 1) {id=right}"""


def clamped_neighbours(img: np.ndarray) -> dict[str, np.ndarray]:
    """The image's four clamped neighbours of every pixel."""
    padded = np.pad(img, 1, mode="edge")
    return {"up": padded[:-2, 1:-1], "down": padded[2:, 1:-1], "left": padded[1:-1, :-2],
            "right": padded[1:-1, 2:]}


# {{{ Perona-Malik diffusion

#: the edge threshold K and the step lambda
PM_K, PM_STEP = 0.1, 0.2
_PM_CONSTS = (("one", 1.0), ("inv_k2", 1.0 / PM_K ** 2), ("step", PM_STEP))


def _build_perona_malik(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("zero_flux",), 2)
    flux = []
    for nb, idx in (("up", "up, j"), ("down", "down, j"), ("left", "i, left"),
                    ("right", "i, right")):
        flux += [f"<> d_{nb} = img[{idx}] - c {{id=d_{nb}, dep=c:{nb}}}",
                 f"<> g_{nb} = d_{nb} / (one + d_{nb} * d_{nb} * inv_k2) "
                 f"{{id=g_{nb}, dep=d_{nb}}}"]
    body = "\n            ".join(flux)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j{_CLAMPED}
            <> c = img[i, j] {{id=c}}
            {body}
            img_out[i, j] = c + step * (g_up + g_down + g_left + g_right) \
                {{dep=g_up:g_down:g_left:g_right}}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in ("img", "img_out")),
         *u.scalar_args(req.dtype, _PM_CONSTS), *u.size_args("m", "n")],
        name="perona_malik_step", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def perona_malik(img) -> np.ndarray:
    """(float64) one step with zero flux across the image's edges."""
    img = np.asarray(img, np.float64)
    total = np.zeros_like(img)
    for nb in clamped_neighbours(img).values():
        d = nb - img
        total += d / (1 + d * d / PM_K ** 2)
    return img + PM_STEP * total


def _pm_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # a smooth ramp with noise (small differences, conducted) and a bright disc whose
    # rim is a strong edge (large differences, stopped); values 0.2 to 1.2
    i, j = np.meshgrid(np.linspace(0, 1, m), np.linspace(0, 1, n), indexing="ij")
    img = 0.3 + 0.2 * i + 0.1 * j + rng.normal(0.0, 0.03, (m, n))
    img[(i - 0.5) ** 2 + (j - 0.4) ** 2 < 0.09] += 0.6
    return {"img": np.asarray(img, dtype.numpy), **u.scalar_inputs(dtype, _PM_CONSTS)}


def _pm_reference(inputs, params) -> dict:
    return {"img_out": u.as_dtype_of(perona_malik(inputs["img"]), inputs["img"])}


PERONA_MALIK_STEP = KernelSpec(
    name="perona_malik_step",
    description=f"One explicit step of Perona and Malik's anisotropic diffusion on an "
                f"m x n image: for each of the four neighbours (int32 indices clamped to the "
                f"image, so no flux crosses its edges) the difference d and its flux "
                f"d / (1 + (d / K)^2) with K = {PM_K}, a division each, summed with the "
                f"step {PM_STEP}.",
    variants=("zero_flux",),
    build=_build_perona_malik,
    make_inputs=_pm_inputs,
    reference=_pm_reference,
    rtol=1e-5,
    **u.unseen_2d(),
)

# }}}


# {{{ local contrast normalisation

#: added to the window's variance
LCN_EPS = 1e-2
_LCN_CONSTS = (("zero", 0.0), ("inv9", 1.0 / 9.0), ("eps", LCN_EPS))


def _build_lcn(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("replicated_edges",), 2)
    window = [(r, c) for r in ("up", "i", "down") for c in ("left", "j", "right")]
    loads = [f"<> w{k} = img[{r}, {c}] {{id=w{k}, dep=up:down:left:right}}"
             for k, (r, c) in enumerate(window)]
    body = "\n            ".join(loads)
    deps = ":".join(f"w{k}" for k in range(9))
    total = " + ".join(f"w{k}" for k in range(9))
    squares = " + ".join(f"w{k} * w{k}" for k in range(9))
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j{_CLAMPED}
            {body}
            <> mean = ({total}) * inv9 {{id=mean, dep={deps}}}
            <> var = fmax(({squares}) * inv9 - mean * mean, zero) {{id=var, dep=mean}}
            normed[i, j] = (w4 - mean) / sqrt(var + eps) {{dep=var}}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in ("img", "normed")),
         *u.scalar_args(req.dtype, _LCN_CONSTS), *u.size_args("m", "n")],
        name="local_contrast_norm3", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def windows3x3(img) -> np.ndarray:
    padded = np.pad(np.asarray(img, np.float64), 1, mode="edge")
    m, n = padded.shape[0] - 2, padded.shape[1] - 2
    return np.stack([padded[r:r + m, c:c + n] for r in range(3) for c in range(3)])


def lcn(img) -> np.ndarray:
    """(float64) each pixel less its window's mean over the window's deviation."""
    w = windows3x3(img)
    mean = w.mean(axis=0)
    var = np.maximum((w * w).mean(axis=0) - mean * mean, 0.0)
    return (w[4] - mean) / np.sqrt(var + LCN_EPS)


def _lcn_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # a textured image 0 to 1, a quarter of it nearly flat (the variance then below the
    # epsilon); pixels redrawn while one lies within 1e-2 of its window's mean
    img = rng.uniform(0.0, 1.0, shape)
    flat = np.zeros(shape, bool)
    flat[: shape[0] // 2, : shape[1] // 2] = True
    img[flat] = 0.5 + rng.uniform(-0.05, 0.05, flat.sum())
    for _ in range(200):
        w = windows3x3(img)
        bad = np.abs(w[4] - w.mean(axis=0)) < np.where(flat, 2e-3, 1e-2)
        if not bad.any():
            break
        img[bad & ~flat] = rng.uniform(0.0, 1.0, (bad & ~flat).sum())
        img[bad & flat] = 0.5 + rng.uniform(-0.05, 0.05, (bad & flat).sum())
    return {"img": np.asarray(img, dtype.numpy), **u.scalar_inputs(dtype, _LCN_CONSTS)}


def _lcn_reference(inputs, params) -> dict:
    return {"normed": u.as_dtype_of(lcn(inputs["img"]), inputs["img"])}


LOCAL_CONTRAST_NORM3 = KernelSpec(
    name="local_contrast_norm3",
    description=f"Local contrast normalisation of an m x n image: each pixel less the mean "
                f"of its 3 x 3 window (int32 indices clamped, edges replicated), over the "
                f"square root of the window's variance (mean of squares less the squared "
                f"mean) plus {LCN_EPS}: nine loads, a square root and a division per pixel.",
    variants=("replicated_edges",),
    build=_build_lcn,
    make_inputs=_lcn_inputs,
    reference=_lcn_reference,
    rtol=1e-3,
    **u.unseen_2d(),
)

# }}}


# {{{ chroma-key matte

#: the key colour (a studio green) and the distances where the ramp starts and ends
KEY_RGB, KEY_NEAR, KEY_FAR = (0.1, 0.8, 0.2), 0.15, 0.45
_KEY_CONSTS = (("zero", 0.0), ("one", 1.0), ("key_r", KEY_RGB[0]), ("key_g", KEY_RGB[1]),
               ("key_b", KEY_RGB[2]), ("near", KEY_NEAR), ("inv_span", 1 / (KEY_FAR - KEY_NEAR)))


def _build_chroma_key(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("ramp_despill",), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        """
        for i, j
            <> r = red[i, j] {id=r}
            <> g = green[i, j] {id=g}
            <> b = blue[i, j] {id=b}
            <> dist = sqrt((r - key_r) * (r - key_r) + (g - key_g) * (g - key_g) \
                + (b - key_b) * (b - key_b)) {id=dist, dep=r:g:b}
            alpha[i, j] = fmin(fmax((dist - near) * inv_span, zero), one) {dep=dist}
            green_out[i, j] = fmin(g, fmax(r, b)) {dep=r:g:b}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n"))
           for a in ("red", "green", "blue", "alpha", "green_out")),
         *u.scalar_args(req.dtype, _KEY_CONSTS), *u.size_args("m", "n")],
        name="chroma_key_matte", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def key_distance(rgb) -> np.ndarray:
    """(float64) each pixel's distance from the key colour; rgb stacks the planes."""
    rgb = np.asarray(rgb, np.float64)
    return np.sqrt(sum((rgb[k] - KEY_RGB[k]) ** 2 for k in range(3)))


def _chroma_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # a third of the pixels near the key (alpha 0), a third on the ramp, a third any
    # colour (mostly opaque); redrawn within 1e-3 of either end of the ramp or with an
    # alpha under 1e-2 on it
    def draw(k):
        direction = rng.normal(size=(3, k))
        direction /= np.linalg.norm(direction, axis=0)
        near = np.asarray(KEY_RGB)[:, None] + direction * rng.uniform(0.0, 0.6, k)
        return np.where(rng.random(k) < 2 / 3, np.clip(near, 0.0, 1.0),
                        rng.uniform(0.0, 1.0, (3, k)))

    def is_bad(rgb):
        d = key_distance(rgb)
        ramp = (d - KEY_NEAR) / (KEY_FAR - KEY_NEAR)
        return ((np.abs(d - KEY_NEAR) < 1e-3) | (np.abs(d - KEY_FAR) < 1e-3)
                | ((ramp > 0) & (ramp < 1e-2)))
    rgb = u.redraw_until_good(draw(np.prod(shape)), draw, is_bad, tries=200, axis=1)
    planes = rgb.reshape(3, *shape)
    return {**{c: np.asarray(planes[k], dtype.numpy)
               for k, c in enumerate(("red", "green", "blue"))},
            **u.scalar_inputs(dtype, _KEY_CONSTS)}


def _chroma_reference(inputs, params) -> dict:
    r, g, b = (inputs[c].astype(np.float64) for c in ("red", "green", "blue"))
    d = key_distance(np.stack([r, g, b]))
    alpha = np.clip((d - KEY_NEAR) / (KEY_FAR - KEY_NEAR), 0.0, 1.0)
    return {"alpha": u.as_dtype_of(alpha, inputs["red"]),
            "green_out": u.as_dtype_of(np.minimum(g, np.maximum(r, b)), inputs["red"])}


CHROMA_KEY_MATTE = KernelSpec(
    name="chroma_key_matte",
    description=f"A green-screen matte of an m x n image (three colour planes): the "
                f"Euclidean distance of each pixel's colour from the key {KEY_RGB}, the "
                f"alpha ramped from 0 at {KEY_NEAR} to 1 at {KEY_FAR} (clamped by min and "
                f"max), and the green channel despilled to at most the larger of red and "
                f"blue; two planes written.",
    variants=("ramp_despill",),
    build=_build_chroma_key,
    make_inputs=_chroma_inputs,
    reference=_chroma_reference,
    rtol=1e-4,
    **u.unseen_2d(),
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (PERONA_MALIK_STEP, LOCAL_CONTRAST_NORM3, CHROMA_KEY_MATTE)
