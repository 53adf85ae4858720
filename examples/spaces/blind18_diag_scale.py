"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighteenth set").
A square float32 matrix scaled symmetrically by a diagonal: out[i, j] = d[i] a[i, j]
d[j] for an n x n matrix and one vector d (a graph's adjacency normalised as
D^-1/2 A D^-1/2, or a system equilibrated by Jacobi scaling before a solve), the same
vector read along the rows and along the columns.

    workbench tune examples/spaces/blind18_diag_scale.py:space --param n=8192

Knobs: the work group (bx columns by by rows), columns per work item (cpi, cyclic or
blocked, in registers), and whether the group's slice of d for its columns is first
copied to local memory (add_prefetch of d[j] alone).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            "out[i, j] = d[i] * a[i, j] * d[j]",
            [lp.GlobalArg("a", np.float32, shape=(n, n)),
             lp.GlobalArg("d", np.float32, shape=(n,)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="diag_scale", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        if p["local"]:
            # the bx cpi values of d the group's columns need, copied by its lanes
            knl = lp.add_prefetch(knl, "d", ["j_inner_outer", "j_inner_inner"],
                                  footprint_subscripts=["j"], fetch_bounding_box=True,
                                  fetch_outer_inames="i_outer,j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag=None)
            knl = lp.split_iname(knl, "d_dim_0", bx, inner_tag="l.0")
            # the copy has no row: every row of lanes writes the same values
            knl = lp.add_inames_for_unused_hw_axes(knl)
        return knl

    def make_inputs(rng):
        # d in [1/2, 2] (1 / sqrt of degrees or diagonal entries), a in [-1, 1]
        return {"a": (2.0 * rng.random((n, n), dtype=np.float32) - 1.0).astype(np.float32),
                "d": (0.5 + 1.5 * rng.random(n)).astype(np.float32)}

    def reference(inputs):
        d = inputs["d"].astype(np.float64)
        return {"out": d[:, None] * inputs["a"].astype(np.float64) * d[None, :]}

    return TuningSpace(
        name="blind18_diag_scale",
        description=f"symmetric diagonal scaling d[i] a[i, j] d[j] of an {n} x {n} float32 "
                    f"matrix: group bx x by, cpi columns per work item (cyclic or "
                    f"blocked), the group's d[j] in local memory or not",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 4), "cpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "local": (0, 1)},
        restrictions=("n % by == 0 and n % (bx*cpi) == 0",
                      # one column: no order to choose
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["bx"] * p["cpi"] * p["local"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
