"""The eighteenth held-out set's image and field kernels on 2-D groups.

What the set is for, and the other kernels, are in :mod:`.heldout18`.

* ``nonmax_suppress``: Canny's non-maximum suppression: each gradient magnitude kept
  where it is no smaller than its two neighbours across the edge (the direction
  quantised to four from the gradient's components), zero elsewhere.
* ``gray_scott_step``: one explicit step of the Gray-Scott reaction-diffusion system
  on a periodic grid (two fields, a five-point Laplacian each).
* ``box_filter_sat``: the mean over a (2R + 1)^2 window clipped to the image, by four
  reads of a summed-area table.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ non-maximum suppression

#: tan(22.5 deg) and tan(67.5 deg): the sector boundaries of the gradient's direction
NMS_TAN_LO, NMS_TAN_HI = 0.41421356237309503, 2.414213562373095


def _build_nms(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("four_directions",), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        """
        for i, j
            <> ax = fabs(gx[i, j]) {id=ax}
            <> ay = fabs(gy[i, j]) {id=ay}
            <int32> across = ay <= tan_lo * ax {id=across, dep=ax:ay}
            <int32> along = ay >= tan_hi * ax {id=along, dep=ax:ay}
            <int32> same = gx[i, j] * gy[i, j] > 0 {id=same}
            <int32> di = 1 - across {id=di, dep=across}
            <int32> dj = across + (1 - across) * (1 - along) * (2 * same - 1) \
                {id=dj, dep=across:along:same}
            <int32> fwd_i = i + di - (i + di == m) {id=fi, dep=di}
            <int32> bwd_i = i - di + (i - di == -1) {id=bi, dep=di}
            <int32> fwd_j = j + dj - (j + dj == n) + (j + dj == -1) {id=fj, dep=dj}
            <int32> bwd_j = j - dj - (j - dj == n) + (j - dj == -1) {id=bj, dep=dj}
            <> c = mag[i, j] {id=c}
            <int32> peak = (c >= mag[fwd_i, fwd_j]) * (c >= mag[bwd_i, bwd_j]) \
                {id=peak, dep=c:fi:bi:fj:bj}
            edges[i, j] = peak * c {dep=peak}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in ("gx", "gy", "mag", "edges")),
         *u.scalar_args(req.dtype, (("tan_lo", NMS_TAN_LO), ("tan_hi", NMS_TAN_HI))),
         *u.size_args("m", "n")],
        name="nonmax_suppress", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def nms_offsets(gx, gy) -> tuple[np.ndarray, np.ndarray]:
    """The (row, column) step across the edge at each pixel: (0, 1) for a mostly
    horizontal gradient, (1, 0) for a mostly vertical one, (1, +-1) on the diagonals."""
    ax, ay = np.abs(gx), np.abs(gy)
    across, along = ay <= NMS_TAN_LO * ax, ay >= NMS_TAN_HI * ax
    di = np.where(across, 0, 1)
    dj = np.where(across, 1, np.where(along, 0, np.where(gx * gy > 0, 1, -1)))
    return di, dj


def nms(gx, gy, mag) -> np.ndarray:
    """Canny's suppression of mag (float64), neighbours clamped to the image."""
    m, n = mag.shape
    di, dj = nms_offsets(np.asarray(gx, np.float64), np.asarray(gy, np.float64))
    i, j = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    fwd = mag[np.clip(i + di, 0, m - 1), np.clip(j + dj, 0, n - 1)]
    bwd = mag[np.clip(i - di, 0, m - 1), np.clip(j - dj, 0, n - 1)]
    return np.where((mag >= fwd) & (mag >= bwd), mag, 0.0)


def _nms_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # gradients of every direction (redrawn within 1e-3 of a sector boundary, so both
    # precisions choose the same neighbours); the magnitude their length, with plateaus
    # (ties are kept) in one corner
    def draw(k):
        return rng.normal(size=(2, k))

    def is_bad(g):
        ratio = np.abs(g[1]) / np.maximum(np.abs(g[0]), 1e-30)
        return ((np.abs(ratio - NMS_TAN_LO) < 1e-3) | (np.abs(ratio - NMS_TAN_HI) < 1e-3)
                | (np.abs(g) < 1e-3).any(0))
    g = u.redraw_until_good(draw(np.prod(shape)), draw, is_bad, tries=200, axis=1)
    gx, gy = (np.asarray(c.reshape(shape), dtype.numpy) for c in g)
    mag = np.hypot(gx.astype(np.float64), gy.astype(np.float64))
    mag[:4, :4] = 1.5
    return {"gx": gx, "gy": gy, "mag": np.asarray(mag, dtype.numpy),
            **u.scalar_inputs(dtype, (("tan_lo", NMS_TAN_LO), ("tan_hi", NMS_TAN_HI)))}


def _nms_reference(inputs, params) -> dict:
    mag = inputs["mag"]
    return {"edges": u.as_dtype_of(nms(inputs["gx"], inputs["gy"], mag.astype(np.float64)),
                                   mag)}


NONMAX_SUPPRESS = KernelSpec(
    name="nonmax_suppress",
    role=KernelRole.UNSEEN,
    description="Canny's non-maximum suppression on an m x n image (gradient planes gx, gy "
                "and their magnitude): the direction quantised to four sectors by two "
                "comparisons of |gy| with |gx|, the two neighbours across the edge read at "
                "the int32 offsets so chosen (clamped to the image), the magnitude kept "
                "where it is no smaller than both, zero elsewhere.",
    parameters=("m", "n"),
    variants=("four_directions",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_nms,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_nms_inputs,
    reference=_nms_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-6,
)

# }}}


# {{{ Gray-Scott reaction-diffusion

#: the diffusion rates of u and v, the feed and kill rates, the time step
GS_DU, GS_DV, GS_FEED, GS_KILL, GS_DT = 0.16, 0.08, 0.035, 0.065, 1.0
_GS_CONSTS = (("one", 1.0), ("four", 4.0), ("du", GS_DU), ("dv", GS_DV), ("feed", GS_FEED),
              ("feed_kill", GS_FEED + GS_KILL), ("dt", GS_DT))


def _build_gray_scott(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("periodic",), 2)
    lap = {f: f"{f}[up, j] + {f}[down, j] + {f}[i, left] + {f}[i, right] - four * {f}0"
           for f in "uv"}
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <int32> up = i - 1 + m * (i == 0) {{id=up}}
            <int32> down = i + 1 - m * (i == m - 1) {{id=down}}
            <int32> left = j - 1 + n * (j == 0) {{id=left}}
            <int32> right = j + 1 - n * (j == n - 1) {{id=right}}
            <> u0 = u[i, j] {{id=u0}}
            <> v0 = v[i, j] {{id=v0}}
            <> uvv = u0 * v0 * v0 {{id=uvv, dep=u0:v0}}
            u_out[i, j] = u0 + dt * (du * ({lap["u"]}) - uvv + feed * (one - u0)) \
                {{dep=up:down:left:right:uvv}}
            v_out[i, j] = v0 + dt * (dv * ({lap["v"]}) + uvv - feed_kill * v0) \
                {{dep=up:down:left:right:uvv}}
        end
        """,
        [*(u.array(a, req.dtype, ("m", "n")) for a in ("u", "v", "u_out", "v_out")),
         *u.scalar_args(req.dtype, _GS_CONSTS), *u.size_args("m", "n")],
        name="gray_scott_step", assumptions="m >= 2 and n >= 2")
    return u.split_2d(knl, "i", "j", req.group_size)


def gray_scott(uf, vf) -> tuple[np.ndarray, np.ndarray]:
    """(float64) one step of the two fields on the periodic grid."""
    uf, vf = np.asarray(uf, np.float64), np.asarray(vf, np.float64)

    def lap(f):
        return (np.roll(f, 1, 0) + np.roll(f, -1, 0) + np.roll(f, 1, 1) + np.roll(f, -1, 1)
                - 4 * f)
    uvv = uf * vf * vf
    return (uf + GS_DT * (GS_DU * lap(uf) - uvv + GS_FEED * (1 - uf)),
            vf + GS_DT * (GS_DV * lap(vf) + uvv - (GS_FEED + GS_KILL) * vf))


def _gray_scott_inputs(params, dtype, rng) -> dict:
    shape = (params["m"], params["n"])
    # u near 1 with dents, v near 0 with seeds, seeds also on the four edges (the
    # wrap-around neighbours matter there); values redrawn until neither new field has
    # an entry within 1e-3 of zero
    uf = rng.uniform(0.4, 1.0, shape)

    def draw_v(k):
        return rng.uniform(0.05, 0.5, k)

    def is_bad(vf):
        bad = np.zeros(shape, bool)
        for f in gray_scott(uf, vf):
            bad |= np.abs(f) < 1e-3
        return bad
    vf = u.redraw_until_good(draw_v(shape), draw_v, is_bad, tries=200)
    return {"u": np.asarray(uf, dtype.numpy), "v": np.asarray(vf, dtype.numpy),
            **u.scalar_inputs(dtype, _GS_CONSTS)}


def _gray_scott_reference(inputs, params) -> dict:
    uf, vf = gray_scott(inputs["u"], inputs["v"])
    return {"u_out": u.as_dtype_of(uf, inputs["u"]), "v_out": u.as_dtype_of(vf, inputs["u"])}


GRAY_SCOTT_STEP = KernelSpec(
    name="gray_scott_step",
    role=KernelRole.UNSEEN,
    description="One explicit Euler step of the Gray-Scott reaction-diffusion system on a "
                "periodic m x n grid: two fields, each with a five-point Laplacian whose "
                "neighbours wrap around at the edges (int32 indices), and the u v^2 "
                "reaction, feed and kill terms.",
    parameters=("m", "n"),
    variants=("periodic",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_gray_scott,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_gray_scott_inputs,
    reference=_gray_scott_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-4,
)

# }}}


# {{{ box filter by a summed-area table

#: the window's radius
BOX_RADIUS = 4


def _build_box_sat(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("clipped_mean",), 2)
    ftype = req.dtype.value
    r = BOX_RADIUS
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <int32> top = i - {r} + ({r} - i) * (i < {r}) {{id=top}}
            <int32> bottom = i + {r + 1} - (i + {r + 1} - m) * (i + {r + 1} > m) {{id=bottom}}
            <int32> first = j - {r} + ({r} - j) * (j < {r}) {{id=first}}
            <int32> last = j + {r + 1} - (j + {r + 1} - n) * (j + {r + 1} > n) {{id=last}}
            <{ftype}> area = (bottom - top) * (last - first) {{id=area, dep=top:bottom:first:last}}
            mean[i, j] = (sat[bottom, last] - sat[top, last] - sat[bottom, first] \
                + sat[top, first]) / area {{dep=area}}
        end
        """,
        [u.array("sat", req.dtype, ("m + 1", "n + 1")), u.array("mean", req.dtype, ("m", "n")),
         *u.size_args("m", "n")],
        name="box_filter_sat", assumptions=f"m >= {2 * r + 2} and n >= {2 * r + 2}")
    return u.split_2d(knl, "i", "j", req.group_size)


def summed_area(img) -> np.ndarray:
    """(float64) the (m + 1) x (n + 1) table of sums of img above and left of each corner."""
    img = np.asarray(img, np.float64)
    sat = np.zeros((img.shape[0] + 1, img.shape[1] + 1))
    sat[1:, 1:] = img.cumsum(0).cumsum(1)
    return sat


def box_mean(sat) -> np.ndarray:
    """(float64) the clipped window means from a summed-area table."""
    m, n = sat.shape[0] - 1, sat.shape[1] - 1
    r = BOX_RADIUS
    i0, i1 = np.clip(np.arange(m) - r, 0, m), np.clip(np.arange(m) + r + 1, 0, m)
    j0, j1 = np.clip(np.arange(n) - r, 0, n), np.clip(np.arange(n) + r + 1, 0, n)
    total = (sat[np.ix_(i1, j1)] - sat[np.ix_(i0, j1)] - sat[np.ix_(i1, j0)]
             + sat[np.ix_(i0, j0)])
    return total / np.outer(i1 - i0, j1 - j0)


def _box_sat_inputs(params, dtype, rng) -> dict:
    # the table of an image of values 0.2 to 1 (every window mean well away from zero)
    img = rng.uniform(0.2, 1.0, (params["m"], params["n"]))
    return {"sat": np.asarray(summed_area(img), dtype.numpy)}


def _box_sat_reference(inputs, params) -> dict:
    sat = inputs["sat"]
    return {"mean": u.as_dtype_of(box_mean(sat.astype(np.float64)), sat)}


BOX_FILTER_SAT = KernelSpec(
    name="box_filter_sat",
    role=KernelRole.UNSEEN,
    description=f"The mean of each pixel's {2 * BOX_RADIUS + 1} x {2 * BOX_RADIUS + 1} "
                f"window, clipped to the m x n image, from the image's (m + 1) x (n + 1) "
                f"summed-area table: the window's corners as int32 indices clamped "
                f"arithmetically, four table reads, the area converted to the table's "
                f"precision and a division.",
    parameters=("m", "n"),
    variants=("clipped_mean",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_box_sat,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_box_sat_inputs,
    reference=_box_sat_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-4,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (NONMAX_SUPPRESS, GRAY_SCOTT_STEP, BOX_FILTER_SAT)
