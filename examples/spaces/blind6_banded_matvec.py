"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixth set").
Banded (DIA-format) sparse y = A x: nd diagonals stored as rows of val, so
y[i] = sum_d val[d, i] x[i + d - nd // 2], with x padded by nd // 2 on each side.

    workbench tune examples/spaces/blind6_banded_matvec.py:space --param n=16777216

Knobs: the group size, rows per work item (cyclic or blocked), whether the loop over
the diagonals is unrolled, and whether the group's window of x is first read into
local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 24, nd: int = 9) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, d]: 0 <= i < {n} and 0 <= d < {nd}}}",
            "y[i] = sum(d, val[d, i] * x[i + d])",
            [lp.GlobalArg("val", np.float32, shape=(nd, n)),
             lp.GlobalArg("x", np.float32, shape=(n + nd - 1,)),
             lp.GlobalArg("y", np.float32, shape=(n,), is_output=True)],
            name="dia_spmv", lang_version=(2018, 2))
        gs, rpi = p["gs"], p["rpi"]
        knl = lp.split_iname(knl, "i", gs * rpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", rpi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"d": "unr"})
        if p["local"]:
            knl = lp.add_prefetch(knl, "x", ["i_inner_outer", "i_inner_inner", "d"],
                                  fetch_bounding_box=True, fetch_outer_inames="i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"val": rng.random((nd, n), dtype=np.float32),
                "x": rng.random(n + nd - 1, dtype=np.float32)}

    def reference(inputs):
        val, x = inputs["val"].astype(np.float64), inputs["x"]
        return {"y": sum(val[d] * x[d:d + n] for d in range(nd))}

    return TuningSpace(
        name="blind6_banded_matvec",
        description=f"banded y = A x, {n} rows, {nd} diagonals, float32: gs per group, "
                    f"rpi rows per work item (cyclic or blocked), diagonal loop unrolled "
                    f"or not, optional local window of x",
        tune_params={"gs": (64, 128, 256, 512), "rpi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "unroll": (0, 1), "local": (0, 1)},
        restrictions=("n % (gs*rpi) == 0",
                      lambda p: p["rpi"] > 1 or p["order"] == "cyclic"),  # one row
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * p["local"] * (p["gs"] * p["rpi"] + nd - 1),
        problem={"n": n, "nd": nd}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-4)
