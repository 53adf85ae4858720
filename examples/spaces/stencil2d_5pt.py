"""2-D 5-point stencil on an n x n float32 grid (input padded by one), a user's space.

    workbench tune examples/spaces/stencil2d_5pt.py:space --param n=8192

Knobs: the work group (bx along the contiguous axis, by rows), rows per work item
(wpi, a sequential loop), and whether the group's tile plus halo is read into local
memory first.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            """
            out[i, j] = 0.5*u[i+1, j+1] + 0.125*(u[i, j+1] + u[i+2, j+1]
                                                 + u[i+1, j] + u[i+1, j+2])
            """,
            [lp.GlobalArg("u", np.float32, shape=(n + 2, n + 2)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="stencil5", lang_version=(2018, 2))
        bx, by, wpi = p["bx"], p["by"], p["wpi"]
        knl = lp.split_iname(knl, "i", by * wpi, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", by, inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "u", ["i_inner_outer", "i_inner_inner", "j_inner"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"u": rng.random((n + 2, n + 2), dtype=np.float32)}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)
        return {"out": 0.5 * u[1:-1, 1:-1] + 0.125 * (u[:-2, 1:-1] + u[2:, 1:-1]
                                                       + u[1:-1, :-2] + u[1:-1, 2:])}

    return TuningSpace(
        name="user_stencil2d_5pt",
        description=f"5-point stencil on {n} x {n} float32: group bx x by, wpi rows "
                    f"per work item, optional local tile with halo",
        tune_params={"bx": (16, 32, 64, 128), "by": (1, 2, 4, 8, 16), "wpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 32 and bx*by <= 1024", "n % (by*wpi) == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["bx"] + 2) * (p["by"] * p["wpi"] + 2),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
