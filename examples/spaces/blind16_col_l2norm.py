"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixteenth set").
The columns of an R x n float32 matrix scaled to unit Euclidean length (R = 256; a
batch of feature vectors stored feature-major, or a dictionary's atoms normalised):
out[r, j] = x[r, j] / sqrt(sum_r' x[r', j]^2), one work item a column, walking it
twice (the sum of squares, then the scaling).

    workbench tune examples/spaces/blind16_col_l2norm.py:space --param n=262144

Knobs: the group size, columns per work item (cpi, cyclic or blocked, in registers),
the scaling as a division by the root or a product with its reciprocal (computed
once a column), and both row loops unrolled by 4 or not.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

R = 256   # rows: the vectors' length


def space(n: int = 2 ** 18) -> TuningSpace:
    def kernel(p):
        if p["scale"] == "div":
            body = """
            <> s = sum(r, x[r, j] * x[r, j])
            out[q, j] = x[q, j] / sqrt(s)
            """
        else:
            body = """
            <> s = sum(r, x[r, j] * x[r, j])
            <> inv = 1.0f / sqrt(s)
            out[q, j] = x[q, j] * inv
            """
        knl = lp.make_kernel(
            f"{{[j, r, q]: 0 <= j < {n} and 0 <= r, q < {R}}}",
            body,
            [lp.GlobalArg("x", np.float32, shape=(R, n)),
             lp.GlobalArg("out", np.float32, shape=(R, n), is_output=True)],
            name="col_l2norm", lang_version=(2018, 2))
        gs, cpi = p["gs"], p["cpi"]
        knl = lp.split_iname(knl, "j", gs * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"] > 1:
            for row in ("r", "q"):
                knl = lp.split_iname(knl, row, p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # values in [1/4, 1]: no sum near zero
        return {"x": (0.25 + 0.75 * rng.random((R, n))).astype(np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        return {"out": x / np.sqrt((x * x).sum(axis=0))}

    return TuningSpace(
        name="blind16_col_l2norm",
        description=f"unit-length columns of a {R} x {n} float32 matrix, a column a work "
                    f"item: gs per group, cpi columns per work item (cyclic or blocked), "
                    f"division or reciprocal product, row loops unrolled by 4 or not",
        tune_params={"gs": (32, 64, 128, 256), "cpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "scale": ("div", "recip"),
                     "unroll": (1, 4)},
        restrictions=("n % (gs*cpi) == 0",
                      # one column: no order to choose
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
