"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventh set").
Row-wise softmax of an m x n float32 matrix, out[i, j] = exp(a[i, j] - mx_i) / s_i with
mx_i = max_j a[i, j] and s_i = sum_j exp(a[i, j] - mx_i).

    workbench tune examples/spaces/blind7_softmax.py:space --param m=8192 --param n=4096

Knobs: lanes per row (g0: each lane runs over every g0-th element of its row, for the
maximum, for the sum and for the output, the lanes joining in local memory after the
first two), rows per work group (rpg, on axis 1) and the unrolling of each lane's
three loops.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 8192, n: int = 4096) -> TuningSpace:
    def kernel(p):
        g0, rpg = p["g0"], p["rpg"]
        knl = lp.make_kernel(
            f"{{[io, ii, k, k2, k3, jo, jo2, jo3]: 0 <= io < {m // rpg} and 0 <= ii < {rpg} "
            f"and 0 <= k, k2, k3 < {g0} and 0 <= jo, jo2, jo3 < {n // g0}}}",
            f"""
            for io, ii
                for k
                    <> pmax = a[{rpg}*io + ii, k] {{id=init_max}}
                    for jo
                        pmax = fmax(pmax, a[{rpg}*io + ii, {g0}*jo + k]) \
                            {{id=upd_max, dep=init_max}}
                    end
                end
                mx[ii] = reduce(max, k, pmax) {{id=row_max, dep=upd_max}}
                for k2
                    <> psum = 0 {{id=init_sum}}
                    for jo2
                        psum = psum + exp(a[{rpg}*io + ii, {g0}*jo2 + k2] - mx[ii]) \
                            {{id=upd_sum, dep=init_sum:row_max}}
                    end
                end
                rs[ii] = 1.0f / sum(k2, psum) {{id=row_sum, dep=upd_sum}}
                for k3, jo3
                    out[{rpg}*io + ii, {g0}*jo3 + k3] = \
                        exp(a[{rpg}*io + ii, {g0}*jo3 + k3] - mx[ii]) * rs[ii] \
                        {{id=result, dep=row_sum}}
                end
            end
            """,
            [lp.GlobalArg("a", np.float32, shape=(m, n)),
             lp.GlobalArg("out", np.float32, shape=(m, n), is_output=True),
             *(lp.TemporaryVariable(name, np.float32, shape=(rpg,),
                                    address_space=lp.AddressSpace.LOCAL)
               for name in ("mx", "rs"))],
            name="softmax", lang_version=(2018, 2),
            silenced_warnings=["write_race(row_sum)", "write_race(row_max)"])
        knl = lp.tag_inames(knl, {"io": "g.0", "ii": "l.1", "k": "l.0", "k2": "l.0",
                                  "k3": "l.0"})
        if p["unroll"] > 1:
            for loop in ("jo", "jo2", "jo3"):
                knl = lp.split_iname(knl, loop, p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # values in [-4, 4): the maximum matters, and every term is far from underflow
        return {"a": (8 * rng.random((m, n), dtype=np.float32) - 4).astype(np.float32)}

    def reference(inputs):
        a = inputs["a"].astype(np.float64)
        e = np.exp(a - a.max(axis=1)[:, None])
        return {"out": e / e.sum(axis=1)[:, None]}

    return TuningSpace(
        name="blind7_softmax",
        description=f"row-wise softmax of a {m} x {n} float32 matrix: g0 lanes per row, "
                    f"rpg rows per group, local max and sum, lane loops unrolled",
        tune_params={"g0": (32, 64, 128, 256, 512, 1024), "rpg": (1, 2, 4, 8, 16),
                     "unroll": (1, 2, 4, 8)},
        restrictions=("g0*rpg >= 64 and g0*rpg <= 1024", "n % (g0*unroll) == 0",
                      "m % rpg == 0"),
        group_size=lambda p: (p["g0"], p["rpg"]),
        local_bytes=lambda p: 4 * p["rpg"] * (2 * p["g0"] + 2),
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-4)
