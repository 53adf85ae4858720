"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventeenth set").
A matrix-vector product with an int8 matrix quantised group-wise (a language model's
weights at inference, one float32 scale for every G = 32 consecutive weights of a
row): y[i] = sum_j q[i, j] s[i, j / G] x[j], for m rows of k int8 weights, float32
activations x and results y.

    workbench tune examples/spaces/blind17_dequant_gemv.py:space --param m=32768 --param k=8192

Knobs: the group size (rows per group), rows per work item (rpi, cyclic or blocked,
in registers), the weights' layout (row by row, as the model stores them, or
transposed once at load time so that neighbouring rows are neighbours in memory),
where the scale is applied (to every weight, or once to each group's partial sum),
and the loop over a group's 32 weights unrolled by 4 or not.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

G = 32   # weights sharing a scale


def space(m: int = 32768, k: int = 8192) -> TuningSpace:
    ng = k // G

    def kernel(p):
        w = "q[i, g*32 + e]" if p["layout"] == "rows" else "qt[g*32 + e, i]"
        if p["scale"] == "each":
            body = f"y[i] = sum((g, e), {w} * s[i, g] * x[g*32 + e])"
        else:
            body = f"y[i] = sum(g, s[i, g] * sum(e, {w} * x[g*32 + e]))"
        weights = (lp.GlobalArg("q", np.int8, shape=(m, k)) if p["layout"] == "rows"
                   else lp.GlobalArg("qt", np.int8, shape=(k, m)))
        knl = lp.make_kernel(
            f"{{[i, g, e]: 0 <= i < {m} and 0 <= g < {ng} and 0 <= e < {G}}}",
            body,
            [weights,
             lp.GlobalArg("s", np.float32, shape=(m, ng)),
             lp.GlobalArg("x", np.float32, shape=(k,)),
             lp.GlobalArg("y", np.float32, shape=(m,), is_output=True)],
            name="dequant_gemv", lang_version=(2018, 2))
        gs, rpi = p["gs"], p["rpi"]
        knl = lp.split_iname(knl, "i", gs * rpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", rpi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "e", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # weights in [-7, 7], scales 1/4, 1/2 or 1, activations sixteenths in [-2, 2]:
        # every product and every partial sum is exact in float32
        q = rng.integers(-7, 8, size=(m, k), dtype=np.int8)
        s = rng.choice(np.float32([0.25, 0.5, 1.0]), size=(m, ng))
        x = (rng.integers(-32, 33, size=k) / 16).astype(np.float32)
        # both layouts of the same weights: a point's kernel reads the one it names
        return {"q": q, "qt": np.ascontiguousarray(q.T), "s": s, "x": x}

    def reference(inputs):
        w = inputs["q"].astype(np.float64) * np.repeat(inputs["s"].astype(np.float64), G,
                                                       axis=1)
        return {"y": w @ inputs["x"].astype(np.float64)}

    return TuningSpace(
        name="blind17_dequant_gemv",
        description=f"y = (q * s) x for {m} x {k} int8 weights with a float32 scale per "
                    f"{G}: gs rows per group, rpi per work item (cyclic or blocked), rows "
                    f"or transposed layout, scale on each weight or each partial sum, "
                    f"the group's loop unrolled by 4 or not",
        tune_params={"gs": (64, 128, 256), "rpi": (1, 2),
                     "order": ("cyclic", "blocked"), "layout": ("rows", "cols"),
                     "scale": ("each", "group"), "unroll": (1, 4)},
        restrictions=("m % (gs*rpi) == 0",
                      # one row: no order to choose
                      lambda p: p["rpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"m": m, "k": k}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-6)
