"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, ninth set").
An n x n float32 image rotated and scaled about its centre with bilinear sampling: the
output pixel (i, j) samples the input at sx = 0.75 (j - n/2) - 0.5 (i - n/2) + n/2,
sy = 0.5 (j - n/2) + 0.75 (i - n/2) + n/2 (a rotation by atan(2/3) and a scale of 0.9),
clamped to [0, n - 2], from its four neighbours (an 8-bit image held as float32 and
coefficients that are multiples of 1/4: every coordinate, weight and sum is exact).

    workbench tune examples/spaces/blind9_warp_affine.py:space --param n=8192

Knobs: the work group (bx columns by by rows), output rows per work item (rpi, unrolled)
and whether an item's rows are cyclic (by rows apart) or blocked (adjacent).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 8192) -> TuningSpace:
    c = n // 2

    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            f"""
            for i, j
                <> sx = fmin(fmax(0.75f*(j - {c}) - 0.5f*(i - {c}) + {c}.0f, 0.0f), {n - 2}.0f)
                <> sy = fmin(fmax(0.5f*(j - {c}) + 0.75f*(i - {c}) + {c}.0f, 0.0f), {n - 2}.0f)
                <int32> x0 = floor(sx)
                <int32> y0 = floor(sy)
                <> fx = sx - x0
                <> fy = sy - y0
                out[i, j] = (1.0f - fy) * ((1.0f - fx) * a[y0, x0] + fx * a[y0, x0 + 1]) \
                    + fy * ((1.0f - fx) * a[y0 + 1, x0] + fx * a[y0 + 1, x0 + 1])
            end
            """,
            [lp.GlobalArg("a", np.float32, shape=(n, n)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="warp_affine", lang_version=(2018, 2))
        bx, by, rpi = p["bx"], p["by"], p["rpi"]
        knl = lp.split_iname(knl, "i", by * rpi, outer_tag="g.1")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", by, outer_tag="unr", inner_tag="l.1")
        else:
            knl = lp.split_iname(knl, "i_inner", rpi, outer_tag="l.1", inner_tag="unr")
        knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
        return knl

    def make_inputs(rng):
        return {"a": rng.integers(0, 256, size=(n, n)).astype(np.float32)}

    def reference(inputs):
        a = inputs["a"].astype(np.float64)
        i, j = np.meshgrid(np.arange(n, dtype=np.float64), np.arange(n, dtype=np.float64),
                           indexing="ij")
        sx = np.clip(0.75 * (j - c) - 0.5 * (i - c) + c, 0, n - 2)
        sy = np.clip(0.5 * (j - c) + 0.75 * (i - c) + c, 0, n - 2)
        x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        fx, fy = sx - x0, sy - y0
        return {"out": (1 - fy) * ((1 - fx) * a[y0, x0] + fx * a[y0, x0 + 1])
                + fy * ((1 - fx) * a[y0 + 1, x0] + fx * a[y0 + 1, x0 + 1])}

    return TuningSpace(
        name="blind9_warp_affine",
        description=f"rotation and scale of a {n}^2 float32 image about its centre with "
                    f"bilinear sampling: group bx x by, rpi rows per work item, cyclic or "
                    f"blocked",
        tune_params={"bx": (8, 16, 32, 64, 128), "by": (1, 2, 4, 8, 16), "rpi": (1, 2, 4),
                     "order": ("cyclic", "blocked")},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      "n % (by*rpi) == 0 and n % bx == 0",
                      # one row: no order to choose
                      lambda p: p["rpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 0,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
