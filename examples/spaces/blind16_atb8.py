"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixteenth set").
Batched transpose-multiply of small matrices: nb pairs of 8 x 8 float32 matrices,
C[b] = A[b]^T B[b], i.e. C[b, i, j] = sum_k A[b, k, i] B[b, k, j] (a batch of small
Gram-like products, as in per-patch least squares or small-block solvers).  The
matrices are stored batch first ("batch", nb x 8 x 8 each) or batch last ("inter",
8 x 8 x nb each, neighbouring matrices' entries neighbours in memory); C is always
nb x 8 x 8.

    workbench tune examples/spaces/blind16_atb8.py:space --param nb=1048576

Knobs: lanes per matrix (8: a row of C a work item, its eight entries in registers;
64: an entry a work item), matrices per group (mpg, on the group's last axis),
matrices per work item (mpi, by ILP), the layout, and the k loop a loop or unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

S = 8   # the matrices' order


def space(nb: int = 2 ** 20) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "batch":
            a, bb = "A[b, k, i]", "B[b, k, j]"
            ins = [lp.GlobalArg("A", np.float32, shape=(nb, S, S)),
                   lp.GlobalArg("B", np.float32, shape=(nb, S, S))]
        else:
            a, bb = "At[k, i, b]", "Bt[k, j, b]"
            ins = [lp.GlobalArg("At", np.float32, shape=(S, S, nb)),
                   lp.GlobalArg("Bt", np.float32, shape=(S, S, nb))]
        knl = lp.make_kernel(
            f"{{[b, i, j, k]: 0 <= b < {nb} and 0 <= i, j, k < {S}}}",
            f"C[b, i, j] = sum(k, {a} * {bb})",
            [*ins, lp.GlobalArg("C", np.float32, shape=(nb, S, S), is_output=True)],
            name="atb8", lang_version=(2018, 2))
        mpg, mpi = p["mpg"], p["mpi"]
        knl = lp.split_iname(knl, "b", mpg * mpi, outer_tag="g.0")
        if p["lanes"] == 8:
            knl = lp.split_iname(knl, "b_inner", mpg, outer_tag="ilp", inner_tag="l.1")
            knl = lp.tag_inames(knl, {"i": "l.0", "j": "unr"})
        else:
            knl = lp.split_iname(knl, "b_inner", mpg, outer_tag="ilp", inner_tag="l.2")
            knl = lp.tag_inames(knl, {"j": "l.0", "i": "l.1"})
        if p["k"] == "unr":
            knl = lp.tag_inames(knl, {"k": "unr"})
        return knl

    def make_inputs(rng):
        # small integers: every product and sum is exact in float32
        a = rng.integers(-4, 5, size=(nb, S, S)).astype(np.float32)
        b = rng.integers(-4, 5, size=(nb, S, S)).astype(np.float32)
        # both layouts of the same matrices: a point's kernel reads the one it names
        return {"A": a, "B": b, "At": np.ascontiguousarray(a.transpose(1, 2, 0)),
                "Bt": np.ascontiguousarray(b.transpose(1, 2, 0))}

    def reference(inputs):
        a = inputs["A"].astype(np.float64)
        b = inputs["B"].astype(np.float64)
        return {"C": np.einsum("bki,bkj->bij", a, b)}

    return TuningSpace(
        name="blind16_atb8",
        description=f"C = A^T B for {nb} pairs of {S} x {S} float32 matrices: 8 or 64 "
                    f"lanes a matrix, mpg matrices per group, mpi per work item, "
                    f"batch first or last, the k loop a loop or unrolled",
        tune_params={"lanes": (8, 64), "mpg": (2, 4, 8, 16), "mpi": (1, 2),
                     "layout": ("batch", "inter"), "k": ("loop", "unr")},
        restrictions=("nb % (mpg*mpi) == 0",),
        group_size=lambda p: (S, p["mpg"]) if p["lanes"] == 8 else (S, S, p["mpg"]),
        problem={"nb": nb}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-6)
