"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifth set").
Embedding bag, float32: each of nbag bags sums t rows of a v x d table picked by
random int32 indices, out[b, e] = sum_t table[idx[b, t], e].

    workbench tune examples/spaces/blind5_embedding_bag.py:space --param nbag=65536

Knobs: the lanes along a row (bx), bags per group (bpg, on the group's second axis),
row entries per work item (epi, bx apart, in registers by loopy's ILP) and whether the
loop over a bag's t rows is unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(nbag: int = 65536, t: int = 8, v: int = 65536, d: int = 256) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[b, e, m]: 0 <= b < {nbag} and 0 <= e < {d} and 0 <= m < {t}}}",
            "out[b, e] = sum(m, table[idx[b, m], e])",
            [lp.GlobalArg("table", np.float32, shape=(v, d)),
             lp.GlobalArg("idx", np.int32, shape=(nbag, t)),
             lp.GlobalArg("out", np.float32, shape=(nbag, d), is_output=True)],
            name="embedding_bag", lang_version=(2018, 2))
        bx, epi = p["bx"], p["epi"]
        knl = lp.split_iname(knl, "b", p["bpg"], outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "e", bx * epi, outer_tag="g.0")
        knl = lp.split_iname(knl, "e_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"m": "unr"})
        return knl

    def make_inputs(rng):
        return {"table": rng.random((v, d), dtype=np.float32),
                "idx": rng.integers(0, v, size=(nbag, t), dtype=np.int32)}

    def reference(inputs):
        rows = inputs["table"].astype(np.float64)[inputs["idx"]]
        return {"out": rows.sum(axis=1)}

    return TuningSpace(
        name="blind5_embedding_bag",
        description=f"embedding bag, {nbag} bags of {t} rows of a {v} x {d} float32 "
                    f"table: bx lanes along a row, bpg bags per group, epi entries per "
                    f"work item, unrolled bag loop",
        tune_params={"bx": (32, 64, 128, 256), "bpg": (1, 2, 4, 8), "epi": (1, 2, 4),
                     "unroll": (0, 1)},
        restrictions=("d % (bx*epi) == 0 and nbag % bpg == 0", "bx*bpg <= 1024"),
        group_size=lambda p: (p["bx"], p["bpg"]),
        local_bytes=lambda p: 0,
        problem={"nbag": nbag, "t": t, "v": v, "d": d}, kernel=kernel,
        make_inputs=make_inputs, reference=reference)
