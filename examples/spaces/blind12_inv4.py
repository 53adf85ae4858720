"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, twelfth set").
The inverses of many 4 x 4 float32 matrices by cofactors (a batch of camera or joint
transforms inverted at once): each work item reads its matrix's sixteen entries,
forms the twelve 2 x 2 minors of its top and bottom row pairs, the determinant from
them, and writes the adjugate divided by the determinant.  The matrices are stored
either each after the other ("aos", n x 16, row by row) or entry by entry ("soa",
16 x n, so that neighbouring matrices are neighbours in memory); the inverses are
written back each after the other (n x 16), as the caller's transforms are kept.

    workbench tune examples/spaces/blind12_inv4.py:space --param n=4194304

Knobs: the group size, matrices per work item (cyclic or blocked, registers), the
layout, and (array of structures only) a local copy of the group's matrices.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

# the adjugate's entries from the minors s (rows 0 and 1) and c (rows 2 and 3):
# (row, column) -> ((sign, entry of a, minor), ...)
S = {"s0": "a00*a11 - a10*a01", "s1": "a00*a12 - a10*a02", "s2": "a00*a13 - a10*a03",
     "s3": "a01*a12 - a11*a02", "s4": "a01*a13 - a11*a03", "s5": "a02*a13 - a12*a03",
     "c0": "a20*a31 - a30*a21", "c1": "a20*a32 - a30*a22", "c2": "a20*a33 - a30*a23",
     "c3": "a21*a32 - a31*a22", "c4": "a21*a33 - a31*a23", "c5": "a22*a33 - a32*a23"}
ADJ = ["a11*c5 - a12*c4 + a13*c3", "-a01*c5 + a02*c4 - a03*c3",
       "a31*s5 - a32*s4 + a33*s3", "-a21*s5 + a22*s4 - a23*s3",
       "-a10*c5 + a12*c2 - a13*c1", "a00*c5 - a02*c2 + a03*c1",
       "-a30*s5 + a32*s2 - a33*s1", "a20*s5 - a22*s2 + a23*s1",
       "a10*c4 - a11*c2 + a13*c0", "-a00*c4 + a01*c2 - a03*c0",
       "a30*s4 - a31*s2 + a33*s0", "-a20*s4 + a21*s2 - a23*s0",
       "-a10*c3 + a11*c1 - a12*c0", "a00*c3 - a01*c1 + a02*c0",
       "-a30*s3 + a31*s1 - a32*s0", "a20*s3 - a21*s1 + a22*s0"]


def space(n: int = 2 ** 22) -> TuningSpace:
    def kernel(p):
        aos = p["layout"] == "aos"

        loads = "\n".join(f"<> a{e // 4}{e % 4} = " + (f"a[i, {e}]" if aos else f"at[{e}, i]")
                          for e in range(16))
        minors = "\n".join(f"<> {name} = {expr}" for name, expr in S.items())
        stores = "\n".join(f"b[i, {e}] = ({ADJ[e]}) * r" for e in range(16))
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            f"""
            {loads}
            {minors}
            <> r = 1.0f / (s0*c5 - s1*c4 + s2*c3 + s3*c2 - s4*c1 + s5*c0)
            {stores}
            """,
            [lp.GlobalArg("a", np.float32, shape=(n, 16)) if aos
             else lp.GlobalArg("at", np.float32, shape=(16, n)),
             lp.GlobalArg("b", np.float32, shape=(n, 16), is_output=True)],
            name="inv4", lang_version=(2018, 2))
        gs, mpi = p["gs"], p["mpi"]
        knl = lp.split_iname(knl, "i", gs * mpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", mpi, outer_tag="l.0", inner_tag="ilp")
        if p["local"]:
            knl = lp.add_prefetch(knl, "a", ["i_inner_outer", "i_inner_inner"],
                                  fetch_bounding_box=True, fetch_outer_inames="i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        # a random part in [-1, 1] on 4 I: well conditioned, no pivoting wanted
        a = 2 * rng.random((n, 4, 4), dtype=np.float32) - 1 + 4 * np.eye(4, dtype=np.float32)
        a = a.astype(np.float32)
        # both layouts of the same matrices: a point's kernel reads the one it names
        return {"a": a.reshape(n, 16), "at": np.ascontiguousarray(a.reshape(n, 16).T)}

    def reference(inputs):
        return {"b": np.linalg.inv(inputs["a"].astype(np.float64).reshape(n, 4, 4))
                .reshape(n, 16)}

    return TuningSpace(
        name="blind12_inv4",
        description=f"inverses of {n} 4 x 4 float32 matrices by cofactors: gs per group, "
                    f"mpi per work item (cyclic or blocked), array of structures or "
                    f"structure of arrays, optional local copy of the group's matrices",
        tune_params={"gs": (32, 64, 128, 256, 512), "mpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("aos", "soa"),
                     "local": (0, 1)},
        restrictions=("n % (gs*mpi) == 0",
                      # the local copy only of matrices stored each after the other
                      lambda p: not p["local"] or (p["layout"] == "aos"
                                                   and p["gs"] * p["mpi"] <= 512),
                      # one matrix: no order to choose
                      lambda p: p["mpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * p["local"] * 16 * p["gs"] * p["mpi"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)
