"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, nineteenth set").
Causal masking of attention scores: for h heads of t x t float32 scores (queries i by
keys j), out[h, i, j] = x[h, i, j] / sqrt(64) where the key is not after the query
(j <= i) and -1e30 where it is (a decoder's scores scaled for a head of 64 features
and masked before the softmax, as a user writes it when the scores come out of a
separate matrix product).

    workbench tune examples/spaces/blind19_causal_mask.py:space --param h=16 --param t=2048

Knobs: the work group (bx keys by by queries), keys per work item (kpi, cyclic or
blocked, in registers), and how the mask is written: one select (every score read,
the masked ones thrown away) or a branch (an if/else around two writes, so the
masked scores are never read; the two writes marked nosync, as they never meet).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

SCALE = 0.125       # 1 / sqrt(64)
MASKED = -1e30


def space(h: int = 16, t: int = 2048) -> TuningSpace:
    def kernel(p):
        if p["mask"] == "select":
            body = f"out[a, i, j] = if(j <= i, {SCALE}f * x[a, i, j], {MASKED}f)"
        else:
            body = f"""
                if j <= i
                    out[a, i, j] = {SCALE}f * x[a, i, j] {{id=keep, nosync=drop}}
                else
                    out[a, i, j] = {MASKED}f {{id=drop, nosync=keep}}
                end
                """
        knl = lp.make_kernel(
            f"{{[a, i, j]: 0 <= a < {h} and 0 <= i, j < {t}}}",
            body,
            [lp.GlobalArg("x", np.float32, shape=(h, t, t)),
             lp.GlobalArg("out", np.float32, shape=(h, t, t), is_output=True)],
            name="causal_mask", lang_version=(2018, 2))
        bx, by, kpi = p["bx"], p["by"], p["kpi"]
        knl = lp.tag_inames(knl, {"a": "g.2"})
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * kpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", kpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        return {"x": (8.0 * rng.random((h, t, t), dtype=np.float32) - 4.0)
                .astype(np.float32)}

    def reference(inputs):
        keep = np.tril(np.ones((t, t), dtype=bool))
        return {"out": np.where(keep, np.float32(SCALE) * inputs["x"],
                                np.float32(MASKED))}

    return TuningSpace(
        name="blind19_causal_mask",
        description=f"causal mask and scale of {h} heads of {t} x {t} float32 attention "
                    f"scores: group bx x by, kpi keys per work item (cyclic or blocked), "
                    f"the mask by a select or by a branch",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 4), "kpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "mask": ("select", "branch")},
        restrictions=("t % by == 0 and t % (bx*kpi) == 0",
                      # one key: no order to choose
                      lambda p: p["kpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"h": h, "t": t}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=0.0)
