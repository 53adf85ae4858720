"""BLIND (never fit, choose or tune anything on it; see README.md). A batch of small
matrix transposes, float32: out[b] = a[b]^T for nb matrices of 32 x 32.

    workbench tune examples/spaces/blind_batched_transpose.py:space --param nb=65536

Knobs: which side the lanes of axis 0 run along (side: a's rows, so reads are
contiguous, or out's rows, so writes are), rows per work item (rpi, cyclic, the
group being 32 x 32/rpi), matrices per work group (mpg, one after another) and
whether each matrix is read into local memory first.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

T = 32   # matrix side


def space(nb: int = 2 ** 16) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[b, i, j]: 0 <= b < {nb} and 0 <= i, j < {T}}}",
            "out[b, j, i] = a[b, i, j]",
            [lp.GlobalArg("a", np.float32, shape=(nb, T, T)),
             lp.GlobalArg("out", np.float32, shape=(nb, T, T), is_output=True)],
            name="batched_transpose", lang_version=(2018, 2))
        fast, slow = ("j", "i") if p["side"] == "read" else ("i", "j")
        knl = lp.split_iname(knl, "b", p["mpg"], outer_tag="g.0")
        knl = lp.split_iname(knl, slow, T // p["rpi"], outer_tag="ilp", inner_tag="l.1")
        knl = lp.tag_inames(knl, {fast: "l.0"})
        if p["local"]:
            knl = lp.add_prefetch(knl, "a", [f"{slow}_outer", f"{slow}_inner", fast],
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((nb, T, T), dtype=np.float32)}

    def reference(inputs):
        return {"out": inputs["a"].transpose(0, 2, 1)}

    return TuningSpace(
        name="blind_batched_transpose",
        description=f"{nb} transposes of {T} x {T} float32 matrices: lanes along reads "
                    f"or writes, rpi rows per work item, mpg matrices per group in "
                    f"sequence, optional local copy",
        tune_params={"side": ("read", "write"), "rpi": (1, 2, 4, 8),
                     "mpg": (1, 2, 4, 8, 16), "local": (0, 1)},
        restrictions=("nb % mpg == 0",),
        group_size=lambda p: (T, T // p["rpi"]),
        local_bytes=lambda p: 4 * p["local"] * T * T,
        problem={"nb": nb}, kernel=kernel, make_inputs=make_inputs, reference=reference)
