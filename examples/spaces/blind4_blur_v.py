"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourth set").
Vertical pass of a separable 9-tap blur, float32: out[i, j] = sum_t w[t] u[i + t, j] for
an (n + 8) x n input (the horizontal pass is a separate kernel).

    workbench tune examples/spaces/blind4_blur_v.py:space --param n=8192

Knobs: the work group (bx columns by by rows), output rows per work item (rpi,
interleaved by ILP; neighbouring rows share 8 of their 9 inputs) and whether the
group's input tile (with its 8-row halo) is first copied to local memory.  The taps
are always unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

TAPS = 9


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j, t]: 0 <= i, j < {n} and 0 <= t < {TAPS}}}",
            "out[i, j] = sum(t, w[t] * u[i + t, j])",
            [lp.GlobalArg("u", np.float32, shape=(n + TAPS - 1, n)),
             lp.GlobalArg("w", np.float32, shape=(TAPS,)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="blur_v", lang_version=(2018, 2))
        bx, by, rpi = p["bx"], p["by"], p["rpi"]
        knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
        knl = lp.split_iname(knl, "i", by * rpi, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", by, outer_tag="ilp", inner_tag="l.1")
        if p["local"]:
            knl = lp.add_prefetch(knl, "u", ["i_inner_outer", "i_inner_inner", "j_inner",
                                             "t"],
                                  fetch_bounding_box=True, default_tag="l.auto")
        knl = lp.tag_inames(knl, {"t": "unr"})
        return knl

    def tile_bytes(p):
        return 4 * p["local"] * (p["by"] * p["rpi"] + TAPS - 1) * p["bx"]

    def make_inputs(rng):
        return {"u": rng.random((n + TAPS - 1, n), dtype=np.float32),
                "w": rng.random(TAPS, dtype=np.float32)}

    def reference(inputs):
        u, w = inputs["u"].astype(np.float64), inputs["w"].astype(np.float64)
        return {"out": sum(w[t] * u[t:t + n] for t in range(TAPS))}

    return TuningSpace(
        name="blind4_blur_v",
        description=f"vertical 9-tap blur, {n} x {n} float32: group bx x by, rpi rows "
                    f"per work item, optional local input tile with halo",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4, 8), "rpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("n % bx == 0 and n % (by*rpi) == 0", "bx*by <= 1024",
                      lambda p: tile_bytes(p) <= 48 * 1024),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=tile_bytes,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
