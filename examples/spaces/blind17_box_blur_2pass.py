"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventeenth set").
A 3 x 3 box blur (the mean of each pixel's neighbourhood) of an (n + 2) x (n + 2)
float32 image with its one-pixel border, n x n out, as a user writes it three ways:
the nine reads of each output from global memory; the same with the group's tile of
the image (and its halo) first copied to local memory; or separably in one kernel,
two passes through local memory: the group's by + 2 rows summed across in threes
into a local array, then, after a barrier, three of those sums down each column.

    workbench tune examples/spaces/blind17_box_blur_2pass.py:space --param n=8192

Knobs: the work group (bx columns by by rows, a pixel a work item) and the way
(direct, tile, twopass).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        bx, by = p["bx"], p["by"]
        args = [lp.GlobalArg("u", np.float32, shape=(n + 2, n + 2)),
                lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)]
        if p["way"] == "twopass":
            knl = lp.make_kernel(
                f"{{[gi, gj, li, lj, r, c]: 0 <= gi < {n // by} and 0 <= gj < {n // bx}"
                f" and 0 <= li < {by} and 0 <= lj < {bx} and 0 <= r < {by + 2}"
                f" and 0 <= c < {bx}}}",
                f"""
                hs[r, c] = u[gi*{by} + r, gj*{bx} + c] + u[gi*{by} + r, gj*{bx} + c + 1] \
                    + u[gi*{by} + r, gj*{bx} + c + 2]  {{id=across}}
                out[gi*{by} + li, gj*{bx} + lj] = (hs[li, lj] + hs[li + 1, lj] \
                    + hs[li + 2, lj]) / 9.0f  {{dep=across}}
                """,
                [*args, lp.TemporaryVariable("hs", np.float32, shape=(by + 2, bx),
                                             address_space=lp.AddressSpace.LOCAL)],
                name="box_blur_2pass", lang_version=(2018, 2))
            knl = lp.tag_inames(knl, {"gi": "g.1", "gj": "g.0", "li": "l.1", "lj": "l.0",
                                      "c": "l.0"})
            # by + 2 rows on by lanes: the last two rows in a second round
            knl = lp.split_iname(knl, "r", by, inner_tag="l.1")
            return knl
        knl = lp.make_kernel(
            f"{{[i, j, di, dj]: 0 <= i, j < {n} and 0 <= di, dj < 3}}",
            "out[i, j] = sum((di, dj), u[i + di, j + dj]) / 9.0f",
            args, name="box_blur", lang_version=(2018, 2))
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
        if p["way"] == "tile":
            knl = lp.add_prefetch(knl, "u", ["i_inner", "j_inner", "di", "dj"],
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"u": rng.random((n + 2, n + 2), dtype=np.float32)}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)
        return {"out": sum(u[di:di + n, dj:dj + n] for di in range(3)
                           for dj in range(3)) / 9}

    return TuningSpace(
        name="blind17_box_blur_2pass",
        description=f"3 x 3 box blur of an {n} x {n} float32 image: group bx x by, nine "
                    f"global reads, a local tile, or two passes through local memory",
        tune_params={"bx": (16, 32, 64, 128, 256), "by": (1, 2, 4, 8, 16),
                     "way": ("direct", "tile", "twopass")},
        restrictions=("n % by == 0 and n % bx == 0", "bx*by <= 1024"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: {"direct": 0,
                               "tile": 4 * (p["by"] + 2) * (p["bx"] + 2),
                               "twopass": 4 * (p["by"] + 2) * p["bx"]}[p["way"]],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
