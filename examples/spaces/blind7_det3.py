"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventh set").
Determinants of n 3 x 3 float32 matrices stored one after another (array of
structures, nine values a matrix, row by row), by the rule of Sarrus.

    workbench tune examples/spaces/blind7_det3.py:space --param n=16777216

Knobs: the group size, matrices per work item (cyclic: a group's lanes side by side at
each step, or blocked: each lane on a run of its own, in registers by loopy's ILP),
and whether the group's matrices are first copied to local memory (a read that is
coalesced across the nine values).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 24) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            """
            det[i] = a[i, 0]*(a[i, 4]*a[i, 8] - a[i, 5]*a[i, 7]) \
                - a[i, 1]*(a[i, 3]*a[i, 8] - a[i, 5]*a[i, 6]) \
                + a[i, 2]*(a[i, 3]*a[i, 7] - a[i, 4]*a[i, 6])
            """,
            [lp.GlobalArg("a", np.float32, shape=(n, 9)),
             lp.GlobalArg("det", np.float32, shape=(n,), is_output=True)],
            name="det3", lang_version=(2018, 2))
        gs, mpi = p["gs"], p["mpi"]
        knl = lp.split_iname(knl, "i", gs * mpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", mpi, outer_tag="l.0", inner_tag="ilp")
        if p["local"]:
            knl = lp.add_prefetch(knl, "a", ["i_inner_outer", "i_inner_inner"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"a": (2 * rng.random((n, 9), dtype=np.float32) - 1).astype(np.float32)}

    def reference(inputs):
        return {"det": np.linalg.det(inputs["a"].astype(np.float64).reshape(-1, 3, 3))}

    return TuningSpace(
        name="blind7_det3",
        description=f"determinants of {n} 3 x 3 float32 matrices stored as an array of "
                    f"structures: gs per group, mpi per work item, cyclic or blocked, "
                    f"optional local copy of the group's matrices",
        tune_params={"gs": (32, 64, 128, 256, 512, 1024), "mpi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "local": (0, 1)},
        restrictions=("n % (gs*mpi) == 0", "local == 0 or gs*mpi <= 1024",
                      # one matrix: no order to choose
                      lambda p: p["mpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * p["local"] * 9 * p["gs"] * p["mpi"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)
