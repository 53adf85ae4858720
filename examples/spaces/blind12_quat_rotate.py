"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, twelfth set").
Each of n 3-vectors rotated by its own unit quaternion (the points of a particle system
or a skinned mesh, each with its orientation): out[i] = q[i] v[i] q[i]^-1, float32.
The vectors and their results are stored as an array of structures (n x 3); the
quaternions (w, x, y, z) either the same way ("aos", n x 4) or component by component
("soa", 4 x n).  The rotation is written either as the sandwich of two Hamilton
products with the conjugate ("sandwich", 28 multiplies) or in the cross-product form
t = 2 u x v, out = v + w t + u x t ("cross", 18 multiplies).

    workbench tune examples/spaces/blind12_quat_rotate.py:space --param n=16777216

Knobs: the group size, vectors per work item (cyclic or blocked, registers), the
quaternions' layout, and the formula.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

FORMULAS = {
    # t = q (0, v), then out = t q*: the conjugate's signs written into the products
    "sandwich": """
        <> tw = -qx*vx - qy*vy - qz*vz
        <> tx = qw*vx + qy*vz - qz*vy
        <> ty = qw*vy + qz*vx - qx*vz
        <> tz = qw*vz + qx*vy - qy*vx
        out[i, 0] = -tw*qx + tx*qw - ty*qz + tz*qy
        out[i, 1] = -tw*qy + tx*qz + ty*qw - tz*qx
        out[i, 2] = -tw*qz - tx*qy + ty*qx + tz*qw
        """,
    # the same rotation for a unit quaternion, u = (qx, qy, qz)
    "cross": """
        <> tx = 2.0f*(qy*vz - qz*vy)
        <> ty = 2.0f*(qz*vx - qx*vz)
        <> tz = 2.0f*(qx*vy - qy*vx)
        out[i, 0] = vx + qw*tx + qy*tz - qz*ty
        out[i, 1] = vy + qw*ty + qz*tx - qx*tz
        out[i, 2] = vz + qw*tz + qx*ty - qy*tx
        """}


def space(n: int = 2 ** 24) -> TuningSpace:
    def kernel(p):
        aos = p["qlayout"] == "aos"
        quat = "\n".join(f"<> q{c} = " + (f"q[i, {k}]" if aos else f"qt[{k}, i]")
                         for k, c in enumerate("wxyz"))
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            f"""
            {quat}
            <> vx = v[i, 0]
            <> vy = v[i, 1]
            <> vz = v[i, 2]
            {FORMULAS[p["formula"]]}
            """,
            [lp.GlobalArg("q", np.float32, shape=(n, 4)) if aos
             else lp.GlobalArg("qt", np.float32, shape=(4, n)),
             lp.GlobalArg("v", np.float32, shape=(n, 3)),
             lp.GlobalArg("out", np.float32, shape=(n, 3), is_output=True)],
            name="quat_rotate", lang_version=(2018, 2))
        gs, vpi = p["gs"], p["vpi"]
        knl = lp.split_iname(knl, "i", gs * vpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", vpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        q = rng.normal(size=(n, 4))
        q = (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)
        v = (2 * rng.random((n, 3), dtype=np.float32) - 1).astype(np.float32)
        # both layouts of the same quaternions: a point's kernel reads the one it names
        return {"q": q, "qt": np.ascontiguousarray(q.T), "v": v}

    def reference(inputs):
        # by the rotation matrix of the (renormalised) quaternion, neither formula
        w, x, y, z = (inputs["q"].astype(np.float64)
                      / np.linalg.norm(inputs["q"].astype(np.float64), axis=1,
                                       keepdims=True)).T
        r = np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z),
                                2 * (x * z + w * y)], axis=-1),
                      np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z),
                                2 * (y * z - w * x)], axis=-1),
                      np.stack([2 * (x * z - w * y), 2 * (y * z + w * x),
                                1 - 2 * (x * x + y * y)], axis=-1)], axis=1)
        return {"out": np.einsum("nij,nj->ni", r, inputs["v"].astype(np.float64))}

    return TuningSpace(
        name="blind12_quat_rotate",
        description=f"{n} float32 3-vectors each rotated by its own unit quaternion: gs "
                    f"per group, vpi per work item (cyclic or blocked), quaternions as an "
                    f"array of structures or a structure of arrays, sandwich or "
                    f"cross-product formula",
        tune_params={"gs": (64, 128, 256, 512, 1024), "vpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "qlayout": ("aos", "soa"),
                     "formula": ("sandwich", "cross")},
        restrictions=("n % (gs*vpi) == 0",
                      # one vector: no order to choose
                      lambda p: p["vpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)
