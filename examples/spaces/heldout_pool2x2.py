"""HELD OUT (never fit or design on it; see README.md). 2 x 2 average pooling
(downsampling an image by two), float32: out[i, j] = the mean of
a[2i:2i+2, 2j:2j+2] for a 2n x 2n input.

    workbench tune examples/spaces/heldout_pool2x2.py:space --param n=8192

Knobs: the work group (bx along the contiguous axis, by rows), output columns per
work item (cpi, cyclic, in registers), and whether the group's input tile is read
into local memory first.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            "out[i, j] = 0.25f*(a[2*i, 2*j] + a[2*i, 2*j+1] + a[2*i+1, 2*j]"
            " + a[2*i+1, 2*j+1])",
            [lp.GlobalArg("a", np.float32, shape=(2 * n, 2 * n)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="pool2x2", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "a", ["i_inner", "j_inner_outer", "j_inner_inner"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((2 * n, 2 * n), dtype=np.float32)}

    def reference(inputs):
        a = inputs["a"].astype(np.float64)
        return {"out": a.reshape(n, 2, n, 2).mean(axis=(1, 3))}

    return TuningSpace(
        name="heldout_pool2x2",
        description=f"2 x 2 average pooling to {n} x {n} float32: group bx x by, cpi "
                    f"columns per work item, optional local input tile",
        tune_params={"bx": (16, 32, 64, 128, 256), "by": (1, 2, 4, 8), "cpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      # the local tile (2 by x 2 bx cpi floats) within 48 KiB
                      "local == 0 or bx*by*cpi <= 3072"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (2 * p["by"]) * (2 * p["bx"] * p["cpi"]),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
