"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighth set").
Partial dot products, float32: out[q] = sum_{e < ch} x[ch*q + e] * y[ch*q + e] for
p chunks of ch elements (the first of a two-kernel dot product; a second, tiny one adds
up the p partials).  Each chunk is reduced in a two-level tree: every lane sums its
share of the chunk in a register, then the chunk's lanes join in local memory.

    workbench tune examples/spaces/blind8_dot_partials.py:space --param p=2048 --param ch=16384

Knobs: lanes per chunk (gs), chunks per work group (ppg, on axis 1), whether a lane's
elements are gs apart (cyclic) or a run of its own (blocked), and the unrolling of
the lane's loop.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(p: int = 2048, ch: int = 16384) -> TuningSpace:
    def kernel(pt):
        gs = pt["gs"]
        per_lane = ch // gs
        at = (f"{ch}*q + {gs}*e + k" if pt["order"] == "cyclic"
              else f"{ch}*q + {per_lane}*k + e")
        knl = lp.make_kernel(
            f"{{[q, k, e]: 0 <= q < {p} and 0 <= k < {gs} and 0 <= e < {per_lane}}}",
            f"""
            for q, k
                <> part = 0 {{id=init}}
                for e
                    part = part + x[{at}] * y[{at}] {{id=update, dep=init}}
                end
            end
            out[q] = sum(k, part) {{id=result, dep=update}}
            """,
            [lp.GlobalArg("x, y", np.float32, shape=(p * ch,)),
             lp.GlobalArg("out", np.float32, shape=(p,), is_output=True)],
            name="dot_partials", lang_version=(2018, 2),
            silenced_warnings=["write_race(result)"])
        knl = lp.split_iname(knl, "q", pt["ppg"], outer_tag="g.0", inner_tag="l.1")
        knl = lp.tag_inames(knl, {"k": "l.0"})
        if pt["unroll"] > 1:
            knl = lp.split_iname(knl, "e", pt["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"x": rng.random(p * ch, dtype=np.float32),
                "y": rng.random(p * ch, dtype=np.float32)}

    def reference(inputs):
        xy = inputs["x"].astype(np.float64) * inputs["y"]
        return {"out": xy.reshape(p, ch).sum(axis=1)}

    return TuningSpace(
        name="blind8_dot_partials",
        description=f"partial dot products of two {p * ch}-element float32 vectors, "
                    f"{p} chunks of {ch}: gs lanes per chunk, ppg chunks per group, "
                    f"cyclic or blocked lanes, lane loop unrolled, local-memory tree",
        tune_params={"gs": (32, 64, 128, 256, 512, 1024), "ppg": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "unroll": (1, 2, 8)},
        restrictions=("gs*ppg <= 1024", "ch % (gs*unroll) == 0", "p % ppg == 0"),
        group_size=lambda pt: (pt["gs"], pt["ppg"]),
        local_bytes=lambda pt: 4 * pt["gs"] * pt["ppg"],
        problem={"p": p, "ch": ch}, kernel=kernel, make_inputs=make_inputs,
        reference=reference,
        rtol=1e-3)   # float32 sums of thousands of terms
