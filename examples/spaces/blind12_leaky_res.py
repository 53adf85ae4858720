"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, twelfth set").
A fused epilogue of a network layer: a bias per feature, a leaky ReLU (slope 1/64
below zero) and a residual connection, out[t, f] = leaky(x[t, f] + b[f]) + r[t, f],
on m tokens of 4096 features, float32, one kernel instead of three.

    workbench tune examples/spaces/blind12_leaky_res.py:space --param m=16384

Knobs: the group bx x by (features on axis 0, tokens on axis 1), features per work
item (cyclic or blocked, registers), whether the leaky ReLU is written as a select or
as a maximum, and a local copy of the group's biases.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

F = 4096       # features
SLOPE = 1 / 64  # a power of two: the reference's product is the kernel's, exactly


def space(m: int = 16384) -> TuningSpace:
    def kernel(p):
        act = {"select": f"if(v > 0.0f, v, {SLOPE}f * v)",
               "max": f"fmax(v, {SLOPE}f * v)"}[p["act"]]
        knl = lp.make_kernel(
            f"{{[t, f]: 0 <= t < {m} and 0 <= f < {F}}}",
            f"""
            <> v = x[t, f] + b[f]
            out[t, f] = {act} + r[t, f]
            """,
            [lp.GlobalArg("x, r", np.float32, shape=(m, F)),
             lp.GlobalArg("b", np.float32, shape=(F,)),
             lp.GlobalArg("out", np.float32, shape=(m, F), is_output=True)],
            name="leaky_res", lang_version=(2018, 2))
        bx, by, fpi = p["bx"], p["by"], p["fpi"]
        knl = lp.split_iname(knl, "t", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "f", bx * fpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "f_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "f_inner", fpi, outer_tag="l.0", inner_tag="ilp")
        if p["local"]:
            knl = lp.add_prefetch(knl, "b", ["f_inner_outer", "f_inner_inner"],
                                  fetch_outer_inames="t_outer, f_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
            # every token row of the group copies the biases alike (the same values)
            knl = lp.add_inames_for_unused_hw_axes(knl)
        return knl

    def make_inputs(rng):
        def values(*shape):
            return (2 * rng.random(shape, dtype=np.float32) - 1).astype(np.float32)

        return {"x": values(m, F), "r": values(m, F), "b": values(F)}

    def reference(inputs):
        v = inputs["x"].astype(np.float64) + inputs["b"].astype(np.float64)
        return {"out": np.where(v > 0, v, SLOPE * v) + inputs["r"]}

    return TuningSpace(
        name="blind12_leaky_res",
        description=f"bias, leaky ReLU and residual fused on {m} float32 tokens of {F} "
                    f"features: bx x by groups, fpi features per work item (cyclic or "
                    f"blocked), select or maximum, optional local copy of the biases",
        tune_params={"bx": (128, 256), "by": (1, 4), "fpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "act": ("select", "max"),
                     "local": (0, 1)},
        restrictions=("m % by == 0", "bx*by <= 1024",
                      # one feature: no order to choose
                      lambda p: p["fpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * p["bx"] * p["fpi"],
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
