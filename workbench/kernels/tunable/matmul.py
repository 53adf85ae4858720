"""A tunable dense product ``c = a @ b`` of n x n float32 matrices (row-major).

Tuning parameters: the work-group shape ``tx`` x ``ty``; ``wy`` rows and ``wx``
columns of ``c`` per work item (register blocking; columns strided by ``tx`` so that
lanes stay contiguous in ``b`` and ``c``); ``tile``: ``global`` (each work item reads
its rows of ``a`` and columns of ``b`` from global memory, left to the caches) or
``local`` (the group stages a ``ty*wy`` x ``tx`` panel of ``a`` and a ``tx`` x ``tx*wx``
panel of ``b`` in local memory per k step of ``tx``, the classic tiled product; the
``b`` panel's rows are spread over the ``ty`` lane rows, which needs ``tx % ty == 0``).

As every tunable kernel (:mod:`workbench.kernels.tunable.common`), the template keeps
its numbers symbolic: ``L0 = tx``, ``L1 = ty``, ``WY``, ``WX``, the group counts, the
k steps ``KT`` and, for ``local``, ``J = tx / ty`` panel rows per lane row.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels.tunable.common import Template, symbols, template_kernel

GLOBAL_PARAMETERS = ("G0", "G1", "L0", "L1", "WY", "WX", "N")
LOCAL_PARAMETERS = ("G0", "G1", "L0", "L1", "WY", "WX", "KT", "J")


def template(tile: str) -> Template:
    row = "g1*L1*WY + w*L1 + l1"
    col = "g0*L0*WX + x*L0 + l0"
    grid = ("{[g0, g1, l0, l1]: 0 <= g0 < G0 and 0 <= g1 < G1 and 0 <= l0 < L0 "
            "and 0 <= l1 < L1}")
    tags = {"g0": "g.0", "g1": "g.1", "l0": "l.0", "l1": "l.1"}
    acc = lp.TemporaryVariable("acc", np.float32, shape=("WY", "WX"),
                               address_space=lp.AddressSpace.PRIVATE)
    if tile == "global":
        n, params = "N", GLOBAL_PARAMETERS
        domains = [grid, "{[w, x, k]: 0 <= w < WY and 0 <= x < WX and 0 <= k < N}",
                   "{[wi, xi, wo, xo]: 0 <= wi, wo < WY and 0 <= xi, xo < WX}"]
        insns = f"""
        for g0, g1
          acc[wi, xi] = 0 {{id=zero}}
          for k, w, x
            acc[w, x] = acc[w, x] + a[{row}, k] * b[k, {col}] {{id=update, dep=zero}}
          end
          c[g1*L1*WY + wo*L1 + l1, g0*L0*WX + xo*L0 + l0] = acc[wo, xo] {{dep=update}}
        end
        """
        temps = [acc]
    elif tile == "local":
        n, params = "KT*L0", LOCAL_PARAMETERS
        domains = [grid, "{[kt]: 0 <= kt < KT}",
                   "{[w, x, kk, wa, xb, j]: 0 <= w, wa < WY and 0 <= x, xb < WX "
                   "and 0 <= kk < L0 and 0 <= j < J}",
                   "{[wi, xi, wo, xo]: 0 <= wi, wo < WY and 0 <= xi, xo < WX}"]
        insns = """
        for g0, g1
          acc[wi, xi] = 0 {id=zero}
          for kt
            for wa
              ta[wa*L1 + l1, l0] = a[g1*L1*WY + wa*L1 + l1, kt*L0 + l0] {id=fa, dep=zero}
            end
            for j, xb
              tb[j*L1 + l1, xb*L0 + l0] = b[kt*L0 + j*L1 + l1, g0*L0*WX + xb*L0 + l0] \
                  {id=fb, dep=zero}
            end
            ... lbarrier {id=staged, dep=fa:fb}
            for kk, w, x
              acc[w, x] = acc[w, x] + ta[w*L1 + l1, kk] * tb[kk, x*L0 + l0] \
                  {id=update, dep=staged}
            end
            ... lbarrier {id=consumed, dep=update}
          end
          c[g1*L1*WY + wo*L1 + l1, g0*L0*WX + xo*L0 + l0] = acc[wo, xo] {dep=consumed}
        end
        """
        temps = [acc,
                 lp.TemporaryVariable("ta", np.float32, shape=("L1*WY", "L0"),
                                      address_space=lp.AddressSpace.LOCAL),
                 lp.TemporaryVariable("tb", np.float32, shape=("L0", "L0*WX"),
                                      address_space=lp.AddressSpace.LOCAL)]
    else:
        raise ValueError(f"unknown tile {tile!r}")
    args = [lp.GlobalArg("a", np.float32, shape=("G1*L1*WY", n)),
            lp.GlobalArg("b", np.float32, shape=(n, "G0*L0*WX")),
            lp.GlobalArg("c", np.float32, shape=("G1*L1*WY", "G0*L0*WX")), *temps]
    knl = template_kernel(domains, insns, args, params, name="matmul", tags=tags,
                          all_lanes=True)
    # registers hold the whole block of c: unroll its loops so it can live in them
    knl = lp.tag_inames(knl, {"w": "unr", "x": "unr", "wi": "unr", "xi": "unr",
                              "wo": "unr", "xo": "unr"})
    knl = lp.prioritize_loops(knl, "kt,kk,w,x" if tile == "local" else "k,w,x")
    return Template(knl, symbols(params))


def bindings(point, n: int) -> dict[str, int]:
    tx, ty, wy, wx = point["tx"], point["ty"], point["wy"], point["wx"]
    values = {"L0": tx, "L1": ty, "WY": wy, "WX": wx, "G0": n // (tx * wx),
              "G1": n // (ty * wy)}
    if point["tile"] == "local":
        values.update(KT=n // tx, J=tx // ty)
    else:
        values["N"] = n
    return values


def local_bytes(point) -> int:
    if point["tile"] != "local":
        return 0
    tx, ty = point["tx"], point["ty"]
    return 4 * (ty * point["wy"] * tx + tx * tx * point["wx"])


def make_inputs(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {name: rng.random((n, n), dtype=np.float64).astype(np.float32)
            for name in ("a", "b")}


def reference(inputs) -> dict[str, np.ndarray]:
    return {"c": (inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)
                  ).astype(np.float32)}
