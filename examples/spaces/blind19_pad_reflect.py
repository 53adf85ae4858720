"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, nineteenth set").
Reflect padding of a float32 image: an (n - 2p) x (n - 2p) image grown by p = 4
pixels on every side into an n x n one, the border mirrored without repeating the edge
(numpy's np.pad(x, 4, mode="reflect"), the padding a user writes before a convolution
or a filter that must not shrink or darken the edges).

    workbench tune examples/spaces/blind19_pad_reflect.py:space --param n=6144

Knobs: the work group (bx columns by by rows), columns per work item (cpi, cyclic or
blocked, in registers), and how the mirrored index is written (nested selects for
the two borders, or the mirror's period: t = (s + 2 (m - 1)) mod 2 (m - 1), then t or
2 (m - 1) - t).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

PAD = 4


def space(n: int = 6144) -> TuningSpace:
    m = n - 2 * PAD           # the image's side

    def mirrored(name, index):
        s = f"({index} - {PAD})"
        if name == "select":
            return f"if({s} < 0, -{s}, if({s} > {m - 1}, {2 * (m - 1)} - {s}, {s}))"
        # the mirror is periodic in 2 (m - 1): fold, then reflect the upper half
        t = f"(({s} + {2 * (m - 1)}) % {2 * (m - 1)})"
        return f"if({t} < {m}, {t}, {2 * (m - 1)} - {t})"

    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            f"""
            <int32> ri = {mirrored(p["form"], "i")}
            <int32> rj = {mirrored(p["form"], "j")}
            out[i, j] = x[ri, rj]
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, m)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="pad_reflect", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        # the row's index has no column: every lane of the row computes it alike
        return lp.add_inames_for_unused_hw_axes(knl)

    def make_inputs(rng):
        return {"x": (2.0 * rng.random((m, m), dtype=np.float32) - 1.0).astype(np.float32)}

    def reference(inputs):
        return {"out": np.pad(inputs["x"], PAD, mode="reflect")}

    return TuningSpace(
        name="blind19_pad_reflect",
        description=f"reflect padding by {PAD} of a {m} x {m} float32 image to {n} x {n}: "
                    f"group bx x by, cpi columns per work item (cyclic or blocked), the "
                    f"mirrored index by selects or by min/max",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 4), "cpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "form": ("select", "mod")},
        restrictions=("n % by == 0 and n % (bx*cpi) == 0",
                      # one column: no order to choose
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=0.0)
