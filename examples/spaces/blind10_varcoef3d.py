"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, tenth set").
One explicit step of diffusion with a variable coefficient on a 3-D float32 grid (a
7-point star, as a user writes a heat or porous-media step): u is (n + 2)^3 with its
halo, kappa and out are n^3, out = u_c + kappa (u_z- + u_z+ + u_y- + u_y+ + u_x- + u_x+ -
6 u_c), the coefficient read once a point.

    workbench tune examples/spaces/blind10_varcoef3d.py:space --param n=384

Knobs: the work group (bx along x, the contiguous axis, by along y), planes per work
item along z (zpi: a loop, or in registers by loopy's ILP), and whether the group's
three planes of u, halo included, are first read into local memory at each step of the
loop.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 384) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[z, y, x]: 0 <= z, y, x < {n}}}",
            """
            out[z, y, x] = u[z + 1, y + 1, x + 1] + kappa[z, y, x] * ( \
                u[z, y + 1, x + 1] + u[z + 2, y + 1, x + 1] \
                + u[z + 1, y, x + 1] + u[z + 1, y + 2, x + 1] \
                + u[z + 1, y + 1, x] + u[z + 1, y + 1, x + 2] \
                - 6.0f * u[z + 1, y + 1, x + 1])
            """,
            [lp.GlobalArg("u", np.float32, shape=(n + 2, n + 2, n + 2)),
             lp.GlobalArg("kappa", np.float32, shape=(n, n, n)),
             lp.GlobalArg("out", np.float32, shape=(n, n, n), is_output=True)],
            name="varcoef3d", lang_version=(2018, 2))
        bx, by, zpi = p["bx"], p["by"], p["zpi"]
        knl = lp.split_iname(knl, "x", bx, outer_tag="g.0", inner_tag="l.0")
        knl = lp.split_iname(knl, "y", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "z", zpi, outer_tag="g.2",
                             inner_tag="ilp" if p["zloop"] == "ilp" else None)
        if p["local"]:
            knl = lp.add_prefetch(knl, "u", ["y_inner", "x_inner"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="z_outer, z_inner, y_outer, x_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        # a stable step: kappa below 1/6
        return {"u": rng.random((n + 2,) * 3, dtype=np.float32),
                "kappa": (rng.random((n,) * 3, dtype=np.float32) / 6).astype(np.float32)}

    def reference(inputs):
        u, kappa = inputs["u"].astype(np.float64), inputs["kappa"].astype(np.float64)

        def at(dz, dy, dx):
            return u[dz:dz + n, dy:dy + n, dx:dx + n]

        centre = at(1, 1, 1)
        return {"out": centre + kappa * (at(0, 1, 1) + at(2, 1, 1) + at(1, 0, 1)
                                         + at(1, 2, 1) + at(1, 1, 0) + at(1, 1, 2)
                                         - 6 * centre)}

    return TuningSpace(
        name="blind10_varcoef3d",
        description=f"variable-coefficient 7-point diffusion step, {n + 2}^3 to {n}^3 "
                    f"float32: group bx x by, zpi planes per work item (loop or ILP), "
                    f"optional local copy of the group's three planes with halo",
        tune_params={"bx": (32, 64, 128), "by": (2, 4, 8), "zpi": (1, 2, 4, 8),
                     "zloop": ("loop", "ilp"), "local": (0, 1)},
        restrictions=("n % bx == 0 and n % by == 0 and n % zpi == 0",
                      # one plane: nothing to unroll
                      lambda p: p["zpi"] > 1 or p["zloop"] == "loop",
                      # a local copy inside registers' ILP is not written per plane
                      lambda p: p["zloop"] == "loop" or p["local"] == 0),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * 3 * (p["by"] + 2) * (p["bx"] + 2),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
