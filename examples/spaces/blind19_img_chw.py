"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, nineteenth set").
An 8-bit RGB image made a network's input: h x w pixels stored interleaved (HWC, uint8)
become three float32 planes (CHW), each channel scaled to [0, 1] and standardised with
ImageNet's means and deviations, out[c, p] = (img[p, c] / 255 - mean[c]) / std[c]
(the preprocessing a user writes on the GPU so that decoded frames go straight to a
classifier).

    workbench tune examples/spaces/blind19_img_chw.py:space --param h=4096 --param w=8192

Knobs: the group size, pixels per work item (ppi, cyclic or blocked, in registers),
and the formula: as written (a division by 255, the mean subtracted, a division by
the deviation) or folded into one multiply-add per channel (v a[c] + b[c] with a[c] =
1 / (255 std[c]) and b[c] = -mean[c] / std[c], constants worked out in Python).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def space(h: int = 4096, w: int = 8192) -> TuningSpace:
    n = h * w

    def kernel(p):
        if p["form"] == "divide":
            lines = [f"out[{c}, i] = (img[i, {c}] / 255.0f - {MEAN[c]}f) / {STD[c]}f"
                     for c in range(3)]
        else:
            lines = [f"out[{c}, i] = img[i, {c}] * {float(np.float32(1 / (255 * STD[c])))!r}f"
                     f" + {float(np.float32(-MEAN[c] / STD[c]))!r}f" for c in range(3)]
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            "\n".join(lines),
            [lp.GlobalArg("img", np.uint8, shape=(n, 3)),
             lp.GlobalArg("out", np.float32, shape=(3, n), is_output=True)],
            name="img_chw", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        return {"img": rng.integers(0, 256, size=(n, 3), dtype=np.uint8)}

    def reference(inputs):
        v = inputs["img"].astype(np.float64).T / 255.0
        return {"out": (v - np.array(MEAN)[:, None]) / np.array(STD)[:, None]}

    return TuningSpace(
        name="blind19_img_chw",
        description=f"{h} x {w} uint8 RGB pixels (HWC) to three standardised float32 "
                    f"planes (CHW): gs per group, ppi pixels per work item (cyclic or "
                    f"blocked), the formula as written or one multiply-add",
        tune_params={"gs": (32, 64, 128, 256, 512), "ppi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "form": ("divide", "fma")},
        restrictions=("(h*w) % (gs*ppi) == 0",
                      # one pixel: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"h": h, "w": w}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=2e-4)
