"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, thirteenth set").
A colour correction of n RGBA float32 pixels stored interleaved (n x 4, values in
[0, 1]), as a user grades images or converts a linear camera space to display: the
colour is multiplied by a 3 x 3 matrix, clamped to [0, 1] and raised to the display
gamma, out_c = clamp(sum_k C[c, k] rgb_k, 0, 1)^(1/2.2), the alpha copied unchanged.

    workbench tune examples/spaces/blind13_color_gamma.py:space --param n=33554432

Knobs: the group size, pixels per work item (cyclic or blocked, registers), the
matrix read from an array or written into the kernel as literals, and the gamma as
a power or as the exponential of a scaled logarithm.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

#: a warm grading matrix (rows sum to about one: a grey stays near grey)
MATRIX = np.array([[1.18, -0.12, -0.06],
                   [-0.05, 1.08, -0.03],
                   [-0.02, -0.10, 1.12]])
EXPONENT = 1 / 2.2


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        def coef(c, k):
            return (f"cm[{c}, {k}]" if p["coef"] == "array"
                    else f"{float(np.float32(MATRIX[c, k]))!r}f")

        def gamma(v):
            return (f"{v} ** {EXPONENT!r}f" if p["gamma"] == "pow"
                    else f"exp({EXPONENT!r}f * log({v}))")

        lines = []
        for c in range(3):
            mix = " + ".join(f"{coef(c, k)} * px[i, {k}]" for k in range(3))
            lines.append(f"<> c{c} = fmin(fmax({mix}, 0.0f), 1.0f)")
            lines.append(f"out[i, {c}] = {gamma(f'c{c}')}")
        lines.append("out[i, 3] = px[i, 3]")
        args = [lp.GlobalArg("px", np.float32, shape=(n, 4)),
                lp.GlobalArg("out", np.float32, shape=(n, 4), is_output=True)]
        if p["coef"] == "array":
            args.append(lp.GlobalArg("cm", np.float32, shape=(3, 3)))
        knl = lp.make_kernel(f"{{[i]: 0 <= i < {n}}}", "\n".join(lines), args,
                             name="color_gamma", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # colours in [1/4, 1): every mixed channel stays above 0.1, where float32's
        # rounding of the mix is far inside the check's tolerance after the gamma (from
        # 0, a mix that cancels to ~1e-7 has no correct digit left after x^(1/2.2): all
        # 80 points failed the check on the H100, errors up to 9e-5); the top clamp
        # still bites (the first channel reaches 1.13)
        px = rng.random((n, 4), dtype=np.float32)
        px[:, :3] = 0.25 + 0.75 * px[:, :3]
        return {"px": px,
                "cm": MATRIX.astype(np.float32)}

    def reference(inputs):
        px = inputs["px"].astype(np.float64)
        rgb = np.clip(px[:, :3] @ MATRIX.astype(np.float32).astype(np.float64).T, 0, 1)
        return {"out": np.concatenate([rgb ** EXPONENT, px[:, 3:]], axis=1)}

    return TuningSpace(
        name="blind13_color_gamma",
        description=f"3 x 3 colour matrix, clamp and gamma 1/2.2 on {n} RGBA float32 "
                    f"pixels (interleaved): gs per group, ppi pixels per work item "
                    f"(cyclic or blocked), matrix from an array or literals, pow or "
                    f"exp(log)",
        tune_params={"gs": (64, 128, 256, 512), "ppi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "coef": ("array", "literal"),
                     "gamma": ("pow", "explog")},
        restrictions=("n % (gs*ppi) == 0",
                      # one pixel: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)
