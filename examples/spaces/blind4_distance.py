"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourth set").
Euclidean distance matrix D[i, j] = |x_i - y_j| between n points x and n points y of d
float32 features each (rows of x and y), as in k-nearest-neighbour search.

    workbench tune examples/spaces/blind4_distance.py:space --param n=4096

Knobs: the work group (tx columns of D by ty rows), rows per work item (wpt, kept in
registers by loopy's ILP), whether the group's rows of x and y are first copied to local
memory (local), and whether the loop over the features is unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 4096, d: int = 32) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j, k]: 0 <= i, j < {n} and 0 <= k < {d}}}",
            "dist[i, j] = sqrt(sum(k, (x[i, k] - y[j, k]) * (x[i, k] - y[j, k])))",
            [lp.GlobalArg("x, y", np.float32, shape=(n, d)),
             lp.GlobalArg("dist", np.float32, shape=(n, n), is_output=True)],
            name="pairwise_distance", lang_version=(2018, 2))
        tx, ty, wpt = p["tx"], p["ty"], p["wpt"]
        knl = lp.split_iname(knl, "i", ty * wpt, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", ty, outer_tag="ilp", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", tx, outer_tag="g.0", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "x", ["i_inner_outer", "i_inner_inner", "k"],
                                  fetch_outer_inames="i_outer, j_outer",
                                  default_tag="l.auto")
            knl = lp.add_prefetch(knl, "y", ["j_inner", "k"],
                                  fetch_outer_inames="i_outer, j_outer",
                                  default_tag="l.auto")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"k": "unr"})
        return knl

    def make_inputs(rng):
        return {"x": rng.random((n, d), dtype=np.float32),
                "y": rng.random((n, d), dtype=np.float32)}

    def reference(inputs):
        x, y = inputs["x"].astype(np.float64), inputs["y"].astype(np.float64)
        squared = (x * x).sum(1)[:, None] + (y * y).sum(1)[None, :] - 2 * x @ y.T
        return {"dist": np.sqrt(np.maximum(squared, 0.0))}

    return TuningSpace(
        name="blind4_distance",
        description=f"distance matrix of {n} x {n} points with {d} float32 features: "
                    f"group tx x ty, wpt rows per work item, optional local copies of "
                    f"the rows, unrolled feature loop",
        tune_params={"tx": (16, 32, 64), "ty": (4, 8, 16), "wpt": (1, 2, 4),
                     "local": (0, 1), "unroll": (0, 1)},
        restrictions=("n % (ty*wpt) == 0 and n % tx == 0", "tx*ty <= 1024"),
        group_size=lambda p: (p["tx"], p["ty"]),
        local_bytes=lambda p: 4 * p["local"] * d * (p["ty"] * p["wpt"] + p["tx"]),
        problem={"n": n, "d": d}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-3)   # the reference's expansion loses digits
