"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighteenth set").
A moving sum of four along a float32 signal: out[i] = x[i] + x[i + 1] + x[i + 2] +
x[i + 3] for n outputs of an (n + 3)-sample input (a running window of four samples,
a boxcar pre-filter or the sum behind a moving average, as a user writes it before
dividing), each input read by four neighbouring outputs.

    workbench tune examples/spaces/blind18_movsum4.py:space --param n=67108864

Knobs: the group size, outputs per work item (opi, cyclic or blocked, in registers),
whether the group's window of x (its outputs and three more) is first copied to local
memory (add_prefetch), and how the four terms are written (spelled out in one
expression, or a loop over the taps that loopy reduces).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 26) -> TuningSpace:
    def kernel(p):
        if p["terms"] == "spelled":
            body = "out[i] = x[i] + x[i + 1] + x[i + 2] + x[i + 3]"
        else:
            body = "out[i] = sum(t, x[i + t])"
        knl = lp.make_kernel(
            f"{{[i, t]: 0 <= i < {n} and 0 <= t < 4}}",
            body,
            [lp.GlobalArg("x", np.float32, shape=(n + 3,)),
             lp.GlobalArg("out", np.float32, shape=(n,), is_output=True)],
            name="movsum4", lang_version=(2018, 2))
        gs, opi = p["gs"], p["opi"]
        knl = lp.split_iname(knl, "i", gs * opi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", opi, outer_tag="l.0", inner_tag="ilp")
        if p["local"]:
            sweep = ["i_inner_outer", "i_inner_inner"]
            if p["terms"] == "loop":
                sweep.append("t")
            # gs opi + 3 values, copied by the group's lanes
            knl = lp.add_prefetch(knl, "x", sweep, fetch_bounding_box=True,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        # samples in 64ths of [-1, 1]: every partial sum is exact in float32, in
        # either order of the terms
        return {"x": (rng.integers(-64, 65, size=n + 3) / 64.0).astype(np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        return {"out": x[:n] + x[1:n + 1] + x[2:n + 2] + x[3:n + 3]}

    return TuningSpace(
        name="blind18_movsum4",
        description=f"moving sum of four over {n} float32 outputs: gs per group, opi "
                    f"outputs per work item (cyclic or blocked), the window in local "
                    f"memory or not, the terms spelled out or a loop",
        tune_params={"gs": (64, 128, 256, 512), "opi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "local": (0, 1),
                     "terms": ("spelled", "loop")},
        restrictions=("n % (gs*opi) == 0",
                      # one output: no order to choose
                      lambda p: p["opi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * (p["gs"] * p["opi"] + 3) * p["local"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=0.0)
