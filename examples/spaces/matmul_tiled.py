"""Tiled matrix multiplication C = A B (n x n, float32), a user's tuning space.

    workbench tune examples/spaces/matmul_tiled.py:space --param n=1536

Knobs: the work group (tx columns by ty rows), rows per work item (wpt, kept in
registers by loopy's ILP), and whether tiles of A and B are prefetched to local
memory, with the depth kt of the k tile.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 1536) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j, k]: 0 <= i, j, k < {n}}}",
            "c[i, j] = sum(k, a[i, k] * b[k, j])",
            [lp.GlobalArg("a, b", np.float32, shape=(n, n)),
             lp.GlobalArg("c", np.float32, shape=(n, n), is_output=True)],
            name="matmul", lang_version=(2018, 2))
        tx, ty, wpt = p["tx"], p["ty"], p["wpt"]
        knl = lp.split_iname(knl, "i", ty * wpt, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", ty, outer_tag="ilp", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", tx, outer_tag="g.0", inner_tag="l.0")
        if p["prefetch"]:
            knl = lp.split_iname(knl, "k", p["kt"])
            knl = lp.add_prefetch(knl, "a", ["i_inner_outer", "i_inner_inner", "k_inner"],
                                  fetch_outer_inames="i_outer, j_outer, k_outer",
                                  default_tag="l.auto")
            knl = lp.add_prefetch(knl, "b", ["k_inner", "j_inner"],
                                  fetch_outer_inames="i_outer, j_outer, k_outer",
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((n, n), dtype=np.float32),
                "b": rng.random((n, n), dtype=np.float32)}

    def reference(inputs):
        return {"c": inputs["a"].astype(np.float64) @ inputs["b"]}

    return TuningSpace(
        name="user_matmul_tiled",
        description=f"C = A B, {n} x {n} float32: work group tx x ty, wpt rows per "
                    f"work item, optional local-memory tiles of depth kt",
        tune_params={"tx": (16, 32, 64), "ty": (4, 8, 16), "wpt": (1, 2, 4, 8),
                     "prefetch": (0, 1), "kt": (16, 32)},
        restrictions=("n % (ty*wpt) == 0 and n % tx == 0",
                      "tx*ty <= 1024",
                      "prefetch == 1 or kt == 16"),   # kt means nothing without tiles
        group_size=lambda p: (p["tx"], p["ty"]),
        local_bytes=lambda p: 4 * p["prefetch"] * p["kt"] * (p["ty"] * p["wpt"] + p["tx"]),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # float32 sums of thousands of terms
