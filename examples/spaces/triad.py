"""Vector triad a = b + s c (float32), a user's tuning space.

    workbench tune examples/spaces/triad.py:space --param n=67108864

Knobs: the work-group size, elements per work item (wpi, unrolled), and how a
work item's elements lie: cyclic (lane l takes l, l + g, ...: every access
coalesced) or blocked (lane l takes wpi consecutive elements: lanes wpi apart).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

SCALE = 3.0


def space(n: int = 2 ** 26) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            f"a[i] = b[i] + {SCALE}f*c[i]",
            [lp.GlobalArg("b, c", np.float32, shape=(n,)),
             lp.GlobalArg("a", np.float32, shape=(n,), is_output=True)],
            name="triad", lang_version=(2018, 2))
        g, wpi = p["g"], p["wpi"]
        knl = lp.split_iname(knl, "i", g * wpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", g, outer_tag="unr", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", wpi, outer_tag="l.0", inner_tag="unr")
        return knl

    def make_inputs(rng):
        return {"b": rng.random(n, dtype=np.float32), "c": rng.random(n, dtype=np.float32)}

    def reference(inputs):
        return {"a": inputs["b"] + np.float32(SCALE) * inputs["c"]}

    return TuningSpace(
        name="user_triad",
        description=f"a = b + {SCALE} c over {n} float32: group size g, wpi elements "
                    f"per work item, cyclic or blocked",
        tune_params={"g": (32, 64, 128, 256, 512, 1024), "wpi": (1, 2, 4, 8, 16, 32),
                     "order": ("cyclic", "blocked")},
        restrictions=(lambda p: p["wpi"] > 1 or p["order"] == "cyclic",
                      "n % (g*wpi) == 0"),
        group_size=lambda p: (p["g"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
