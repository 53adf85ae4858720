"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourteenth set").
A complex AXPBY on strided data, as BLAS's caxpby with incx = incy = 2 takes it: x and y
are every other complex number of two buffers of 2n complex float32 values, real and
imaginary parts interleaved (a stereo signal's left channel, or one of two interleaved
polarisations), and z = a x + b y is written to n contiguous complex values:
zr = ar xr - ai xi + br yr - bi yi and zi = ar xi + ai xr + br yi + bi yr.

    workbench tune examples/spaces/blind14_zaxpby.py:space --param n=16777216

Knobs: the group size, complex values per work item (cyclic or blocked, registers), and
the two complex scalars read from a small array (ar, ai, br, bi) or written into the
kernel as literals.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

#: a and b (both exact in float32, as are all products with the inputs' sixteenths)
A = (0.75, -0.5)
B = (-0.25, 1.25)


def space(n: int = 2 ** 24) -> TuningSpace:
    def kernel(p):
        if p["scalars"] == "array":
            ar, ai, br, bi = (f"ab[{k}]" for k in range(4))
            scalars = [lp.GlobalArg("ab", np.float32, shape=(4,))]
        else:
            ar, ai, br, bi = (f"{v!r}f" for v in (*A, *B))
            scalars = []
        lines = ["<> xr = x[2*i, 0]", "<> xi = x[2*i, 1]",
                 "<> yr = y[2*i, 0]", "<> yi = y[2*i, 1]",
                 f"z[i, 0] = {ar} * xr - {ai} * xi + {br} * yr - {bi} * yi",
                 f"z[i, 1] = {ar} * xi + {ai} * xr + {br} * yi + {bi} * yr"]
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}", "\n".join(lines),
            [lp.GlobalArg("x, y", np.float32, shape=(2 * n, 2)), *scalars,
             lp.GlobalArg("z", np.float32, shape=(n, 2), is_output=True)],
            name="zaxpby", lang_version=(2018, 2))
        gs, epi = p["gs"], p["epi"]
        knl = lp.split_iname(knl, "i", gs * epi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", epi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # sixteenths in [-4, 4]: every product and sum is exact in float32
        def draw():
            return (rng.integers(-64, 65, size=(2 * n, 2)) / 16).astype(np.float32)

        return {"x": draw(), "y": draw(), "ab": np.array([*A, *B], dtype=np.float32)}

    def reference(inputs):
        x = inputs["x"][::2].astype(np.float64)
        y = inputs["y"][::2].astype(np.float64)
        z = (complex(*A) * (x[:, 0] + 1j * x[:, 1])
             + complex(*B) * (y[:, 0] + 1j * y[:, 1]))
        return {"z": np.stack([z.real, z.imag], axis=1)}

    return TuningSpace(
        name="blind14_zaxpby",
        description=f"complex z = a x + b y on every other value of two interleaved "
                    f"complex float32 buffers of 2 x {n} (stride 2), z contiguous: gs per "
                    f"group, epi values per work item (cyclic or blocked), the scalars "
                    f"from an array or literals",
        tune_params={"gs": (64, 128, 256, 512, 1024), "epi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "scalars": ("array", "literal")},
        restrictions=("n % (gs*epi) == 0",
                      # one value: no order to choose
                      lambda p: p["epi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-6)
