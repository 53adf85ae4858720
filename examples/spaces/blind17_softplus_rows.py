"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventeenth set").
A softplus activation scaled per row: out[i, j] = s[i] log(1 + exp(x[i, j])) for an
m x n float32 matrix (a positive rate or variance head of a network, each row a
sample with its own temperature), written either as the formula reads or in the
overflow-safe form max(x, 0) + log(1 + exp(-|x|)) that a careful user writes
(loopy knows no log1p).

    workbench tune examples/spaces/blind17_softplus_rows.py:space --param m=16384 --param n=4096

Knobs: the work group (bx lanes along a row, by rows), entries per work item (epi,
cyclic or blocked, in registers), and the formula (plain or safe).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 16384, n: int = 4096) -> TuningSpace:
    def kernel(p):
        if p["form"] == "plain":
            body = "out[i, j] = s[i] * log(1.0f + exp(x[i, j]))"
        else:
            body = ("out[i, j] = s[i] * (fmax(x[i, j], 0.0f)"
                    " + log(1.0f + exp(-fabs(x[i, j]))))")
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i < {m} and 0 <= j < {n}}}",
            body,
            [lp.GlobalArg("x", np.float32, shape=(m, n)),
             lp.GlobalArg("s", np.float32, shape=(m,)),
             lp.GlobalArg("out", np.float32, shape=(m, n), is_output=True)],
            name="softplus_rows", lang_version=(2018, 2))
        bx, by, epi = p["bx"], p["by"], p["epi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * epi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", epi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # x in [-3, 6]: log(1 + exp(x)) is at least 0.049, so the plain form's
        # 1 + exp(x) keeps float32's digits to well within the tolerance
        x = (-3.0 + 9.0 * rng.random((m, n))).astype(np.float32)
        s = (0.5 + rng.random(m)).astype(np.float32)
        return {"x": x, "s": s}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        return {"out": inputs["s"].astype(np.float64)[:, None] * np.log1p(np.exp(x))}

    return TuningSpace(
        name="blind17_softplus_rows",
        description=f"softplus scaled per row, {m} x {n} float32: group bx x by, epi "
                    f"entries per work item (cyclic or blocked), plain or safe formula",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 4), "epi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "form": ("plain", "safe")},
        restrictions=("m % by == 0 and n % (bx*epi) == 0",
                      # one entry: no order to choose
                      lambda p: p["epi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=2e-5)
