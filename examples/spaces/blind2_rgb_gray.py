"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, second set").
RGB to grey conversion of an h x w float32 image stored interleaved (h, w, 3):
out[i, j] = 0.299 r + 0.587 g + 0.114 b.

    workbench tune examples/spaces/blind2_rgb_gray.py:space --param h=8192 --param w=8192

Knobs: the work group (bx along the contiguous axis, by rows), output pixels per work
item (cpi, cyclic, in registers), and whether the group's interleaved tile is copied
to local memory first.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

WEIGHTS = (0.299, 0.587, 0.114)


def space(h: int = 8192, w: int = 8192) -> TuningSpace:
    def kernel(p):
        r, g, b = WEIGHTS
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i < {h} and 0 <= j < {w}}}",
            f"out[i, j] = {r}f*img[i, j, 0] + {g}f*img[i, j, 1] + {b}f*img[i, j, 2]",
            [lp.GlobalArg("img", np.float32, shape=(h, w, 3)),
             lp.GlobalArg("out", np.float32, shape=(h, w), is_output=True)],
            name="rgb_gray", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, "img", ["i_inner", "j_inner_outer", "j_inner_inner"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"img": rng.random((h, w, 3), dtype=np.float32)}

    def reference(inputs):
        return {"out": inputs["img"].astype(np.float64) @ np.array(WEIGHTS)}

    return TuningSpace(
        name="blind2_rgb_gray",
        description=f"RGB to grey of an interleaved {h} x {w} float32 image: group "
                    f"bx x by, cpi pixels per work item, optional local tile",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4, 8), "cpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024", "w % (bx*cpi) == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 4 * p["local"] * 3 * p["bx"] * p["cpi"] * p["by"],
        problem={"h": h, "w": w}, kernel=kernel, make_inputs=make_inputs,
        reference=reference)
