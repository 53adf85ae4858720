"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixteenth set").
A 1-D FIR filter with a small number of taps: y[i] = sum_t h[t] x[i + t], T = 12 taps
read from an array (a user's designed low-pass, changed between calls, so not
literals), n float32 outputs from n + T - 1 samples.

    workbench tune examples/spaces/blind16_fir_taps.py:space --param n=67108864

Knobs: the group size, outputs per work item (opi, cyclic or blocked, in registers),
whether the group's taps are first copied to local memory or read from global memory
by every work item, and the tap loop a loop or unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

T = 12   # taps


def space(n: int = 2 ** 26) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, t]: 0 <= i < {n} and 0 <= t < {T}}}",
            "y[i] = sum(t, h[t] * x[i + t])",
            [lp.GlobalArg("x", np.float32, shape=(n + T - 1,)),
             lp.GlobalArg("h", np.float32, shape=(T,)),
             lp.GlobalArg("y", np.float32, shape=(n,), is_output=True)],
            name="fir_taps", lang_version=(2018, 2))
        gs, opi = p["gs"], p["opi"]
        knl = lp.split_iname(knl, "i", gs * opi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", opi, outer_tag="l.0", inner_tag="ilp")
        if p["taps"] == "local":
            # the twelve taps, copied once by the group's lanes
            knl = lp.add_prefetch(knl, "h", ["t"], fetch_outer_inames="i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"t": "unr"})
        return knl

    def make_inputs(rng):
        # sixteenths in [-4, 4] and taps in eighths: every product and sum is exact
        x = (rng.integers(-64, 65, size=n + T - 1) / 16).astype(np.float32)
        h = (rng.integers(-8, 9, size=T) / 8).astype(np.float32)
        return {"x": x, "h": h}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        h = inputs["h"].astype(np.float64)
        return {"y": sum(h[t] * x[t:t + n] for t in range(T))}

    return TuningSpace(
        name="blind16_fir_taps",
        description=f"{T}-tap FIR filter from an array of taps, {n} float32 outputs: gs "
                    f"per group, opi outputs per work item (cyclic or blocked), taps "
                    f"from local or global memory, tap loop unrolled or not",
        tune_params={"gs": (64, 128, 256, 512), "opi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "taps": ("global", "local"),
                     "unroll": (0, 1)},
        restrictions=("n % (gs*opi) == 0",
                      # one output: no order to choose
                      lambda p: p["opi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * T if p["taps"] == "local" else 0,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-6)
