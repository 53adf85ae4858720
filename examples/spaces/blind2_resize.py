"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, second set").
Bilinear 2x upsampling of an (n+1) x (n+1) float32 image to 2n x 2n: each input pixel
(i, j) gives four outputs, interpolated between it and its right and lower neighbours.

    workbench tune examples/spaces/blind2_resize.py:space --param n=4096

Knobs: the work group (bx input columns along the contiguous axis, by input rows),
input rows per work item (rpi, cyclic, in registers), and whether the group's input
tile plus its one-pixel border is read into local memory first.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 4096) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            """
            out[2*i, 2*j] = a[i, j]
            out[2*i, 2*j + 1] = 0.5f*(a[i, j] + a[i, j + 1])
            out[2*i + 1, 2*j] = 0.5f*(a[i, j] + a[i + 1, j])
            out[2*i + 1, 2*j + 1] = 0.25f*(a[i, j] + a[i, j + 1] + a[i + 1, j] + a[i + 1, j + 1])
            """,
            [lp.GlobalArg("a", np.float32, shape=(n + 1, n + 1)),
             lp.GlobalArg("out", np.float32, shape=(2 * n, 2 * n), is_output=True)],
            name="resize2x", lang_version=(2018, 2))
        bx, by, rpi = p["bx"], p["by"], p["rpi"]
        knl = lp.split_iname(knl, "i", by * rpi, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", by, outer_tag="ilp", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "a", ["i_inner_outer", "i_inner_inner", "j_inner"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((n + 1, n + 1), dtype=np.float32)}

    def reference(inputs):
        a = inputs["a"].astype(np.float64)
        out = np.empty((2 * n, 2 * n))
        out[0::2, 0::2] = a[:n, :n]
        out[0::2, 1::2] = 0.5 * (a[:n, :n] + a[:n, 1:])
        out[1::2, 0::2] = 0.5 * (a[:n, :n] + a[1:, :n])
        out[1::2, 1::2] = 0.25 * (a[:n, :n] + a[:n, 1:] + a[1:, :n] + a[1:, 1:])
        return {"out": out}

    return TuningSpace(
        name="blind2_resize",
        description=f"bilinear 2x upsampling, ({n}+1)^2 to {2 * n}^2 float32: group "
                    f"bx x by, rpi input rows per work item, optional local tile",
        tune_params={"bx": (16, 32, 64, 128), "by": (2, 4, 8, 16), "rpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["bx"] + 1) * (p["by"] * p["rpi"] + 1),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
