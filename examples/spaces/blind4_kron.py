"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourth set").
Kronecker product out = A (x) B of a p x p and a q x q float32 matrix:
out[i q + k, j q + l] = A[i, j] B[k, l].

    workbench tune examples/spaces/blind4_kron.py:space --param p=384 --param q=32

Knobs: the q columns l of a block on the lanes, rows k of a block per work item (kpi,
the rest on the group's second axis), blocks along j per work item (jpi, a loop,
optionally unrolled) and whether B is first copied to local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(p: int = 384, q: int = 32) -> TuningSpace:
    def kernel(pt):
        knl = lp.make_kernel(
            f"{{[i, j, k, l]: 0 <= i, j < {p} and 0 <= k, l < {q}}}",
            f"out[i*{q} + k, j*{q} + l] = A[i, j] * B[k, l]",
            [lp.GlobalArg("A", np.float32, shape=(p, p)),
             lp.GlobalArg("B", np.float32, shape=(q, q)),
             lp.GlobalArg("out", np.float32, shape=(p * q, p * q), is_output=True)],
            name="kron", lang_version=(2018, 2))
        kpi, jpi = pt["kpi"], pt["jpi"]
        knl = lp.tag_inames(knl, {"l": "l.0", "i": "g.1"})
        knl = lp.split_iname(knl, "k", kpi, outer_tag="l.1", inner_tag="ilp")
        knl = lp.split_iname(knl, "j", jpi, outer_tag="g.0",
                             inner_tag="unr" if pt["unroll"] else None)
        if pt["local"]:
            knl = lp.add_prefetch(knl, "B", ["k_outer", "k_inner", "l"],
                                  fetch_outer_inames="i, j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"A": rng.random((p, p), dtype=np.float32),
                "B": rng.random((q, q), dtype=np.float32)}

    def reference(inputs):
        return {"out": np.kron(inputs["A"].astype(np.float64), inputs["B"])}

    return TuningSpace(
        name="blind4_kron",
        description=f"Kronecker product of {p} x {p} and {q} x {q} float32: {q} lanes "
                    f"per block row, kpi block rows per work item, jpi blocks per work "
                    f"item (unrolled or not), optional local copy of B",
        tune_params={"kpi": (1, 2, 4, 8, 16, 32), "jpi": (1, 2, 4, 8),
                     "unroll": (0, 1), "local": (0, 1)},
        restrictions=("q % kpi == 0 and p % jpi == 0",
                      "jpi > 1 or unroll == 0"),   # one block: nothing to unroll
        group_size=lambda pt: (q, q // pt["kpi"]),
        local_bytes=lambda pt: 4 * pt["local"] * q * q,
        problem={"p": p, "q": q}, kernel=kernel, make_inputs=make_inputs,
        reference=reference)
