"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifth set").
Pixel shuffle (depth to space) with factor r, float32: an input of c r^2 channels of
h x w becomes c channels of rh x rw, out[ch, y r + dy, x r + dx] = inp[ch r^2 + dy r + dx, y, x].

    workbench tune examples/spaces/blind5_pixel_shuffle.py:space --param c=16 --param h=512

Knobs: bx input columns per group, whether the lanes run along the input columns
(x on lanes, each work item writes its r outputs dx in sequence: reads coalesced) or
along the output row (dx on the fastest lanes, x on the second axis: writes
coalesced), input rows per work item (ypi, in registers by loopy's ILP) and whether
the dy loop is unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(c: int = 16, h: int = 512, w: int = 512, r: int = 4) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[ch, dy, dx, y, x]: 0 <= ch < {c} and 0 <= dy, dx < {r} "
            f"and 0 <= y < {h} and 0 <= x < {w}}}",
            f"out[ch, y*{r} + dy, x*{r} + dx] = inp[ch*{r * r} + dy*{r} + dx, y, x]",
            [lp.GlobalArg("inp", np.float32, shape=(c * r * r, h, w)),
             lp.GlobalArg("out", np.float32, shape=(c, h * r, w * r), is_output=True)],
            name="pixel_shuffle", lang_version=(2018, 2))
        bx = p["bx"]
        knl = lp.tag_inames(knl, {"ch": "g.2"})
        knl = lp.split_iname(knl, "y", p["ypi"], outer_tag="g.1", inner_tag="ilp")
        if p["lanes"] == "x":
            knl = lp.split_iname(knl, "x", bx, outer_tag="g.0", inner_tag="l.0")
            knl = lp.tag_inames(knl, {"dx": "unr"})
        else:
            knl = lp.split_iname(knl, "x", bx, outer_tag="g.0", inner_tag="l.1")
            knl = lp.tag_inames(knl, {"dx": "l.0"})
        if p["unroll_dy"]:
            knl = lp.tag_inames(knl, {"dy": "unr"})
        return knl

    def make_inputs(rng):
        return {"inp": rng.random((c * r * r, h, w), dtype=np.float32)}

    def reference(inputs):
        x = inputs["inp"].reshape(c, r, r, h, w).transpose(0, 3, 1, 4, 2)
        return {"out": x.reshape(c, h * r, w * r).copy()}

    return TuningSpace(
        name="blind5_pixel_shuffle",
        description=f"pixel shuffle by {r}, {c * r * r} x {h} x {w} to {c} x {h * r} x "
                    f"{w * r} float32: bx columns per group, lanes along the input or the "
                    f"output row, ypi rows per work item, unrolled dy loop",
        tune_params={"bx": (16, 32, 64, 128, 256), "lanes": ("x", "dx"),
                     "ypi": (1, 2, 4), "unroll_dy": (0, 1)},
        restrictions=("w % bx == 0 and h % ypi == 0",),
        group_size=lambda p: (p["bx"],) if p["lanes"] == "x" else (r, p["bx"]),
        local_bytes=lambda p: 0,
        problem={"c": c, "h": h, "w": w, "r": r}, kernel=kernel,
        make_inputs=make_inputs, reference=reference)
