"""A tunable out-of-place transpose ``out[j, i] = a[i, j]`` of an n x n float32 matrix.

Tuning parameters: the work-group shape ``bx`` x ``by``; ``cy`` rows and ``cx``
columns of ``a`` per work item (strided by the group's extent); ``tile``: ``global``
(read ``a`` along its rows, coalesced, and write ``out`` with a stride of n) or
``local`` (stage the group's ``by*cy`` x ``bx*cx`` block of ``a`` in local memory,
then write ``out`` along its rows, coalesced too; the block must split evenly over
the lanes both ways); ``pad``: extra local-memory columns that shift each tile row
to other banks (the classic fix for the column reads of the second phase).

Template numbers (:mod:`workbench.kernels.tunable.common`): ``L0 = bx``,
``L1 = by``, ``C = cy``, ``X = cx``, the group counts and, for ``local``,
``A = by*cy/bx`` and ``B = bx*cx/by`` (the write phase's trips) and ``P = pad``.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels.tunable.common import Template, symbols, template_kernel

GLOBAL_PARAMETERS = ("G0", "G1", "L0", "L1", "C", "X")
LOCAL_PARAMETERS = (*GLOBAL_PARAMETERS, "A", "B", "P")


def template(tile: str) -> Template:
    rows, cols = "g1*L1*C", "g0*L0*X"
    grid = ("{[g0, g1, l0, l1]: 0 <= g0 < G0 and 0 <= g1 < G1 and 0 <= l0 < L0 "
            "and 0 <= l1 < L1}")
    args = [lp.GlobalArg("a", np.float32, shape=("G1*L1*C", "G0*L0*X")),
            lp.GlobalArg("out", np.float32, shape=("G0*L0*X", "G1*L1*C"))]
    tags = {"g0": "g.0", "g1": "g.1", "l0": "l.0", "l1": "l.1"}
    if tile == "global":
        params = GLOBAL_PARAMETERS
        domains = [grid, "{[c, x]: 0 <= c < C and 0 <= x < X}"]
        i, j = f"{rows} + c*L1 + l1", f"{cols} + x*L0 + l0"
        insns = f"out[{j}, {i}] = a[{i}, {j}]"
    elif tile == "local":
        params = LOCAL_PARAMETERS
        domains = [grid, "{[c, x, p, q]: 0 <= c < C and 0 <= x < X and 0 <= p < A "
                         "and 0 <= q < B}"]
        insns = f"""
        for g0, g1
          for c, x
            tile[c*L1 + l1, x*L0 + l0] = a[{rows} + c*L1 + l1, {cols} + x*L0 + l0] \
                {{id=fetch}}
          end
          ... lbarrier {{id=staged, dep=fetch}}
          for p, q
            out[{cols} + q*L1 + l1, {rows} + p*L0 + l0] = tile[p*L0 + l0, q*L1 + l1] \
                {{dep=staged}}
          end
        end
        """
        args.append(lp.TemporaryVariable("tile", np.float32, shape=("L1*C", "L0*X + P"),
                                         address_space=lp.AddressSpace.LOCAL))
    else:
        raise ValueError(f"unknown tile {tile!r}")
    knl = template_kernel(domains, insns, args, params, name="transpose", tags=tags)
    return Template(knl, symbols(params))


def bindings(point, n: int) -> dict[str, int]:
    bx, by, cy, cx = point["bx"], point["by"], point["cy"], point["cx"]
    values = {"L0": bx, "L1": by, "C": cy, "X": cx, "G0": n // (bx * cx),
              "G1": n // (by * cy)}
    if point["tile"] == "local":
        values.update(A=by * cy // bx, B=bx * cx // by, P=point["pad"])
    return values


def local_bytes(point) -> int:
    if point["tile"] != "local":
        return 0
    return 4 * point["by"] * point["cy"] * (point["bx"] * point["cx"] + point["pad"])


def make_inputs(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"a": rng.random((n, n), dtype=np.float64).astype(np.float32)}


def reference(inputs) -> dict[str, np.ndarray]:
    return {"out": np.ascontiguousarray(inputs["a"].T)}
