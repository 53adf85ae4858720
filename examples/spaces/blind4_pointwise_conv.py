"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourth set").
Pointwise (1 x 1) convolution with bias, float32: out[o, x] = b[o] + sum_c W[o, c] in[c, x]
for c_in input and c_out output channels of an image of npix pixels (channels first).

    workbench tune examples/spaces/blind4_pointwise_conv.py:space --param npix=262144

Knobs: pixels per work group (gp, on the lanes), output channels per work item (opi,
in registers by loopy's ILP), whether the group's rows of W are first copied to local
memory, and the unrolling of the loop over the input channels.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(npix: int = 262144, c_in: int = 64, c_out: int = 64) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[o, x, c]: 0 <= o < {c_out} and 0 <= x < {npix} and 0 <= c < {c_in}}}",
            "out[o, x] = b[o] + sum(c, W[o, c] * img[c, x])",
            [lp.GlobalArg("img", np.float32, shape=(c_in, npix)),
             lp.GlobalArg("W", np.float32, shape=(c_out, c_in)),
             lp.GlobalArg("b", np.float32, shape=(c_out,)),
             lp.GlobalArg("out", np.float32, shape=(c_out, npix), is_output=True)],
            name="pointwise_conv", lang_version=(2018, 2))
        gp, opi = p["gp"], p["opi"]
        knl = lp.split_iname(knl, "x", gp, outer_tag="g.0", inner_tag="l.0")
        knl = lp.split_iname(knl, "o", opi, outer_tag="g.1", inner_tag="ilp")
        if p["local"]:
            knl = lp.add_prefetch(knl, "W", ["o_inner", "c"],
                                  fetch_outer_inames="o_outer, x_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "c", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"img": rng.random((c_in, npix), dtype=np.float32),
                "W": rng.random((c_out, c_in), dtype=np.float32),
                "b": rng.random(c_out, dtype=np.float32)}

    def reference(inputs):
        w = inputs["W"].astype(np.float64)
        return {"out": inputs["b"][:, None] + w @ inputs["img"]}

    return TuningSpace(
        name="blind4_pointwise_conv",
        description=f"1 x 1 convolution, {c_in} to {c_out} channels, {npix} pixels, "
                    f"float32: gp pixels per group, opi output channels per work item, "
                    f"optional local copy of W, unrolled channel loop",
        tune_params={"gp": (64, 128, 256, 512), "opi": (1, 2, 4, 8, 16),
                     "local": (0, 1), "unroll": (1, 4)},
        restrictions=("npix % gp == 0 and c_out % opi == 0 and c_in % unroll == 0",),
        group_size=lambda p: (p["gp"],),
        local_bytes=lambda p: 4 * p["local"] * p["opi"] * c_in,
        problem={"npix": npix, "c_in": c_in, "c_out": c_out}, kernel=kernel,
        make_inputs=make_inputs, reference=reference, rtol=1e-3)   # sums of 64 terms
