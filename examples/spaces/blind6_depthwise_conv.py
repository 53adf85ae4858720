"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixth set").
Depthwise 3 x 3 convolution of a c x h x w float32 image stack (each channel its own
filter, as in MobileNet): out[k, i, j] = sum_{u, v} f[k, u, v] x[k, i + u, j + v], the
input padded by one on each side.

    workbench tune examples/spaces/blind6_depthwise_conv.py:space --param c=64 --param h=1024

Knobs: the work group (bx along a row, by rows; the channel on the grid's third axis),
output columns per work item (cpi, in registers by loopy's ILP) and whether the group's
input tile with its halo is first read into local memory. The nine taps are unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(c: int = 64, h: int = 1024, w: int = 1024) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[k, i, j, u, v]: 0 <= k < {c} and 0 <= i < {h} and 0 <= j < {w} "
            f"and 0 <= u, v < 3}}",
            "out[k, i, j] = sum((u, v), f[k, u, v] * x[k, i + u, j + v])",
            [lp.GlobalArg("x", np.float32, shape=(c, h + 2, w + 2)),
             lp.GlobalArg("f", np.float32, shape=(c, 3, 3)),
             lp.GlobalArg("out", np.float32, shape=(c, h, w), is_output=True)],
            name="depthwise_conv3x3", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.tag_inames(knl, {"k": "g.2", "u": "unr", "v": "unr"})
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "x", ["i_inner", "j_inner_outer", "j_inner_inner",
                                             "u", "v"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="k, i_outer, j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"x": rng.random((c, h + 2, w + 2), dtype=np.float32),
                "f": rng.random((c, 3, 3), dtype=np.float32)}

    def reference(inputs):
        x, f = inputs["x"].astype(np.float64), inputs["f"]
        return {"out": sum(f[:, u, v, None, None] * x[:, u:u + h, v:v + w]
                           for u in range(3) for v in range(3))}

    return TuningSpace(
        name="blind6_depthwise_conv",
        description=f"depthwise 3 x 3 convolution, {c} channels of {h} x {w} float32: "
                    f"group bx x by, cpi columns per work item, optional local tile "
                    f"with halo",
        tune_params={"bx": (16, 32, 64, 128), "by": (2, 4, 8, 16), "cpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      "h % by == 0 and w % (bx*cpi) == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["bx"] * p["cpi"] + 2) * (p["by"] + 2),
        problem={"c": c, "h": h, "w": w}, kernel=kernel, make_inputs=make_inputs,
        reference=reference)
