"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifteenth set").
The SwiGLU gate of a transformer's feed-forward block: for m tokens, a fused projection
gives 2F = 8192 float32 values a token, a gate g and a value u for each of F = 4096
features, and out[t, f] = silu(g) u with silu(g) = g sigmoid(g).  The gate and value
halves are read either as the projection's two halves of each row ("halves", m x 2F:
g = h[t, f], u = h[t, F + f]) or as interleaved pairs ("pairs", m x F x 2); the
sigmoid either as 1 / (1 + exp(-g)) or as (1 + tanh(g / 2)) / 2.

    workbench tune examples/spaces/blind15_swiglu.py:space --param m=16384

Knobs: the group size, features per work item (fpi, cyclic or blocked, in registers),
the layout of the gate and value, and the sigmoid's form.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

F = 4096   # features a token


def space(m: int = 2 ** 14) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "halves":
            g, u = "h[t, f]", f"h[t, {F} + f]"
            ins = [lp.GlobalArg("h", np.float32, shape=(m, 2 * F))]
        else:
            g, u = "hp[t, f, 0]", "hp[t, f, 1]"
            ins = [lp.GlobalArg("hp", np.float32, shape=(m, F, 2))]
        sig = ("1.0f / (1.0f + exp(-gv))" if p["form"] == "exp"
               else "0.5f * (1.0f + tanh(0.5f * gv))")
        knl = lp.make_kernel(
            f"{{[t, f]: 0 <= t < {m} and 0 <= f < {F}}}",
            f"""
            <> gv = {g}
            out[t, f] = gv * ({sig}) * {u}
            """,
            [*ins, lp.GlobalArg("out", np.float32, shape=(m, F), is_output=True)],
            name="swiglu", lang_version=(2018, 2))
        gs, fpi = p["gs"], p["fpi"]
        knl = lp.tag_inames(knl, {"t": "g.1"})
        knl = lp.split_iname(knl, "f", gs * fpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "f_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "f_inner", fpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # gates in [-2, 2] (where the tanh form's 1 + tanh does not cancel badly),
        # values in [-1, 1]
        g = (4 * rng.random((m, F), dtype=np.float32) - 2).astype(np.float32)
        u = (2 * rng.random((m, F), dtype=np.float32) - 1).astype(np.float32)
        # both layouts of the same projection: a point's kernel reads the one it names
        return {"h": np.concatenate([g, u], axis=1), "hp": np.stack([g, u], axis=-1)}

    def reference(inputs):
        h = inputs["h"].astype(np.float64)
        g, u = h[:, :F], h[:, F:]
        return {"out": g / (1 + np.exp(-g)) * u}

    return TuningSpace(
        name="blind15_swiglu",
        description=f"SwiGLU gate silu(g) u of {m} tokens of {F} float32 features: gs "
                    f"per group, fpi features per work item (cyclic or blocked), gate "
                    f"and value as a row's halves or interleaved pairs, the sigmoid by "
                    f"exp or tanh",
        tune_params={"gs": (64, 128, 256, 512), "fpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("halves", "pairs"),
                     "form": ("exp", "tanh")},
        restrictions=(f"{F} % (gs*fpi) == 0",
                      # one feature: no order to choose
                      lambda p: p["fpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
