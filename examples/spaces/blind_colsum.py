"""BLIND (never fit, choose or tune anything on it; see README.md). Column sums of an
m x n float32 matrix, out[j] = sum_i a[i, j]: the reduction runs across rows.

    workbench tune examples/spaces/blind_colsum.py:space --param m=16384 --param n=4096

Knobs: columns per work group (bx lanes on axis 0), row lanes per column (by, on
axis 1: each lane sums every by-th row, then the lanes add up in local memory),
columns per work item (cpi, cyclic, in registers) and the unrolling of each lane's
loop over rows.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 16384, n: int = 4096) -> TuningSpace:
    def kernel(p):
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.make_kernel(
            f"{{[j, k, io]: 0 <= j < {n} and 0 <= k < {by} and 0 <= io < {m // by}}}",
            f"""
            for j, k
                <> part = 0 {{id=init}}
                for io
                    part = part + a[{by}*io + k, j] {{id=update, dep=init}}
                end
            end
            out[j] = sum(k, part) {{id=result, dep=update}}
            """,
            [lp.GlobalArg("a", np.float32, shape=(m, n)),
             lp.GlobalArg("out", np.float32, shape=(n,), is_output=True)],
            name="colsum", lang_version=(2018, 2),
            silenced_warnings=["write_race(result)"])
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        knl = lp.tag_inames(knl, {"k": "l.1"})
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "io", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((m, n), dtype=np.float32)}

    def reference(inputs):
        return {"out": inputs["a"].astype(np.float64).sum(axis=0)}

    return TuningSpace(
        name="blind_colsum",
        description=f"column sums of a {m} x {n} float32 matrix: bx columns per group, "
                    f"by row lanes per column, cpi columns per work item, unrolled rows",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4, 8, 16), "cpi": (1, 2, 4),
                     "unroll": (1, 4)},
        restrictions=("bx*by >= 64 and bx*by <= 1024", "n % (bx*cpi) == 0",
                      "m % (by*unroll) == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["bx"] * p["cpi"] * p["by"],
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference,
        rtol=1e-3)   # float32 sums of thousands of terms
