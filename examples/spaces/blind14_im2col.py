"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourteenth set").
The im2col step of a 3 x 3 convolution done as a matrix product: a float32 image of c
channels of h x w pixels, padded by one on every side, unfolded into a (9c) x (hw)
matrix whose column i w + j holds the 3 x 3 neighbourhood of pixel (i, j) in every
channel, out[9 ch + 3 u + v, i w + j] = x[ch, i + u, j + v] (the GEMM's right-hand
side, as a user writes it before calling a matrix product).

    workbench tune examples/spaces/blind14_im2col.py:space --param c=32 --param h=512 --param w=512

Knobs: the group bx x by (pixels along a row on axis 0, rows on axis 1; a channel on
axis 2), rows per work item (registers), the nine taps unrolled or a loop, and the
image read channels first (c x (h + 2) x (w + 2)) or channels last
((h + 2) x (w + 2) x c, as a camera or a channels-last network holds it).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(c: int = 32, h: int = 512, w: int = 512) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "chw":
            src = "x[ch, i + u, j + v]"
            ins = [lp.GlobalArg("x", np.float32, shape=(c, h + 2, w + 2))]
        else:
            src = "xl[i + u, j + v, ch]"
            ins = [lp.GlobalArg("xl", np.float32, shape=(h + 2, w + 2, c))]
        knl = lp.make_kernel(
            f"{{[ch, i, j, u, v]: 0 <= ch < {c} and 0 <= i < {h} and 0 <= j < {w} "
            f"and 0 <= u, v < 3}}",
            f"out[9*ch + 3*u + v, {w}*i + j] = {src}",
            [*ins, lp.GlobalArg("out", np.float32, shape=(9 * c, h * w), is_output=True)],
            name="im2col", lang_version=(2018, 2))
        bx, by, rpi = p["bx"], p["by"], p["rpi"]
        knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
        knl = lp.split_iname(knl, "i", by * rpi, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", by, outer_tag="ilp", inner_tag="l.1")
        knl = lp.tag_inames(knl, {"ch": "g.2"})
        if p["taps"] == "unrolled":
            knl = lp.tag_inames(knl, {"u": "unr", "v": "unr"})
        return knl

    def make_inputs(rng):
        x = rng.random((c, h + 2, w + 2), dtype=np.float32)
        # the same image for both layouts: channels-last kernels read their own copy
        return {"x": x, "xl": np.ascontiguousarray(x.transpose(1, 2, 0))}

    def reference(inputs):
        x = inputs["x"]
        cols = np.empty((c, 3, 3, h, w), dtype=np.float32)
        for u in range(3):
            for v in range(3):
                cols[:, u, v] = x[:, u:u + h, v:v + w]
        return {"out": cols.reshape(9 * c, h * w)}

    return TuningSpace(
        name="blind14_im2col",
        description=f"im2col of a 3 x 3 convolution: {c} float32 channels of {h} x {w} "
                    f"pixels (padded by one) unfolded into {9 * c} x {h * w}: bx x by "
                    f"groups, rpi rows per work item, taps unrolled or a loop, the image "
                    f"channels first or last",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4, 8), "rpi": (1, 2),
                     "taps": ("unrolled", "loop"), "layout": ("chw", "hwc")},
        restrictions=("w % bx == 0", "h % (by*rpi) == 0", "bx*by >= 64 and bx*by <= 512"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"c": c, "h": h, "w": w}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=0.0)
