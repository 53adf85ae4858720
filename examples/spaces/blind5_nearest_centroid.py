"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifth set").
Squared distance of each of n points to its nearest of kc centroids (the k-means
inertia term), float32 with f features: out[i] = min_c sum_f (x[i, f] - cen[c, f])^2.

    workbench tune examples/spaces/blind5_nearest_centroid.py:space --param n=1048576

Knobs: the work group size (gs), points per work item (ppi, cyclic or blocked), the
unrolling of the feature loop and whether the centroids are first copied to local
memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 20, kc: int = 64, f: int = 16) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, c, e]: 0 <= i < {n} and 0 <= c < {kc} and 0 <= e < {f}}}",
            "out[i] = min(c, sum(e, (x[i, e] - cen[c, e])**2))",
            [lp.GlobalArg("x", np.float32, shape=(n, f)),
             lp.GlobalArg("cen", np.float32, shape=(kc, f)),
             lp.GlobalArg("out", np.float32, shape=(n,), is_output=True)],
            name="nearest_centroid", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"e": "unr"})
        if p["local"]:
            knl = lp.add_prefetch(knl, "cen", ["c", "e"], fetch_outer_inames="i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"x": rng.random((n, f), dtype=np.float32),
                "cen": rng.random((kc, f), dtype=np.float32)}

    def reference(inputs):
        x, cen = inputs["x"].astype(np.float64), inputs["cen"].astype(np.float64)
        return {"out": ((x[:, None, :] - cen[None]) ** 2).sum(axis=2).min(axis=1)}

    return TuningSpace(
        name="blind5_nearest_centroid",
        description=f"squared distance to the nearest of {kc} centroids, {n} points of "
                    f"{f} float32 features: gs per group, ppi points per work item "
                    f"(cyclic or blocked), unrolled feature loop, centroids in local "
                    f"memory or not",
        tune_params={"gs": (64, 128, 256, 512), "ppi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "unroll": (0, 1), "local": (0, 1)},
        restrictions=("n % (gs*ppi) == 0",
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * p["local"] * kc * f,
        problem={"n": n, "kc": kc, "f": f}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-4)
