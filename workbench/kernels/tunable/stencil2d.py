"""A tunable 5-point Jacobi step on an n x n grid (float32, one ghost layer).

``out[i, j] = 0.25 * (u[i, j+1] + u[i+2, j+1] + u[i+1, j] + u[i+1, j+2])`` for the
interior point (i, j), with ``u`` (n+2) x (n+2) and ``out`` n x n, as
``finite_diff`` without its source term.

Tuning parameters: the work-group shape ``bx`` x ``by``; ``cy`` rows and ``cx``
columns per work item (strided by the group's extent, so that lanes stay
contiguous: loads coalesce whatever the coarsening); ``tile``: ``global`` (every
load from global memory, left to the caches) or ``local`` (the group's tile plus a
one-point halo fetched into local memory once, then read five times).

The template keeps every number symbolic (``L0 = bx``, ``L1 = by``, ``C = cy``,
``X = cx`` and the group counts), so one property extraction serves every point of a
structure (``tile``); a point's kernel is the template with those numbers fixed.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels.tunable.common import Template, symbols, template_kernel

PARAMETERS = ("G0", "G1", "L0", "L1", "C", "X")


def template(tile: str) -> Template:
    rows, cols = "g1*L1*C", "g0*L0*X"
    domains = ["{[g0, g1, l0, l1]: 0 <= g0 < G0 and 0 <= g1 < G1 and 0 <= l0 < L0 "
               "and 0 <= l1 < L1}", "{[c, x]: 0 <= c < C and 0 <= x < X}"]
    i, j = f"{rows} + c*L1 + l1", f"{cols} + x*L0 + l0"
    args = [lp.GlobalArg("u", np.float32, shape=("G1*L1*C + 2", "G0*L0*X + 2")),
            lp.GlobalArg("out", np.float32, shape=("G1*L1*C", "G0*L0*X"))]
    if tile == "global":
        insns = f"""
        out[{i}, {j}] = 0.25*(u[{i}, {j} + 1] + u[{i} + 2, {j} + 1]
                              + u[{i} + 1, {j}] + u[{i} + 1, {j} + 2])
        """
        tags = {}
    elif tile == "local":
        # Tile rows 0 and L1*C+1 and columns 0 and L0*X+1 are the halo.  Each
        # instruction's own lanes and loops cover exactly its cells, so counts are
        # exact (no predicated-off work) and the template stays affine in the lanes.
        domains += ["{[cf, xf, ch, cs, xh, xs]: 0 <= cf, ch, cs < C and 0 <= xf, xh, xs < X}",
                    "{[hr]: 0 <= hr < 2}", "{[hc]: 0 <= hc < 2}"]
        ti, tj = "cs*L1 + l1 + 1", "xs*L0 + l0 + 1"
        insns = f"""
        for g0, g1
          for cf, xf
            tile[cf*L1 + l1 + 1, xf*L0 + l0 + 1] = \
                u[{rows} + cf*L1 + l1 + 1, {cols} + xf*L0 + l0 + 1] {{id=fetch}}
          end
          for xh
            tile[hr*(L1*C + 1), xh*L0 + l0 + 1] = \
                u[{rows} + hr*(L1*C + 1), {cols} + xh*L0 + l0 + 1] \
                {{id=halo_rows, inames=g0:g1:l0:hr:xh}}
          end
          for ch
            tile[ch*L1 + l1 + 1, hc*(L0*X + 1)] = \
                u[{rows} + ch*L1 + l1 + 1, {cols} + hc*(L0*X + 1)] \
                {{id=halo_cols, inames=g0:g1:l1:hc:ch}}
          end
          ... lbarrier {{id=filled, dep=fetch:halo_rows:halo_cols}}
          for cs, xs
            out[{rows} + cs*L1 + l1, {cols} + xs*L0 + l0] = \
                0.25*(tile[{ti} - 1, {tj}] + tile[{ti} + 1, {tj}]
                      + tile[{ti}, {tj} - 1] + tile[{ti}, {tj} + 1]) {{dep=filled}}
          end
        end
        """
        domains = [domains[0], *domains[2:]]
        args.append(lp.TemporaryVariable("tile", np.float32, shape=("L1*C + 2", "L0*X + 2"),
                                         address_space=lp.AddressSpace.LOCAL))
        tags = {"hr": "l.1", "hc": "l.0"}
    else:
        raise ValueError(f"unknown tile {tile!r}")
    knl = template_kernel(domains, insns, args, PARAMETERS, name="jacobi2d",
                          tags={"g0": "g.0", "g1": "g.1", "l0": "l.0", "l1": "l.1", **tags})
    return Template(knl, symbols(PARAMETERS))


def bindings(point, n: int) -> dict[str, int]:
    bx, by, cy, cx = point["bx"], point["by"], point["cy"], point["cx"]
    return {"L0": bx, "L1": by, "C": cy, "X": cx, "G0": n // (bx * cx),
            "G1": n // (by * cy)}


def local_bytes(point) -> int:
    if point["tile"] != "local":
        return 0
    return 4 * (point["by"] * point["cy"] + 2) * (point["bx"] * point["cx"] + 2)


def make_inputs(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"u": rng.random((n + 2, n + 2), dtype=np.float64).astype(np.float32)}


def reference(inputs) -> dict[str, np.ndarray]:
    u = inputs["u"].astype(np.float64)
    out = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return {"out": out.astype(np.float32)}
