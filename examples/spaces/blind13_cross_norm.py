"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, thirteenth set").
The unit normals of n triangles from two edge vectors each (a mesh's face normals, or
a local frame's third axis): c = a x b, out = c / |c|, float32.  The normals are
written as a structure of arrays (3 x n); the edges are read either the same way
("soa", 3 x n each) or as an array of structures ("aos", n x 3 each, the way a
mesh's vertices often come).

    workbench tune examples/spaces/blind13_cross_norm.py:space --param n=16777216

Knobs: the group size, normals per work item (cyclic or blocked, registers), the
edges' layout, and the normalisation as three divisions by the length or one
reciprocal and three products.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 24) -> TuningSpace:
    def kernel(p):
        def comp(name, k):
            return f"{name}[{k}, i]" if p["layout"] == "soa" else f"{name}_aos[i, {k}]"

        ax, ay, az = (comp("a", k) for k in range(3))
        bx, by, bz = (comp("b", k) for k in range(3))
        if p["norm"] == "div":
            scale = ["<> len = sqrt(cx*cx + cy*cy + cz*cz)"] + [
                f"out[{k}, i] = c{v} / len" for k, v in enumerate("xyz")]
        else:
            scale = ["<> inv = 1.0f / sqrt(cx*cx + cy*cy + cz*cz)"] + [
                f"out[{k}, i] = c{v} * inv" for k, v in enumerate("xyz")]
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            "\n".join([f"<> cx = {ay} * {bz} - {az} * {by}",
                       f"<> cy = {az} * {bx} - {ax} * {bz}",
                       f"<> cz = {ax} * {by} - {ay} * {bx}", *scale]),
            [lp.GlobalArg("a, b", np.float32, shape=(3, n)) if p["layout"] == "soa"
             else lp.GlobalArg("a_aos, b_aos", np.float32, shape=(n, 3)),
             lp.GlobalArg("out", np.float32, shape=(3, n), is_output=True)],
            name="cross_norm", lang_version=(2018, 2))
        gs, vpi = p["gs"], p["vpi"]
        knl = lp.split_iname(knl, "i", gs * vpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", vpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # small integers: the cross products are exact, only the normalisation rounds;
        # an edge pair whose cross product vanishes is drawn again, both edges (a zero
        # edge a stays flat whatever b is drawn: redrawing b alone never ended on the
        # H100's 2^24 pairs)
        a = rng.integers(-8, 9, size=(3, n)).astype(np.float32)
        b = rng.integers(-8, 9, size=(3, n)).astype(np.float32)
        while True:
            flat = ~np.cross(a, b, axis=0).any(axis=0)
            if not flat.any():
                break
            a[:, flat] = rng.integers(-8, 9, size=(3, int(flat.sum())))
            b[:, flat] = rng.integers(-8, 9, size=(3, int(flat.sum())))
        # both layouts get the same edges: "aos" kernels read the transposed copies
        return {"a": a, "b": b, "a_aos": np.ascontiguousarray(a.T),
                "b_aos": np.ascontiguousarray(b.T)}

    def reference(inputs):
        c = np.cross(inputs["a"].astype(np.float64), inputs["b"].astype(np.float64),
                     axis=0)
        return {"out": c / np.linalg.norm(c, axis=0)}

    return TuningSpace(
        name="blind13_cross_norm",
        description=f"unit normals c / |c|, c = a x b, of {n} float32 edge pairs, out "
                    f"3 x n: gs per group, vpi normals per work item (cyclic or "
                    f"blocked), edges as a structure of arrays or an array of "
                    f"structures, three divisions or a reciprocal",
        tune_params={"gs": (64, 128, 256, 512), "vpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("soa", "aos"),
                     "norm": ("div", "recip")},
        restrictions=("n % (gs*vpi) == 0",
                      # one normal: no order to choose
                      lambda p: p["vpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
