"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighth set").
Fourth-order 2-D Laplacian, float32, on an (n + 4) x (n + 4) grid, n x n out: a
radius-2 star of nine points, out = 12 h^2 (d2/dx2 + d2/dy2) u with the weights
(-1, 16, -30, 16, -1) along each axis (an 8-bit image held as float32: every sum is
exact).

    workbench tune examples/spaces/blind8_laplace4.py:space --param n=8192

Knobs: the work group (bx columns by by rows), output rows per work item (rpi, in
registers by loopy's ILP) and whether the group's input tile, its two-point halo
included, is first read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            """
            out[i, j] = 16.0f*(u[i + 1, j + 2] + u[i + 3, j + 2] + u[i + 2, j + 1] \
                               + u[i + 2, j + 3]) \
                - (u[i, j + 2] + u[i + 4, j + 2] + u[i + 2, j] + u[i + 2, j + 4]) \
                - 60.0f*u[i + 2, j + 2]
            """,
            [lp.GlobalArg("u", np.float32, shape=(n + 4, n + 4)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="laplace4", lang_version=(2018, 2))
        bx, by, rpi = p["bx"], p["by"], p["rpi"]
        knl = lp.split_iname(knl, "i", by * rpi, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", by, outer_tag="ilp", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "u", ["i_inner_outer", "i_inner_inner", "j_inner"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="i_outer, j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"u": rng.integers(0, 256, size=(n + 4, n + 4)).astype(np.float32)}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)

        def at(di, dj):
            return u[di:di + n, dj:dj + n]

        return {"out": 16 * (at(1, 2) + at(3, 2) + at(2, 1) + at(2, 3))
                - (at(0, 2) + at(4, 2) + at(2, 0) + at(2, 4)) - 60 * at(2, 2)}

    return TuningSpace(
        name="blind8_laplace4",
        description=f"fourth-order 2-D Laplacian (radius-2 star), {n + 4}^2 to {n}^2 "
                    f"float32: group bx x by, rpi rows per work item, optional local "
                    f"input tile with halo",
        tune_params={"bx": (16, 32, 64, 128), "by": (1, 2, 4, 8, 16), "rpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      "n % (by*rpi) == 0 and n % bx == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["by"] * p["rpi"] + 4) * (p["bx"] + 4),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
