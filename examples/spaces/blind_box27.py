"""BLIND (never fit, choose or tune anything on it; see README.md). 3-D 27-point box
stencil on an n^3 float32 grid, input padded by one: out[z, y, x] = sum over the
3 x 3 x 3 neighbourhood of w[dz, dy, dx] u[z+dz, y+dy, x+dx], the weights an input.

    workbench tune examples/spaces/blind_box27.py:space --param n=384

Knobs: the work group over (x, y), how many z planes each work item marches through
(zpi, one after another) and whether the group's box plus halo is read into local
memory first.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 384) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[z, y, x, dz, dy, dx]: 0 <= z, y, x < {n} and 0 <= dz, dy, dx < 3}}",
            "out[z, y, x] = sum((dz, dy, dx), w[dz, dy, dx] * u[z + dz, y + dy, x + dx])",
            [lp.GlobalArg("u", np.float32, shape=(n + 2, n + 2, n + 2)),
             lp.GlobalArg("w", np.float32, shape=(3, 3, 3)),
             lp.GlobalArg("out", np.float32, shape=(n, n, n), is_output=True)],
            name="box27", lang_version=(2018, 2))
        knl = lp.split_iname(knl, "x", p["bx"], outer_tag="g.0", inner_tag="l.0")
        knl = lp.split_iname(knl, "y", p["by"], outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "z", p["zpi"], outer_tag="g.2")
        if p["local"]:
            knl = lp.add_prefetch(knl, "u", ["z_inner", "y_inner", "x_inner",
                                             "dz", "dy", "dx"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"u": rng.random((n + 2,) * 3, dtype=np.float32),
                "w": rng.random((3, 3, 3), dtype=np.float32)}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)
        w = inputs["w"].astype(np.float64)
        out = np.zeros((n, n, n))
        for dz in range(3):
            for dy in range(3):
                for dx in range(3):
                    out += w[dz, dy, dx] * u[dz:dz + n, dy:dy + n, dx:dx + n]
        return {"out": out}

    return TuningSpace(
        name="blind_box27",
        description=f"27-point box stencil on {n}^3 float32: group bx x by, zpi z planes "
                    f"per work item, optional local box with halo",
        tune_params={"bx": (16, 32, 64, 128), "by": (1, 2, 4, 8), "zpi": (1, 2, 4, 8),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 512", "n % bx == 0", "n % by == 0",
                      "n % zpi == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["bx"] + 2) * (p["by"] + 2)
        * (p["zpi"] + 2),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # float32 sums of 27 products
