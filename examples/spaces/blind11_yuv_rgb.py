"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eleventh set").
A video frame of h x w pixels in 8-bit YUV 4:2:0 turned into float32 RGB in [0, 1]
(h x w x 3, interleaved), as a user feeds decoded frames to a network: BT.601 with
limited range, y' = 1.164 (Y - 16), R = y' + 1.596 (V - 128),
G = y' - 0.392 (U - 128) - 0.813 (V - 128), B = y' + 2.017 (U - 128), each over 255 and
clamped to [0, 1]; each chroma sample serves a 2 x 2 block of pixels.  The chroma is
read either as two planes of h/2 x w/2 ("i420") or as one plane of interleaved U, V
pairs ("nv12", h/2 x w/2 x 2, the same samples); the luma is one plane either way.

    workbench tune examples/spaces/blind11_yuv_rgb.py:space --param h=4096 --param w=8192

Knobs: the group shape bx x by, pixels per work item along a row (cyclic, a group's
lanes side by side at each step, or blocked: two neighbours, which share their chroma),
and the chroma format.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

# BT.601, limited range: the luma and chroma weights
KY, KRV, KGU, KGV, KBU = 1.164383, 1.596027, 0.391762, 0.812968, 2.017232


def space(h: int = 4096, w: int = 8192) -> TuningSpace:
    def kernel(p):
        if p["format"] == "i420":
            u, v = "u[i // 2, j // 2]", "v[i // 2, j // 2]"
            chroma = [lp.GlobalArg("u", np.uint8, shape=(h // 2, w // 2)),
                      lp.GlobalArg("v", np.uint8, shape=(h // 2, w // 2))]
        else:
            u, v = "uv[i // 2, j // 2, 0]", "uv[i // 2, j // 2, 1]"
            chroma = [lp.GlobalArg("uv", np.uint8, shape=(h // 2, w // 2, 2))]
        scale = f"{1 / 255:.9f}f"
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i < {h} and 0 <= j < {w}}}",
            f"""
            <> ly = {KY}f * (y[i, j] - 16.0f)
            <> cb = {u} - 128.0f
            <> cr = {v} - 128.0f
            <> r = (ly + {KRV}f * cr) * {scale}
            <> g = (ly - {KGU}f * cb - {KGV}f * cr) * {scale}
            <> b = (ly + {KBU}f * cb) * {scale}
            rgb[i, j, 0] = if(r < 0.0f, 0.0f, if(r > 1.0f, 1.0f, r))
            rgb[i, j, 1] = if(g < 0.0f, 0.0f, if(g > 1.0f, 1.0f, g))
            rgb[i, j, 2] = if(b < 0.0f, 0.0f, if(b > 1.0f, 1.0f, b))
            """,
            [lp.GlobalArg("y", np.uint8, shape=(h, w)), *chroma,
             lp.GlobalArg("rgb", np.float32, shape=(h, w, 3), is_output=True)],
            name="yuv_rgb", lang_version=(2018, 2))
        bx, by, ppi = p["bx"], p["by"], p["ppi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # the full 8-bit range, beyond the limited range's 16-235: the clamps act
        return {"y": rng.integers(0, 256, size=(h, w), dtype=np.uint8),
                "u": (u := rng.integers(0, 256, size=(h // 2, w // 2), dtype=np.uint8)),
                "v": (v := rng.integers(0, 256, size=(h // 2, w // 2), dtype=np.uint8)),
                "uv": np.stack([u, v], axis=2)}

    def reference(inputs):
        ly = KY * (inputs["y"].astype(np.float64) - 16)
        cb = np.repeat(np.repeat(inputs["u"].astype(np.float64) - 128, 2, 0), 2, 1)
        cr = np.repeat(np.repeat(inputs["v"].astype(np.float64) - 128, 2, 0), 2, 1)
        rgb = np.stack([ly + KRV * cr, ly - KGU * cb - KGV * cr, ly + KBU * cb], axis=2)
        return {"rgb": np.clip(rgb / 255, 0, 1)}

    return TuningSpace(
        name="blind11_yuv_rgb",
        description=f"8-bit YUV 4:2:0 to float32 RGB, {h} x {w} pixels: bx x by groups, "
                    f"ppi pixels per work item, cyclic or blocked, chroma as two planes "
                    f"(i420) or interleaved (nv12)",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4, 8), "ppi": (1, 2),
                     "order": ("cyclic", "blocked"), "format": ("i420", "nv12")},
        restrictions=("bx*by >= 64 and bx*by <= 1024", "w % (bx*ppi) == 0",
                      "h % by == 0",
                      # one pixel: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"h": h, "w": w}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-3)   # the absolute floor, 1e-6, above a clamp's ulps
