"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixteenth set").
A horizontal flip (mirror) of an h x w float32 image: out[i, j] = a[i, w - 1 - j] (data
augmentation or a camera's mirrored preview), pure data movement with the reads'
columns running backwards.

    workbench tune examples/spaces/blind16_row_flip.py:space --param h=8192 --param w=8192

Knobs: the work group (bx columns by by rows), columns per work item (cpi, cyclic or
blocked, in registers).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(h: int = 8192, w: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i < {h} and 0 <= j < {w}}}",
            f"out[i, j] = a[i, {w - 1} - j]",
            [lp.GlobalArg("a", np.float32, shape=(h, w)),
             lp.GlobalArg("out", np.float32, shape=(h, w), is_output=True)],
            name="row_flip", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        return {"a": rng.standard_normal((h, w), dtype=np.float32)}

    def reference(inputs):
        return {"out": inputs["a"][:, ::-1]}

    return TuningSpace(
        name="blind16_row_flip",
        description=f"horizontal flip of a {h} x {w} float32 image: group bx x by, cpi "
                    f"columns per work item (cyclic or blocked)",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4, 8), "cpi": (1, 2, 4),
                     "order": ("cyclic", "blocked")},
        restrictions=("h % by == 0 and w % (bx*cpi) == 0", "bx*by <= 1024",
                      # one column: no order to choose
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"h": h, "w": w}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=0.0)
