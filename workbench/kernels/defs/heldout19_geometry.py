"""The nineteenth held-out set's geometry kernel on 1-D groups.

What the set is for, and the other kernels, are in :mod:`.heldout19`.

* ``ray_triangle_hit``: Moeller and Trumbore's ray-triangle intersection, one ray and
  one triangle per work item: the hit distance, or -1 for a miss.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec

#: determinants smaller than this are parallel rays (a miss)
RAY_EPS = 1e-6
_RAY_CONSTS = (("zero", 0.0), ("one", 1.0), ("eps", RAY_EPS))


def _cross(out: str, a: tuple[str, str, str], b: tuple[str, str, str], deps: str) -> list[str]:
    return [f"<> {out}{c} = {a[(k + 1) % 3]} * {b[(k + 2) % 3]} - {a[(k + 2) % 3]} * "
            f"{b[(k + 1) % 3]} {{id={out}{c}, dep={deps}}}" for k, c in enumerate("xyz")]


def _dot(a: str, b: str) -> str:
    return " + ".join(f"{a}{c} * {b}{c}" for c in "xyz")


def _build_ray_triangle(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("moeller_trumbore",), 1)
    ftype = req.dtype.value
    axes = "xyz"
    lines = [f"<> o{c} = rays[i, {k}] {{id=o{c}}}" for k, c in enumerate(axes)]
    lines += [f"<> d{c} = rays[i, {3 + k}] {{id=d{c}}}" for k, c in enumerate(axes)]
    lines += [f"<> v{c} = tris[i, {k}] {{id=v{c}}}" for k, c in enumerate(axes)]
    lines += [f"<> e{c} = tris[i, {3 + k}] - v{c} {{id=e{c}, dep=v{c}}}"
              for k, c in enumerate(axes)]
    lines += [f"<> f{c} = tris[i, {6 + k}] - v{c} {{id=f{c}, dep=v{c}}}"
              for k, c in enumerate(axes)]
    lines += [f"<> s{c} = o{c} - v{c} {{id=s{c}, dep=o{c}:v{c}}}" for c in axes]
    lines += _cross("p", ("dx", "dy", "dz"), ("fx", "fy", "fz"), "dx:dy:dz:fx:fy:fz")
    lines += _cross("q", ("sx", "sy", "sz"), ("ex", "ey", "ez"), "sx:sy:sz:ex:ey:ez")
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
            <> det = {_dot("e", "p")} {{id=det, dep=ex:ey:ez:px:py:pz}}
            <{ftype}> facing = fabs(det) > eps {{id=facing, dep=det}}
            <> inv = one / (det + (one - facing)) {{id=inv, dep=facing}}
            <> bu = ({_dot("s", "p")}) * inv {{id=bu, dep=inv:sx:sy:sz}}
            <> bv = ({_dot("d", "q")}) * inv {{id=bv, dep=inv:qx:qy:qz}}
            <> t = ({_dot("f", "q")}) * inv {{id=t, dep=inv:qx:qy:qz}}
            <{ftype}> hit = facing * (bu >= zero) * (bv >= zero) * (bu + bv <= one) \
                * (t > zero) {{id=hit, dep=bu:bv:t}}
            hit_t[i] = hit * t + hit - one {{dep=hit}}
        end
        """,
        [u.array("rays", req.dtype, ("n", 6)), u.array("tris", req.dtype, ("n", 9)),
         u.array("hit_t", req.dtype, ("n",)), *u.scalar_args(req.dtype, _RAY_CONSTS),
         *u.size_args("n")],
        name="ray_triangle_hit", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def ray_triangle(rays, tris) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(float64) each ray's hit distance (-1 for a miss), and the barycentric
    coordinates, distance and determinant the tests look at."""
    rays, tris = np.asarray(rays, np.float64), np.asarray(tris, np.float64)
    o, d = rays[:, :3], rays[:, 3:]
    v0, e1, e2 = tris[:, :3], tris[:, 3:6] - tris[:, :3], tris[:, 6:] - tris[:, :3]
    p = np.cross(d, e2)
    det = (e1 * p).sum(1)
    facing = np.abs(det) > RAY_EPS
    inv = 1 / np.where(facing, det, 1.0)
    s = o - v0
    q = np.cross(s, e1)
    bu, bv, t = (s * p).sum(1) * inv, (d * q).sum(1) * inv, (e2 * q).sum(1) * inv
    hit = facing & (bu >= 0) & (bv >= 0) & (bu + bv <= 1) & (t > 0)
    return np.where(hit, t, -1.0), {"u": bu, "v": bv, "t": t, "det": det, "hit": hit}


def _ray_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # triangles in the unit cube; rays from a point 2 to 6 away aimed at a point of the
    # triangle's plane drawn with barycentrics -0.4 to 1.2 (inside and beyond each of
    # the three edges) with directions of lengths 0.3 to 3 times the distance, a fifth
    # of them aimed the other way (behind), a few parallel to the plane; redrawn within
    # 1e-3 of an edge or a parallel-ray determinant
    def draw(k):
        tri = rng.uniform(0.0, 1.0, (k, 9))
        b = rng.uniform(-0.4, 1.2, (k, 2))
        v0, e1, e2 = tri[:, :3], tri[:, 3:6] - tri[:, :3], tri[:, 6:] - tri[:, :3]
        target = v0 + b[:, :1] * e1 + b[:, 1:] * e2
        o = target + rng.normal(size=(k, 3)) * rng.uniform(2.0, 6.0, (k, 1)) / np.sqrt(3)
        # the plane is then at t = 1 / scale, rarely the miss's -1
        d = (target - o) * rng.uniform(0.3, 3.0, (k, 1))
        d[rng.random(k) < 0.2] *= -1
        parallel = rng.random(k) < 0.03
        d[parallel] = e1[parallel] + 0.5 * e2[parallel]
        return np.concatenate([o, d], axis=1), tri

    def is_bad(rays, tris):
        _, f = ray_triangle(rays, tris)
        edge = np.minimum.reduce([np.abs(f["u"]), np.abs(f["v"]), np.abs(f["u"] + f["v"] - 1),
                                  np.abs(f["t"])])
        return (np.abs(f["det"]) > RAY_EPS) & ((edge < 1e-3) | (np.abs(f["det"]) < 1e-2))
    rays, tris = u.redraw_until_good(draw(n), draw, is_bad, tries=200)
    return {"rays": np.asarray(rays, dtype.numpy), "tris": np.asarray(tris, dtype.numpy),
            **u.scalar_inputs(dtype, _RAY_CONSTS)}


def _ray_reference(inputs, params) -> dict:
    return {"hit_t": u.as_dtype_of(ray_triangle(inputs["rays"], inputs["tris"])[0],
                                   inputs["rays"])}


RAY_TRIANGLE_HIT = KernelSpec(
    name="ray_triangle_hit",
    role=KernelRole.UNSEEN,
    description="Moeller and Trumbore's intersection of n rays (origin and direction, rows "
                "of 6) with n triangles (three vertices, rows of 9), one pair per work "
                "item: two cross products, a determinant and its reciprocal, the two "
                "barycentric coordinates and the distance as dot products, and the hit "
                "decided by five comparisons (as 0 or 1); the distance or -1 written.",
    parameters=("n",),
    variants=("moeller_trumbore",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_ray_triangle,
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(4))),
    default_p=19,
    p_choices=(18, 19, 20),
    make_inputs=_ray_inputs,
    reference=_ray_reference,
    check_params={"n": 3000},
    rtol=1e-4,
)

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (RAY_TRIANGLE_HIT,)
