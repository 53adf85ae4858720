"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, second set").
Rank-1 update out = A + u v^T of an n x n float32 matrix (out-of-place).

    workbench tune examples/spaces/blind2_outer.py:space --param n=8192

Knobs: the work group (bx along the contiguous axis, by rows), output columns per
work item (cpi, cyclic, in registers), and whether the group's pieces of u and v are
first copied to local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            "out[i, j] = a[i, j] + u[i] * v[j]",
            [lp.GlobalArg("a", np.float32, shape=(n, n)),
             lp.GlobalArg("u, v", np.float32, shape=(n,)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="outer_update", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "u", ["i_inner"], fetch_outer_inames="i_outer, j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
            knl = lp.add_prefetch(knl, "v", ["j_inner_outer", "j_inner_inner"],
                                  fetch_outer_inames="i_outer, j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
            knl = lp.add_inames_for_unused_hw_axes(knl)
        return knl

    def make_inputs(rng):
        return {"a": rng.random((n, n), dtype=np.float32),
                "u": rng.random(n, dtype=np.float32),
                "v": rng.random(n, dtype=np.float32)}

    def reference(inputs):
        return {"out": inputs["a"].astype(np.float64)
                + np.outer(inputs["u"].astype(np.float64), inputs["v"])}

    return TuningSpace(
        name="blind2_outer",
        description=f"out = A + u v^T, {n} x {n} float32: group bx x by, cpi columns "
                    f"per work item, optional local copies of u and v",
        tune_params={"bx": (16, 32, 64, 128, 256), "by": (2, 4, 8, 16),
                     "cpi": (1, 2, 4), "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["by"] + p["bx"] * p["cpi"]),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
