"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, tenth set").
An array of n float32 3-vectors stored as structures (x, y, z interleaved: n x 3) copied
into a structure of arrays (three planes: 3 x n), as a user converts particle positions
or RGB pixels before a kernel that wants them apart: out[f, i] = v[i, f].  The reads
stride by three floats, the writes are contiguous.

    workbench tune examples/spaces/blind10_aos3_split.py:space --param n=33554432

Knobs: the group size, vectors per work item (cyclic or blocked, in registers by
loopy's ILP), the three fields' loop unrolled or not, and whether the group's slice of
the interleaved input is first read into local memory (contiguous reads, the stride
taken from local memory).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

F = 3


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, f]: 0 <= i < {n} and 0 <= f < {F}}}",
            "out[f, i] = v[i, f]",
            [lp.GlobalArg("v", np.float32, shape=(n, F)),
             lp.GlobalArg("out", np.float32, shape=(F, n), is_output=True)],
            name="aos3_split", lang_version=(2018, 2))
        gs, vpi = p["gs"], p["vpi"]
        knl = lp.split_iname(knl, "i", gs * vpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", vpi, outer_tag="l.0", inner_tag="ilp")
        if p["fields"] == "unrolled":
            knl = lp.tag_inames(knl, {"f": "unr"})
        if p["local"]:
            knl = lp.add_prefetch(knl, "v", ["i_inner_outer", "i_inner_inner", "f"],
                                  fetch_outer_inames="i_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag=None)
            # the group's lanes along the vectors (loopy's l.auto would put the
            # three fields on the lanes), the fields unrolled within a lane
            knl = lp.split_iname(knl, "v_dim_0", gs, inner_tag="l.0")
            knl = lp.tag_inames(knl, {"v_dim_1": "unr"})
        return knl

    def make_inputs(rng):
        return {"v": rng.random((n, F), dtype=np.float32)}

    def reference(inputs):
        return {"out": np.ascontiguousarray(inputs["v"].T).astype(np.float64)}

    return TuningSpace(
        name="blind10_aos3_split",
        description=f"{n} float32 3-vectors from an array of structures to a structure "
                    f"of arrays: gs per group, vpi vectors per work item, cyclic or "
                    f"blocked, fields unrolled or looped, optional local copy of the "
                    f"group's interleaved input",
        tune_params={"gs": (64, 128, 256, 512, 1024), "vpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "fields": ("loop", "unrolled"),
                     "local": (0, 1)},
        restrictions=("n % (gs*vpi) == 0",
                      # one vector: no order to choose
                      lambda p: p["vpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * F * p["local"] * p["gs"] * p["vpi"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-6)
