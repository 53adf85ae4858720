"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, ninth set").
Each of m float32 vectors of 16 (the rows of an m x 16 matrix, e.g. embeddings)
scaled to unit length, the norm and the scaling fused in one kernel:
out[r, k] = x[r, k] / sqrt(sum_k x[r, k]^2 + eps).

    workbench tune examples/spaces/blind9_unit_rows16.py:space --param m=2097152

Knobs: lanes per vector (vl: 1 lane sums the whole vector, more lanes add their parts
in local memory), vectors per work group (vpg, on axis 1), vectors per work item (vpi,
one after the other) and whether a lane's part of the vector is a loop or unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

D = 16
EPS = 1e-12


def space(m: int = 2 ** 21) -> TuningSpace:
    def kernel(p):
        vl, vpg, vpi = p["vl"], p["vpg"], p["vpi"]
        r = f"{vpg * vpi}*g + {vpg}*s + v"
        knl = lp.make_kernel(
            f"{{[g, s, v, k, k2]: 0 <= g < {m // (vpg * vpi)} and 0 <= s < {vpi} "
            f"and 0 <= v < {vpg} and 0 <= k, k2 < {D}}}",
            f"""
            for g, s, v
                scale[v] = 1.0f / sqrt(sum(k, x[{r}, k] * x[{r}, k]) + {EPS}f) {{id=scale}}
                for k2
                    out[{r}, k2] = x[{r}, k2] * scale[v] {{dep=scale}}
                end
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, D)),
             lp.GlobalArg("out", np.float32, shape=(m, D), is_output=True),
             # shared by the vector's lanes: the reduction leaves its sum in one lane
             lp.TemporaryVariable("scale", np.float32, shape=(vpg,),
                                  address_space=lp.AddressSpace.LOCAL)],
            name="unit_rows16", lang_version=(2018, 2),
            silenced_warnings=["write_race(scale)"])
        knl = lp.tag_inames(knl, {"g": "g.0", "v": "l.1"})
        loop = "unr" if p["unroll"] else None
        for name in ("k", "k2"):
            knl = lp.split_iname(knl, name, vl, outer_tag=loop, inner_tag="l.0")
        # each lane sums its part first, then the lanes add up their parts
        knl = lp.split_reduction_outward(knl, "k_inner")
        return knl

    def make_inputs(rng):
        return {"x": (2 * rng.random((m, D), dtype=np.float32) - 1).astype(np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        return {"out": x / np.sqrt((x * x).sum(axis=1, keepdims=True) + EPS)}

    return TuningSpace(
        name="blind9_unit_rows16",
        description=f"{m} float32 vectors of {D} scaled to unit length (norm and scaling "
                    f"fused): vl lanes per vector, vpg vectors per group, vpi vectors per "
                    f"work item, the lanes' loops unrolled or not",
        tune_params={"vl": (1, 2, 4, 8, 16), "vpg": (4, 8, 16, 32, 64, 128, 256, 512, 1024),
                     "vpi": (1, 2), "unroll": (0, 1)},
        restrictions=("vl*vpg >= 64 and vl*vpg <= 1024", "m % (vpg*vpi) == 0",
                      # one entry a lane: no loop to unroll
                      lambda p: p["vl"] < D or p["unroll"] == 0),
        group_size=lambda p: (p["vl"], p["vpg"]),
        local_bytes=lambda p: 4 * p["vpg"] * (p["vl"] + 1),
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
