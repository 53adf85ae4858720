"""HELD OUT (never fit or design on it; see README.md). Batched small matrix-vector
products, float32: y_e = A_e x_e for nb matrices of s x s.

    workbench tune examples/spaces/heldout_batched_gemv.py:space --param nb=131072

Knobs: matrices per work group (mpg, on the group's second axis), rows of y per work
item (rpi, in registers; a matrix's rows share the group's first axis), unrolling the
dot product, and whether x_e is first copied to local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(nb: int = 2 ** 17, s: int = 32) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[e, i, j]: 0 <= e < {nb} and 0 <= i, j < {s}}}",
            "y[e, i] = sum(j, a[e, i, j] * x[e, j])",
            [lp.GlobalArg("a", np.float32, shape=(nb, s, s)),
             lp.GlobalArg("x", np.float32, shape=(nb, s)),
             lp.GlobalArg("y", np.float32, shape=(nb, s), is_output=True)],
            name="batched_gemv", lang_version=(2018, 2))
        knl = lp.split_iname(knl, "e", p["mpg"], outer_tag="g.0", inner_tag="l.1")
        knl = lp.split_iname(knl, "i", p["rpi"], outer_tag="l.0", inner_tag="ilp")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"j": "unr"})
        if p["local"]:
            # the group's mpg vectors, one row of the local array per matrix
            knl = lp.add_prefetch(knl, "x", ["e_inner", "j"], fetch_outer_inames="e_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
            # with one matrix per group the copy names no e_inner (loopy asks for this)
            knl = lp.add_inames_for_unused_hw_axes(knl)
        return knl

    def make_inputs(rng):
        return {"a": rng.random((nb, s, s), dtype=np.float32),
                "x": rng.random((nb, s), dtype=np.float32)}

    def reference(inputs):
        a, x = inputs["a"].astype(np.float64), inputs["x"].astype(np.float64)
        return {"y": np.einsum("eij,ej->ei", a, x)}

    return TuningSpace(
        name="heldout_batched_gemv",
        description=f"y_e = A_e x_e for {nb} float32 {s} x {s} matrices: mpg matrices "
                    f"per group, rpi rows per work item, unrolled dot product, "
                    f"optional local copy of x_e",
        tune_params={"mpg": (1, 2, 4, 8, 16), "rpi": (1, 2, 4, 8), "unroll": (0, 1),
                     "local": (0, 1)},
        restrictions=("s % rpi == 0", "(s // rpi) * mpg >= 16", "nb % mpg == 0"),
        group_size=lambda p: (s // p["rpi"], p["mpg"]),
        local_bytes=lambda p: 4 * p["local"] * p["mpg"] * s,
        problem={"nb": nb, "s": s}, kernel=kernel, make_inputs=make_inputs,
        reference=reference)
