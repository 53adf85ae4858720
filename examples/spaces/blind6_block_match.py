"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixth set").
Block matching (the search step of motion estimation): for each 8 x 8 block of an
h x w float32 frame A and each of the s x s displacements (dy, dx), the sum of squared
differences against the reference frame B (padded by s - 1 at the bottom and right):
out[bi, bj, dy, dx] = sum_{u, v < 8} (A[8 bi + u, 8 bj + v] - B[8 bi + u + dy, 8 bj + v + dx])^2.

    workbench tune examples/spaces/blind6_block_match.py:space --param h=2048 --param w=2048

Knobs: the displacements on the lanes (dx along axis 0, dy along axis 1, dpi rows of
displacements per work item in registers), blocks of a row per group (bpg, on axis 2),
whether the block of A and the search window of B are first copied to local memory,
and the unrolling of the 8 x 8 sum (none, the inner v loop, or both loops).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

BLOCK = 8


def space(h: int = 2048, w: int = 2048, s: int = 8) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[bi, bj, dy, dx, u, v]: 0 <= bi < {h // BLOCK} and 0 <= bj < {w // BLOCK} "
            f"and 0 <= dy, dx < {s} and 0 <= u, v < {BLOCK}}}",
            f"""
            <> diff = A[{BLOCK}*bi + u, {BLOCK}*bj + v] \
                - B[{BLOCK}*bi + u + dy, {BLOCK}*bj + v + dx]
            out[bi, bj, dy, dx] = sum((u, v), diff*diff)
            """,
            [lp.GlobalArg("A", np.float32, shape=(h, w)),
             lp.GlobalArg("B", np.float32, shape=(h + s - 1, w + s - 1)),
             lp.GlobalArg("out", np.float32, shape=(h // BLOCK, w // BLOCK, s, s),
                          is_output=True)],
            name="block_match", lang_version=(2018, 2))
        bpg, dpi = p["bpg"], p["dpi"]
        knl = lp.tag_inames(knl, {"bi": "g.1", "dx": "l.0"})
        knl = lp.split_iname(knl, "bj", bpg, outer_tag="g.0", inner_tag="l.2")
        knl = lp.split_iname(knl, "dy", dpi, outer_tag="l.1", inner_tag="ilp")
        if p["unroll"] in ("v", "uv"):
            knl = lp.tag_inames(knl, {"v": "unr"})
        if p["unroll"] == "uv":
            knl = lp.tag_inames(knl, {"u": "unr"})
        if p["local_a"]:
            knl = lp.add_prefetch(knl, "A", ["bj_inner", "u", "v"],
                                  fetch_outer_inames="bi, bj_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        if p["local_b"]:
            knl = lp.add_prefetch(knl, "B", ["bj_inner", "u", "v", "dy_outer", "dy_inner",
                                             "dx"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="bi, bj_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        if p["local_a"] or p["local_b"]:
            # a copy's loops may use fewer lanes than the group has (loopy's advice)
            knl = lp.add_inames_for_unused_hw_axes(knl)
        return knl

    def make_inputs(rng):
        return {"A": rng.random((h, w), dtype=np.float32),
                "B": rng.random((h + s - 1, w + s - 1), dtype=np.float32)}

    def reference(inputs):
        a = inputs["A"].astype(np.float64)
        out = np.empty((h // BLOCK, w // BLOCK, s, s))
        for dy in range(s):
            for dx in range(s):
                d = (a - inputs["B"][dy:dy + h, dx:dx + w]) ** 2
                out[:, :, dy, dx] = d.reshape(h // BLOCK, BLOCK, w // BLOCK,
                                              BLOCK).sum(axis=(1, 3))
        return {"out": out}

    return TuningSpace(
        name="blind6_block_match",
        description=f"8 x 8 block matching over {s} x {s} displacements, {h} x {w} "
                    f"float32: dpi displacement rows per work item, bpg blocks per "
                    f"group, optional local copies of A's block and B's window, the "
                    f"sum unrolled",
        tune_params={"bpg": (1, 2, 4, 8, 16), "dpi": (1, 2), "local_a": (0, 1),
                     "local_b": (0, 1), "unroll": ("none", "v", "uv")},
        restrictions=(f"{w // BLOCK} % bpg == 0 and {s} % dpi == 0",),
        group_size=lambda p: (s, s // p["dpi"], p["bpg"]),
        local_bytes=lambda p: 4 * (p["local_a"] * BLOCK * BLOCK * p["bpg"]
                                   + p["local_b"] * (BLOCK + s - 1)
                                   * (BLOCK * p["bpg"] + s - 1)),
        problem={"h": h, "w": w, "s": s}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-4)
