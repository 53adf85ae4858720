"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, ninth set").
The exact GELU activation of n float32 values, out = x (1 + erf(x / sqrt 2)) / 2, with
the arithmetic either in float32 or in float64 (the input converted, the result
rounded back to float32), as a user weighs the accuracy of erf against its cost.

    workbench tune examples/spaces/blind9_gelu_erf.py:space --param n=33554432

Knobs: the group size, values per work item, cyclic (a group's lanes side by side at
each step) or blocked (each lane on a run of its own), and the precision of the
arithmetic (f32 or f64).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

RSQRT2 = 0.7071067811865476


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        if p["prec"] == "f64":
            body = f"""
            <float64> xd = x[i]
            out[i] = 0.5 * xd * (1.0 + erf(xd * {RSQRT2}))
            """
        else:
            body = f"out[i] = 0.5f * x[i] * (1.0f + erf(x[i] * {RSQRT2:.9f}f))"
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}", body,
            [lp.GlobalArg("x", np.float32, shape=(n,)),
             lp.GlobalArg("out", np.float32, shape=(n,), is_output=True)],
            name="gelu_erf", lang_version=(2018, 2))
        gs, epi = p["gs"], p["epi"]
        knl = lp.split_iname(knl, "i", gs * epi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="unr", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", epi, outer_tag="l.0", inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"x": (6 * rng.random(n, dtype=np.float32) - 3).astype(np.float32)}

    def reference(inputs):
        from math import erf

        x = inputs["x"].astype(np.float64)
        return {"out": 0.5 * x * (1 + np.vectorize(erf, otypes=[np.float64])(x * RSQRT2))}

    return TuningSpace(
        name="blind9_gelu_erf",
        description=f"exact GELU (erf) of {n} float32 values, arithmetic in float32 or "
                    f"float64: gs per group, epi values per work item, cyclic or blocked",
        tune_params={"gs": (64, 128, 256, 512, 1024), "epi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "prec": ("f32", "f64")},
        restrictions=("n % (gs*epi) == 0",
                      # one value: no order to choose
                      lambda p: p["epi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 0,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        # float32's 1 + erf(x) cancels for negative x (to -3: 2.7e-3 of 1 left), so a
        # correct float32 point can be 1e-4 off; a wrong index is off by far more
        rtol=1e-3)
