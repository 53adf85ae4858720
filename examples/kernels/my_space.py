"""A small tuning space written as a user writes one: ``kernel(point)`` builds each
variant of a float32 scaled copy with loopy transformations (no template).

    workbench tune examples/kernels/my_space.py:space --strategy exhaustive --store s.sqlite
    workbench tune examples/kernels/my_space.py:space --strategy model \\
        --weights sample_data/h100/weights-linear.json --budget-evals 3
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 1 << 16


def kernel(point):
    knl = lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = 3*x[i]",
                         [lp.GlobalArg("x, y", np.float32, shape="n"), ...],
                         lang_version=(2018, 2), name="scaled_copy")
    knl = lp.fix_parameters(knl, n=N)
    per_group = point["group"] * point["per_item"]
    knl = lp.split_iname(knl, "i", per_group, outer_tag="g.0")
    knl = lp.split_iname(knl, "i_inner", point["group"],
                         outer_tag="unr" if point["unroll"] else None, inner_tag="l.0")
    return knl


def make_inputs(rng):
    return {"x": rng.random(N).astype(np.float32)}


space = TuningSpace(
    name="scaled_copy", description="y = 3x, work per item and group size",
    tune_params={"group": (32, 64, 128, 256), "per_item": (1, 2, 4), "unroll": (0, 1)},
    restrictions=["per_item > 1 or unroll == 0"],
    group_size=lambda p: (p["group"],), kernel=kernel, make_inputs=make_inputs,
    reference=lambda inputs: {"y": 3 * inputs["x"]})
