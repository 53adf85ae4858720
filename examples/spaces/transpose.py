"""Matrix transpose out = a^T (n x n, float32), a user's tuning space.

    workbench tune examples/spaces/transpose.py:space --param n=8192

Knobs: the work group (bx by by), rows per work item (wpi), and where the work
items go: without a local tile they follow a's rows (reads coalesced, writes
strided); with one they follow out's rows and the tile is read into local memory
with coalesced reads.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            "out[j, i] = a[i, j]",
            [lp.GlobalArg("a", np.float32, shape=(n, n)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="transpose", lang_version=(2018, 2))
        bx, by, wpi = p["bx"], p["by"], p["wpi"]
        # the lanes of axis 0 run along a's rows (j), or along out's rows (i)
        fast, slow = ("i", "j") if p["local"] else ("j", "i")
        knl = lp.split_iname(knl, slow, by * wpi, outer_tag="g.1")
        knl = lp.split_iname(knl, f"{slow}_inner", by, inner_tag="l.1")
        knl = lp.split_iname(knl, fast, bx, outer_tag="g.0", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "a", [f"{slow}_inner_outer", f"{slow}_inner_inner",
                                             f"{fast}_inner"], default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((n, n), dtype=np.float32)}

    def reference(inputs):
        return {"out": inputs["a"].T}

    return TuningSpace(
        name="user_transpose",
        description=f"out = a^T, {n} x {n} float32: group bx x by, wpi rows per work "
                    f"item, direct or through a local tile",
        tune_params={"bx": (8, 16, 32, 64), "by": (2, 4, 8, 16, 32), "wpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024", "n % (by*wpi) == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * p["bx"] * p["by"] * p["wpi"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
