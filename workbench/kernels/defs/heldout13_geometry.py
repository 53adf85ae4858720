"""The thirteenth held-out set's geometric kernels on 1-D groups: barycentric
interpolation, the normals of an indexed mesh, quaternion slerp.

What the set is for, and the other kernels, are in :mod:`.heldout13`.

* ``barycentric_interp``: a per-vertex attribute interpolated at a point inside its
  own triangle (six interleaved coordinates, three interleaved attributes), a
  background value outside; or the weights clamped to the triangle and renormalised.
* ``triangle_normals``: the normal of each triangle of an indexed mesh (three vertex
  indices per triangle, a gather of three interleaved vertices), unit length, or
  with the triangle's area written too.
* ``quat_slerp``: spherical linear interpolation of pairs of unit quaternions (the
  shorter arc: the second negated where the dot product is negative; the angle
  clamped below, so that equal quaternions give no division by zero), or the
  normalised lerp.
"""

from __future__ import annotations

from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _scaled(p: int) -> tuple[int, ...]:
    return u.pow2(p, range(4))


# {{{ barycentric interpolation

BARY_BACKGROUND = 0.25
_BARY_CONSTS = (("zero", 0.0), ("one", 1.0), ("background", BARY_BACKGROUND))
_BARY_VARIANTS = ("masked", "clamped")


def _build_bary(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _BARY_VARIANTS, 1)
    if req.variant == "masked":
        finish = """
            <> inside = fmin(fmin(w0, w1), w2) >= zero {id=inside, dep=w2}
            <> value = w0 * attr[i, 0] + w1 * attr[i, 1] + w2 * attr[i, 2] {id=value, dep=w2}
            out[i] = background + inside * (value - background) {dep=inside:value}"""
    else:
        finish = """
            <> v0 = fmax(w0, zero) {id=v0, dep=w2}
            <> v1 = fmax(w1, zero) {id=v1, dep=w2}
            <> v2 = fmax(w2, zero) {id=v2, dep=w2}
            out[i] = (v0 * attr[i, 0] + v1 * attr[i, 1] + v2 * attr[i, 2]) \
                / (v0 + v1 + v2) {dep=v0:v1:v2}"""
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> x2 = tri[i, 4] {{id=x2}}
            <> y2 = tri[i, 5] {{id=y2}}
            <> dx = px[i] - x2 {{id=dx, dep=x2}}
            <> dy = py[i] - y2 {{id=dy, dep=y2}}
            <> e0x = tri[i, 0] - x2 {{id=e0x, dep=x2}}
            <> e0y = tri[i, 1] - y2 {{id=e0y, dep=y2}}
            <> e1x = tri[i, 2] - x2 {{id=e1x, dep=x2}}
            <> e1y = tri[i, 3] - y2 {{id=e1y, dep=y2}}
            <> inv_area = one / (e0x * e1y - e1x * e0y) {{id=inv, dep=e0x:e0y:e1x:e1y}}
            <> w0 = (dx * e1y - e1x * dy) * inv_area {{id=w0, dep=inv:dx:dy}}
            <> w1 = (e0x * dy - dx * e0y) * inv_area {{id=w1, dep=inv:dx:dy}}
            <> w2 = one - w0 - w1 {{id=w2, dep=w0:w1}}
            {finish}
        end
        """,
        [u.array("px", req.dtype, ("n",)), u.array("py", req.dtype, ("n",)),
         u.array("tri", req.dtype, ("n", 6)), u.array("attr", req.dtype, ("n", 3)),
         u.array("out", req.dtype, ("n",)), *u.scalar_args(req.dtype, _BARY_CONSTS),
         *u.size_args("n")],
        name="barycentric_interp", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def bary_weights(inputs) -> np.ndarray:
    """The barycentric weights of the check points in their triangles (float64)."""
    f = u.as_float64(inputs)
    t = f["tri"].reshape(-1, 3, 2)
    e0, e1 = t[:, 0] - t[:, 2], t[:, 1] - t[:, 2]
    d = np.stack([f["px"], f["py"]], axis=1) - t[:, 2]
    area = e0[:, 0] * e1[:, 1] - e1[:, 0] * e0[:, 1]
    w0 = (d[:, 0] * e1[:, 1] - e1[:, 0] * d[:, 1]) / area
    w1 = (e0[:, 0] * d[:, 1] - d[:, 0] * e0[:, 1]) / area
    return np.stack([w0, w1, 1.0 - w0 - w1], axis=1)


def _bary_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # triangles of both orientations around random centres; the points placed by
    # chosen weights: half inside (every weight >= 0.05), half outside (one weight
    # negative, below -0.05), so both arms of the test and of each clamp are taken
    centre = rng.uniform(-1.0, 1.0, (n, 1, 2))
    angle = rng.uniform(0, 2 * np.pi, (n, 1)) + np.array([0.0, 2.1, 4.2]) * \
        np.where(rng.random((n, 1)) < 0.5, -1.0, 1.0)
    radius = rng.uniform(0.3, 1.0, (n, 1, 1))
    tri = centre + radius * np.stack([np.cos(angle), np.sin(angle)], axis=2)
    w = rng.uniform(0.05, 1.0, (n, 3))
    outside = rng.random(n) < 0.5
    which = rng.integers(0, 3, n)
    w[outside, which[outside]] = -rng.uniform(0.05, 0.6, outside.sum())
    w /= w.sum(axis=1, keepdims=True)
    point = np.einsum("nk,nkd->nd", w, tri)
    return {"px": np.ascontiguousarray(point[:, 0], dtype=dtype.numpy),
            "py": np.ascontiguousarray(point[:, 1], dtype=dtype.numpy),
            "tri": np.ascontiguousarray(tri.reshape(n, 6), dtype=dtype.numpy),
            "attr": u.random_array(rng, (n, 3), dtype, low=0.5, high=1.5),
            **u.scalar_inputs(dtype, _BARY_CONSTS)}


def _bary_reference(variant: str, inputs, params) -> dict:
    w = bary_weights(inputs)
    attr = inputs["attr"].astype(np.float64)
    if variant == "masked":
        out = np.where(w.min(axis=1) >= 0, (w * attr).sum(axis=1), BARY_BACKGROUND)
    else:
        v = np.maximum(w, 0.0)
        out = (v * attr).sum(axis=1) / v.sum(axis=1)
    return {"out": u.as_dtype_of(out, inputs["px"])}


BARYCENTRIC_INTERP = KernelSpec(
    name="barycentric_interp",
    role=KernelRole.UNSEEN,
    description=f"n points, each with its own triangle (six interleaved coordinates) and "
                f"three vertex attributes (interleaved): the point's barycentric weights "
                f"(a division), then masked: the interpolated attribute inside, "
                f"{BARY_BACKGROUND} outside; or clamped: the weights clamped at zero and "
                f"renormalised (a second division).",
    parameters=("n",),
    variants=_BARY_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_bary,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_bary_inputs,
    reference=partial(_bary_reference, "masked"),
    variant_reference=_bary_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ triangle normals of an indexed mesh

#: how far apart (in the vertex order) a triangle's vertices may lie: meshes are
#: stored with neighbours close together
MESH_SPREAD = 64
_NORMAL_CONSTS = (("one_half", 0.5),)
_NORMAL_VARIANTS = ("unit", "with_area")


def _build_normals(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _NORMAL_VARIANTS, 1)
    extra, outs = "", []
    if req.variant == "with_area":
        # half the cross product's length, len2 / sqrt(len2)
        extra = "area[t] = one_half * len2 * s {dep=s}"
        outs = [u.array("area", req.dtype, ("ntris",))]
    # the vertex indices go through private values, as the catalog's gathers do
    knl = u.make_kernel(
        "[ntris, nverts] -> {[t]: 0 <= t < ntris}",
        f"""
        for t
            <> i0 = tris[t, 0] {{id=i0}}
            <> i1 = tris[t, 1] {{id=i1}}
            <> i2 = tris[t, 2] {{id=i2}}
            <> ax = verts[i1, 0] - verts[i0, 0] {{id=ax, dep=i0:i1}}
            <> ay = verts[i1, 1] - verts[i0, 1] {{id=ay, dep=i0:i1}}
            <> az = verts[i1, 2] - verts[i0, 2] {{id=az, dep=i0:i1}}
            <> bx = verts[i2, 0] - verts[i0, 0] {{id=bx, dep=i0:i2}}
            <> by = verts[i2, 1] - verts[i0, 1] {{id=by, dep=i0:i2}}
            <> bz = verts[i2, 2] - verts[i0, 2] {{id=bz, dep=i0:i2}}
            <> nx = ay * bz - az * by {{id=nx, dep=a*:b*}}
            <> ny = az * bx - ax * bz {{id=ny, dep=a*:b*}}
            <> nz = ax * by - ay * bx {{id=nz, dep=a*:b*}}
            <> len2 = nx * nx + ny * ny + nz * nz {{id=len2, dep=nx:ny:nz}}
            <> s = rsqrt(len2) {{id=s, dep=len2}}
            normals[t, 0] = nx * s {{dep=s}}
            normals[t, 1] = ny * s {{dep=s}}
            normals[t, 2] = nz * s {{dep=s}}
            {extra}
        end
        """,
        [lp.GlobalArg("tris", np.int32, ("ntris", 3)), u.array("verts", req.dtype, ("nverts", 3)),
         u.array("normals", req.dtype, ("ntris", 3)), *outs,
         *u.scalar_args(req.dtype, _normal_consts(req.variant)),
         *u.size_args("ntris", "nverts")],
        name="triangle_normals", assumptions="ntris >= 1 and nverts >= 1")
    return u.split_1d(knl, "t", req.group_size)


def _mesh_sizes(p: int) -> tuple[dict[str, int], ...]:
    # about two triangles per vertex, as in a closed surface mesh
    return tuple({"ntris": n, "nverts": n // 2} for n in _scaled(p))


def _normal_consts(variant: str) -> tuple[tuple[str, float], ...]:
    return _NORMAL_CONSTS if variant == "with_area" else ()


def _normal_inputs(variant: str, params, dtype, rng) -> dict:
    ntris, nverts = params["ntris"], params["nverts"]
    verts = rng.uniform(-1.0, 1.0, (nverts, 3))
    # each triangle's vertices distinct and near its place in the vertex order; drawn
    # again until no component of its normal is below a tenth of the normal's length
    # (a relative tolerance on every component)
    tris = np.zeros((ntris, 3), dtype=np.int64)
    todo = np.arange(ntris)
    while len(todo):
        base = (todo // 2) % nverts
        off = rng.integers(0, MESH_SPREAD, (len(todo), 3))
        tris[todo] = (base[:, None] + off) % nverts
        v = verts[tris[todo]]
        nrm = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
        distinct = (off[:, 0] != off[:, 1]) & (off[:, 1] != off[:, 2]) & (off[:, 0] != off[:, 2])
        ok = distinct & (np.abs(nrm) > 0.1 * np.linalg.norm(nrm, axis=1, keepdims=True)).all(axis=1)
        todo = todo[~ok]
    return {"tris": tris.astype(np.int32), "verts": np.asarray(verts, dtype=dtype.numpy),
            **u.scalar_inputs(dtype, _normal_consts(variant))}


def _normal_reference(variant: str, inputs, params) -> dict:
    v = inputs["verts"].astype(np.float64)[inputs["tris"]]
    nrm = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    length = np.linalg.norm(nrm, axis=1)
    out = {"normals": u.as_dtype_of(nrm / length[:, None], inputs["verts"])}
    if variant == "with_area":
        out["area"] = u.as_dtype_of(0.5 * length, inputs["verts"])
    return out


TRIANGLE_NORMALS = KernelSpec(
    name="triangle_normals",
    role=KernelRole.UNSEEN,
    description=f"The unit normal of each of ntris triangles of an indexed mesh of "
                f"nverts vertices (xyz interleaved): three int32 indices per triangle "
                f"(vertices within {MESH_SPREAD} of each other in the vertex order), nine "
                f"gathered coordinates, a cross product and a reciprocal square root; "
                f"with_area also writes half the cross product's length.",
    parameters=("ntris", "nverts"),
    variants=_NORMAL_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_normals,
    size_cases=_mesh_sizes,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_normal_inputs, "unit"),
    reference=partial(_normal_reference, "unit"),
    variant_make_inputs=_normal_inputs,
    variant_reference=_normal_reference,
    check_params={"ntris": 2000, "nverts": 1000},
    rtol=1e-3,
)

# }}}


# {{{ quaternion slerp

#: the smallest angle slerp divides by the sine of (equal quaternions' angle is 0;
#: below it sin(t a) / sin(a) is t to float32 precision)
SLERP_MIN_ANGLE = 1e-3
_SLERP_CONSTS = (("zero", 0.0), ("one", 1.0), ("two", 2.0), ("min_angle", SLERP_MIN_ANGLE))
_SLERP_VARIANTS = ("slerp", "nlerp")


def _build_slerp(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _SLERP_VARIANTS, 1)
    if req.variant == "slerp":
        weights = """
            <> theta = fmax(acos(fmin(d, one)), min_angle) {id=theta, dep=d}
            <> inv_sin = one / sin(theta) {id=inv_sin, dep=theta}
            <> w0 = sin((one - tt) * theta) * inv_sin {id=w0, dep=inv_sin:tt}
            <> w1 = sin(tt * theta) * inv_sin * sgn {id=w1, dep=inv_sin:tt:sgn}"""
        stores = [f"q_out[i, {c}] = w0 * q0[i, {c}] + w1 * q1[i, {c}] {{dep=w0:w1}}"
                  for c in range(4)]
    else:
        weights = """
            <> w0 = one - tt {id=w0, dep=tt}
            <> w1 = tt * sgn {id=w1, dep=tt:sgn}
            <> r0 = w0 * q0[i, 0] + w1 * q1[i, 0] {id=r0, dep=w0:w1}
            <> r1 = w0 * q0[i, 1] + w1 * q1[i, 1] {id=r1, dep=w0:w1}
            <> r2 = w0 * q0[i, 2] + w1 * q1[i, 2] {id=r2, dep=w0:w1}
            <> r3 = w0 * q0[i, 3] + w1 * q1[i, 3] {id=r3, dep=w0:w1}
            <> s = rsqrt(r0 * r0 + r1 * r1 + r2 * r2 + r3 * r3) {id=s, dep=r*}"""
        stores = [f"q_out[i, {c}] = r{c} * s {{dep=s}}" for c in range(4)]
    body = "\n            ".join(stores)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> tt = t[i] {{id=tt}}
            <> dot = q0[i, 0] * q1[i, 0] + q0[i, 1] * q1[i, 1] + q0[i, 2] * q1[i, 2] \
                + q0[i, 3] * q1[i, 3] {{id=dot}}
            <> sgn = two * (dot >= zero) - one {{id=sgn, dep=dot}}
            <> d = dot * sgn {{id=d, dep=sgn}}
            {weights}
            {body}
        end
        """,
        [u.array("q0", req.dtype, ("n", 4)), u.array("q1", req.dtype, ("n", 4)),
         u.array("t", req.dtype, ("n",)), u.array("q_out", req.dtype, ("n", 4)),
         *u.scalar_args(req.dtype, _slerp_consts(req.variant)),
         *u.size_args("n")],
        name="quat_slerp", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _slerp_consts(variant: str) -> tuple[tuple[str, float], ...]:
    return _SLERP_CONSTS if variant == "slerp" else _SLERP_CONSTS[:3]


def _slerp_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # both quaternions of a pair share a sign pattern with every component at least 0.2
    # in size, so every result component is too (a relative tolerance); the second is
    # negated for half the pairs (the shorter-arc flip), and a quarter of the pairs are
    # equal (a held pose: the angle's clamps) while the rest are at least 0.1 apart
    sign = np.where(rng.random((n, 4)) < 0.5, -1.0, 1.0)
    q0 = sign * rng.uniform(0.4, 1.0, (n, 4))
    q0 /= np.linalg.norm(q0, axis=1, keepdims=True)
    near = rng.random(n) < 0.25
    q1 = sign * rng.uniform(0.4, 1.0, (n, 4))
    q1 /= np.linalg.norm(q1, axis=1, keepdims=True)
    q1[near] = q0[near]
    far = ~near & (np.arccos(np.minimum((q0 * q1).sum(axis=1), 1.0)) < 0.1)
    while far.any():
        q1[far] = sign[far] * rng.uniform(0.4, 1.0, (far.sum(), 4))
        q1[far] /= np.linalg.norm(q1[far], axis=1, keepdims=True)
        far = ~near & (np.arccos(np.minimum((q0 * q1).sum(axis=1), 1.0)) < 0.1)
    q1 *= np.where(rng.random((n, 1)) < 0.5, -1.0, 1.0)
    return {"q0": np.asarray(q0, dtype=dtype.numpy), "q1": np.asarray(q1, dtype=dtype.numpy),
            "t": u.random_array(rng, (n,), dtype, low=0.05, high=0.95),
            **u.scalar_inputs(dtype, _slerp_consts(variant))}


def slerp_dots(inputs) -> np.ndarray:
    """The pairs' dot products (float64)."""
    return (inputs["q0"].astype(np.float64) * inputs["q1"]).sum(axis=1)


def _slerp_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    q0, q1, t = f["q0"], f["q1"], f["t"][:, None]
    dot = slerp_dots(inputs)[:, None]
    q1 = np.where(dot < 0, -q1, q1)
    d = np.abs(dot)
    if variant == "slerp":
        theta = np.maximum(np.arccos(np.minimum(d, 1.0)), SLERP_MIN_ANGLE)
        out = (np.sin((1 - t) * theta) * q0 + np.sin(t * theta) * q1) / np.sin(theta)
    else:
        out = (1 - t) * q0 + t * q1
        out /= np.linalg.norm(out, axis=1, keepdims=True)
    return {"q_out": u.as_dtype_of(out, inputs["q0"])}


QUAT_SLERP = KernelSpec(
    name="quat_slerp",
    role=KernelRole.UNSEEN,
    description=f"n pairs of unit quaternions (xyzw interleaved) interpolated at t each: "
                f"the second negated where the dot product is negative (the shorter "
                f"arc, the sign of a comparison); slerp: an arc cosine (the angle clamped to at least "
                f"{SLERP_MIN_ANGLE}), three sines and a division; nlerp: the lerp "
                f"normalised (a reciprocal square root).",
    parameters=("n",),
    variants=_SLERP_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_slerp,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=partial(_slerp_inputs, "slerp"),
    reference=partial(_slerp_reference, "slerp"),
    variant_make_inputs=_slerp_inputs,
    variant_reference=_slerp_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (BARYCENTRIC_INTERP, TRIANGLE_NORMALS, QUAT_SLERP)
