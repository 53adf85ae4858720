"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifteenth set").
The vertices of many objects moved by their own object's 4 x 4 transform (a scene's
meshes or a batch of point clouds, each placed by its model matrix): nobj objects of
V = 1024 homogeneous float32 vertices each, out[o, q, c] = sum_k M[o, c, k] v[o, q, k],
so that one matrix is shared by all the vertices of its object (a group's vertices
all belong to one object).  The vertices are read either as an array of structures
("aos", nobj x V x 4) or as a structure of arrays ("soa", 4 x nobj x V, the same
vertices); the output is always nobj x V x 4.

    workbench tune examples/spaces/blind15_obj_xform.py:space --param nobj=32768

Knobs: the group size (gs vertices), vertices per work item (vpi, cyclic or blocked,
in registers), the vertices' layout, and whether the group's matrix is first copied
to local memory or read from global memory by every work item (loopy then types the
sum's accumulator as a float64, as it does for blind9_xform4's local copy; the
products and sums here are exact either way).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

V = 1024   # vertices an object


def space(nobj: int = 2 ** 15) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "aos":
            vert, ins = "v[o, q, k]", [lp.GlobalArg("v", np.float32, shape=(nobj, V, 4))]
        else:
            vert, ins = "vs[k, o, q]", [lp.GlobalArg("vs", np.float32, shape=(4, nobj, V))]
        knl = lp.make_kernel(
            f"{{[o, q, c, k]: 0 <= o < {nobj} and 0 <= q < {V} and 0 <= c, k < 4}}",
            f"out[o, q, c] = sum(k, M[o, c, k] * {vert})",
            [*ins, lp.GlobalArg("M", np.float32, shape=(nobj, 4, 4)),
             lp.GlobalArg("out", np.float32, shape=(nobj, V, 4), is_output=True)],
            name="obj_xform", lang_version=(2018, 2))
        gs, vpi = p["gs"], p["vpi"]
        knl = lp.tag_inames(knl, {"o": "g.1", "c": "unr", "k": "unr"})
        knl = lp.split_iname(knl, "q", gs * vpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "q_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "q_inner", vpi, outer_tag="l.0", inner_tag="ilp")
        if p["mat"] == "local":
            # the object's sixteen entries, copied once by the group's lanes
            knl = lp.add_prefetch(knl, "M", ["c", "k"], fetch_outer_inames="o, q_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        # eighths in [-1, 1] and sixteenths in [-4, 4]: every product and sum is exact
        m = (rng.integers(-8, 9, size=(nobj, 4, 4)) / 8).astype(np.float32)
        v = (rng.integers(-64, 65, size=(nobj, V, 4)) / 16).astype(np.float32)
        v[:, :, 3] = 1.0   # homogeneous points
        # both layouts of the same vertices: a point's kernel reads the one it names
        return {"M": m, "v": v, "vs": np.ascontiguousarray(v.transpose(2, 0, 1))}

    def reference(inputs):
        m = inputs["M"].astype(np.float64)
        v = inputs["v"].astype(np.float64)
        return {"out": np.einsum("ock,oqk->oqc", m, v)}

    return TuningSpace(
        name="blind15_obj_xform",
        description=f"{nobj} objects of {V} float32 vertices, each moved by its object's "
                    f"4 x 4 transform: gs vertices per group, vpi per work item (cyclic "
                    f"or blocked), vertices as structures or arrays, the matrix from "
                    f"local or global memory",
        tune_params={"gs": (32, 64, 128, 256), "vpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("aos", "soa"),
                     "mat": ("global", "local")},
        restrictions=(f"{V} % (gs*vpi) == 0",
                      # one vertex: no order to choose
                      lambda p: p["vpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 64 if p["mat"] == "local" else 0,
        problem={"nobj": nobj}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-6)
