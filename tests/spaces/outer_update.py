"""A tuning space written as a plain user would, kept out of the design of the
per-structure counting (workbench.models.structure_counts): written before that
method, never used to shape it; the test only checks counts against per-point ones.

out[i, j] = a[i, j] * s[j] + t[i]  (a scaled rank-one update), m x n float32.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 2048, n: int = 1024) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i < {m} and 0 <= j < {n}}}",
            "out[i, j] = a[i, j] * s[j] + t[i]",
            [lp.GlobalArg("a", np.float32, shape=(m, n)),
             lp.GlobalArg("s", np.float32, shape=(n,)),
             lp.GlobalArg("t", np.float32, shape=(m,)),
             lp.GlobalArg("out", np.float32, shape=(m, n), is_output=True)],
            name="outer_update", lang_version=(2018, 2))
        cols, rows, per = p["cols"], p["rows"], p["per_item"]
        knl = lp.split_iname(knl, "j", cols, outer_tag="g.0", inner_tag="l.0")
        if p["layout"] == "rows_in_sequence":
            knl = lp.split_iname(knl, "i", rows * per, outer_tag="g.1")
            knl = lp.split_iname(knl, "i_inner", per, outer_tag="l.1")
        else:
            knl = lp.split_iname(knl, "i", rows * per, outer_tag="g.1")
            knl = lp.split_iname(knl, "i_inner", rows, outer_tag="ilp", inner_tag="l.1")
        if p["stage_s"]:
            knl = lp.add_prefetch(knl, "s", ["j_inner"], default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((m, n), dtype=np.float32),
                "s": rng.random(n, dtype=np.float32),
                "t": rng.random(m, dtype=np.float32)}

    def reference(inputs):
        return {"out": inputs["a"] * inputs["s"][None, :] + inputs["t"][:, None]}

    return TuningSpace(
        name="test_outer_update",
        description=f"out = a * s + t on {m} x {n}: cols x rows group, per_item rows "
                    f"per item, in sequence or interleaved, s staged in local memory",
        tune_params={"cols": (16, 32, 64, 128), "rows": (1, 2, 4, 8),
                     "per_item": (1, 2, 4), "layout": ("rows_in_sequence", "interleaved"),
                     "stage_s": (0, 1)},
        restrictions=("cols*rows >= 32 and cols*rows <= 512",
                      "m % (rows*per_item) == 0"),
        group_size=lambda p: (p["cols"], p["rows"]),
        local_bytes=lambda p: 4 * p["stage_s"] * p["cols"],
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference)
