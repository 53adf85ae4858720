"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, second set").
Matrix-vector product y = A x of an n x n float32 matrix, one row of y per work item.

    workbench tune examples/spaces/blind2_matvec.py:space --param n=8192

Knobs: the work group size (gs rows on axis 0), rows per work item (rpi, cyclic, in
registers), whether x is copied to local memory in chunks of kt entries (kt = 0: read
from global memory) and the unrolling of the dot product.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, k]: 0 <= i, k < {n}}}",
            "y[i] = sum(k, a[i, k] * x[k])",
            [lp.GlobalArg("a", np.float32, shape=(n, n)),
             lp.GlobalArg("x", np.float32, shape=(n,)),
             lp.GlobalArg("y", np.float32, shape=(n,), is_output=True)],
            name="matvec", lang_version=(2018, 2))
        gs, rpi, kt = p["gs"], p["rpi"], p["kt"]
        knl = lp.split_iname(knl, "i", gs * rpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        k = "k"
        if kt:
            knl = lp.split_iname(knl, "k", kt)
            knl = lp.add_prefetch(knl, "x", ["k_inner"], fetch_outer_inames="i_outer, k_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
            k = "k_inner"
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, k, p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((n, n), dtype=np.float32),
                "x": rng.random(n, dtype=np.float32)}

    def reference(inputs):
        return {"y": inputs["a"].astype(np.float64) @ inputs["x"].astype(np.float64)}

    return TuningSpace(
        name="blind2_matvec",
        description=f"y = A x, {n} x {n} float32: gs rows per group, rpi rows per work "
                    f"item, optional local copy of x in chunks of kt, unrolled dot product",
        tune_params={"gs": (32, 64, 128, 256, 512), "rpi": (1, 2, 4),
                     "kt": (0, 256, 1024), "unroll": (1, 4)},
        restrictions=("n % (gs*rpi) == 0", "kt == 0 or n % kt == 0",
                      "n % unroll == 0 and kt % unroll == 0"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * p["kt"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # float32 sums of thousands of terms
