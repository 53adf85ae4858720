"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, twelfth set").
A transposed matrix-vector product y = A^T x with A stored row by row, m x n float32,
m = 1024 rows and n = 2^18 columns (a linear layer's gradient with respect to its
input, or the projection of one vector onto many stored ones): y[j] = sum_i A[i, j]
x[i].  Each work item sums down its columns, so neighbouring lanes read neighbouring
entries of a row.

    workbench tune examples/spaces/blind12_gemv_t.py:space --param n=262144

Knobs: the group size, columns per work item (cyclic or blocked, registers), whether
x is first read into local memory 64 entries at a time, and the unrolling of the loop
down the rows.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

M = 1024   # rows
CHUNK = 64  # x's entries a local copy holds


def space(n: int = 2 ** 18) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[j, i]: 0 <= j < {n} and 0 <= i < {M}}}",
            "y[j] = sum(i, A[i, j] * x[i])",
            [lp.GlobalArg("A", np.float32, shape=(M, n)),
             lp.GlobalArg("x", np.float32, shape=(M,)),
             lp.GlobalArg("y", np.float32, shape=(n,), is_output=True)],
            name="gemv_t", lang_version=(2018, 2))
        gs, cpi = p["gs"], p["cpi"]
        knl = lp.split_iname(knl, "j", gs * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        row = "i"
        if p["local"]:
            knl = lp.split_iname(knl, "i", CHUNK)
            knl = lp.add_prefetch(knl, "x", ["i_inner"],
                                  fetch_outer_inames="j_outer, i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
            row = "i_inner"
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, row, p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # positive entries: no sum cancels to near zero, where float32's rounding of
        # 1024 terms would exceed the check's relative tolerance
        return {"A": rng.random((M, n), dtype=np.float32),
                "x": rng.random(M, dtype=np.float32)}

    def reference(inputs):
        return {"y": inputs["A"].astype(np.float64).T @ inputs["x"].astype(np.float64)}

    return TuningSpace(
        name="blind12_gemv_t",
        description=f"y = A^T x, A {M} x {n} float32 stored by rows: gs per group, cpi "
                    f"columns per work item (cyclic or blocked), optional local copy of "
                    f"x in chunks of {CHUNK}, the row loop unrolled by 4 or not",
        tune_params={"gs": (32, 64, 128, 256), "cpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "local": (0, 1),
                     "unroll": (1, 4)},
        restrictions=("n % (gs*cpi) == 0",
                      # one column: no order to choose
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * CHUNK * p["local"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)
