"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, third set").
Sparse matrix-vector product y = A x with A in ELLPACK form: K = 16 nonzeros a row,
stored entry-major (val[k, i], col[k, i], so that neighbouring rows are neighbours in
memory), column indices random over n, float32 values.

    workbench tune examples/spaces/blind3_spmv_ell.py:space --param n=2097152

Knobs: the work group size (gs rows on axis 0), rows per work item (rpi, cyclic or
blocked) and the unrolling of the loop over a row's nonzeros (1, 4 or all 16).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

K = 16


def space(n: int = 2 ** 21) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, k]: 0 <= i < {n} and 0 <= k < {K}}}",
            "y[i] = sum(k, val[k, i] * x[col[k, i]])",
            [lp.GlobalArg("val", np.float32, shape=(K, n)),
             lp.GlobalArg("col", np.int32, shape=(K, n)),
             lp.GlobalArg("x", np.float32, shape=(n,)),
             lp.GlobalArg("y", np.float32, shape=(n,), is_output=True)],
            name="spmv_ell", lang_version=(2018, 2))
        gs, rpi = p["gs"], p["rpi"]
        knl = lp.split_iname(knl, "i", gs * rpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", rpi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"] == K:
            knl = lp.tag_inames(knl, {"k": "unr"})
        elif p["unroll"] > 1:
            knl = lp.split_iname(knl, "k", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"val": rng.random((K, n), dtype=np.float32),
                "col": rng.integers(0, n, size=(K, n), dtype=np.int32),
                "x": rng.random(n, dtype=np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        return {"y": (inputs["val"].astype(np.float64) * x[inputs["col"]]).sum(axis=0)}

    return TuningSpace(
        name="blind3_spmv_ell",
        description=f"ELLPACK sparse y = A x, {n} rows of {K} float32 nonzeros at random "
                    f"columns: gs rows per group, rpi rows per work item (cyclic or "
                    f"blocked), unrolled loop over the nonzeros",
        tune_params={"gs": (32, 64, 128, 256, 512), "rpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "unroll": (1, 4, K)},
        restrictions=(lambda p: p["rpi"] > 1 or p["order"] == "cyclic",
                      "n % (gs*rpi) == 0"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
