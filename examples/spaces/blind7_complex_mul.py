"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventh set").
Elementwise product of two complex float32 vectors of n values, each kept as two
separate arrays of real and imaginary parts: c = a b, cr = ar br - ai bi and
ci = ar bi + ai br.

    workbench tune examples/spaces/blind7_complex_mul.py:space --param n=33554432

Knobs: the group size, elements per work item, cyclic (a group's lanes side by side at
each step) or blocked (each lane on a run of its own), and the work item's loop a
plain loop or loopy's ILP.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            """
            <> xr = ar[i]
            <> xi = ai[i]
            <> yr = br[i]
            <> yi = bi[i]
            cr[i] = xr*yr - xi*yi
            ci[i] = xr*yi + xi*yr
            """,
            [lp.GlobalArg("ar, ai, br, bi", np.float32, shape=(n,)),
             lp.GlobalArg("cr, ci", np.float32, shape=(n,), is_output=True)],
            name="complex_mul", lang_version=(2018, 2))
        gs, ept = p["gs"], p["ept"]
        loop = {"loop": None, "ilp": "ilp"}[p["loop"]]
        knl = lp.split_iname(knl, "i", gs * ept, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag=loop, inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ept, outer_tag="l.0", inner_tag=loop)
        return knl

    def make_inputs(rng):
        return {name: (2 * rng.random(n, dtype=np.float32) - 1).astype(np.float32)
                for name in ("ar", "ai", "br", "bi")}

    def reference(inputs):
        a = inputs["ar"].astype(np.float64) + 1j * inputs["ai"]
        c = a * (inputs["br"].astype(np.float64) + 1j * inputs["bi"])
        return {"cr": c.real, "ci": c.imag}

    return TuningSpace(
        name="blind7_complex_mul",
        description=f"complex product of {n} values on split real and imaginary float32 "
                    f"arrays: gs per group, ept per work item, cyclic or blocked, loop or ilp",
        tune_params={"gs": (64, 128, 256, 512, 1024), "ept": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "loop": ("loop", "ilp")},
        restrictions=("n % (gs*ept) == 0",
                      # one element: no order and no loop to choose
                      lambda p: p["ept"] > 1 or (p["order"] == "cyclic"
                                                 and p["loop"] == "loop")),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 0,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # the check's absolute floor, rtol/1000, above a cancellation's ulps
