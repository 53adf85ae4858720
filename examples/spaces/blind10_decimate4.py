"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, tenth set").
Decimation by four with a 32-tap low-pass FIR filter on c float32 channels (a polyphase
resampler as a user writes it: only every fourth output of the filter is computed),
y[ch, i] = sum_t h[t] x[ch, 4 i + t], x being c x (4 n + 28), y c x n.

    workbench tune examples/spaces/blind10_decimate4.py:space --param n=2097152

Knobs: the group size, outputs per work item (cyclic or blocked, in registers by loopy's
ILP), the taps' loop unrolled or not, and whether the group's span of the input (its
28-sample tail included) is first read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

T = 32  # taps
R = 4  # decimation
C = 8  # channels


def space(n: int = 2 ** 21) -> TuningSpace:
    width = R * n + T - R

    def kernel(p):
        knl = lp.make_kernel(
            f"{{[ch, i, t]: 0 <= ch < {C} and 0 <= i < {n} and 0 <= t < {T}}}",
            f"y[ch, i] = sum(t, h[t] * x[ch, {R}*i + t])",
            [lp.GlobalArg("h", np.float32, shape=(T,)),
             lp.GlobalArg("x", np.float32, shape=(C, width)),
             lp.GlobalArg("y", np.float32, shape=(C, n), is_output=True)],
            name="decimate4", lang_version=(2018, 2))
        gs, opi = p["gs"], p["opi"]
        knl = lp.tag_inames(knl, {"ch": "g.1"})
        knl = lp.split_iname(knl, "i", gs * opi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", opi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"t": "unr"})
        if p["local"]:
            knl = lp.add_prefetch(knl, "x", ["i_inner_outer", "i_inner_inner", "t"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="ch, i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        taps = np.hanning(T + 2)[1:-1]
        return {"h": (taps / taps.sum()).astype(np.float32),
                "x": (2 * rng.random((C, width), dtype=np.float32) - 1).astype(np.float32)}

    def reference(inputs):
        h, x = inputs["h"].astype(np.float64), inputs["x"].astype(np.float64)
        y = np.zeros((C, n))
        for t in range(T):
            y += h[t] * x[:, t:t + R * n:R]
        return {"y": y}

    return TuningSpace(
        name="blind10_decimate4",
        description=f"decimation by {R} with a {T}-tap FIR filter, {C} float32 channels "
                    f"of {n} outputs: gs per group, opi outputs per work item, cyclic or "
                    f"blocked, taps unrolled or looped, optional local copy of the "
                    f"group's input span",
        tune_params={"gs": (64, 128, 256, 512, 1024), "opi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "unroll": (0, 1), "local": (0, 1)},
        restrictions=("n % (gs*opi) == 0",
                      # one output: no order to choose
                      lambda p: p["opi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * p["local"] * (R * p["gs"] * p["opi"] + T - R),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
