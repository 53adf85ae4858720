"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, third set").
Polynomial evaluation y[i] = c[0] x[i]^D + ... + c[D] by Horner's rule, one
polynomial of degree D = 32 over n float32 values.

    workbench tune examples/spaces/blind3_polyval.py:space --param n=33554432

Knobs: the work group size (g), values per work item (vpi, cyclic or blocked), whether
Horner's loop is unrolled and whether the coefficients are copied to local memory first.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

D = 32


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, k]: 0 <= i < {n} and 0 <= k <= {D}}}",
            """
            for i
                <> acc = 0 {id=init}
                for k
                    acc = acc*x[i] + c[k] {id=step, dep=init}
                end
                y[i] = acc {dep=step}
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(n,)),
             lp.GlobalArg("c", np.float32, shape=(D + 1,)),
             lp.GlobalArg("y", np.float32, shape=(n,), is_output=True)],
            name="polyval", lang_version=(2018, 2))
        g, vpi = p["g"], p["vpi"]
        knl = lp.split_iname(knl, "i", g * vpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", g, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", vpi, outer_tag="l.0", inner_tag="ilp")
        if p["local"]:
            knl = lp.add_prefetch(knl, "c", ["k"], fetch_outer_inames="i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"k": "unr"})
        return knl

    def make_inputs(rng):
        # x in [0, 1) and positive coefficients: no sum cancels, none overflows
        return {"x": rng.random(n, dtype=np.float32),
                "c": (rng.random(D + 1, dtype=np.float32) + 0.5).astype(np.float32)}

    def reference(inputs):
        return {"y": np.polyval(inputs["c"].astype(np.float64),
                                inputs["x"].astype(np.float64))}

    return TuningSpace(
        name="blind3_polyval",
        description=f"Horner evaluation of one degree-{D} polynomial at {n} float32 "
                    f"values: group size g, vpi values per work item, cyclic or "
                    f"blocked, Horner loop unrolled, coefficients in local memory",
        tune_params={"g": (64, 128, 256, 512), "vpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "unroll": (0, 1),
                     "local": (0, 1)},
        restrictions=(lambda p: p["vpi"] > 1 or p["order"] == "cyclic",
                      "n % (g*vpi) == 0"),
        group_size=lambda p: (p["g"],),
        local_bytes=lambda p: 4 * (D + 1) * p["local"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
