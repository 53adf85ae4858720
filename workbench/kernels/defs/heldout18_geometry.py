"""The eighteenth held-out set's geometry kernels on 1-D groups.

What the set is for, and the other kernels, are in :mod:`.heldout18`.

* ``spring_chain_forces``: the spring force on each node of a 2-D chain from its
  neighbours (one at either end).
* ``point_in_polygon``: the even-odd crossing test of each point against one polygon.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ spring chain forces

#: the springs' stiffness and rest length
SPRING_K, SPRING_REST = 40.0, 1.0
_SPRING_CONSTS = (("one", 1.0), ("stiffness", SPRING_K), ("rest", SPRING_REST))


def _build_spring(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("hooke",), 1)
    ftype = req.dtype.value
    lines = []
    for side, nb, has in (("l", "i - 1 + (i == 0)", "i > 0"),
                          ("r", "i + 1 - (i == n - 1)", "i < n - 1")):
        # the missing neighbour of an end node is the node itself: its length is made
        # one instead of zero (no division by zero) and its force weighted by zero
        lines += [
            f"<int32> j{side} = {nb} {{id=j{side}}}",
            f"<{ftype}> has{side} = {has} {{id=has{side}}}",
            f"<> dx{side} = px[j{side}] - x {{id=dx{side}, dep=j{side}:x}}",
            f"<> dy{side} = py[j{side}] - y {{id=dy{side}, dep=j{side}:y}}",
            f"<> len{side} = sqrt(dx{side} * dx{side} + dy{side} * dy{side}) + one - has{side} "
            f"{{id=len{side}, dep=dx{side}:dy{side}:has{side}}}",
            f"<> f{side} = has{side} * stiffness * (len{side} - rest) / len{side} "
            f"{{id=f{side}, dep=len{side}}}"]
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> x = px[i] {{id=x}}
            <> y = py[i] {{id=y}}
            {body}
            fx[i] = fl * dxl + fr * dxr {{dep=fl:fr}}
            fy[i] = fl * dyl + fr * dyr {{dep=fl:fr}}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("px", "py", "fx", "fy")),
         *u.scalar_args(req.dtype, _SPRING_CONSTS), *u.size_args("n")],
        name="spring_chain_forces", assumptions="n >= 2")
    return u.split_1d(knl, "i", req.group_size)


def spring_forces(px, py) -> np.ndarray:
    """(float64) the force (2, n) on each node of the chain through (px, py)."""
    p = np.stack([np.asarray(px, np.float64), np.asarray(py, np.float64)])
    d = np.diff(p, axis=1)                                    # node k to node k + 1
    length = np.hypot(d[0], d[1])
    f = SPRING_K * (length - SPRING_REST) / length * d       # pulls node k toward k + 1
    out = np.zeros_like(p)
    out[:, :-1] += f
    out[:, 1:] -= f
    return out


def _spring_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # a random walk of links 0.6 to 1.4 long (springs stretched and compressed); nodes
    # whose force has a component within 1e-2 of zero are moved (a relative tolerance
    # holds)
    step = rng.uniform(0.6, 1.4, n - 1)
    angle = rng.uniform(-np.pi, np.pi, n - 1)
    p = np.zeros((2, n))
    p[:, 1:] = np.cumsum(np.stack([step * np.cos(angle), step * np.sin(angle)]), axis=1)
    for _ in range(500):
        bad = (np.abs(spring_forces(p[0], p[1])) < 1e-2).any(axis=0)
        if not bad.any():
            break
        p[:, bad] += rng.uniform(-0.2, 0.2, (2, bad.sum()))
    return {"px": np.asarray(p[0], dtype.numpy), "py": np.asarray(p[1], dtype.numpy),
            **u.scalar_inputs(dtype, _SPRING_CONSTS)}


def _spring_reference(inputs, params) -> dict:
    f = spring_forces(inputs["px"], inputs["py"])
    return {"fx": u.as_dtype_of(f[0], inputs["px"]), "fy": u.as_dtype_of(f[1], inputs["px"])}


SPRING_CHAIN_FORCES = KernelSpec(
    name="spring_chain_forces",
    role=KernelRole.UNSEEN,
    description="The Hooke spring forces on the n nodes of a chain in the plane (x and "
                "y planes): each node reads its two neighbours (the ends one, their "
                "missing neighbour clamped to themselves and weighted by zero), a square "
                "root and a division per spring.",
    parameters=("n",),
    variants=("hooke",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_spring,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_spring_inputs,
    reference=_spring_reference,
    check_params={"n": 2000},
    rtol=1e-3,
)

# }}}


# {{{ point in polygon

#: the polygon: a five-pointed star (ten vertices), the first repeated at the end
POLY_VERTS = 10
_POLY_CONSTS = (("one", 1.0), ("two", 2.0))


def star_polygon() -> np.ndarray:
    """(POLY_VERTS + 1, 2) the closed star's vertices, radii 1 and 0.45 alternating."""
    k = np.arange(POLY_VERTS + 1) % POLY_VERTS
    r = np.where(k % 2 == 0, 1.0, 0.45)
    a = np.pi / 2 + 2 * np.pi * k / POLY_VERTS
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=1)


def _build_polygon(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("even_odd",), 1)
    ftype = req.dtype.value
    knl = u.make_kernel(
        ["{[i]: 0 <= i < n}", f"{{[e]: 0 <= e < {POLY_VERTS}}}"],
        f"""
        for i
            <> x = qx[i] {{id=x}}
            <> y = qy[i] {{id=y}}
            <> inside = 0 * one {{id=in0}}
            for e
                <> ax = poly[e, 0] {{id=ax}}
                <> ay = poly[e, 1] {{id=ay}}
                <> bx = poly[e + 1, 0] {{id=bx}}
                <> by = poly[e + 1, 1] {{id=by}}
                <int32> spans = (ay > y) + (by > y) == 1 {{id=spans, dep=ay:by:y}}
                <> cut = ax + (bx - ax) * (y - ay) / (by - ay) {{id=cut, dep=ax:bx:ay:by:y}}
                <{ftype}> hit = spans * (x < cut) {{id=hit, dep=spans:cut:x}}
                inside = inside + hit * (one - two * inside) {{id=in_up, dep=hit:in0}}
            end
            inside_out[i] = inside {{dep=in_up}}
        end
        """,
        [u.array("qx", req.dtype, ("n",)), u.array("qy", req.dtype, ("n",)),
         u.array("poly", req.dtype, (POLY_VERTS + 1, 2)), u.array("inside_out", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _POLY_CONSTS), *u.size_args("n")],
        name="point_in_polygon", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _edge_distance(x, y, poly) -> np.ndarray:
    """(float64) each point's distance to the polygon's boundary."""
    a, b = poly[:-1], poly[1:]
    d = b - a
    px, py = x[:, None] - a[:, 0], y[:, None] - a[:, 1]
    s = np.clip((px * d[:, 0] + py * d[:, 1]) / (d ** 2).sum(axis=1), 0, 1)
    return np.hypot(px - s * d[:, 0], py - s * d[:, 1]).min(axis=1)


def inside_polygon(x, y, poly) -> np.ndarray:
    """(bool) the even-odd rule for points (x, y) and a closed polygon."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    inside = np.zeros(x.shape, bool)
    for (ax, ay), (bx, by) in zip(poly[:-1], poly[1:]):
        spans = (ay > y) != (by > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            cut = ax + (bx - ax) * (y - ay) / (by - ay)
        inside ^= spans & (x < cut)
    return inside


def _polygon_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    poly = star_polygon()
    # points over the star's bounding square and a little beyond (inside the points,
    # in the hollows between them, outside), none within 1e-3 of an edge or at a
    # vertex's height (both precisions take the same side)
    def draw(k):
        return rng.uniform(-1.1, 1.1, k), rng.uniform(-1.1, 1.1, k)

    def is_bad(x, y):
        return ((_edge_distance(x, y, poly) < 1e-3)
                | (np.abs(np.subtract.outer(poly[:, 1], y)) < 1e-4).any(0))
    x, y = u.redraw_until_good(draw(n), draw, is_bad, tries=200)
    return {"qx": np.asarray(x, dtype.numpy), "qy": np.asarray(y, dtype.numpy),
            "poly": np.asarray(poly, dtype.numpy), **u.scalar_inputs(dtype, _POLY_CONSTS)}


def _polygon_reference(inputs, params) -> dict:
    poly = inputs["poly"].astype(np.float64)
    inside = inside_polygon(inputs["qx"], inputs["qy"], poly)
    return {"inside_out": u.as_dtype_of(inside.astype(np.float64), inputs["qx"])}


POINT_IN_POLYGON = KernelSpec(
    name="point_in_polygon",
    role=KernelRole.UNSEEN,
    description=f"Whether each of n points (x and y planes) lies inside one polygon of "
                f"{POLY_VERTS} vertices (a star, read by every work item): the even-odd "
                f"crossing test, per edge two comparisons, a division for the crossing's "
                f"abscissa and a toggle of the result (0 or 1).",
    parameters=("n",),
    variants=("even_odd",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_polygon,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_polygon_inputs,
    reference=_polygon_reference,
    check_params={"n": 3000},
    rtol=1e-6,
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (SPRING_CHAIN_FORCES, POINT_IN_POLYGON)
