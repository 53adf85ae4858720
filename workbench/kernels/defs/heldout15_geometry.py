"""The fifteenth held-out set's geometric kernels on 1-D groups: points projected by a
camera, rays marched through a distance field.

What the set is for, and the other kernels, are in :mod:`.heldout15`.

* ``project_points``: 3-D points (three planes) through a 4 x 4 view-projection
  matrix (an array) to pixel coordinates by the perspective division; points behind
  the near plane marked -1; with pixels_depth also the depth.
* ``sdf_march``: sphere tracing of rays (origin and unit direction in six planes)
  through the signed distance field of a sphere over a ground plane, a fixed number of
  steps each; the distance reached, or a hit mask.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


_AXES = ("x", "y", "z")


# {{{ perspective projection

IMAGE_WIDTH, IMAGE_HEIGHT = 1920.0, 1080.0
NEAR = 0.1
_PROJ_CONSTS = (("one", 1.0), ("near", NEAR), ("half_w", IMAGE_WIDTH / 2),
                ("half_h", IMAGE_HEIGHT / 2))
#: variant -> the outputs written
_PROJ_OUTPUTS: Mapping[str, tuple[str, ...]] = {"pixels": ("px", "py"),
                                                "pixels_depth": ("px", "py", "depth")}


def _build_project(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_PROJ_OUTPUTS), 1)
    lines = [f"<> p{a} = pts_{a}[i] {{id=p{a}}}" for a in _AXES]
    for r, c in enumerate(("cx", "cy", "cz", "cw")):
        lines.append(f"<> {c} = view_proj[{r}, 0] * px + view_proj[{r}, 1] * py "
                     f"+ view_proj[{r}, 2] * pz + view_proj[{r}, 3] {{id={c}, dep=p*}}")
    lines += ["<> seen = cw > near {id=seen, dep=cw}",
              "<> inv_w = one / cw {id=inv_w, dep=cw}",
              "px_out[i] = seen * (half_w * (cx * inv_w + one)) + (seen - one) {dep=seen:inv_w:cx}",
              "py_out[i] = seen * (half_h * (one - cy * inv_w)) + (seen - one) {dep=seen:inv_w:cy}"]
    if req.variant == "pixels_depth":
        lines.append("depth_out[i] = seen * (cz * inv_w) + (seen - one) {dep=seen:inv_w:cz}")
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
        end
        """,
        [*(u.array(f"pts_{a}", req.dtype, ("n",)) for a in _AXES),
         u.array("view_proj", req.dtype, (4, 4)),
         *(u.array(f"{o}_out", req.dtype, ("n",)) for o in _PROJ_OUTPUTS[req.variant]),
         *u.scalar_args(req.dtype, _PROJ_CONSTS), *u.size_args("n")],
        name="project_points", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def camera_matrix() -> np.ndarray:
    """A perspective camera (60 degrees vertical, 16:9, near 0.1, far 100) at
    (0, 1, 5) looking down -z: clip coordinates from world ones (float64)."""
    f = 1.0 / np.tan(np.radians(30.0))
    aspect, far = IMAGE_WIDTH / IMAGE_HEIGHT, 100.0
    proj = np.array([[f / aspect, 0, 0, 0], [0, f, 0, 0],
                     [0, 0, (far + NEAR) / (NEAR - far), 2 * far * NEAR / (NEAR - far)],
                     [0, 0, -1, 0]])
    view = np.eye(4)
    view[:3, 3] = (0.0, -1.0, -5.0)
    return proj @ view


def project_reference(points: np.ndarray, matrix: np.ndarray) -> dict[str, np.ndarray]:
    """(float64) the pixel coordinates and depth of points by row, -1 where unseen."""
    clip = np.c_[points, np.ones(len(points))] @ np.asarray(matrix, np.float64).T
    seen = clip[:, 3] > NEAR
    with np.errstate(divide="ignore", invalid="ignore"):
        ndc = clip[:, :3] / clip[:, 3:]
    return {"px_out": np.where(seen, IMAGE_WIDTH / 2 * (ndc[:, 0] + 1), -1.0),
            "py_out": np.where(seen, IMAGE_HEIGHT / 2 * (1 - ndc[:, 1]), -1.0),
            "depth_out": np.where(seen, ndc[:, 2], -1.0)}


def _project_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    # points in front of the camera (some outside the view: coordinates past the
    # image), a fifth behind it (marked -1), none within 0.05 of the near plane or of
    # the image's centre lines (so no coordinate is near zero)
    pts = np.c_[rng.uniform(-6, 6, n), rng.uniform(-3, 5, n), rng.uniform(-20, 3.5, n)]
    behind = rng.random(n) < 0.2
    pts[behind, 2] = rng.uniform(5.5, 9, behind.sum())
    for _ in range(100):
        clip = np.c_[pts, np.ones(n)] @ camera_matrix().T
        bad = (np.abs(clip[:, 3] - NEAR) < 0.05) | (np.abs(pts[:, 0]) < 0.05) \
            | (np.abs(pts[:, 1] - 1.0) < 0.05) | (np.abs(clip[:, 2]) < 0.05 * np.abs(clip[:, 3]))
        if not bad.any():
            break
        pts[bad, :2] = np.c_[rng.uniform(-6, 6, bad.sum()), rng.uniform(-3, 5, bad.sum())]
    planes = {f"pts_{a}": np.ascontiguousarray(pts[:, k], dtype=dtype.numpy)
              for k, a in enumerate(_AXES)}
    return (planes | {"view_proj": np.asarray(camera_matrix(), dtype=dtype.numpy)}
            | u.scalar_inputs(dtype, _PROJ_CONSTS))


def _project_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    out = project_reference(np.stack([f[f"pts_{a}"] for a in _AXES], axis=1), f["view_proj"])
    return {f"{o}_out": u.as_dtype_of(out[f"{o}_out"], inputs["pts_x"])
            for o in _PROJ_OUTPUTS[variant]}


PROJECT_POINTS = KernelSpec(
    name="project_points",
    role=KernelRole.UNSEEN,
    description="n 3-D points (three planes) through a 4 x 4 view-projection matrix "
                "(a 16-entry array every work item reads) to clip coordinates, then by "
                "one reciprocal of w to pixel coordinates of a 1920 x 1080 image "
                "(pixels) and the depth (pixels_depth); points not in front of the near "
                "plane get -1 (the select as arithmetic on a comparison).",
    parameters=("n",),
    variants=tuple(_PROJ_OUTPUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_project,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_project_inputs, "pixels"),
    reference=partial(_project_reference, "pixels"),
    variant_make_inputs=_project_inputs,
    variant_reference=_project_reference,
    check_params={"n": 2000},
    rtol=1e-4,
)

# }}}


# {{{ sphere tracing

#: steps per ray
MARCH_STEPS = 24
SPHERE_RADIUS, GROUND_Y = 1.0, -1.0
HIT_EPS = 1e-2
_MARCH_CONSTS = (("zero", 0.0), ("one", 1.0), ("radius", SPHERE_RADIUS),
                 ("ground", GROUND_Y), ("eps", HIT_EPS))
_MARCH_VARIANTS = ("distance", "hit_mask")


def _build_march(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _MARCH_VARIANTS, 1)
    loads = "\n            ".join(
        [f"<> o{a} = orig_{a}[i] {{id=o{a}}}" for a in _AXES]
        + [f"<> d{a} = dir_{a}[i] {{id=d{a}}}" for a in _AXES])
    sdf = lambda t: (  # noqa: E731
        f"fmin(sqrt((ox + {t} * dx) * (ox + {t} * dx) + (oy + {t} * dy) * (oy + {t} * dy) "
        f"+ (oz + {t} * dz) * (oz + {t} * dz)) - radius, oy + {t} * dy - ground)")
    store = ("out[i] = t" if req.variant == "distance"
             else "out[i] = one * (last < eps)")
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[s]: 0 <= s < {MARCH_STEPS}}}"],
        f"""
        for i
            {loads}
            <> t = zero {{id=t_init}}
            for s
                t = t + {sdf("t")} {{id=step, dep=t_init:o*:d*}}
            end
            <> last = {sdf("t")} {{id=last, dep=step}}
            {store} {{dep=last}}
        end
        """,
        [*(u.array(f"orig_{a}", req.dtype, ("n",)) for a in _AXES),
         *(u.array(f"dir_{a}", req.dtype, ("n",)) for a in _AXES),
         u.array("out", req.dtype, ("n",)), *u.scalar_args(req.dtype, _MARCH_CONSTS),
         *u.size_args("n")],
        name="sdf_march", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def scene_distance(p: np.ndarray) -> np.ndarray:
    """(float64) the signed distance of points (by row) to the sphere or the ground."""
    return np.minimum(np.linalg.norm(p, axis=1) - SPHERE_RADIUS, p[:, 1] - GROUND_Y)


def march(origin: np.ndarray, direction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(float64) the distance marched after MARCH_STEPS steps and the field there."""
    t = np.zeros(len(origin))
    for _ in range(MARCH_STEPS):
        t = t + scene_distance(origin + t[:, None] * direction)
    return t, scene_distance(origin + t[:, None] * direction)


def _march_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # origins on a shell of radius 4 to 6 above the ground; a third of the rays aimed
    # near the sphere's centre (hits, converging in a few steps), a third steeply down
    # at the ground (hits), a third up and away (misses)
    direction_of = lambda v: v / np.linalg.norm(v, axis=1, keepdims=True)  # noqa: E731
    origin = direction_of(rng.normal(size=(n, 3))) * rng.uniform(4, 6, (n, 1))
    origin[:, 1] = np.abs(origin[:, 1]) + 0.5
    kind = rng.integers(0, 3, n)
    aim = np.where((kind == 0)[:, None], -origin + rng.uniform(-0.3, 0.3, (n, 3)),
                   rng.normal(size=(n, 3)))
    aim[kind == 1, 1] = -np.abs(aim[kind == 1, 1]) - 2.0
    aim[kind == 2, 1] = np.abs(aim[kind == 2, 1]) + 1.0
    aim[kind == 2] += origin[kind == 2] * 0.5
    direction = direction_of(aim)
    planes = {f"orig_{a}": origin[:, k] for k, a in enumerate(_AXES)}
    planes |= {f"dir_{a}": direction[:, k] for k, a in enumerate(_AXES)}
    return ({k: np.ascontiguousarray(v, dtype=dtype.numpy) for k, v in planes.items()}
            | u.scalar_inputs(dtype, _MARCH_CONSTS))


def _march_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    t, last = march(np.stack([f[f"orig_{a}"] for a in _AXES], axis=1),
                    np.stack([f[f"dir_{a}"] for a in _AXES], axis=1))
    out = t if variant == "distance" else (last < HIT_EPS).astype(np.float64)
    return {"out": u.as_dtype_of(out, inputs["orig_x"])}


SDF_MARCH = KernelSpec(
    name="sdf_march",
    role=KernelRole.UNSEEN,
    description=f"Sphere tracing of n rays (origins and unit directions in six planes) "
                f"through the distance field of a unit sphere over the plane y = "
                f"{GROUND_Y}: {MARCH_STEPS} dependent steps t <- t + min(|o + t d| - 1, "
                f"o_y + t d_y + 1) (a square root each); the distance reached "
                f"(distance) or 1 where the field there is below {HIT_EPS} (hit_mask).",
    parameters=("n",),
    variants=_MARCH_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_march,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_march_inputs,
    reference=partial(_march_reference, "distance"),
    variant_reference=_march_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (PROJECT_POINTS, SDF_MARCH)
