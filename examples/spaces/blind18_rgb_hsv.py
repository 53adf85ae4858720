"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighteenth set").
n RGB float32 pixels (channels in [0, 1]) converted to HSV, three planes out (an image
segmented or thresholded by hue, as a vision user writes the conversion): v = max(r,
g, b), C = v - min(r, g, b), s = C / v (0 where v = 0) and the hue in degrees,
h = 60 ((g - b) / C mod 6) where r is the largest, 60 ((b - r) / C + 2) where g is,
60 ((r - g) / C + 4) where b is, and 0 where C = 0; the cases by selects.

    workbench tune examples/spaces/blind18_rgb_hsv.py:space --param n=33554432

Knobs: the group size, pixels per work item (ppi, cyclic or blocked, in registers),
the input's layout (interleaved n x 3, or three planes 3 x n), and the hue's division
(by C in each case, or one reciprocal of C multiplied in).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "inter":
            r, g, b = "rgb[i, 0]", "rgb[i, 1]", "rgb[i, 2]"
            arg = lp.GlobalArg("rgb", np.float32, shape=(n, 3))
        else:
            r, g, b = "planes[0, i]", "planes[1, i]", "planes[2, i]"
            arg = lp.GlobalArg("planes", np.float32, shape=(3, n))
        if p["div"] == "each":
            over = "/ c"
            inv = ""
        else:
            over = "* ic"
            inv = "<> ic = if(c > 0.0f, 1.0f / c, 0.0f)"
        body = f"""
        for i
        <> rr = {r}
        <> gg = {g}
        <> bb = {b}
        <> mx = fmax(rr, fmax(gg, bb))
        <> c = mx - fmin(rr, fmin(gg, bb))
        {inv}
        <> hr = (gg - bb) {over}
        <> hue = if(c == 0.0f, 0.0f,
                    if(mx == rr, if(hr < 0.0f, hr + 6.0f, hr),
                       if(mx == gg, (bb - rr) {over} + 2.0f, (rr - gg) {over} + 4.0f)))
        h[i] = 60.0f * hue
        s[i] = if(mx > 0.0f, c / mx, 0.0f)
        v[i] = mx
        end
        """
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            body,
            [arg, *(lp.GlobalArg(name, np.float32, shape=(n,), is_output=True)
                    for name in ("h", "s", "v"))],
            name="rgb_hsv", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # channels in 256ths, as 8-bit values scaled by a power of two: v, C and every
        # difference are exact in float32, so the cases agree with the float64
        # reference and the hue has no cancellation (a tiny hue is a tiny exact
        # difference over C)
        rgb = (rng.integers(0, 256, size=(n, 3)) / 256.0).astype(np.float32)
        # both layouts of the same pixels: a point's kernel reads the one it names
        return {"rgb": rgb, "planes": np.ascontiguousarray(rgb.T)}

    def reference(inputs):
        r, g, b = inputs["rgb"].astype(np.float64).T
        mx = np.maximum(r, np.maximum(g, b))
        c = mx - np.minimum(r, np.minimum(g, b))
        safe = np.where(c > 0, c, 1.0)
        hue = np.where(mx == r, np.mod((g - b) / safe, 6.0),
                       np.where(mx == g, (b - r) / safe + 2.0, (r - g) / safe + 4.0))
        hue = np.where(c == 0, 0.0, hue)
        s = np.where(mx > 0, c / np.where(mx > 0, mx, 1.0), 0.0)
        return {"h": 60.0 * hue, "s": s, "v": mx}

    return TuningSpace(
        name="blind18_rgb_hsv",
        description=f"{n} RGB float32 pixels to HSV planes: gs per group, ppi pixels per "
                    f"work item (cyclic or blocked), interleaved or planar input, the "
                    f"hue divided by C or multiplied by its reciprocal",
        tune_params={"gs": (64, 128, 256), "ppi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "layout": ("inter", "planar"),
                     "div": ("each", "recip")},
        restrictions=("n % (gs*ppi) == 0",
                      # one pixel: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
