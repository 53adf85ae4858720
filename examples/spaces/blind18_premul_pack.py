"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighteenth set").
Straight-alpha RGBA float32 pixels premultiplied and packed to 8 bits: n pixels stored
interleaved (n x 4, channels in [0, 1]) become n 32-bit words, R + G 2^8 + B 2^16 + A 2^24
with the colour channels round(255 c a) and the alpha round(255 a) (a renderer's or a
compositor's output handed to a display or an image file in premultiplied RGBA8).  The
words are int32 (the same bits as the uint32 a user would declare: the workbench's
check subtracts arrays on the device, which pyopencl refuses for unsigned types).

    workbench tune examples/spaces/blind18_premul_pack.py:space --param n=33554432

Knobs: the group size, pixels per work item (ppi, cyclic or blocked, in registers),
how a pixel is read (four float32 loads, or one float4: the channel axis tagged as a
vector) and how a channel is rounded (+ 0.5 and the conversion's truncation, or
floor(+ 0.5) before it; loopy knows no rint).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        def rounded(value):
            # + 0.5 and the conversion's truncation, or floor(+ 0.5) first: both to
            # nearest (loopy knows no rint)
            return f"{value} + 0.5f" if p["round"] == "trunc" else f"floor({value} + 0.5f)"

        body = "\n".join(
            [f"<int32> c{c} = {rounded(f'px[i, {c}] * px[i, 3] * 255.0f')}"
             for c in range(3)]
            + [f"<int32> c3 = {rounded('px[i, 3] * 255.0f')}",
               "out[i] = c0 | (c1 << 8) | (c2 << 16) | (c3 << 24)"])
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            body,
            [lp.GlobalArg("px", np.float32, shape=(n, 4)),
             lp.GlobalArg("out", np.int32, shape=(n,), is_output=True)],
            name="premul_pack", lang_version=(2018, 2))
        if p["load"] == "float4":
            knl = lp.tag_array_axes(knl, "px", "c,vec")
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # channels in 255ths, as decoded 8-bit values are: 255 c a = p q / 255 lies at
        # least 1/510 from a rounding tie, far beyond float32's error
        return {"px": (rng.integers(0, 256, size=(n, 4)) / 255.0).astype(np.float32)}

    def reference(inputs):
        px = inputs["px"].astype(np.float64)
        px[:, :3] *= px[:, 3:]
        chan = np.floor(255.0 * px + 0.5).astype(np.uint32)
        word = chan[:, 0] | chan[:, 1] << 8 | chan[:, 2] << 16 | chan[:, 3] << 24
        return {"out": word.view(np.int32)}

    return TuningSpace(
        name="blind18_premul_pack",
        description=f"{n} straight-alpha RGBA float32 pixels premultiplied and packed to "
                    f"RGBA8 words: gs per group, ppi pixels per work item (cyclic or blocked), "
                    f"four loads or a float4, rounded by truncation or floor",
        tune_params={"gs": (64, 128, 256), "ppi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "load": ("scalar", "float4"),
                     "round": ("trunc", "floor")},
        restrictions=("n % (gs*ppi) == 0",
                      # one pixel: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=0.0)
