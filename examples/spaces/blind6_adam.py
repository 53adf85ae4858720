"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixth set").
One Adam optimiser step on n float32 parameters, written to new arrays:
m' = b1 m + (1 - b1) g, v' = b2 v + (1 - b2) g^2 and
p' = p - lr m' / (sqrt(v') + eps) (the bias corrections folded into lr and eps).

    workbench tune examples/spaces/blind6_adam.py:space --param n=33554432

Knobs: the group size, elements per work item, cyclic (a group's lanes side by side at
each step) or blocked (each lane on a run of its own) order, and how the work item's
loop is generated (a loop, unrolled, or loopy's ILP).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

B1, B2, LR, EPS = 0.9, 0.999, 1e-3, 1e-8


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            f"""
            <> gi = g[i]
            <> mn = {B1}f*m[i] + {1 - B1}f*gi
            <> vn = {B2}f*v[i] + {1 - B2:.3f}f*gi*gi
            m_out[i] = mn
            v_out[i] = vn
            p_out[i] = p[i] - {LR}f*mn / (sqrt(vn) + {EPS}f)
            """,
            [lp.GlobalArg("p, g, m, v", np.float32, shape=(n,)),
             lp.GlobalArg("p_out, m_out, v_out", np.float32, shape=(n,), is_output=True)],
            name="adam", lang_version=(2018, 2))
        gs, ept = p["gs"], p["ept"]
        loop = {"loop": None, "unr": "unr", "ilp": "ilp"}[p["loop"]]
        knl = lp.split_iname(knl, "i", gs * ept, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag=loop, inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ept, outer_tag="l.0", inner_tag=loop)
        return knl

    def make_inputs(rng):
        return {"p": rng.random(n, dtype=np.float32),
                "g": (rng.random(n, dtype=np.float32) - 0.5).astype(np.float32),
                "m": (0.1 * rng.random(n, dtype=np.float32) - 0.05).astype(np.float32),
                "v": (0.01 * rng.random(n, dtype=np.float32)).astype(np.float32)}

    def reference(inputs):
        g = inputs["g"].astype(np.float64)
        mn = B1 * inputs["m"] + (1 - B1) * g
        vn = B2 * inputs["v"] + float(f"{1 - B2:.3f}") * g * g
        return {"m_out": mn, "v_out": vn,
                "p_out": inputs["p"] - LR * mn / (np.sqrt(vn) + EPS)}

    return TuningSpace(
        name="blind6_adam",
        description=f"Adam step on {n} float32 parameters: gs per group, ept per work "
                    f"item, cyclic or blocked, the item's loop a loop, unrolled or ilp",
        tune_params={"gs": (64, 128, 256, 512, 1024), "ept": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "loop": ("loop", "unr", "ilp")},
        restrictions=("n % (gs*ept) == 0",
                      # one element: no order and no loop to choose
                      lambda p: p["ept"] > 1 or (p["order"] == "cyclic"
                                                 and p["loop"] == "loop")),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 0,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
