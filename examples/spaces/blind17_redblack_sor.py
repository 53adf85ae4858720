"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventeenth set").
The red half-sweep of red-black successive over-relaxation for Poisson's equation on
an n x n float32 grid (a pressure or potential solve as a user writes its smoother):
u is (n + 2) x (n + 2) with its boundary ring, f is n x n, h^2 = 1/16 and w = 1.5;
a red cell (i + j even) becomes (1 - w) u + (w/4) (the four neighbours' sum - h^2 f),
a black cell is copied, written out of place.

    workbench tune examples/spaces/blind17_redblack_sor.py:space --param n=8192

Knobs: the work group (bx columns by by rows), columns per work item (cpi, cyclic or
blocked, in registers), and how the colour is taken: a select between the update and
the copy, or the branch-free mask u + red (w (mean - u)), red = 1 - (i + j) mod 2.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

W, H2 = 1.5, 1.0 / 16


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        near = "u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2]"
        if p["colour"] == "select":
            body = f"""
            <> upd = -0.5f * u[i + 1, j + 1] + 0.375f * ({near} - 0.0625f * f[i, j])
            out[i, j] = if((i + j) % 2 == 0, upd, u[i + 1, j + 1])
            """
        else:
            body = f"""
            <> mean = 0.25f * ({near} - 0.0625f * f[i, j])
            out[i, j] = u[i + 1, j + 1] + (1 - (i + j) % 2) * (1.5f * (mean - u[i + 1, j + 1]))
            """
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            body,
            [lp.GlobalArg("u", np.float32, shape=(n + 2, n + 2)),
             lp.GlobalArg("f", np.float32, shape=(n, n)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="redblack_sor", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # u in [1, 2] and f in [0, 1]: an update lies in about [0.47, 2], never near zero
        u = (1.0 + rng.random((n + 2, n + 2))).astype(np.float32)
        return {"u": u, "f": rng.random((n, n), dtype=np.float32)}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)
        f = inputs["f"].astype(np.float64)
        c = u[1:-1, 1:-1]
        near = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
        upd = (1 - W) * c + W / 4 * (near - H2 * f)
        out = c.copy()   # black cells copied, red ones (i + j even) updated
        out[0::2, 0::2] = upd[0::2, 0::2]
        out[1::2, 1::2] = upd[1::2, 1::2]
        return {"out": out}

    return TuningSpace(
        name="blind17_redblack_sor",
        description=f"red half-sweep of red-black SOR on a {n} x {n} float32 grid: group "
                    f"bx x by, cpi columns per work item (cyclic or blocked), the colour "
                    f"by a select or a branch-free mask",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4, 8), "cpi": (1, 2),
                     "order": ("cyclic", "blocked"), "colour": ("select", "mask")},
        restrictions=("n % by == 0 and n % (bx*cpi) == 0", "bx*by <= 1024",
                      # one column: no order to choose
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
