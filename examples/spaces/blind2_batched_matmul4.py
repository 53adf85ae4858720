"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, second set").
Batched 4 x 4 matrix products, float32: C_e = A_e B_e for nb pairs, each product done
by one work item (or by four, one per row of C_e).

    workbench tune examples/spaces/blind2_batched_matmul4.py:space --param nb=1048576

Knobs: products per work group on axis 0 (gs), products per work item (mpi, cyclic,
in registers), rows of C_e on four lanes of axis 1 or all in one work item (lanes),
and unrolling (0: none, 1: the k loop, 2: every loop of the product).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

S = 4


def space(nb: int = 2 ** 20) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[e, i, j, k]: 0 <= e < {nb} and 0 <= i, j, k < {S}}}",
            "c[e, i, j] = sum(k, a[e, i, k] * b[e, k, j])",
            [lp.GlobalArg("a, b", np.float32, shape=(nb, S, S)),
             lp.GlobalArg("c", np.float32, shape=(nb, S, S), is_output=True)],
            name="batched_matmul4", lang_version=(2018, 2))
        gs, mpi = p["gs"], p["mpi"]
        knl = lp.split_iname(knl, "e", gs * mpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "e_inner", gs, outer_tag="ilp", inner_tag="l.0")
        tags = {}
        if p["lanes"] == S:
            tags["i"] = "l.1"
        if p["unroll"] >= 1:
            tags["k"] = "unr"
        if p["unroll"] == 2:
            tags["j"] = "unr"
            if p["lanes"] == 1:
                tags["i"] = "unr"
        return lp.tag_inames(knl, tags) if tags else knl

    def make_inputs(rng):
        return {"a": rng.random((nb, S, S), dtype=np.float32),
                "b": rng.random((nb, S, S), dtype=np.float32)}

    def reference(inputs):
        return {"c": np.einsum("eik,ekj->eij", inputs["a"].astype(np.float64),
                               inputs["b"].astype(np.float64))}

    return TuningSpace(
        name="blind2_batched_matmul4",
        description=f"C_e = A_e B_e for {nb} pairs of float32 {S} x {S} matrices: gs "
                    f"products per group, mpi per work item, rows on lanes or not, "
                    f"unrolling",
        tune_params={"gs": (32, 64, 128, 256), "mpi": (1, 2, 4), "lanes": (1, S),
                     "unroll": (0, 1, 2)},
        restrictions=("nb % (gs*mpi) == 0", "gs*lanes >= 64"),
        group_size=lambda p: (p["gs"], p["lanes"]),
        local_bytes=lambda p: 0,
        problem={"nb": nb}, kernel=kernel, make_inputs=make_inputs, reference=reference)
