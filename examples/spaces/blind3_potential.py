"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, third set").
All-pairs gravitational potential of n bodies stored as separate arrays (x, y, z, m):
phi[i] = sum_j m[j] / sqrt(|r_i - r_j|^2 + eps), float32, the n-body kernel's inner
loop.

    workbench tune examples/spaces/blind3_potential.py:space --param n=16384

Knobs: the work group size (gs bodies i on axis 0), bodies per work item (bpi, cyclic,
in registers), whether the j bodies are copied to local memory in tiles of jt (jt = 0:
read from global memory) and the unrolling of the loop over j.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

EPS = 0.01


def space(n: int = 16384) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            f"""
            for i
                <> xi = x[i]
                <> yi = y[i]
                <> zi = z[i]
                phi[i] = sum(j, m[j] / sqrt((xi - x[j])**2 + (yi - y[j])**2
                                             + (zi - z[j])**2 + {EPS}f))
            end
            """,
            [lp.GlobalArg("x, y, z, m", np.float32, shape=(n,)),
             lp.GlobalArg("phi", np.float32, shape=(n,), is_output=True)],
            name="potential", lang_version=(2018, 2))
        gs, bpi, jt = p["gs"], p["bpi"], p["jt"]
        knl = lp.split_iname(knl, "i", gs * bpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        j = "j"
        if jt:
            knl = lp.split_iname(knl, "j", jt)
            for name in ("x", "y", "z", "m"):
                knl = lp.add_prefetch(knl, f"{name}[j_outer*{jt} + j_inner]", ["j_inner"],
                                      fetch_outer_inames="i_outer, j_outer",
                                      temporary_address_space=lp.AddressSpace.LOCAL,
                                      default_tag="l.auto")
            j = "j_inner"
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, j, p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {**{c: rng.random(n, dtype=np.float32) for c in ("x", "y", "z")},
                "m": (rng.random(n, dtype=np.float32) + 0.5).astype(np.float32)}

    def reference(inputs):
        r = np.stack([inputs[c].astype(np.float64) for c in ("x", "y", "z")], axis=1)
        phi = np.empty(len(r))
        for start in range(0, len(r), 1024):   # bounded memory at any n
            d2 = ((r[start:start + 1024, None, :] - r[None, :, :]) ** 2).sum(axis=2)
            phi[start:start + 1024] = (inputs["m"] / np.sqrt(d2 + np.float32(EPS))).sum(
                axis=1)
        return {"phi": phi}

    return TuningSpace(
        name="blind3_potential",
        description=f"all-pairs potential of {n} float32 bodies (separate x, y, z, m): "
                    f"gs bodies per group, bpi bodies per work item, optional local "
                    f"tiles of jt bodies, unrolled loop over bodies",
        tune_params={"gs": (32, 64, 128, 256, 512), "bpi": (1, 2, 4),
                     "jt": (0, 128, 512), "unroll": (1, 4)},
        restrictions=("n % (gs*bpi) == 0", "jt == 0 or n % jt == 0",
                      "n % unroll == 0 and jt % unroll == 0"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 16 * p["jt"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # float32 sums of thousands of terms
