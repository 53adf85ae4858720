"""HELD OUT (never fit or design on it; see README.md). 2-D 9-point box stencil,
float32: out[i, j] = weighted sum of the 3 x 3 neighbourhood of u[i+1, j+1]
(centre 1/4, edges 1/8, corners 1/16), input padded by one.

    workbench tune examples/spaces/heldout_box9.py:space --param n=8192

Knobs: the work group (bx along the contiguous axis, by rows), output columns per
work item (cpi, cyclic, in registers), and whether the group's tile plus halo is read
into local memory first.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

CENTRE, EDGE, CORNER = 0.25, 0.125, 0.0625


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            f"""
            out[i, j] = {CENTRE}f*u[i+1, j+1] \
                + {EDGE}f*(u[i, j+1] + u[i+2, j+1] + u[i+1, j] + u[i+1, j+2]) \
                + {CORNER}f*(u[i, j] + u[i, j+2] + u[i+2, j] + u[i+2, j+2])
            """,
            [lp.GlobalArg("u", np.float32, shape=(n + 2, n + 2)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="box9", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "u", ["i_inner", "j_inner_outer", "j_inner_inner"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"u": rng.random((n + 2, n + 2), dtype=np.float32)}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)

        def at(di, dj):
            return u[di:di + n, dj:dj + n]

        return {"out": CENTRE * at(1, 1)
                + EDGE * (at(0, 1) + at(2, 1) + at(1, 0) + at(1, 2))
                + CORNER * (at(0, 0) + at(0, 2) + at(2, 0) + at(2, 2))}

    return TuningSpace(
        name="heldout_box9",
        description=f"9-point box stencil on {n} x {n} float32: group bx x by, cpi "
                    f"columns per work item, optional local tile with halo",
        tune_params={"bx": (16, 32, 64, 128), "by": (2, 4, 8, 16), "cpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["bx"] * p["cpi"] + 2) * (p["by"] + 2),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
