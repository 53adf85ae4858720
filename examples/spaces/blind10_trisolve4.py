"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, tenth set").
Forward substitution for nb lower-triangular 4 x 4 float32 systems L x = b at once (a
batched small triangular solve, as a user writes one when every system is 4 x 4: the
four steps written out, x0 = b0 / L00, x1 = (b1 - L10 x0) / L11, ...), the systems read
either as an array of structures (L: nb x 4 x 4, b: nb x 4, "aos") or as a structure of
arrays (4 x 4 x nb and 4 x nb, "soa", the same systems); x is always nb x 4.

    workbench tune examples/spaces/blind10_trisolve4.py:space --param nb=4194304

Knobs: the group size, systems per work item (cyclic or blocked, in registers by loopy's
ILP), the layout, and whether each step divides by the diagonal or multiplies by its
reciprocal.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

D = 4


def space(nb: int = 2 ** 22) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "aos":
            def mat(r, c):
                return f"L[s, {r}, {c}]"

            def rhs(r):
                return f"b[s, {r}]"
            args = [lp.GlobalArg("L", np.float32, shape=(nb, D, D)),
                    lp.GlobalArg("b", np.float32, shape=(nb, D))]
        else:
            def mat(r, c):
                return f"Lt[{r}, {c}, s]"

            def rhs(r):
                return f"bt[{r}, s]"
            args = [lp.GlobalArg("Lt", np.float32, shape=(D, D, nb)),
                    lp.GlobalArg("bt", np.float32, shape=(D, nb))]
        steps = []
        for r in range(D):
            rest = "".join(f" - {mat(r, c)} * x{c}" for c in range(r))
            top = f"({rhs(r)}{rest})" if rest else rhs(r)
            solve = (f"{top} / {mat(r, r)}" if p["diag"] == "divide"
                     else f"{top} * (1.0f / {mat(r, r)})")
            steps.append(f"<float32> x{r} = {solve}")
            steps.append(f"x[s, {r}] = x{r}")
        knl = lp.make_kernel(
            f"{{[s]: 0 <= s < {nb}}}", "\n".join(steps),
            [*args, lp.GlobalArg("x", np.float32, shape=(nb, D), is_output=True)],
            name="trisolve4", lang_version=(2018, 2))
        gs, spi = p["gs"], p["spi"]
        knl = lp.split_iname(knl, "s", gs * spi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "s_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "s_inner", spi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # diagonals in [1, 2), the rest in [-0.5, 0.5): well conditioned in float32
        low = np.tril(rng.random((nb, D, D), dtype=np.float32) - 0.5, -1)
        diag = 1 + rng.random((nb, D), dtype=np.float32)
        mats = (low + diag[:, :, None] * np.eye(D, dtype=np.float32)).astype(np.float32)
        b = (2 * rng.random((nb, D), dtype=np.float32) - 1).astype(np.float32)
        # both layouts of the same systems: a point's kernel reads the one it names
        return {"L": mats, "b": b, "Lt": np.ascontiguousarray(mats.transpose(1, 2, 0)),
                "bt": np.ascontiguousarray(b.T)}

    def reference(inputs):
        mats, b = inputs["L"].astype(np.float64), inputs["b"].astype(np.float64)
        x = np.zeros_like(b)
        for r in range(D):
            x[:, r] = (b[:, r] - (mats[:, r, :r] * x[:, :r]).sum(axis=1)) / mats[:, r, r]
        return {"x": x}

    return TuningSpace(
        name="blind10_trisolve4",
        description=f"forward substitution of {nb} lower-triangular 4 x 4 float32 "
                    f"systems: gs per group, spi systems per work item, cyclic or "
                    f"blocked, array of structures or structure of arrays, divide or "
                    f"multiply by the reciprocal",
        tune_params={"gs": (64, 128, 256, 512, 1024), "spi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("aos", "soa"),
                     "diag": ("divide", "reciprocal")},
        restrictions=("nb % (gs*spi) == 0",
                      # one system: no order to choose
                      lambda p: p["spi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 0,
        problem={"nb": nb}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)
