"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixth set").
One level of the 2-D Haar wavelet transform of an n x n float32 image: each 2 x 2
block (a b; c d) gives the four quarter images of out, the average (a+b+c+d)/2 top
left, the horizontal detail (a-b+c-d)/2 top right, the vertical detail (a+b-c-d)/2
bottom left and the diagonal (a-b-c+d)/2 bottom right.

    workbench tune examples/spaces/blind6_haar2d.py:space --param n=8192

Knobs: the work group (bx blocks along a row, by block rows), blocks per work item
along the row (cpi, in registers by loopy's ILP) and whether the group's input tile
is first read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        half = n // 2
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {half}}}",
            f"""
            <> a = x[2*i, 2*j]
            <> b = x[2*i, 2*j + 1]
            <> c = x[2*i + 1, 2*j]
            <> d = x[2*i + 1, 2*j + 1]
            out[i, j] = 0.5f*(a + b + c + d)
            out[i, j + {half}] = 0.5f*(a - b + c - d)
            out[i + {half}, j] = 0.5f*(a + b - c - d)
            out[i + {half}, j + {half}] = 0.5f*(a - b - c + d)
            """,
            [lp.GlobalArg("x", np.float32, shape=(n, n)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="haar2d", lang_version=(2018, 2))
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
        return {"x": rng.random((n, n), dtype=np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        a, b, c, d = x[0::2, 0::2], x[0::2, 1::2], x[1::2, 0::2], x[1::2, 1::2]
        return {"out": 0.5 * np.block([[a + b + c + d, a - b + c - d],
                                       [a + b - c - d, a - b - c + d]])}

    return TuningSpace(
        name="blind6_haar2d",
        description=f"one level of the 2-D Haar transform, {n} x {n} float32: group "
                    f"bx x by blocks, cpi blocks per work item, optional local input tile",
        tune_params={"bx": (16, 32, 64, 128), "by": (1, 2, 4, 8, 16), "cpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      "(n // 2) % by == 0 and (n // 2) % (bx*cpi) == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * 2 * p["by"] * 2 * p["bx"] * p["cpi"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
