"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixth set").
Transpose-add of two n x n float32 matrices: C = A + B^T.

    workbench tune examples/spaces/blind6_transpose_add.py:space --param n=8192

Knobs: the work group (bx along the rows of A and C, by down the columns), rows per
work item (rpi, in registers by loopy's ILP), and whether the group's tile of B is
first read into local memory (coalesced along B's rows, then read across).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            "C[i, j] = A[i, j] + B[j, i]",
            [lp.GlobalArg("A, B", np.float32, shape=(n, n)),
             lp.GlobalArg("C", np.float32, shape=(n, n), is_output=True)],
            name="transpose_add", lang_version=(2018, 2))
        bx, by, rpi = p["bx"], p["by"], p["rpi"]
        knl = lp.split_iname(knl, "i", by * rpi, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", by, outer_tag="ilp", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "B", ["j_inner", "i_inner_outer", "i_inner_inner"],
                                  fetch_outer_inames="i_outer, j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"A": rng.random((n, n), dtype=np.float32),
                "B": rng.random((n, n), dtype=np.float32)}

    def reference(inputs):
        return {"C": inputs["A"].astype(np.float64) + inputs["B"].T}

    return TuningSpace(
        name="blind6_transpose_add",
        description=f"C = A + B^T, {n} x {n} float32: group bx x by, rpi rows per work "
                    f"item, optional local tile of B",
        tune_params={"bx": (16, 32, 64), "by": (2, 4, 8, 16, 32), "rpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024", "n % (by*rpi) == 0 and n % bx == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * p["bx"] * p["by"] * p["rpi"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
