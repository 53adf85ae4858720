"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, ninth set").
A 4 x 4 matrix applied to n homogeneous float32 points (a batched small GEMV, as a
graphics or geometry user writes it): out[i, c] = sum_k M[c, k] v[i, k], the points
read either from an array of structures (n x 4, "aos") or from a structure of arrays
(4 x n, "soa", the same points), the output always n x 4.

    workbench tune examples/spaces/blind9_xform4.py:space --param n=8388608

Knobs: the group size, points per work item (the register tile of the four products),
cyclic (a group's lanes side by side at each step) or blocked (each lane on a run of its
own), the layout, and whether M is first read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 23) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, c, k]: 0 <= i < {n} and 0 <= c, k < 4}}",
            "out[i, c] = sum(k, M[c, k] * v[i, k])" if p["layout"] == "aos"
            else "out[i, c] = sum(k, M[c, k] * vt[k, i])",
            [lp.GlobalArg("M", np.float32, shape=(4, 4)),
             lp.GlobalArg("v", np.float32, shape=(n, 4)) if p["layout"] == "aos"
             else lp.GlobalArg("vt", np.float32, shape=(4, n)),
             lp.GlobalArg("out", np.float32, shape=(n, 4), is_output=True)],
            name="xform4", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        knl = lp.tag_inames(knl, {"c": "unr", "k": "unr"})
        if p["local"]:
            knl = lp.add_prefetch(knl, "M", ["c", "k"], fetch_outer_inames="i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        v = (2 * rng.random((n, 4), dtype=np.float32) - 1).astype(np.float32)
        # both layouts of the same points: a point's kernel reads the one it names
        return {"M": (2 * rng.random((4, 4), dtype=np.float32) - 1).astype(np.float32),
                "v": v, "vt": np.ascontiguousarray(v.T)}

    def reference(inputs):
        v, m = inputs["v"].astype(np.float64), inputs["M"].astype(np.float64)
        return {"out": v @ m.T}

    return TuningSpace(
        name="blind9_xform4",
        description=f"4 x 4 matrix times {n} homogeneous float32 points: gs per group, "
                    f"ppi points per work item, cyclic or blocked, points read as an "
                    f"array of structures or a structure of arrays, optional local "
                    f"copy of the matrix",
        tune_params={"gs": (64, 128, 256, 512, 1024), "ppi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("aos", "soa"),
                     "local": (0, 1)},
        restrictions=("n % (gs*ppi) == 0",
                      # one point: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 64 * p["local"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
