"""HELD OUT (never fit or design on it; see README.md). Batched small GEMM, float32:
C_e = A_e B_e for nb matrices of s x s.

    workbench tune examples/spaces/heldout_batched_gemm.py:space --param nb=131072

Knobs: rows of C per work item (rpi, in registers), matrices per work group (bpg,
one after the other), whether A_e and B_e are first copied to local memory, and unrolling
the inner product.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(nb: int = 2 ** 17, s: int = 16) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[e, i, j, k]: 0 <= e < {nb} and 0 <= i, j, k < {s}}}",
            "c[e, i, j] = sum(k, a[e, i, k] * b[e, k, j])",
            [lp.GlobalArg("a, b", np.float32, shape=(nb, s, s)),
             lp.GlobalArg("c", np.float32, shape=(nb, s, s), is_output=True)],
            name="batched_gemm", lang_version=(2018, 2))
        # a work group takes bpg matrices one after the other
        knl = lp.split_iname(knl, "e", p["bpg"], outer_tag="g.0")
        knl = lp.split_iname(knl, "i", p["rpi"], inner_tag="ilp", outer_tag="l.1")
        knl = lp.tag_inames(knl, {"j": "l.0"})
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"k": "unr"})
        if p["local"]:
            knl = lp.add_prefetch(knl, "a", ["i_outer", "i_inner", "k"],
                                  fetch_outer_inames="e_outer, e_inner",
                                  default_tag="l.auto")
            knl = lp.add_prefetch(knl, "b", ["k", "j"],
                                  fetch_outer_inames="e_outer, e_inner",
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((nb, s, s), dtype=np.float32),
                "b": rng.random((nb, s, s), dtype=np.float32)}

    def reference(inputs):
        return {"c": inputs["a"].astype(np.float64) @ inputs["b"]}

    return TuningSpace(
        name="heldout_batched_gemm",
        description=f"C_e = A_e B_e for {nb} float32 {s} x {s} matrices: rpi rows per "
                    f"work item, bpg matrices per group, optional local copies, "
                    f"unrolled inner product",
        tune_params={"rpi": (1, 2, 4, 8, 16), "bpg": (1, 2, 4, 8), "local": (0, 1),
                     "unroll": (0, 1)},
        restrictions=("s % rpi == 0", "nb % bpg == 0"),
        group_size=lambda p: (s, s // p["rpi"]),
        local_bytes=lambda p: 4 * p["local"] * 2 * s * s,
        problem={"nb": nb, "s": s}, kernel=kernel, make_inputs=make_inputs,
        reference=reference)
