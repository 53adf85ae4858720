"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifteenth set").
The two eigenvalues of each of n symmetric 2 x 2 float32 matrices [[a, b], [b, c]] in
closed form (an image's structure tensors turned into edge and corner strengths, or
the principal stresses of a plane stress field): with mean (a + c) / 2 and radius
r = sqrt(((a - c) / 2)^2 + b^2), the larger is l1 = mean + r and the smaller either
l2 = mean - r ("direct") or l2 = (a c - b^2) / l1 ("product", the determinant over the
larger, which a user takes to avoid the subtraction).  The matrices are read either as
structures (a, b, c) one after another ("aos", n x 3) or as three arrays ("soa",
3 x n); the eigenvalues are written as two arrays of n.

    workbench tune examples/spaces/blind15_eig2x2.py:space --param n=33554432

Knobs: the group size, matrices per work item (mpi, cyclic or blocked, in registers),
the layout, and the smaller eigenvalue's form.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "aos":
            a, b, c = "s[i, 0]", "s[i, 1]", "s[i, 2]"
            ins = [lp.GlobalArg("s", np.float32, shape=(n, 3))]
        else:
            a, b, c = "st[0, i]", "st[1, i]", "st[2, i]"
            ins = [lp.GlobalArg("st", np.float32, shape=(3, n))]
        small = ("mean - r" if p["form"] == "direct"
                 else "(av * cv - bv * bv) / big")
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            f"""
            <> av = {a}
            <> bv = {b}
            <> cv = {c}
            <> mean = 0.5f * (av + cv)
            <> dh = 0.5f * (av - cv)
            <> r = sqrt(dh * dh + bv * bv)
            <> big = mean + r
            l1[i] = big
            l2[i] = {small}
            """,
            [*ins, lp.GlobalArg("l1, l2", np.float32, shape=(n,), is_output=True)],
            name="eig2x2", lang_version=(2018, 2))
        gs, mpi = p["gs"], p["mpi"]
        knl = lp.split_iname(knl, "i", gs * mpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", mpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # sixteenths, a and c in [2, 4] and b in [-1, 1]: positive definite with both
        # eigenvalues at least 2 - sqrt 2, so neither form of the smaller one cancels
        # to near zero
        s = np.empty((n, 3), np.float32)
        s[:, 0] = rng.integers(32, 65, size=n) / 16
        s[:, 1] = rng.integers(-16, 17, size=n) / 16
        s[:, 2] = rng.integers(32, 65, size=n) / 16
        # both layouts of the same matrices: a point's kernel reads the one it names
        return {"s": s, "st": np.ascontiguousarray(s.T)}

    def reference(inputs):
        a, b, c = inputs["st"].astype(np.float64)
        mean, r = (a + c) / 2, np.sqrt(((a - c) / 2) ** 2 + b * b)
        return {"l1": mean + r, "l2": mean - r}

    return TuningSpace(
        name="blind15_eig2x2",
        description=f"eigenvalues of {n} symmetric 2 x 2 float32 matrices in closed form: "
                    f"gs per group, mpi matrices per work item (cyclic or blocked), the "
                    f"matrices as structures or three arrays, the smaller eigenvalue as "
                    f"mean - r or the determinant over the larger",
        tune_params={"gs": (128, 256, 512), "mpi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "layout": ("aos", "soa"),
                     "form": ("direct", "product")},
        restrictions=("n % (gs*mpi) == 0",
                      # one matrix: no order to choose
                      lambda p: p["mpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
