"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighth set").
Box-Muller transform, float32: from n pairs of uniform numbers (u1 in (0, 1], u2 in
[0, 1)) two standard normal numbers each, z0 = r cos(t) and z1 = r sin(t) with
r = sqrt(-2 log(u1)) and t = 2 pi u2 (a log, a square root, a cosine and a sine per
pair).

    workbench tune examples/spaces/blind8_box_muller.py:space --param n=16777216

Knobs: the group size, pairs per work item, cyclic (a group's lanes side by side at
each step) or blocked (each lane on a run of its own), and the work item's loop a
plain loop, loopy's ILP or unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

TWO_PI = np.float32(2 * np.pi)


def space(n: int = 2 ** 24) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            f"""
            <> r = sqrt(-2.0f * log(u1[i]))
            <> t = {TWO_PI}f * u2[i]
            z0[i] = r * cos(t)
            z1[i] = r * sin(t)
            """,
            [lp.GlobalArg("u1, u2", np.float32, shape=(n,)),
             lp.GlobalArg("z0, z1", np.float32, shape=(n,), is_output=True)],
            name="box_muller", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        loop = {"loop": None, "ilp": "ilp", "unr": "unr"}[p["loop"]]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag=loop, inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag=loop)
        return knl

    def make_inputs(rng):
        return {"u1": (1 - rng.random(n, dtype=np.float32)).astype(np.float32),
                "u2": rng.random(n, dtype=np.float32)}

    def reference(inputs):
        # the angle rounded to float32 as the kernel rounds it: near a zero of the
        # cosine or sine the result is then relative to the kernel's own argument
        t = (TWO_PI * inputs["u2"]).astype(np.float64)
        r = np.sqrt(-2 * np.log(inputs["u1"].astype(np.float64)))
        return {"z0": r * np.cos(t), "z1": r * np.sin(t)}

    return TuningSpace(
        name="blind8_box_muller",
        description=f"Box-Muller transform of {n} float32 pairs (log, sqrt, cos, sin): "
                    f"gs per group, ppi pairs per work item, cyclic or blocked, "
                    f"loop, ilp or unrolled",
        tune_params={"gs": (64, 128, 256, 512, 1024), "ppi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "loop": ("loop", "ilp", "unr")},
        restrictions=("n % (gs*ppi) == 0",
                      # one pair: no order and no loop to choose
                      lambda p: p["ppi"] > 1 or (p["order"] == "cyclic"
                                                 and p["loop"] == "loop")),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 0,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
