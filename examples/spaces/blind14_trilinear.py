"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourteenth set").
A float32 volume resampled at a fixed sub-voxel shift by trilinear interpolation (a scan
moved by a registration's translation, or a staggered grid's values carried to the cell
centres): the input is (nz + 1) x (n + 1) x (n + 1), the output nz x n x n, and
out[z, y, x] samples the input at (z + 3/4, y + 1/2, x + 1/4) from its eight
neighbours.

    workbench tune examples/spaces/blind14_trilinear.py:space --param n=512 --param nz=256

Knobs: the group bx x by (x on axis 0, y on axis 1), z planes per work item (a loop
marching down z, or the planes side by side in registers), and the sample written as
seven nested linear interpolations or as the eight corners' weighted sum (the weights
as literals).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

#: the shift along x, y and z (quarters: every weight and product exact in float32)
FX, FY, FZ = 0.25, 0.5, 0.75


def space(n: int = 512, nz: int = 256) -> TuningSpace:
    def kernel(p):
        def u(dz, dy, dx):
            return f"u[z + {dz}, y + {dy}, x + {dx}]"

        if p["form"] == "lerp":
            lines = []
            for dz in (0, 1):
                for dy in (0, 1):
                    lines.append(f"<> cx{dz}{dy} = {u(dz, dy, 0)} + {FX!r}f * "
                                 f"({u(dz, dy, 1)} - {u(dz, dy, 0)})")
                lines.append(f"<> cy{dz} = cx{dz}0 + {FY!r}f * (cx{dz}1 - cx{dz}0)")
            lines.append(f"out[z, y, x] = cy0 + {FZ!r}f * (cy1 - cy0)")
        else:
            terms = []
            for dz in (0, 1):
                for dy in (0, 1):
                    for dx in (0, 1):
                        w = ((FZ if dz else 1 - FZ) * (FY if dy else 1 - FY)
                             * (FX if dx else 1 - FX))
                        terms.append(f"{w!r}f * {u(dz, dy, dx)}")
            lines = [f"out[z, y, x] = {' + '.join(terms)}"]
        knl = lp.make_kernel(
            f"{{[z, y, x]: 0 <= z < {nz} and 0 <= y, x < {n}}}", "\n".join(lines),
            [lp.GlobalArg("u", np.float32, shape=(nz + 1, n + 1, n + 1)),
             lp.GlobalArg("out", np.float32, shape=(nz, n, n), is_output=True)],
            name="trilinear", lang_version=(2018, 2))
        bx, by, zpi = p["bx"], p["by"], p["zpi"]
        knl = lp.split_iname(knl, "x", bx, outer_tag="g.0", inner_tag="l.0")
        knl = lp.split_iname(knl, "y", by, outer_tag="g.1", inner_tag="l.1")
        # a loop down z (the planes one after another) or the planes in registers
        knl = lp.split_iname(knl, "z", zpi, outer_tag="g.2",
                             inner_tag="ilp" if p["march"] == "ilp" else None)
        return knl

    def make_inputs(rng):
        # multiples of 1/64 in [0, 1): with the quarter weights every sum is exact
        return {"u": (rng.integers(0, 64, size=(nz + 1, n + 1, n + 1)) / 64)
                .astype(np.float32)}

    def reference(inputs):
        u = inputs["u"].astype(np.float64)
        out = np.zeros((nz, n, n))
        for dz in (0, 1):
            for dy in (0, 1):
                for dx in (0, 1):
                    w = ((FZ if dz else 1 - FZ) * (FY if dy else 1 - FY)
                         * (FX if dx else 1 - FX))
                    out += w * u[dz:dz + nz, dy:dy + n, dx:dx + n]
        return {"out": out}

    return TuningSpace(
        name="blind14_trilinear",
        description=f"trilinear resampling of a ({nz} + 1) x ({n} + 1)^2 float32 volume at "
                    f"a fixed sub-voxel shift: bx x by groups, zpi planes per work item "
                    f"(a loop or registers), nested lerps or eight weighted corners",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4), "zpi": (1, 2, 4),
                     "march": ("loop", "ilp"), "form": ("lerp", "corners")},
        restrictions=("n % bx == 0", "n % by == 0", "nz % zpi == 0",
                      "bx*by >= 64 and bx*by <= 512",
                      # one plane: nothing to march or to hold side by side
                      lambda p: p["zpi"] > 1 or p["march"] == "loop"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"n": n, "nz": nz}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-6)
