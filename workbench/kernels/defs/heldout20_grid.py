"""The twentieth held-out set's image and field kernels on 2-D groups.

What the set is for, and the other kernels, are in :mod:`.heldout20`.

* ``metaball_field``: the field of a set of metaballs at every pixel, and the pixels
  inside the iso-surface.
* ``heightmap_normals``: unit surface normals of a height map by central differences
  (edges replicated).
* ``ssim_map3``: the structural similarity of two images over each pixel's 3 x 3 window.
* ``ising_checkerboard``: one Metropolis half-sweep (the black sites) of a periodic 2-D
  Ising lattice, the uniform random numbers given.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec


def _padded_windows(img) -> np.ndarray:
    padded = np.pad(np.asarray(img, np.float64), 1, mode="edge")
    m, n = padded.shape[0] - 2, padded.shape[1] - 2
    return np.stack([padded[r:r + m, c:c + n] for r in range(3) for c in range(3)])


# {{{ metaballs

#: the balls; added to each squared distance
BALLS, BALL_EPS = 16, 1e-4


def _build_metaballs(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("inverse_square",), 2)
    ftype = req.dtype.value
    knl = u.make_kernel(
        ["{[i, j]: 0 <= i < m and 0 <= j < n}", f"{{[k]: 0 <= k < {BALLS}}}"],
        f"""
        for i, j
            <{ftype}> x = j * inv_n {{id=x}}
            <{ftype}> y = i * inv_m {{id=y}}
            <> total = zero {{id=total0}}
            for k
                <> dx = x - balls[k, 0] {{id=dx, dep=x}}
                <> dy = y - balls[k, 1] {{id=dy, dep=y}}
                total = total + balls[k, 2] / (dx * dx + dy * dy + eps) \
                    {{id=total_up, dep=dx:dy:total0}}
            end
            field[i, j] = total {{dep=total_up}}
            <{ftype}> is_in = total > threshold {{id=is_in, dep=total_up}}
            inside[i, j] = is_in {{dep=is_in}}
        end
        """,
        [u.array("balls", req.dtype, (BALLS, 3)),
         *(u.array(a, req.dtype, ("m", "n")) for a in ("field", "inside")),
         *u.scalar_args(req.dtype, (("zero", 0.0), ("eps", BALL_EPS), ("inv_m", 1.0),
                                    ("inv_n", 1.0), ("threshold", 1.0))),
         *u.size_args("m", "n")],
        name="metaball_field", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def metaballs(balls, m, n, inv_m, inv_n) -> np.ndarray:
    """(float64) the field at every pixel; the coordinates as the kernel rounds them."""
    balls = np.asarray(balls, np.float64)
    like = np.asarray(inv_m).dtype
    y = (np.arange(m, dtype=like) * inv_m).astype(np.float64)[:, None, None]
    x = (np.arange(n, dtype=like) * inv_n).astype(np.float64)[None, :, None]
    d2 = (x - balls[:, 0]) ** 2 + (y - balls[:, 1]) ** 2 + BALL_EPS
    return (balls[:, 2] / d2).sum(axis=2)


def _metaball_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # balls over the unit square (some partly off it), strengths (squared radii) 1e-3
    # to 1e-2; the threshold in the widest relative gap between the fields of the
    # middle fifth of the pixels, so that some are inside and none on the surface
    balls = np.column_stack([rng.uniform(-0.1, 1.1, (BALLS, 2)),
                             rng.uniform(1e-3, 1e-2, BALLS)])
    balls = np.asarray(balls, dtype.numpy)
    inv_m, inv_n = dtype.numpy.type(1.0 / m), dtype.numpy.type(1.0 / n)
    f = np.sort(metaballs(balls, m, n, inv_m, inv_n).ravel())
    lo, hi = int(0.4 * f.size), int(0.6 * f.size)
    gaps = f[lo + 1:hi + 1] / f[lo:hi]
    k = lo + int(np.argmax(gaps))
    return {"balls": balls,
            **u.scalar_inputs(dtype, (("zero", 0.0), ("eps", BALL_EPS), ("inv_m", 1.0 / m),
                                      ("inv_n", 1.0 / n),
                                      ("threshold", np.sqrt(f[k] * f[k + 1]))))}


def _metaball_reference(inputs, params) -> dict:
    f = metaballs(inputs["balls"], params["m"], params["n"], inputs["inv_m"], inputs["inv_n"])
    like = inputs["balls"]
    return {"field": u.as_dtype_of(f, like),
            "inside": u.as_dtype_of((f > inputs["threshold"]).astype(np.float64), like)}


METABALL_FIELD = KernelSpec(
    name="metaball_field",
    description=f"The field of {BALLS} metaballs (centre and strength, read by every work "
                f"item) at every pixel of an m x n grid over the unit square (coordinates "
                f"from the int32 indices): per ball a squared distance and a division "
                f"summed; the field and the inside mask (the threshold comparison as 0 or "
                f"1) written.",
    variants=("inverse_square",),
    build=_build_metaballs,
    make_inputs=_metaball_inputs,
    reference=_metaball_reference,
    rtol=1e-4,
    **u.unseen_2d(),
)

# }}}


# {{{ height-map normals

_NORMAL_CONSTS = (("one", 1.0), ("half_x", 0.5 * 8.0), ("half_y", 0.5 * 8.0))


def _build_normals(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("central_differences",), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        """
        for i, j
            <int32> up = i - (i > 0) {id=up}
            <int32> down = i + (i < m - 1) {id=down}
            <int32> left = j - (j > 0) {id=left}
            <int32> right = j + (j < n - 1) {id=right}
            <> sx = (height[i, right] - height[i, left]) * half_x {id=sx, dep=left:right}
            <> sy = (height[down, j] - height[up, j]) * half_y {id=sy, dep=up:down}
            <> inv_len = one / sqrt(sx * sx + sy * sy + one) {id=inv_len, dep=sx:sy}
            nx[i, j] = -sx * inv_len {dep=inv_len}
            ny[i, j] = -sy * inv_len {dep=inv_len}
            nz[i, j] = inv_len {dep=inv_len}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in ("height", "nx", "ny", "nz")),
         *u.scalar_args(req.dtype, _NORMAL_CONSTS), *u.size_args("m", "n")],
        name="heightmap_normals", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def _slopes(height) -> tuple[np.ndarray, np.ndarray]:
    w = _padded_windows(height)
    return 4.0 * (w[5] - w[3]), 4.0 * (w[7] - w[1])


def _normals_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # rough terrain 0 to 1 on a gentle slope; the neighbours of any pixel whose
    # difference along either axis is under 1e-2 redrawn until none is
    i, j = np.indices(shape)
    base = 0.002 * (i + j)
    h = base + rng.uniform(0.0, 1.0, shape)
    for _ in range(400):
        sx, sy = _slopes(h)
        bad = (np.abs(sx) < 4e-2) | (np.abs(sy) < 4e-2)
        if not bad.any():
            break
        redo = np.zeros(shape, bool)
        redo[:, 1:] |= bad[:, :-1]
        redo[1:, :] |= bad[:-1, :]
        redo[:, -1] |= bad[:, -1]
        redo[-1, :] |= bad[-1, :]
        h[redo] = base[redo] + rng.uniform(0.0, 1.0, redo.sum())
    return {"height": np.asarray(h, dtype.numpy), **u.scalar_inputs(dtype, _NORMAL_CONSTS)}


def _normals_reference(inputs, params) -> dict:
    sx, sy = _slopes(inputs["height"])
    inv = 1.0 / np.sqrt(sx * sx + sy * sy + 1.0)
    like = inputs["height"]
    return {"nx": u.as_dtype_of(-sx * inv, like), "ny": u.as_dtype_of(-sy * inv, like),
            "nz": u.as_dtype_of(inv, like)}


HEIGHTMAP_NORMALS = KernelSpec(
    name="heightmap_normals",
    description="Unit surface normals of an m x n height map (height scale 8): the "
                "central differences along both axes (int32 indices clamped, one-sided at "
                "the edges), a reciprocal square root of the normal's squared length, "
                "three planes written.",
    variants=("central_differences",),
    build=_build_normals,
    make_inputs=_normals_inputs,
    reference=_normals_reference,
    rtol=1e-4,
    **u.unseen_2d(),
)

# }}}


# {{{ SSIM over 3 x 3 windows

#: the stabilising constants (images in [0, 1])
SSIM_C1, SSIM_C2 = 0.01 ** 2, 0.03 ** 2
_SSIM_CONSTS = (("two", 2.0), ("inv9", 1.0 / 9.0), ("c1", SSIM_C1), ("c2", SSIM_C2))


def _build_ssim(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("replicated_edges",), 2)
    window = [(r, c) for r in ("up", "i", "down") for c in ("left", "j", "right")]
    loads = []
    for k, (r, c) in enumerate(window):
        loads += [f"<> a{k} = img_a[{r}, {c}] {{id=a{k}, dep=up:down:left:right}}",
                  f"<> b{k} = img_b[{r}, {c}] {{id=b{k}, dep=up:down:left:right}}"]
    body = "\n            ".join(loads)
    deps = ":".join(f"{x}{k}" for x in "ab" for k in range(9))

    def total(expr):
        return " + ".join(expr.format(k=k) for k in range(9))
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <int32> up = i - (i > 0) {{id=up}}
            <int32> down = i + (i < m - 1) {{id=down}}
            <int32> left = j - (j > 0) {{id=left}}
            <int32> right = j + (j < n - 1) {{id=right}}
            {body}
            <> mu_a = ({total("a{k}")}) * inv9 {{id=mu_a, dep={deps}}}
            <> mu_b = ({total("b{k}")}) * inv9 {{id=mu_b, dep={deps}}}
            <> var_a = ({total("a{k} * a{k}")}) * inv9 - mu_a * mu_a {{id=var_a, dep=mu_a}}
            <> var_b = ({total("b{k} * b{k}")}) * inv9 - mu_b * mu_b {{id=var_b, dep=mu_b}}
            <> cov = ({total("a{k} * b{k}")}) * inv9 - mu_a * mu_b {{id=cov, dep=mu_a:mu_b}}
            ssim[i, j] = (two * mu_a * mu_b + c1) * (two * cov + c2) \
                / ((mu_a * mu_a + mu_b * mu_b + c1) * (var_a + var_b + c2)) \
                {{dep=var_a:var_b:cov}}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in ("img_a", "img_b", "ssim")),
         *u.scalar_args(req.dtype, _SSIM_CONSTS), *u.size_args("m", "n")],
        name="ssim_map3", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def ssim3(a, b) -> np.ndarray:
    """(float64) the SSIM map over replicated-edge 3 x 3 windows."""
    wa, wb = _padded_windows(a), _padded_windows(b)
    mu_a, mu_b = wa.mean(axis=0), wb.mean(axis=0)
    var_a = (wa * wa).mean(axis=0) - mu_a ** 2
    var_b = (wb * wb).mean(axis=0) - mu_b ** 2
    cov = (wa * wb).mean(axis=0) - mu_a * mu_b
    return ((2 * mu_a * mu_b + SSIM_C1) * (2 * cov + SSIM_C2)
            / ((mu_a ** 2 + mu_b ** 2 + SSIM_C1) * (var_a + var_b + SSIM_C2)))


def _ssim_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # a textured image and a distorted copy (scaled, offset, noisy); a quarter of the
    # copy is independent noise instead, where windows decorrelate and the SSIM takes
    # both signs; pixels of the copy redrawn while a window's SSIM lies within 0.02 of
    # zero
    a = rng.uniform(0.0, 1.0, shape)
    indep = np.zeros(shape, bool)
    indep[shape[0] // 2:, shape[1] // 2:] = True

    def draw(mask):
        k = mask.sum()
        return np.where(indep[mask], rng.uniform(0.0, 1.0, k),
                        np.clip(0.8 * a[mask] + 0.1 + rng.normal(0.0, 0.1, k), 0.0, 1.0))
    b = np.zeros(shape)
    b[...] = draw(np.ones(shape, bool)).reshape(shape)
    for _ in range(400):
        bad = np.abs(ssim3(a, b)) < 0.02
        if not bad.any():
            break
        b[bad] = draw(bad)
    return {"img_a": np.asarray(a, dtype.numpy), "img_b": np.asarray(b, dtype.numpy),
            **u.scalar_inputs(dtype, _SSIM_CONSTS)}


def _ssim_reference(inputs, params) -> dict:
    return {"ssim": u.as_dtype_of(ssim3(inputs["img_a"], inputs["img_b"]), inputs["img_a"])}


SSIM_MAP3 = KernelSpec(
    name="ssim_map3",
    description="The structural similarity (SSIM) map of two m x n images over each "
                "pixel's 3 x 3 window (int32 indices clamped, edges replicated): eighteen "
                "loads, the two means, variances and the covariance, one division.",
    variants=("replicated_edges",),
    build=_build_ssim,
    make_inputs=_ssim_inputs,
    reference=_ssim_reference,
    rtol=1e-3,
    **u.unseen_2d(),
)

# }}}


# {{{ Ising checkerboard Metropolis

#: twice the inverse temperature times the coupling
ISING_BETA2 = 0.8
_ISING_CONSTS = (("one", 1.0), ("two", 2.0), ("beta2", ISING_BETA2))


def _build_ising(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("black_sites",), 2)
    ftype = req.dtype.value
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <int32> up = i - 1 + m * (i == 0) {{id=up}}
            <int32> down = i + 1 - m * (i == m - 1) {{id=down}}
            <int32> left = j - 1 + n * (j == 0) {{id=left}}
            <int32> right = j + 1 - n * (j == n - 1) {{id=right}}
            <> s = spins[i, j] {{id=s}}
            <> field = spins[up, j] + spins[down, j] + spins[i, left] + spins[i, right] \
                {{id=field, dep=up:down:left:right}}
            <{ftype}> black = (i + j) % 2 == 0 {{id=black}}
            <{ftype}> accept = uniform[i, j] < exp(-beta2 * s * field) \
                {{id=accept, dep=s:field}}
            spins_out[i, j] = s * (one - two * black * accept) {{dep=black:accept}}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in ("spins", "uniform", "spins_out")),
         *u.scalar_args(req.dtype, _ISING_CONSTS), *u.size_args("m", "n")],
        name="ising_checkerboard", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def ising_half_sweep(spins, uniform) -> np.ndarray:
    s = np.asarray(spins, np.float64)
    field = (np.roll(s, 1, 0) + np.roll(s, -1, 0) + np.roll(s, 1, 1) + np.roll(s, -1, 1))
    i, j = np.indices(s.shape)
    flip = ((i + j) % 2 == 0) & (np.asarray(uniform, np.float64)
                                 < np.exp(-ISING_BETA2 * s * field))
    return np.where(flip, -s, s)


def _ising_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # spins +-1, ordered patches and noise, so that every local field from -4 to 4
    # occurs (flips always, sometimes and never accepted); uniforms redrawn within 1e-3
    # of an acceptance threshold
    s = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    s[: shape[0] // 2] = np.where(rng.random((shape[0] // 2, shape[1])) < 0.85, 1.0, -1.0)
    thresholds = np.exp(-ISING_BETA2 * np.array([2.0, 4.0]))

    def draw(k):
        return rng.uniform(0.0, 1.0, k)
    uni = u.redraw_until_good(
        draw(shape), draw, lambda x: (np.abs(x[..., None] - thresholds) < 1e-3).any(axis=-1),
        tries=200)
    return {"spins": np.asarray(s, dtype.numpy), "uniform": np.asarray(uni, dtype.numpy),
            **u.scalar_inputs(dtype, _ISING_CONSTS)}


def _ising_reference(inputs, params) -> dict:
    return {"spins_out": u.as_dtype_of(ising_half_sweep(inputs["spins"], inputs["uniform"]),
                                       inputs["spins"])}


ISING_CHECKERBOARD = KernelSpec(
    name="ising_checkerboard",
    description=f"One Metropolis half-sweep of an m x n Ising lattice with periodic edges "
                f"(int32 neighbour indices wrapped arithmetically): the black sites "
                f"((i + j) even) flip when the given uniform number is below "
                f"exp(-{ISING_BETA2} s h), h the four neighbours' sum; an exponential per "
                f"site, the comparisons as 0 or 1.",
    variants=("black_sites",),
    build=_build_ising,
    make_inputs=_ising_inputs,
    reference=_ising_reference,
    rtol=1e-6,
    **u.unseen_2d(),
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (METABALL_FIELD, HEIGHTMAP_NORMALS, SSIM_MAP3,
                                 ISING_CHECKERBOARD)
