"""Row sums of an m x n float32 matrix, out[i] = sum_j a[i, j], a user's tuning space.

    workbench tune examples/spaces/rowsum.py:space --param m=16384 --param n=4096

Knobs: lanes per row (g0: each lane sums every g0-th element of its row, then the
lanes add up in a local-memory tree), rows per work group (rpg, on axis 1) and the
unrolling of each lane's loop.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 16384, n: int = 4096) -> TuningSpace:
    def kernel(p):
        g0 = p["g0"]
        knl = lp.make_kernel(
            f"{{[i, k, jo]: 0 <= i < {m} and 0 <= k < {g0} and 0 <= jo < {n // g0}}}",
            f"""
            for i, k
                <> part = 0 {{id=init}}
                for jo
                    part = part + a[i, {g0}*jo + k] {{id=update, dep=init}}
                end
            end
            out[i] = sum(k, part) {{id=result, dep=update}}
            """,
            [lp.GlobalArg("a", np.float32, shape=(m, n)),
             lp.GlobalArg("out", np.float32, shape=(m,), is_output=True)],
            name="rowsum", lang_version=(2018, 2),
            silenced_warnings=["write_race(result)"])
        knl = lp.split_iname(knl, "i", p["rpg"], outer_tag="g.0", inner_tag="l.1")
        knl = lp.tag_inames(knl, {"k": "l.0"})
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "jo", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((m, n), dtype=np.float32)}

    def reference(inputs):
        return {"out": inputs["a"].astype(np.float64).sum(axis=1)}

    return TuningSpace(
        name="user_rowsum",
        description=f"row sums of a {m} x {n} float32 matrix: g0 lanes per row, rpg "
                    f"rows per group, local-memory tree, lane loop unrolled",
        tune_params={"g0": (32, 64, 128, 256, 512, 1024), "rpg": (1, 2, 4, 8),
                     "unroll": (1, 2, 4, 8)},
        restrictions=("g0*rpg <= 1024", "n % (g0*unroll) == 0", "m % rpg == 0"),
        group_size=lambda p: (p["g0"], p["rpg"]),
        local_bytes=lambda p: 4 * p["g0"] * p["rpg"],
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference,
        rtol=1e-3)   # float32 sums of thousands of terms
