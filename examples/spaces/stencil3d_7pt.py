"""3-D 7-point stencil on an n^3 float32 grid (input padded by one), a user's space.

    workbench tune examples/spaces/stencil3d_7pt.py:space --param n=512

Knobs: the work group over (x, y) and how many z planes each work item marches
through (zpi; one plane per item puts z on grid axis 2 alone).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 512) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[x, y, z]: 0 <= x, y, z < {n}}}",
            """
            out[z, y, x] = 0.4*u[z+1, y+1, x+1] + 0.1*(u[z, y+1, x+1] + u[z+2, y+1, x+1]
                                                       + u[z+1, y, x+1] + u[z+1, y+2, x+1]
                                                       + u[z+1, y+1, x] + u[z+1, y+1, x+2])
            """,
            [lp.GlobalArg("u", np.float32, shape=(n + 2, n + 2, n + 2)),
             lp.GlobalArg("out", np.float32, shape=(n, n, n), is_output=True)],
            name="stencil7", lang_version=(2018, 2))
        knl = lp.split_iname(knl, "x", p["bx"], outer_tag="g.0", inner_tag="l.0")
        knl = lp.split_iname(knl, "y", p["by"], outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "z", p["zpi"], outer_tag="g.2")
        return knl

    def make_inputs(rng):
        return {"u": rng.random((n + 2,) * 3, dtype=np.float32)}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)
        c = (slice(1, -1),) * 3
        return {"out": 0.4 * u[c] + 0.1 * (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]
                                           + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
                                           + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:])}

    return TuningSpace(
        name="user_stencil3d_7pt",
        description=f"7-point stencil on {n}^3 float32: group bx x by, zpi z planes "
                    f"per work item",
        tune_params={"bx": (16, 32, 64, 128), "by": (1, 2, 4, 8, 16),
                     "zpi": (1, 2, 4, 8, 16)},
        restrictions=("bx*by >= 32 and bx*by <= 1024", "n % zpi == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
