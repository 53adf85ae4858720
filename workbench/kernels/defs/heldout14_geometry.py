"""The fourteenth held-out set's geometric kernels on 1-D groups: a ray against an
axis-aligned box, the intersection of two segments.

What the set is for, and the other kernels, are in :mod:`.heldout14`.

* ``ray_box_slab``: the slab test of rays (origin and inverse direction in six
  planes) against one axis-aligned box: the entry and exit distances as a max of
  mins and a min of maxes over the three axes; the distance to the box (zero from
  inside, -1 on a miss) or a hit mask.
* ``segment_intersect``: whether two 2-D segments cross (two cross products and a
  division each for the parameters along both), the parameter along the first
  segment or -1; or both parameters.
"""

from __future__ import annotations

from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ ray against an axis-aligned box

BOX_LO, BOX_HI = (-1.0, -0.5, -0.75), (1.0, 0.5, 0.75)
_AXES = ("x", "y", "z")
_BOX_CONSTS = (*((f"lo_{a}", v) for a, v in zip(_AXES, BOX_LO)),
               *((f"hi_{a}", v) for a, v in zip(_AXES, BOX_HI)), ("zero", 0.0), ("one", 1.0))
_BOX_VARIANTS = ("distance", "mask")


def _build_box(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _BOX_VARIANTS, 1)
    lines = []
    for a in _AXES:
        lines += [f"<> t0{a} = (lo_{a} - o{a}[i]) * inv_d{a}[i] {{id=t0{a}}}",
                  f"<> t1{a} = (hi_{a} - o{a}[i]) * inv_d{a}[i] {{id=t1{a}}}"]
    lines += ["<> t_in = fmax(fmax(fmin(t0x, t1x), fmin(t0y, t1y)), fmin(t0z, t1z)) "
              "{id=t_in, dep=t0*:t1*}",
              "<> t_out = fmin(fmin(fmax(t0x, t1x), fmax(t0y, t1y)), fmax(t0z, t1z)) "
              "{id=t_out, dep=t0*:t1*}",
              "<> near = fmax(t_in, zero) {id=near, dep=t_in}",
              "<> hit = t_out >= near {id=hit, dep=near:t_out}"]
    if req.variant == "distance":
        lines.append("dist[i] = hit * near + (hit - one) {dep=hit}")
    else:
        lines.append("dist[i] = hit * one {dep=hit}")
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
        end
        """,
        [*(u.array(f"o{a}", req.dtype, ("n",)) for a in _AXES),
         *(u.array(f"inv_d{a}", req.dtype, ("n",)) for a in _AXES),
         u.array("dist", req.dtype, ("n",)), *u.scalar_args(req.dtype, _BOX_CONSTS),
         *u.size_args("n")],
        name="ray_box_slab", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def box_entry_exit(origin: np.ndarray, inv_dir: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The slab test's entry and exit distances (float64), rays by row."""
    t0 = (np.asarray(BOX_LO) - origin) * inv_dir
    t1 = (np.asarray(BOX_HI) - origin) * inv_dir
    return np.minimum(t0, t1).max(axis=1), np.maximum(t0, t1).min(axis=1)


def _box_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # origins in [-3, 3]^3 (some inside the box: the clamp at zero), a third of the
    # directions aimed near the box centre (hits), the rest random (mostly misses, some
    # with the box behind); no component below 0.05; none grazing (float32 and float64
    # must agree on hit or miss)
    origin = rng.uniform(-3.0, 3.0, (n, 3))
    direction = rng.normal(size=(n, 3))
    aimed = rng.random(n) < 1 / 3
    direction[aimed] = -origin[aimed] + rng.uniform(-0.3, 0.3, (aimed.sum(), 3))
    for _ in range(100):
        small = np.abs(direction) < 0.05
        direction[small] = np.where(direction[small] < 0, -0.05, 0.05) * rng.uniform(1, 4, small.sum())
        t_in, t_out = box_entry_exit(origin, 1.0 / direction)
        margin = t_out - np.maximum(t_in, 0.0)
        bad = (np.abs(margin) < 1e-3 * (1 + np.abs(t_out))) | (np.abs(t_in) < 1e-3)
        if not bad.any():
            break
        direction[bad] = rng.normal(size=(bad.sum(), 3))
    inv = 1.0 / direction
    planes = {f"o{a}": origin[:, k] for k, a in enumerate(_AXES)}
    planes |= {f"inv_d{a}": inv[:, k] for k, a in enumerate(_AXES)}
    return ({k: np.ascontiguousarray(v, dtype=dtype.numpy) for k, v in planes.items()}
            | u.scalar_inputs(dtype, _BOX_CONSTS))


def _box_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    origin = np.stack([f[f"o{a}"] for a in _AXES], axis=1)
    inv = np.stack([f[f"inv_d{a}"] for a in _AXES], axis=1)
    t_in, t_out = box_entry_exit(origin, inv)
    near = np.maximum(t_in, 0.0)
    hit = t_out >= near
    out = np.where(hit, near, -1.0) if variant == "distance" else hit.astype(np.float64)
    return {"dist": u.as_dtype_of(out, inputs["ox"])}


RAY_BOX_SLAB = KernelSpec(
    name="ray_box_slab",
    role=KernelRole.UNSEEN,
    description="The slab test of n rays (origins and inverse directions in six planes) "
                "against one axis-aligned box: per axis two distances, entry the max of "
                "their mins, exit the min of their maxes; distance: the entry clamped at "
                "zero where the ray hits, else -1; mask: 1 on a hit, else 0.",
    parameters=("n",),
    variants=_BOX_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_box,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_box_inputs,
    reference=partial(_box_reference, "distance"),
    variant_reference=_box_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ segment intersection

_SEG_CONSTS = (("zero", 0.0), ("one", 1.0))
_SEG_VARIANTS = ("first_param", "both_params")


def _build_segment(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _SEG_VARIANTS, 1)
    stores = ["t_out[i] = crosses * t + (crosses - one) {dep=crosses}"]
    if req.variant == "both_params":
        stores.append("s_out[i] = crosses * s + (crosses - one) {dep=crosses}")
    body = "\n            ".join(stores)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> px = seg_a[i, 0] {{id=px}}
            <> py = seg_a[i, 1] {{id=py}}
            <> rx = seg_a[i, 2] - px {{id=rx, dep=px}}
            <> ry = seg_a[i, 3] - py {{id=ry, dep=py}}
            <> qx = seg_b[i, 0] {{id=qx}}
            <> qy = seg_b[i, 1] {{id=qy}}
            <> sx = seg_b[i, 2] - qx {{id=sx, dep=qx}}
            <> sy = seg_b[i, 3] - qy {{id=sy, dep=qy}}
            <> inv_den = one / (rx * sy - ry * sx) {{id=den, dep=rx:ry:sx:sy}}
            <> t = ((qx - px) * sy - (qy - py) * sx) * inv_den {{id=t, dep=den}}
            <> s = ((qx - px) * ry - (qy - py) * rx) * inv_den {{id=s, dep=den}}
            <> crosses = fmin(t, s) >= zero and fmax(t, s) <= one {{id=crosses, dep=t:s}}
            {body}
        end
        """,
        [u.array("seg_a", req.dtype, ("n", 4)), u.array("seg_b", req.dtype, ("n", 4)),
         u.array("t_out", req.dtype, ("n",)),
         *([u.array("s_out", req.dtype, ("n",))] if req.variant == "both_params" else []),
         *u.scalar_args(req.dtype, _SEG_CONSTS), *u.size_args("n")],
        name="segment_intersect", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def segment_params(seg_a: np.ndarray, seg_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The parameters along both segments of their lines' crossing (float64)."""
    a, b = np.asarray(seg_a, np.float64), np.asarray(seg_b, np.float64)
    r, s = a[:, 2:] - a[:, :2], b[:, 2:] - b[:, :2]
    d = b[:, :2] - a[:, :2]
    den = r[:, 0] * s[:, 1] - r[:, 1] * s[:, 0]
    return ((d[:, 0] * s[:, 1] - d[:, 1] * s[:, 0]) / den,
            (d[:, 0] * r[:, 1] - d[:, 1] * r[:, 0]) / den)


def _segment_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # segments in the unit square: about a quarter cross; none near parallel, no
    # parameter within 1e-3 of 0 or 1 (float32 and float64 agree on crossing)
    def draw(k):
        return rng.uniform(0.0, 1.0, (k, 4))

    def is_bad(b):
        t, s = segment_params(a, b)
        r, q = a[:, 2:] - a[:, :2], b[:, 2:] - b[:, :2]
        sine = np.abs(r[:, 0] * q[:, 1] - r[:, 1] * q[:, 0]) / (
            np.linalg.norm(r, axis=1) * np.linalg.norm(q, axis=1))
        edges = np.minimum.reduce([np.abs(t), np.abs(t - 1), np.abs(s), np.abs(s - 1)])
        return (sine < 0.05) | (edges < 1e-3)
    a = draw(n)
    b = u.redraw_until_good(draw(n), draw, is_bad, tries=100)
    return {"seg_a": np.asarray(a, dtype=dtype.numpy), "seg_b": np.asarray(b, dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _SEG_CONSTS)}


def _segment_reference(variant: str, inputs, params) -> dict:
    t, s = segment_params(inputs["seg_a"], inputs["seg_b"])
    crosses = (np.minimum(t, s) >= 0) & (np.maximum(t, s) <= 1)
    out = {"t_out": np.where(crosses, t, -1.0)}
    if variant == "both_params":
        out["s_out"] = np.where(crosses, s, -1.0)
    return {k: u.as_dtype_of(v, inputs["seg_a"]) for k, v in out.items()}


SEGMENT_INTERSECT = KernelSpec(
    name="segment_intersect",
    role=KernelRole.UNSEEN,
    description="n pairs of 2-D segments (two interleaved endpoints each): the lines' "
                "crossing from two cross products over a third (one division); where "
                "both parameters lie in [0, 1] the parameter along the first segment "
                "(first_param) or along both (both_params) is written, else -1.",
    parameters=("n",),
    variants=_SEG_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_segment,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_segment_inputs,
    reference=partial(_segment_reference, "first_param"),
    variant_reference=_segment_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (RAY_BOX_SLAB, SEGMENT_INTERSECT)
