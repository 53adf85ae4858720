"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, third set").
RMS normalisation of the rows of an m x n float32 matrix with a weight per column:
out[i, j] = a[i, j] w[j] / sqrt(mean_j a[i, j]^2 + eps).

    workbench tune examples/spaces/blind3_rmsnorm.py:space --param m=16384 --param n=4096

Knobs: lanes per row (g0, on axis 0: each lane sums the squares of every g0-th entry,
the lanes add up in local memory, then write the row together), rows per work group
(rpg, on axis 1), the unrolling of the lanes' loops and whether w is copied to local
memory first.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

EPS = 1e-5


def space(m: int = 16384, n: int = 4096) -> TuningSpace:
    def kernel(p):
        g0, rpg = p["g0"], p["rpg"]
        knl = lp.make_kernel(
            f"{{[io, ii, k, jo, k2, jo2]: 0 <= io < {m // rpg} and 0 <= ii < {rpg} "
            f"and 0 <= k, k2 < {g0} and 0 <= jo, jo2 < {n // g0}}}",
            f"""
            for io, ii
                for k
                    <> part = 0 {{id=init}}
                    for jo
                        part = part + a[{rpg}*io + ii, {g0}*jo + k]**2 \
                            {{id=update, dep=init}}
                    end
                end
                scale[ii] = 1 / sqrt(sum(k, part) / {n} + {EPS}f) {{id=scale, dep=update}}
                for k2, jo2
                    out[{rpg}*io + ii, {g0}*jo2 + k2] = a[{rpg}*io + ii, {g0}*jo2 + k2] \
                        * w[{g0}*jo2 + k2] * scale[ii] {{dep=scale}}
                end
            end
            """,
            [lp.GlobalArg("a", np.float32, shape=(m, n)),
             lp.GlobalArg("w", np.float32, shape=(n,)),
             lp.GlobalArg("out", np.float32, shape=(m, n), is_output=True),
             lp.TemporaryVariable("scale", np.float32, shape=(rpg,),
                                  address_space=lp.AddressSpace.LOCAL)],
            name="rmsnorm", lang_version=(2018, 2),
            silenced_warnings=["write_race(scale)"])
        knl = lp.tag_inames(knl, {"io": "g.0", "ii": "l.1", "k": "l.0", "k2": "l.0"})
        if p["local_w"]:
            knl = lp.add_prefetch(knl, "w", ["k2", "jo2"], fetch_outer_inames="io",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag=None)
            # the whole group copies w: rows of lanes side by side
            knl = lp.split_iname(knl, "w_dim_0", g0 * rpg)
            knl = lp.split_iname(knl, "w_dim_0_inner", g0, outer_tag="l.1",
                                 inner_tag="l.0")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "jo", p["unroll"], inner_tag="unr")
            knl = lp.split_iname(knl, "jo2", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"a": (2 * rng.random((m, n), dtype=np.float32) - 1).astype(np.float32),
                "w": (rng.random(n, dtype=np.float32) + 0.5).astype(np.float32)}

    def reference(inputs):
        a = inputs["a"].astype(np.float64)
        rms = np.sqrt((a * a).mean(axis=1) + np.float32(EPS))
        return {"out": a * inputs["w"].astype(np.float64) / rms[:, None]}

    return TuningSpace(
        name="blind3_rmsnorm",
        description=f"RMS normalisation of the rows of a {m} x {n} float32 matrix with "
                    f"column weights: g0 lanes per row, rpg rows per group, local sum "
                    f"of squares, lane loops unrolled, optional local copy of w",
        tune_params={"g0": (32, 64, 128, 256, 512, 1024), "rpg": (1, 2, 4, 8),
                     "unroll": (1, 4), "local_w": (0, 1)},
        restrictions=("g0*rpg >= 64 and g0*rpg <= 1024", "n % (g0*unroll) == 0",
                      "m % rpg == 0"),
        group_size=lambda p: (p["g0"], p["rpg"]),
        local_bytes=lambda p: 4 * (p["rpg"] * (p["g0"] + 1) + n * p["local_w"]),
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference,
        rtol=1e-4)
