"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourteenth set").
Each of m float32 rows of 256 values clamped to [1/8, 7/8] and summed, and the values the
clamp changed counted, in one kernel (a sensor's saturated samples counted per frame
beside its clipped total, or a feature row's outliers counted as a quality check without
a histogram): s[r] = sum_k clamp(x[r, k], 1/8, 7/8) and cnt[r] = the number of k with
x[r, k] below 1/8 or above 7/8, an int32.

    workbench tune examples/spaces/blind14_clip_count.py:space --param m=524288

Knobs: rows per work group (one row a work item, summed down its loop), the rows read
as stored (m x 256, each work item walking its own row) or stored transposed
(256 x m, neighbouring work items reading neighbouring values), the loop over a row
unrolled by 1 to 8, and the count accumulated as an int32 or as a float32 (converted
when written).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

K = 256                  # values a row
LO, HI = 0.125, 0.875    # the clamp's bounds


def space(m: int = 2 ** 19) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "rows":
            v = "x[r, k]"
            ins = [lp.GlobalArg("x", np.float32, shape=(m, K))]
        else:
            v = "xt[k, r]"
            ins = [lp.GlobalArg("xt", np.float32, shape=(K, m))]
        one, zero = ("1", "0") if p["acc"] == "int" else ("1.0f", "0.0f")
        lines = [f"s[r] = sum(k, fmin(fmax({v}, {LO!r}f), {HI!r}f))",
                 f"cnt[r] = sum(k, if({v} < {LO!r}f, {one}, {zero}) "
                 f"+ if({v} > {HI!r}f, {one}, {zero}))"]
        knl = lp.make_kernel(
            f"{{[r, k]: 0 <= r < {m} and 0 <= k < {K}}}", "\n".join(lines),
            [*ins, lp.GlobalArg("s", np.float32, shape=(m,), is_output=True),
             lp.GlobalArg("cnt", np.int32, shape=(m,), is_output=True)],
            name="clip_count", lang_version=(2018, 2))
        knl = lp.split_iname(knl, "r", p["gs"], outer_tag="g.0", inner_tag="l.0")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "k", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # multiples of 1/256 in [0, 1): every clamped sum is exact in float32; about a
        # quarter of the values fall outside the bounds
        x = (rng.integers(0, 256, size=(m, K)) / 256).astype(np.float32)
        # the same rows for both layouts: "columns" kernels read their own copy
        return {"x": x, "xt": np.ascontiguousarray(x.T)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        return {"s": np.clip(x, LO, HI).sum(axis=1),
                "cnt": ((x < LO) | (x > HI)).sum(axis=1).astype(np.int32)}

    return TuningSpace(
        name="blind14_clip_count",
        description=f"clamp to [1/8, 7/8], sum and count the clamped values of each of {m} "
                    f"float32 rows of {K}: gs rows per group (a row a work item), rows as "
                    f"stored or transposed, the row's loop unrolled, the count an int32 or "
                    f"a float32",
        tune_params={"gs": (32, 64, 128, 256, 512), "layout": ("rows", "columns"),
                     "unroll": (1, 2, 4, 8), "acc": ("int", "float")},
        restrictions=("m % gs == 0",),
        group_size=lambda p: (p["gs"],),
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-6)
