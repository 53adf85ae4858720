"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourth set").
Scaled row scatter, float32: out[perm[r], c] = w[r] * a[r, c] for an m x n matrix and a
random permutation perm of its rows (as in putting weighted rows back in their places
after a sort or a routing step).

    workbench tune examples/spaces/blind4_row_scatter.py:space --param m=131072 --param n=512

Knobs: the lanes along a row (bx), rows per work group (rpg), columns per work item
(cpi) and whether a work item's columns are bx apart (cyclic) or adjacent (blocked).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 131072, n: int = 512) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[r, c]: 0 <= r < {m} and 0 <= c < {n}}}",
            "out[perm[r], c] = w[r] * a[r, c]",
            [lp.GlobalArg("a", np.float32, shape=(m, n)),
             lp.GlobalArg("w", np.float32, shape=(m,)),
             lp.GlobalArg("perm", np.int32, shape=(m,)),
             lp.GlobalArg("out", np.float32, shape=(m, n), is_output=True)],
            name="row_scatter", lang_version=(2018, 2))
        bx, rpg, cpi = p["bx"], p["rpg"], p["cpi"]
        knl = lp.split_iname(knl, "r", rpg, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "c", bx * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "c_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "c_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((m, n), dtype=np.float32),
                "w": rng.random(m, dtype=np.float32),
                "perm": rng.permutation(m).astype(np.int32)}

    def reference(inputs):
        out = np.empty((m, n))
        out[inputs["perm"]] = inputs["w"][:, None].astype(np.float64) * inputs["a"]
        return {"out": out}

    return TuningSpace(
        name="blind4_row_scatter",
        description=f"out[perm[r], :] = w[r] a[r, :], {m} x {n} float32, random row "
                    f"permutation: bx lanes per row, rpg rows per group, cpi columns "
                    f"per work item, cyclic or blocked",
        tune_params={"bx": (32, 64, 128, 256, 512), "rpg": (1, 2, 4, 8),
                     "cpi": (1, 2, 4), "order": ("cyclic", "blocked")},
        restrictions=("n % (bx*cpi) == 0 and m % rpg == 0", "bx*rpg <= 1024",
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["rpg"]),
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference)
