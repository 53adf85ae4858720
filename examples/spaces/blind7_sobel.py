"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventh set").
Sobel edge magnitude of an (n + 2) x (n + 2) float32 image, n x n out:
out = sqrt(gx^2 + gy^2) with the 3 x 3 Sobel derivatives gx (across the columns) and
gy (down the rows).

    workbench tune examples/spaces/blind7_sobel.py:space --param n=8192

Knobs: the work group (bx columns by by rows), output columns per work item (cpi, in
registers by loopy's ILP) and whether the group's input tile, halo included, is first
read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            """
            <> gx = (x[i, j + 2] + 2.0f*x[i + 1, j + 2] + x[i + 2, j + 2]) \
                - (x[i, j] + 2.0f*x[i + 1, j] + x[i + 2, j])
            <> gy = (x[i + 2, j] + 2.0f*x[i + 2, j + 1] + x[i + 2, j + 2]) \
                - (x[i, j] + 2.0f*x[i, j + 1] + x[i, j + 2])
            out[i, j] = sqrt(gx*gx + gy*gy)
            """,
            [lp.GlobalArg("x", np.float32, shape=(n + 2, n + 2)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="sobel", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "x", ["i_inner", "j_inner_outer", "j_inner_inner"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="i_outer, j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        # an 8-bit image held as float32: every sum is exact, so a flat patch gives
        # exactly 0 (uniform random values lose the few ulps a cancellation leaves)
        return {"x": rng.integers(0, 256, size=(n + 2, n + 2)).astype(np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)

        def at(di, dj):
            return x[di:di + n, dj:dj + n]

        gx = (at(0, 2) + 2 * at(1, 2) + at(2, 2)) - (at(0, 0) + 2 * at(1, 0) + at(2, 0))
        gy = (at(2, 0) + 2 * at(2, 1) + at(2, 2)) - (at(0, 0) + 2 * at(0, 1) + at(0, 2))
        return {"out": np.sqrt(gx * gx + gy * gy)}

    return TuningSpace(
        name="blind7_sobel",
        description=f"Sobel edge magnitude, {n + 2}^2 to {n}^2 float32: group bx x by, "
                    f"cpi columns per work item, optional local input tile with halo",
        tune_params={"bx": (16, 32, 64, 128), "by": (1, 2, 4, 8, 16), "cpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      "n % by == 0 and n % (bx*cpi) == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["by"] + 2) * (p["bx"] * p["cpi"] + 2),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
