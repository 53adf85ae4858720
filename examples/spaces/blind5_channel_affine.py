"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifth set").
Per-channel affine map of an NCHW float32 tensor (batch normalisation at inference,
folded): out[b, ch, s] = x[b, ch, s] scale[ch] + shift[ch], the h x w pixels flattened to s.

    workbench tune examples/spaces/blind5_channel_affine.py:space --param nb=64 --param s=16384

Knobs: the lanes along the pixels (gs), pixels per work item (ppi, cyclic or
blocked) and channels per group (cpg, on the group's second axis).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(nb: int = 64, nc: int = 64, s: int = 16384) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[b, ch, q]: 0 <= b < {nb} and 0 <= ch < {nc} and 0 <= q < {s}}}",
            "out[b, ch, q] = x[b, ch, q] * scale[ch] + shift[ch]",
            [lp.GlobalArg("x", np.float32, shape=(nb, nc, s)),
             lp.GlobalArg("scale, shift", np.float32, shape=(nc,)),
             lp.GlobalArg("out", np.float32, shape=(nb, nc, s), is_output=True)],
            name="channel_affine", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.tag_inames(knl, {"b": "g.2"})
        knl = lp.split_iname(knl, "ch", p["cpg"], outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "q", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "q_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "q_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        return {"x": rng.random((nb, nc, s), dtype=np.float32),
                "scale": rng.random(nc, dtype=np.float32),
                "shift": rng.random(nc, dtype=np.float32)}

    def reference(inputs):
        return {"out": inputs["x"].astype(np.float64) * inputs["scale"][:, None]
                + inputs["shift"][:, None]}

    return TuningSpace(
        name="blind5_channel_affine",
        description=f"out = x scale[c] + shift[c], {nb} x {nc} x {s} float32 NCHW: gs "
                    f"lanes along the pixels, ppi pixels per work item (cyclic or "
                    f"blocked), cpg channels per group",
        tune_params={"gs": (64, 128, 256, 512, 1024), "ppi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "cpg": (1, 2, 4)},
        restrictions=("s % (gs*ppi) == 0 and nc % cpg == 0", "gs*cpg <= 1024",
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"], p["cpg"]),
        local_bytes=lambda p: 0,
        problem={"nb": nb, "nc": nc, "s": s}, kernel=kernel, make_inputs=make_inputs,
        reference=reference)
