"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventh set").
1-D convolution of n float32 values with a long filter of 128 taps:
out[i] = sum_k f[k] x[i + k].

    workbench tune examples/spaces/blind7_conv1d_long.py:space --param n=16777216

Knobs: the work-group size, outputs per work item (wpi, cyclic, in registers by loopy's
ILP), the unrolling of the tap loop, and whether the group's stretch of x is read into
local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

TAPS = 128


def space(n: int = 2 ** 24) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, k]: 0 <= i < {n} and 0 <= k < {TAPS}}}",
            "out[i] = sum(k, f[k] * x[i + k])",
            [lp.GlobalArg("x", np.float32, shape=(n + TAPS - 1,)),
             lp.GlobalArg("f", np.float32, shape=(TAPS,)),
             lp.GlobalArg("out", np.float32, shape=(n,), is_output=True)],
            name="conv1d_long", lang_version=(2018, 2))
        g, wpi = p["g"], p["wpi"]
        knl = lp.split_iname(knl, "i", g * wpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "i_inner", g, outer_tag="ilp", inner_tag="l.0")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "k", p["unroll"], inner_tag="unr")
        if p["local"]:
            taps = ["k_outer", "k_inner"] if p["unroll"] > 1 else ["k"]
            knl = lp.add_prefetch(knl, "x", ["i_inner_outer", "i_inner_inner", *taps],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"x": rng.random(n + TAPS - 1, dtype=np.float32),
                "f": (rng.random(TAPS, dtype=np.float32) / TAPS).astype(np.float32)}

    def reference(inputs):
        return {"out": np.correlate(inputs["x"].astype(np.float64),
                                    inputs["f"].astype(np.float64), mode="valid")}

    return TuningSpace(
        name="blind7_conv1d_long",
        description=f"{TAPS}-tap 1-D convolution over {n} float32: group size g, wpi "
                    f"outputs per work item, taps unrolled by 1, 4 or 16, optional local tile",
        tune_params={"g": (64, 128, 256, 512, 1024), "wpi": (1, 2, 4, 8),
                     "unroll": (1, 4, 16), "local": (0, 1)},
        restrictions=("n % (g*wpi) == 0", "g*wpi <= 4096"),
        group_size=lambda p: (p["g"],),
        local_bytes=lambda p: 4 * p["local"] * (p["g"] * p["wpi"] + TAPS - 1),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
