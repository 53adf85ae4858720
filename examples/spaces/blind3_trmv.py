"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, third set").
Lower-triangular matrix-vector product y = L x, y[i] = sum_{k <= i} L[i, k] x[k], of an
n x n float32 matrix stored in full (only its lower triangle is read).

    workbench tune examples/spaces/blind3_trmv.py:space --param n=8192

Knobs: the work group size (gs rows on axis 0), rows per work item (rpi, cyclic or
blocked: row i costs i + 1 products, so the split decides each item's share) and the
unrolling of the dot product.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, k]: 0 <= i < {n} and 0 <= k <= i}}",
            "y[i] = sum(k, L[i, k] * x[k])",
            [lp.GlobalArg("L", np.float32, shape=(n, n)),
             lp.GlobalArg("x", np.float32, shape=(n,)),
             lp.GlobalArg("y", np.float32, shape=(n,), is_output=True)],
            name="trmv", lang_version=(2018, 2))
        gs, rpi = p["gs"], p["rpi"]
        knl = lp.split_iname(knl, "i", gs * rpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", rpi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "k", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"L": rng.random((n, n), dtype=np.float32),
                "x": rng.random(n, dtype=np.float32)}

    def reference(inputs):
        return {"y": np.tril(inputs["L"].astype(np.float64)) @ inputs["x"].astype(np.float64)}

    return TuningSpace(
        name="blind3_trmv",
        description=f"y = L x, lower-triangular {n} x {n} float32: gs rows per group, rpi "
                    f"rows per work item (cyclic or blocked), unrolled dot product",
        tune_params={"gs": (32, 64, 128, 256, 512), "rpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "unroll": (1, 2, 4, 8)},
        restrictions=(lambda p: p["rpi"] > 1 or p["order"] == "cyclic",
                      "n % (gs*rpi) == 0"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # float32 sums of thousands of terms
