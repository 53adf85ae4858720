"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifth set").
Gram matrix G = A^T A of a k x n float32 matrix A (a SYRK-like product, both factors
read from the same array): G[i, j] = sum_l A[l, i] A[l, j].

    workbench tune examples/spaces/blind5_syrk.py:space --param n=1024 --param k=2048

Knobs: the work group (tx columns by ty rows), rows per work item (wpt, in registers
by loopy's ILP), and whether the two column panels of A are first copied to local
memory (loopy's precompute of the two substitution rules), with the depth kt of the
panels.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 1024, k: int = 2048) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j, l]: 0 <= i, j < {n} and 0 <= l < {k}}}",
            """
            left(ll, ii) := A[ll, ii]
            right(jj, ll) := A[ll, jj]
            G[i, j] = sum(l, left(l, i) * right(j, l))
            """,
            [lp.GlobalArg("A", np.float32, shape=(k, n)),
             lp.GlobalArg("G", np.float32, shape=(n, n), is_output=True)],
            name="syrk", lang_version=(2018, 2))
        tx, ty, wpt = p["tx"], p["ty"], p["wpt"]
        knl = lp.split_iname(knl, "i", ty * wpt, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", ty, outer_tag="ilp", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", tx, outer_tag="g.0", inner_tag="l.0")
        if p["local"]:
            knl = lp.split_iname(knl, "l", p["kt"])
            knl = lp.precompute(knl, "left", ["l_inner", "i_inner_outer", "i_inner_inner"],
                                precompute_outer_inames="i_outer, j_outer, l_outer",
                                temporary_address_space=lp.AddressSpace.LOCAL,
                                default_tag="l.auto")
            knl = lp.precompute(knl, "right", ["j_inner", "l_inner"],
                                precompute_outer_inames="i_outer, j_outer, l_outer",
                                temporary_address_space=lp.AddressSpace.LOCAL,
                                default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"A": rng.random((k, n), dtype=np.float32)}

    def reference(inputs):
        a = inputs["A"].astype(np.float64)
        return {"G": a.T @ a}

    return TuningSpace(
        name="blind5_syrk",
        description=f"G = A^T A, A {k} x {n} float32: work group tx x ty, wpt rows per "
                    f"work item, optional local copies of both panels of depth kt",
        tune_params={"tx": (16, 32), "ty": (4, 8, 16), "wpt": (1, 2, 4, 8),
                     "local": (0, 1), "kt": (8, 16, 32)},
        restrictions=("n % (ty*wpt) == 0 and n % tx == 0 and k % kt == 0",
                      "local == 1 or kt == 8"),   # kt means nothing without the copies
        group_size=lambda p: (p["tx"], p["ty"]),
        local_bytes=lambda p: 4 * p["local"] * p["kt"] * (p["ty"] * p["wpt"] + p["tx"]),
        problem={"n": n, "k": k}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-3)   # float32 sums of thousands of terms
