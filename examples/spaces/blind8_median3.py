"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighth set").
3 x 3 median filter of an (n + 2) x (n + 2) float32 image (8-bit values), n x n out:
each output the median of its nine neighbours, found by the usual network of 19
compare-exchange steps (a min and a max each).

    workbench tune examples/spaces/blind8_median3.py:space --param n=8192

Knobs: the work group (bx columns by by rows), output columns per work item (cpi, in
registers by loopy's ILP) and whether the group's input tile, halo included, is first
read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

#: the compare-exchange steps of the 19-step median-of-nine network (the median ends
#: in the middle place)
NETWORK = ((1, 2), (4, 5), (7, 8), (0, 1), (3, 4), (6, 7), (1, 2), (4, 5), (7, 8),
           (0, 3), (5, 8), (4, 7), (3, 6), (1, 4), (2, 5), (4, 7), (4, 2), (6, 4), (4, 2))


def _instructions() -> str:
    """The network written out, each step two new temporaries (a min and a max)."""
    name = {k: f"v{k}_0" for k in range(9)}
    lines = [f"<> v{3 * di + dj}_0 = x[i + {di}, j + {dj}]"
             for di in range(3) for dj in range(3)]
    for step, (lo, hi) in enumerate(NETWORK, start=1):
        a, b = name[lo], name[hi]
        name[lo], name[hi] = f"v{lo}_{step}", f"v{hi}_{step}"
        lines += [f"<> {name[lo]} = fmin({a}, {b})", f"<> {name[hi]} = fmax({a}, {b})"]
    lines.append(f"out[i, j] = {name[4]}")
    return "\n".join(lines)


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}", _instructions(),
            [lp.GlobalArg("x", np.float32, shape=(n + 2, n + 2)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="median3", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "x", ["i_inner", "j_inner_outer", "j_inner_inner"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="i_outer, j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"x": rng.integers(0, 256, size=(n + 2, n + 2)).astype(np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        views = [x[di:di + n, dj:dj + n] for di in range(3) for dj in range(3)]
        return {"out": np.median(np.stack(views), axis=0)}

    return TuningSpace(
        name="blind8_median3",
        description=f"3 x 3 median filter, {n + 2}^2 to {n}^2 float32 (19-step network): "
                    f"group bx x by, cpi columns per work item, optional local input "
                    f"tile with halo",
        tune_params={"bx": (16, 32, 64, 128), "by": (1, 2, 4, 8), "cpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      "n % by == 0 and n % (bx*cpi) == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * (p["by"] + 2) * (p["bx"] * p["cpi"] + 2),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
