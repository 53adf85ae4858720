"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourth set").
3 x 3 max pooling with stride 2 (overlapping windows), float32: out[i, j] is the largest
of u[2i + di, 2j + dj], 0 <= di, dj < 3, for an (2n + 1) x (2n + 1) input.

    workbench tune examples/spaces/blind4_maxpool.py:space --param n=8192

Knobs: the work group (bx columns by by rows), output columns per work item (cpi,
interleaved by ILP) and whether the group's input window is first copied to local
memory (local, the bounding box of its reads).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    m = 2 * n + 1

    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j, di, dj]: 0 <= i, j < {n} and 0 <= di, dj < 3}}",
            "out[i, j] = max((di, dj), u[2*i + di, 2*j + dj])",
            [lp.GlobalArg("u", np.float32, shape=(m, m)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="maxpool3x3", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "u", ["i_inner", "j_inner_outer", "j_inner_inner",
                                             "di", "dj"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        knl = lp.tag_inames(knl, {"di": "unr", "dj": "unr"})
        return knl

    def tile_bytes(p):
        return 4 * p["local"] * (2 * p["by"] + 1) * (2 * p["bx"] * p["cpi"] + 1)

    def make_inputs(rng):
        return {"u": rng.standard_normal((m, m), dtype=np.float32)}

    def reference(inputs):
        u = inputs["u"]
        windows = [u[di:di + 2 * n:2, dj:dj + 2 * n:2] for di in range(3) for dj in range(3)]
        return {"out": np.max(windows, axis=0)}

    return TuningSpace(
        name="blind4_maxpool",
        description=f"3 x 3 max pooling, stride 2, {m}^2 to {n}^2 float32: group bx x "
                    f"by, cpi columns per work item, optional local input window",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4, 8), "cpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("n % by == 0 and n % (bx*cpi) == 0", "bx*by <= 1024",
                      lambda p: tile_bytes(p) <= 48 * 1024),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=tile_bytes,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
