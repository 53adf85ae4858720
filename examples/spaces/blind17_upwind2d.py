"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventeenth set").
One first-order upwind step of 2-D advection on an n x n float32 grid (a tracer, smoke
density or a level set carried by a velocity field, as a user writes its transport
step): u is (n + 2) x (n + 2) with its boundary ring, the velocity (vx, vy) is given
per cell, c = dt/h = 1/4, and each cell takes its difference from the upwind side:

    out = u - c (max(vx, 0) (u - u_w) + min(vx, 0) (u_e - u)
                 + max(vy, 0) (u - u_n) + min(vy, 0) (u_s - u))

    workbench tune examples/spaces/blind17_upwind2d.py:space --param n=6144

Knobs: the work group (bx columns by by rows), columns per work item (cpi, cyclic or
blocked, in registers), whether the group's tile of u (with its one-cell halo) is
first copied to local memory, and the velocity's layout (two arrays, or one array of
(vx, vy) pairs).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 6144) -> TuningSpace:
    def kernel(p):
        if p["vel"] == "planar":
            vx, vy = "vx[i, j]", "vy[i, j]"
            vel = [lp.GlobalArg("vx", np.float32, shape=(n, n)),
                   lp.GlobalArg("vy", np.float32, shape=(n, n))]
        else:
            vx, vy = "v[i, j, 0]", "v[i, j, 1]"
            vel = [lp.GlobalArg("v", np.float32, shape=(n, n, 2))]
        c, w, e = "u[i + 1, j + 1]", "u[i + 1, j]", "u[i + 1, j + 2]"
        no, so = "u[i, j + 1]", "u[i + 2, j + 1]"
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            f"out[i, j] = {c} - 0.25f * (fmax({vx}, 0.0f) * ({c} - {w})"
            f" + fmin({vx}, 0.0f) * ({e} - {c}) + fmax({vy}, 0.0f) * ({c} - {no})"
            f" + fmin({vy}, 0.0f) * ({so} - {c}))",
            [lp.GlobalArg("u", np.float32, shape=(n + 2, n + 2)), *vel,
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="upwind2d", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        if p["tile"]:
            # the (by + 2) x (bx cpi + 2) tile, copied by the group's lanes
            knl = lp.add_prefetch(knl, "u", ["i_inner", "j_inner_outer", "j_inner_inner"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        return knl

    def make_inputs(rng):
        # u in [1, 2], velocities in [-1, 1]: a result lies in about [0.5, 2.5]
        u = (1.0 + rng.random((n + 2, n + 2))).astype(np.float32)
        v = (2.0 * rng.random((n, n, 2)) - 1.0).astype(np.float32)
        # both layouts of the same field: a point's kernel reads the one it names
        return {"u": u, "v": v, "vx": np.ascontiguousarray(v[:, :, 0]),
                "vy": np.ascontiguousarray(v[:, :, 1])}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)
        vx, vy = (inputs["v"][:, :, d].astype(np.float64) for d in (0, 1))
        c = u[1:-1, 1:-1]
        flux = (np.maximum(vx, 0) * (c - u[1:-1, :-2]) + np.minimum(vx, 0) * (u[1:-1, 2:] - c)
                + np.maximum(vy, 0) * (c - u[:-2, 1:-1]) + np.minimum(vy, 0) * (u[2:, 1:-1] - c))
        return {"out": c - 0.25 * flux}

    return TuningSpace(
        name="blind17_upwind2d",
        description=f"first-order upwind advection step on a {n} x {n} float32 grid: "
                    f"group bx x by, cpi columns per work item (cyclic or blocked), u's "
                    f"tile in local memory or not, velocity as two arrays or pairs",
        tune_params={"bx": (32, 64, 128), "by": (2, 8), "cpi": (1, 2),
                     "order": ("cyclic", "blocked"), "tile": (0, 1),
                     "vel": ("planar", "pairs")},
        restrictions=("n % by == 0 and n % (bx*cpi) == 0",
                      # one column: no order to choose
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * (p["by"] + 2) * (p["bx"] * p["cpi"] + 2) * p["tile"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
