"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighteenth set").
A 3-D float32 array permuted from (x, y, z) to (z, x, y) order: out[k, i, j] =
a[i, j, k] for an X x Y x Z array (a volume or a batch of feature maps moved from
channels-last to channels-first, as a user writes numpy's transpose(2, 0, 1) as a
kernel), pure data movement: the reads run along z, the writes along y.

    workbench tune examples/spaces/blind18_permute3d.py:space --param nx=512 --param ny=512 --param nz=256

Knobs: the work group (by lanes along y, bz along z), z values per work item (zpi,
cyclic or blocked, in registers), and whether the group's y x z tile of a is first
copied to local memory (add_prefetch), so that both the reads and the writes run along
the lanes.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(nx: int = 512, ny: int = 512, nz: int = 256) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j, k]: 0 <= i < {nx} and 0 <= j < {ny} and 0 <= k < {nz}}}",
            "out[k, i, j] = a[i, j, k]",
            [lp.GlobalArg("a", np.float32, shape=(nx, ny, nz)),
             lp.GlobalArg("out", np.float32, shape=(nz, nx, ny), is_output=True)],
            name="permute3d", lang_version=(2018, 2))
        by, bz, zpi = p["by"], p["bz"], p["zpi"]
        knl = lp.tag_inames(knl, {"i": "g.2"})
        knl = lp.split_iname(knl, "j", by, outer_tag="g.0", inner_tag="l.0")
        knl = lp.split_iname(knl, "k", bz * zpi, outer_tag="g.1")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "k_inner", bz, outer_tag="ilp", inner_tag="l.1")
        else:
            knl = lp.split_iname(knl, "k_inner", zpi, outer_tag="l.1", inner_tag="ilp")
        if p["tile"]:
            # the group's by x (bz zpi) tile, read along z by the group's lanes
            knl = lp.add_prefetch(knl, "a", ["j_inner", "k_inner_outer", "k_inner_inner"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        return knl

    def make_inputs(rng):
        return {"a": rng.random((nx, ny, nz), dtype=np.float32)}

    def reference(inputs):
        return {"out": np.ascontiguousarray(inputs["a"].transpose(2, 0, 1))}

    return TuningSpace(
        name="blind18_permute3d",
        description=f"permutation (x, y, z) -> (z, x, y) of a {nx} x {ny} x {nz} float32 "
                    f"array: group by x bz, zpi z values per work item (cyclic or "
                    f"blocked), the tile through local memory or not",
        tune_params={"by": (16, 32, 64), "bz": (4, 8, 16), "zpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "tile": (0, 1)},
        restrictions=("ny % by == 0 and nz % (bz*zpi) == 0",
                      # one value: no order to choose
                      lambda p: p["zpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["by"], p["bz"]),
        local_bytes=lambda p: 4 * p["by"] * p["bz"] * p["zpi"] * p["tile"],
        problem={"nx": nx, "ny": ny, "nz": nz}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=0.0)
