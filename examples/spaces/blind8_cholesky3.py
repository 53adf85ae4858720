"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighth set").
Cholesky factors of n symmetric positive definite 3 x 3 float32 matrices, each stored
packed as its upper triangle (a00, a01, a02, a11, a12, a22), A = L L^T, each factor
written packed as its lower triangle (l00, l10, l20, l11, l21, l22): three square roots
and three divisions a matrix, each step on the ones before.

    workbench tune examples/spaces/blind8_cholesky3.py:space --param n=8388608

Knobs: the group size, matrices per work item (cyclic: a group's lanes side by side at
each step, or blocked: each lane on a run of its own, in registers by loopy's ILP),
and whether the group's packed matrices are first copied to local memory (a read that
is coalesced across the six values).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 23) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            """
            <> l00 = sqrt(a[i, 0])
            <> l10 = a[i, 1] / l00
            <> l20 = a[i, 2] / l00
            <> l11 = sqrt(a[i, 3] - l10*l10)
            <> l21 = (a[i, 4] - l20*l10) / l11
            <> l22 = sqrt(a[i, 5] - l20*l20 - l21*l21)
            l[i, 0] = l00
            l[i, 1] = l10
            l[i, 2] = l20
            l[i, 3] = l11
            l[i, 4] = l21
            l[i, 5] = l22
            """,
            [lp.GlobalArg("a", np.float32, shape=(n, 6)),
             lp.GlobalArg("l", np.float32, shape=(n, 6), is_output=True)],
            name="cholesky3", lang_version=(2018, 2))
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
        # A = B B^T + I: every eigenvalue at least 1, so no pivot is small
        b = 2 * rng.random((n, 3, 3), dtype=np.float32) - 1
        full = b @ b.transpose(0, 2, 1) + np.eye(3, dtype=np.float32)
        rows, cols = np.triu_indices(3)
        return {"a": np.ascontiguousarray(full[:, rows, cols], dtype=np.float32)}

    def reference(inputs):
        a = inputs["a"].astype(np.float64)
        full = np.empty((len(a), 3, 3))
        rows, cols = np.triu_indices(3)
        full[:, rows, cols] = a
        full[:, cols, rows] = a
        low = np.linalg.cholesky(full)
        rows, cols = np.tril_indices(3)
        order = np.lexsort((rows, cols))   # column by column: l00, l10, l20, l11, ...
        return {"l": low[:, rows[order], cols[order]]}

    return TuningSpace(
        name="blind8_cholesky3",
        description=f"Cholesky factors of {n} packed symmetric positive definite 3 x 3 "
                    f"float32 matrices: gs per group, mpi per work item, cyclic or "
                    f"blocked, optional local copy of the group's matrices",
        tune_params={"gs": (32, 64, 128, 256, 512, 1024), "mpi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "local": (0, 1)},
        restrictions=("n % (gs*mpi) == 0", "local == 0 or gs*mpi <= 1024",
                      # one matrix: no order to choose
                      lambda p: p["mpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * p["local"] * 6 * p["gs"] * p["mpi"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # the check's absolute floor, rtol/1000, above a cancellation's ulps
