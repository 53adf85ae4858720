"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighth set").
Weighted differences along the edges of a graph, float32: out[e] = w[e] * (x[v1[e]] -
x[v0[e]]) for m edges given by two int32 vertex lists over nv vertex values (a
graph gradient; the edges sorted by their first vertex, the second one near it, as a
mesh's edge list is).

    workbench tune examples/spaces/blind8_edge_diff.py:space --param m=16777216 --param nv=4194304

Knobs: the group size, edges per work item, cyclic (a group's lanes side by side at
each step) or blocked (each lane on a run of its own), and the work item's loop a
plain loop or unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 2 ** 24, nv: int = 2 ** 22) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[e]: 0 <= e < {m}}}",
            "out[e] = w[e] * (x[v1[e]] - x[v0[e]])",
            [lp.GlobalArg("x", np.float32, shape=(nv,)),
             lp.GlobalArg("w", np.float32, shape=(m,)),
             lp.GlobalArg("v0, v1", np.int32, shape=(m,)),
             lp.GlobalArg("out", np.float32, shape=(m,), is_output=True)],
            name="edge_diff", lang_version=(2018, 2))
        gs, epi = p["gs"], p["epi"]
        loop = "unr" if p["unroll"] else None
        knl = lp.split_iname(knl, "e", gs * epi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "e_inner", gs, outer_tag=loop, inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "e_inner", epi, outer_tag="l.0", inner_tag=loop)
        return knl

    def make_inputs(rng):
        v0 = np.sort(rng.integers(0, nv, size=m)).astype(np.int32)
        v1 = ((v0 + rng.integers(-64, 65, size=m)) % nv).astype(np.int32)
        return {"x": rng.random(nv, dtype=np.float32),
                "w": (2 * rng.random(m, dtype=np.float32) - 1).astype(np.float32),
                "v0": v0, "v1": v1}

    def reference(inputs):
        x = inputs["x"]
        # the difference of two float32 values rounded as the kernel rounds it
        diff = (x[inputs["v1"]] - x[inputs["v0"]]).astype(np.float64)
        return {"out": inputs["w"].astype(np.float64) * diff}

    return TuningSpace(
        name="blind8_edge_diff",
        description=f"weighted edge differences of a graph, {m} edges over {nv} float32 "
                    f"vertex values (two gathers an edge): gs per group, epi edges per "
                    f"work item, cyclic or blocked, loop or unrolled",
        tune_params={"gs": (32, 64, 128, 256, 512, 1024), "epi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "unroll": (0, 1)},
        restrictions=("m % (gs*epi) == 0",
                      # one edge: no order and no loop to choose
                      lambda p: p["epi"] > 1 or (p["order"] == "cyclic"
                                                 and p["unroll"] == 0)),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 0,
        problem={"m": m, "nv": nv}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-4)
