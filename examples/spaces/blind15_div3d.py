"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifteenth set").
The divergence of a 3-D float32 vector field (u, v, w) by central differences (a fluid
solver's pressure right-hand side, or a check that a flow is incompressible): the
field is (nz + 2) x (n + 2) x (n + 2) with its halo, the output nz x n x n, and
div[z, y, x] = (u[z+1, y+1, x+2] - u[z+1, y+1, x] + v[z+1, y+2, x+1] - v[z+1, y, x+1]
+ w[z+2, y+1, x+1] - w[z, y+1, x+1]) / 2, each component differenced along its own axis
only.  The field is stored either as three arrays ("soa") or interleaved, three values
a grid point ("aos", (nz + 2) x (n + 2) x (n + 2) x 3).

    workbench tune examples/spaces/blind15_div3d.py:space --param n=512 --param nz=256

Knobs: the work group (bx along x, by along y), z planes per work item (zpi) marched
by a loop or held side by side in registers, and the field's layout.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 512, nz: int = 256) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "soa":
            def at(name, dz, dy, dx):
                return f"{name}[z + {dz}, y + {dy}, x + {dx}]"

            ins = [lp.GlobalArg("u, v, w", np.float32, shape=(nz + 2, n + 2, n + 2))]
        else:
            def at(name, dz, dy, dx):
                return f"f[z + {dz}, y + {dy}, x + {dx}, {'uvw'.index(name)}]"

            ins = [lp.GlobalArg("f", np.float32, shape=(nz + 2, n + 2, n + 2, 3))]
        knl = lp.make_kernel(
            f"{{[z, y, x]: 0 <= z < {nz} and 0 <= y, x < {n}}}",
            f"div[z, y, x] = 0.5f * ("
            f"({at('u', 1, 1, 2)} - {at('u', 1, 1, 0)}) + "
            f"({at('v', 1, 2, 1)} - {at('v', 1, 0, 1)}) + "
            f"({at('w', 2, 1, 1)} - {at('w', 0, 1, 1)}))",
            [*ins, lp.GlobalArg("div", np.float32, shape=(nz, n, n), is_output=True)],
            name="div3d", lang_version=(2018, 2))
        bx, by, zpi = p["bx"], p["by"], p["zpi"]
        knl = lp.split_iname(knl, "x", bx, outer_tag="g.0", inner_tag="l.0")
        knl = lp.split_iname(knl, "y", by, outer_tag="g.1", inner_tag="l.1")
        # a loop down z (the planes one after another) or the planes in registers
        knl = lp.split_iname(knl, "z", zpi, outer_tag="g.2",
                             inner_tag="ilp" if p["march"] == "ilp" else None)
        return knl

    def make_inputs(rng):
        # small integers held as float32: every difference and half is exact, so a
        # divergence of zero (common: neighbours alike) compares exactly
        def draw():
            return rng.integers(0, 16, size=(nz + 2, n + 2, n + 2)).astype(np.float32)

        u, v, w = draw(), draw(), draw()
        # both layouts of the same field: a point's kernel reads the one it names
        return {"u": u, "v": v, "w": w, "f": np.stack([u, v, w], axis=-1)}

    def reference(inputs):
        u, v, w = (inputs[k].astype(np.float64) for k in "uvw")
        c = np.s_[1:nz + 1]
        return {"div": 0.5 * ((u[c, 1:n + 1, 2:] - u[c, 1:n + 1, :n])
                              + (v[c, 2:, 1:n + 1] - v[c, :n, 1:n + 1])
                              + (w[2:, 1:n + 1, 1:n + 1] - w[:nz, 1:n + 1, 1:n + 1]))}

    return TuningSpace(
        name="blind15_div3d",
        description=f"divergence of a float32 vector field by central differences, "
                    f"{nz} x {n} x {n} out: bx x by groups, zpi planes per work item "
                    f"(a loop or registers), the field as three arrays or interleaved",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4), "zpi": (1, 2, 4),
                     "march": ("loop", "ilp"), "layout": ("soa", "aos")},
        restrictions=("n % bx == 0", "n % by == 0", "nz % zpi == 0",
                      "bx*by >= 64 and bx*by <= 1024",
                      # one plane: nothing to march or to hold side by side
                      lambda p: p["zpi"] > 1 or p["march"] == "loop"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"n": n, "nz": nz}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-6)
