"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, ninth set").
Inclusive prefix sums of the short rows of an m x 64 float32 matrix, written as a loopy
user writes a scan: out[r, j] = sum over k <= j of x[r, k] (a triangular reduction, 2080
additions a row; the entries are small integers held as float32, so every sum is exact).

    workbench tune examples/spaces/blind9_row_cumsum.py:space --param m=524288

Knobs: lanes along a row (jl, each lane sums 64 / jl of the row's prefixes, one after the
other), rows per work group (rg, on axis 1), rows per work item (rpi, in registers by
loopy's ILP) and whether the group's rows are first read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

L = 64


def space(m: int = 2 ** 19) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[r, j, k]: 0 <= r < {m} and 0 <= j < {L} and 0 <= k <= j}}",
            "out[r, j] = sum(k, x[r, k])",
            [lp.GlobalArg("x", np.float32, shape=(m, L)),
             lp.GlobalArg("out", np.float32, shape=(m, L), is_output=True)],
            name="row_cumsum", lang_version=(2018, 2))
        jl, rg, rpi = p["jl"], p["rg"], p["rpi"]
        knl = lp.split_iname(knl, "r", rg * rpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "r_inner", rg, outer_tag="ilp", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", jl, inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "x", ["r_inner_outer", "r_inner_inner", "k"],
                                  fetch_bounding_box=True, fetch_outer_inames="r_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
            # with one row a group the copy runs on l.0 only: loopy wants l.1 named too
            knl = lp.add_inames_for_unused_hw_axes(knl)
        return knl

    def make_inputs(rng):
        return {"x": rng.integers(-8, 9, size=(m, L)).astype(np.float32)}

    def reference(inputs):
        return {"out": np.cumsum(inputs["x"].astype(np.float64), axis=1)}

    return TuningSpace(
        name="blind9_row_cumsum",
        description=f"inclusive prefix sums of the {m} rows of 64 float32 (triangular "
                    f"reduction): jl lanes a row, rg rows per group, rpi rows per work "
                    f"item, optional local copy of the rows",
        tune_params={"jl": (8, 16, 32, 64), "rg": (1, 2, 4, 8, 16, 32, 64),
                     "rpi": (1, 2), "local": (0, 1)},
        restrictions=("jl*rg >= 64 and jl*rg <= 1024", "m % (rg*rpi) == 0"),
        group_size=lambda p: (p["jl"], p["rg"]),
        local_bytes=lambda p: 4 * p["local"] * p["rg"] * p["rpi"] * L,
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
