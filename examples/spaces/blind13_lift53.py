"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, thirteenth set").
One level of the LeGall 5/3 wavelet (the lossless wavelet of JPEG 2000) along the rows
of an m x (2n + 3) float32 signal, by lifting, as a user writes the predict and update
steps in one kernel: the details d_i = x_{2i+1} - (x_{2i} + x_{2i+2}) / 2 for
i = 0 ... n, then the smooth values s_i = x_{2i+2} + (d_i + d_{i+1}) / 4 and the
details h_i = d_{i+1} for i < n (each row carries its halo: three samples more than
the 2n it transforms).  Every work item computes the two details it needs itself.
The signal is read either as its rows ("row") or as two polyphase planes, the even
samples (m x (n + 2)) and the odd ones (m x (n + 1)), as a user keeps it split
("phases"); the results are two planes, s and h, m x n each.

    workbench tune examples/spaces/blind13_lift53.py:space --param m=8192

Knobs: the group bx x by (outputs along a row on axis 0, rows on axis 1), outputs per
work item (cyclic or blocked, registers), and the layout of the signal.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 4096   # smooth values (and details) a row


def space(m: int = 8192) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "row":
            def odd(i):
                return f"x[r, 2*({i}) + 1]"

            def even(i):
                return f"x[r, 2*({i})]"

            ins = [lp.GlobalArg("x", np.float32, shape=(m, 2 * N + 3))]
        else:
            def odd(i):
                return f"xo[r, {i}]"

            def even(i):
                return f"xe[r, {i}]"

            ins = [lp.GlobalArg("xe", np.float32, shape=(m, N + 2)),
                   lp.GlobalArg("xo", np.float32, shape=(m, N + 1))]

        def d(i):
            return f"({odd(i)} - 0.5f * ({even(i)} + {even(f'{i} + 1')}))"

        lines = [f"<> d0 = {d('i')}", f"<> d1 = {d('(i + 1)')}",
                 f"<> s = {even('(i + 1)')} + 0.25f * (d0 + d1)",
                 "lo[r, i] = s", "hi[r, i] = d1"]
        knl = lp.make_kernel(
            f"{{[r, i]: 0 <= r < {m} and 0 <= i < {N}}}", "\n".join(lines),
            [*ins, lp.GlobalArg("lo, hi", np.float32, shape=(m, N), is_output=True)],
            name="lift53", lang_version=(2018, 2))
        bx, by, opi = p["bx"], p["by"], p["opi"]
        knl = lp.split_iname(knl, "r", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "i", bx * opi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", opi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # small integers: the halves and quarters are exact in float32
        x = rng.integers(-64, 65, size=(m, 2 * N + 3)).astype(np.float32)
        # the same signal for both layouts: "phases" kernels read its two planes
        return {"x": x, "xe": np.ascontiguousarray(x[:, 0::2]),
                "xo": np.ascontiguousarray(x[:, 1::2])}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        d = x[:, 1:2 * N + 2:2] - 0.5 * (x[:, 0:2 * N + 1:2] + x[:, 2:2 * N + 3:2])
        s = x[:, 2:2 * N + 2:2] + 0.25 * (d[:, :-1] + d[:, 1:])
        return {"lo": s, "hi": d[:, 1:]}

    return TuningSpace(
        name="blind13_lift53",
        description=f"LeGall 5/3 lifting (predict and update) along {m} float32 rows "
                    f"of 2 x {N} + 3 samples: bx x by groups, opi outputs per work item "
                    f"(cyclic or blocked), the signal read as rows or as two polyphase "
                    f"planes",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4), "opi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("row", "phases")},
        restrictions=("m % by == 0", "bx*by >= 64 and bx*by <= 512",
                      # one output: no order to choose
                      lambda p: p["opi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
