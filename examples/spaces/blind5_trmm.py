"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifth set").
Upper-triangular matrix-matrix product C = U B of n x n float32 matrices, U stored in
full (only its upper triangle is read): C[i, j] = sum_{k >= i} U[i, k] B[k, j].

    workbench tune examples/spaces/blind5_trmm.py:space --param n=1536

Knobs: the work group (tx columns by ty rows), columns per work item (cpi, tx apart,
in registers by loopy's ILP) and the unrolling of the k loop, whose start depends on
the row.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 1536) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j, k]: 0 <= i, j < {n} and i <= k < {n}}}",
            "C[i, j] = sum(k, U[i, k] * B[k, j])",
            [lp.GlobalArg("U, B", np.float32, shape=(n, n)),
             lp.GlobalArg("C", np.float32, shape=(n, n), is_output=True)],
            name="trmm", lang_version=(2018, 2))
        tx, ty, cpi = p["tx"], p["ty"], p["cpi"]
        knl = lp.split_iname(knl, "i", ty, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", tx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", tx, outer_tag="ilp", inner_tag="l.0")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "k", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"U": rng.random((n, n), dtype=np.float32),
                "B": rng.random((n, n), dtype=np.float32)}

    def reference(inputs):
        return {"C": np.triu(inputs["U"].astype(np.float64)) @ inputs["B"]}

    return TuningSpace(
        name="blind5_trmm",
        description=f"C = U B, U upper-triangular, {n} x {n} float32: work group tx x ty, "
                    f"cpi columns per work item, unrolled k loop",
        tune_params={"tx": (32, 64, 128), "ty": (1, 2, 4, 8), "cpi": (1, 2, 4),
                     "unroll": (1, 2, 4)},
        restrictions=("n % ty == 0 and n % (tx*cpi) == 0", "tx*ty <= 512"),
        group_size=lambda p: (p["tx"], p["ty"]),
        local_bytes=lambda p: 0,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # float32 sums of thousands of terms
