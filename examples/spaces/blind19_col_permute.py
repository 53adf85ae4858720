"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, nineteenth set").
The columns of an m x n float32 matrix reordered by one int32 permutation:
out[i, j] = a[i, perm[j]] (a feature matrix's columns put in the order another model
expects, or a matrix's columns pivoted, as a user writes the gather a[:, perm]), every
row read through the same indices.

    workbench tune examples/spaces/blind19_col_permute.py:space --param m=8192 --param n=8192

Knobs: the work group (bx columns by by rows), columns per work item (cpi, cyclic or
blocked, in registers), and whether the group's slice of perm is first copied to local
memory (add_prefetch of perm[j], shared by the group's rows).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 8192, n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i < {m} and 0 <= j < {n}}}",
            "out[i, j] = a[i, perm[j]]",
            [lp.GlobalArg("a", np.float32, shape=(m, n)),
             lp.GlobalArg("perm", np.int32, shape=(n,)),
             lp.GlobalArg("out", np.float32, shape=(m, n), is_output=True)],
            name="col_permute", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        if p["local"]:
            # the bx cpi indices the group's columns need, copied by its lanes
            knl = lp.add_prefetch(knl, "perm", ["j_inner_outer", "j_inner_inner"],
                                  footprint_subscripts=["j"], fetch_bounding_box=True,
                                  fetch_outer_inames="i_outer,j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag=None)
            knl = lp.split_iname(knl, "perm_dim_0", bx, inner_tag="l.0")
            # the copy has no row: every row of lanes writes the same values
            knl = lp.add_inames_for_unused_hw_axes(knl)
        return knl

    def make_inputs(rng):
        return {"a": (2.0 * rng.random((m, n), dtype=np.float32) - 1.0).astype(np.float32),
                "perm": rng.permutation(n).astype(np.int32)}

    def reference(inputs):
        return {"out": inputs["a"][:, inputs["perm"]]}

    return TuningSpace(
        name="blind19_col_permute",
        description=f"the columns of an {m} x {n} float32 matrix permuted, a[:, perm]: "
                    f"group bx x by, cpi columns per work item (cyclic or blocked), the "
                    f"group's perm in local memory or not",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 4), "cpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "local": (0, 1)},
        restrictions=("m % by == 0 and n % (bx*cpi) == 0",
                      # one column: no order to choose
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["bx"] * p["cpi"] * p["local"],
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=0.0)
