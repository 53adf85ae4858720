"""HELD OUT (never fit or design on it; see README.md). Complex multiply-accumulate,
float32: y[i] = sum_k a[k, i] b[k, i] over K complex products, real and imaginary
parts interleaved (the last axis of every array).

    workbench tune examples/spaces/heldout_cmac.py:space --param n=8388608

Knobs: the work-group size, outputs per work item (wpi) and how they lie (cyclic:
lane l takes l, l + g, ...; blocked: wpi consecutive outputs), and unrolling the
loop over the K products.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

K = 8


def space(n: int = 2 ** 23) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[i, k]: 0 <= i < {n} and 0 <= k < {K}}}",
            """
            for i
                <> re = 0 {id=init_re}
                <> im = 0 {id=init_im}
                for k
                    re = re + a[k, i, 0]*b[k, i, 0] - a[k, i, 1]*b[k, i, 1] \
                        {id=acc_re, dep=init_re}
                    im = im + a[k, i, 0]*b[k, i, 1] + a[k, i, 1]*b[k, i, 0] \
                        {id=acc_im, dep=init_im}
                end
                y[i, 0] = re {dep=acc_re}
                y[i, 1] = im {dep=acc_im}
            end
            """,
            [lp.GlobalArg("a, b", np.float32, shape=(K, n, 2)),
             lp.GlobalArg("y", np.float32, shape=(n, 2), is_output=True)],
            name="cmac", lang_version=(2018, 2))
        g, wpi = p["g"], p["wpi"]
        knl = lp.split_iname(knl, "i", g * wpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", g, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", wpi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"k": "unr"})
        return knl

    def make_inputs(rng):
        # real parts in [0.5, 1), imaginary parts in [0, 0.25): no sum cancels, so
        # float32 results compare with numpy to a relative tolerance (with both parts
        # in [0, 1) the real sums came near zero and failed it on the H100)
        def numbers():
            v = rng.random((K, n, 2), dtype=np.float32)
            return v * np.float32([0.5, 0.25]) + np.float32([0.5, 0.0])

        return {"a": numbers(), "b": numbers()}

    def reference(inputs):
        def cplx(v):
            return v[..., 0].astype(np.float64) + 1j * v[..., 1]

        y = (cplx(inputs["a"]) * cplx(inputs["b"])).sum(axis=0)
        return {"y": np.stack([y.real, y.imag], axis=-1)}

    return TuningSpace(
        name="heldout_cmac",
        description=f"complex multiply-accumulate of {K} products over {n} float32 "
                    f"complex numbers (interleaved): group size g, wpi outputs per "
                    f"work item, cyclic or blocked, unrolled products",
        tune_params={"g": (64, 128, 256, 512, 1024), "wpi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "unroll": (0, 1)},
        restrictions=(lambda p: p["wpi"] > 1 or p["order"] == "cyclic",
                      "n % (g*wpi) == 0"),
        group_size=lambda p: (p["g"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference)
