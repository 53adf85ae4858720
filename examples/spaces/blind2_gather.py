"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, second set").
Indexed gather, float32: out[i] = src[idx[i]] + b[i] for n random int32 indices.

    workbench tune examples/spaces/blind2_gather.py:space --param n=16777216

Knobs: the work group size (gs), elements per work item (ept), whether a work
item's elements are gs apart (cyclic, layout 0) or adjacent (blocked, layout 1), and
whether loopy unrolls its loop over them (unroll 1) or interleaves them (ilp).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 24) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            "out[i] = src[idx[i]] + b[i]",
            [lp.GlobalArg("src, b", np.float32, shape=(n,)),
             lp.GlobalArg("idx", np.int32, shape=(n,)),
             lp.GlobalArg("out", np.float32, shape=(n,), is_output=True)],
            name="gather", lang_version=(2018, 2))
        gs, ept = p["gs"], p["ept"]
        loop = "unr" if p["unroll"] else "ilp"
        knl = lp.split_iname(knl, "i", gs * ept, outer_tag="g.0")
        if p["layout"] == 0:
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag=loop, inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ept, outer_tag="l.0", inner_tag=loop)
        return knl

    def make_inputs(rng):
        return {"src": rng.random(n, dtype=np.float32),
                "b": rng.random(n, dtype=np.float32),
                "idx": rng.integers(0, n, size=n, dtype=np.int32)}

    def reference(inputs):
        return {"out": inputs["src"][inputs["idx"]].astype(np.float64) + inputs["b"]}

    return TuningSpace(
        name="blind2_gather",
        description=f"out[i] = src[idx[i]] + b[i], {n} float32 with random indices: gs "
                    f"per group, ept per work item, cyclic or blocked, unrolled or ilp",
        tune_params={"gs": (64, 128, 256, 512, 1024), "ept": (1, 2, 4, 8),
                     "layout": (0, 1), "unroll": (0, 1)},
        restrictions=("n % (gs*ept) == 0",
                      "ept > 1 or (layout == 0 and unroll == 0)"),  # one element: no choice
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 0,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
