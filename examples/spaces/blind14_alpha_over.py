"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourteenth set").
Porter and Duff's "over": a foreground layer of n RGBA float32 pixels composited onto a
background of n, both with straight (not premultiplied) alpha in [0, 1], as a user
flattens two layers of an image editor or draws a sprite onto a frame:
a = af + ab (1 - af) and c = (cf af + cb ab (1 - af)) / a for each colour channel c,
the result written interleaved (n x 4, alpha last).

    workbench tune examples/spaces/blind14_alpha_over.py:space --param n=16777216

Knobs: the group size, pixels per work item (cyclic or blocked, registers), the layers
read interleaved (n x 4, as an image holds them) or as four planes each (4 x n, as a
user keeps channels apart), and the colour divided by the alpha three times or
multiplied by its reciprocal once.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 24) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "interleaved":
            def fg(c):
                return f"fg[i, {c}]"

            def bg(c):
                return f"bg[i, {c}]"

            ins = [lp.GlobalArg("fg, bg", np.float32, shape=(n, 4))]
        else:
            def fg(c):
                return f"fgp[{c}, i]"

            def bg(c):
                return f"bgp[{c}, i]"

            ins = [lp.GlobalArg("fgp, bgp", np.float32, shape=(4, n))]
        lines = [f"<> af = {fg(3)}", f"<> wb = {bg(3)} * (1.0f - af)",
                 "<> a = af + wb", "out[i, 3] = a"]
        if p["div"] == "recip":
            lines.append("<> inv = 1.0f / a")
        for c in range(3):
            mix = f"{fg(c)} * af + {bg(c)} * wb"
            lines.append(f"out[i, {c}] = ({mix}) * inv" if p["div"] == "recip"
                         else f"out[i, {c}] = ({mix}) / a")
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}", "\n".join(lines),
            [*ins, lp.GlobalArg("out", np.float32, shape=(n, 4), is_output=True)],
            name="alpha_over", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # alphas in [1/4, 1]: the composite's alpha is at least 1/4, so the division
        # never meets a vanishing alpha (a fully transparent pair has no colour)
        fg = rng.random((n, 4), dtype=np.float32)
        bg = rng.random((n, 4), dtype=np.float32)
        for layer in (fg, bg):
            layer[:, 3] = 0.25 + 0.75 * layer[:, 3]
        # the same layers for both layouts: "planar" kernels read their own copies
        return {"fg": fg, "bg": bg, "fgp": np.ascontiguousarray(fg.T),
                "bgp": np.ascontiguousarray(bg.T)}

    def reference(inputs):
        fg = inputs["fg"].astype(np.float64)
        bg = inputs["bg"].astype(np.float64)
        af, wb = fg[:, 3:], bg[:, 3:] * (1 - fg[:, 3:])
        a = af + wb
        return {"out": np.concatenate([(fg[:, :3] * af + bg[:, :3] * wb) / a, a],
                                      axis=1)}

    return TuningSpace(
        name="blind14_alpha_over",
        description=f"Porter-Duff over of two layers of {n} RGBA float32 pixels (straight "
                    f"alpha): gs per group, ppi pixels per work item (cyclic or blocked), "
                    f"layers interleaved or planar, three divisions or one reciprocal",
        tune_params={"gs": (64, 128, 256, 512), "ppi": (1, 2, 4),
                     "order": ("cyclic", "blocked"),
                     "layout": ("interleaved", "planar"), "div": ("div", "recip")},
        restrictions=("n % (gs*ppi) == 0",
                      # one pixel: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
