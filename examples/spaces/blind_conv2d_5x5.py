"""BLIND (never fit, choose or tune anything on it; see README.md). 2-D convolution
with a 5 x 5 filter, float32: out[i, j] = sum over (di, dj) of w[di, dj] u[i+di, j+dj],
the input padded by two on every side, the filter an input array.

    workbench tune examples/spaces/blind_conv2d_5x5.py:space --param n=8192

Knobs: the work group (bx along the contiguous axis, by rows), output columns per
work item (cpi, cyclic, in registers), whether the group's input tile plus halo is
read into local memory first, and whether the 25 filter taps are unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

R = 2   # filter radius: 5 x 5 taps


def space(n: int = 8192) -> TuningSpace:
    taps = 2 * R + 1

    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j, di, dj]: 0 <= i, j < {n} and 0 <= di, dj < {taps}}}",
            "out[i, j] = sum((di, dj), w[di, dj] * u[i + di, j + dj])",
            [lp.GlobalArg("u", np.float32, shape=(n + 2 * R, n + 2 * R)),
             lp.GlobalArg("w", np.float32, shape=(taps, taps)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="conv2d_5x5", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "u", ["i_inner", "j_inner_outer", "j_inner_inner",
                                             "di", "dj"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"di": "unr", "dj": "unr"})
        return knl

    def make_inputs(rng):
        return {"u": rng.random((n + 2 * R, n + 2 * R), dtype=np.float32),
                "w": rng.random((taps, taps), dtype=np.float32)}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)
        w = inputs["w"].astype(np.float64)
        out = np.zeros((n, n))
        for di in range(taps):
            for dj in range(taps):
                out += w[di, dj] * u[di:di + n, dj:dj + n]
        return {"out": out}

    return TuningSpace(
        name="blind_conv2d_5x5",
        description=f"5 x 5 convolution on {n} x {n} float32: group bx x by, cpi "
                    f"columns per work item, optional local tile with halo, unrolled taps",
        tune_params={"bx": (32, 64, 128), "by": (1, 2, 4, 8), "cpi": (1, 2, 4),
                     "local": (0, 1), "unroll": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 256", "n % (bx*cpi) == 0",
                      "n % by == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["bx"] * p["cpi"] + 2 * R)
        * (p["by"] + 2 * R),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # float32 sums of 25 products
