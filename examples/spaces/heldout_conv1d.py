"""HELD OUT (never fit or design on it; see README.md). 1-D convolution, float32:
out[i] = sum_k f[k] x[i + k] with a 17-tap filter.

    workbench tune examples/spaces/heldout_conv1d.py:space --param n=67108864

Knobs: the work-group size, outputs per work item (wpi, cyclic), unrolling the
filter loop, and whether the group's stretch of x is read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

TAPS = 17


def space(n: int = 2 ** 26) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, k]: 0 <= i < {n} and 0 <= k < {TAPS}}}",
            "out[i] = sum(k, f[k] * x[i + k])",
            [lp.GlobalArg("x", np.float32, shape=(n + TAPS - 1,)),
             lp.GlobalArg("f", np.float32, shape=(TAPS,)),
             lp.GlobalArg("out", np.float32, shape=(n,), is_output=True)],
            name="conv1d", lang_version=(2018, 2))
        g, wpi = p["g"], p["wpi"]
        knl = lp.split_iname(knl, "i", g * wpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "i_inner", g, outer_tag="ilp", inner_tag="l.0")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"k": "unr"})
        if p["local"]:
            knl = lp.add_prefetch(knl, "x", ["i_inner_outer", "i_inner_inner", "k"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"x": rng.random(n + TAPS - 1, dtype=np.float32),
                "f": rng.random(TAPS, dtype=np.float32)}

    def reference(inputs):
        return {"out": np.correlate(inputs["x"].astype(np.float64),
                                    inputs["f"].astype(np.float64), mode="valid")}

    return TuningSpace(
        name="heldout_conv1d",
        description=f"{TAPS}-tap 1-D convolution over {n} float32: group size g, wpi "
                    f"outputs per work item, unrolled taps, optional local tile",
        tune_params={"g": (64, 128, 256, 512, 1024), "wpi": (1, 2, 4, 8),
                     "unroll": (0, 1), "local": (0, 1)},
        restrictions=("n % (g*wpi) == 0",),
        group_size=lambda p: (p["g"],),
        local_bytes=lambda p: 4 * p["local"] * (p["g"] * p["wpi"] + TAPS - 1),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
