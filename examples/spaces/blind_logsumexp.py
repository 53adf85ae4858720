"""BLIND (never fit, choose or tune anything on it; see README.md). Row-wise
log-sum-exp of an m x n float32 matrix, out[i] = mx_i + log(sum_j exp(a[i, j] - mx_i))
with mx_i = max_j a[i, j] (the maximum taken first, so no exponential overflows).

    workbench tune examples/spaces/blind_logsumexp.py:space --param m=16384 --param n=2048

Knobs: lanes per row (g0: each lane runs over every g0-th element of its row, once
for the maximum and once for the sum, the lanes joining in local memory after each),
rows per work group (rpg, on axis 1) and the unrolling of each lane's two loops.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 16384, n: int = 2048) -> TuningSpace:
    def kernel(p):
        g0, rpg = p["g0"], p["rpg"]
        # row i = rpg*io + ii; the row maxima live in local memory, one per row of
        # the group, since every lane of a row reads its row's maximum
        knl = lp.make_kernel(
            f"{{[io, ii, k, k2, jo, jo2]: 0 <= io < {m // rpg} and 0 <= ii < {rpg} "
            f"and 0 <= k, k2 < {g0} and 0 <= jo, jo2 < {n // g0}}}",
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
                out[{rpg}*io + ii] = mx[ii] + log(sum(k2, psum)) {{id=result, dep=upd_sum}}
            end
            """,
            [lp.GlobalArg("a", np.float32, shape=(m, n)),
             lp.GlobalArg("out", np.float32, shape=(m,), is_output=True),
             lp.TemporaryVariable("mx", np.float32, shape=(rpg,),
                                  address_space=lp.AddressSpace.LOCAL)],
            name="logsumexp", lang_version=(2018, 2),
            silenced_warnings=["write_race(result)", "write_race(row_max)"])
        knl = lp.tag_inames(knl, {"io": "g.0", "ii": "l.1", "k": "l.0", "k2": "l.0"})
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "jo", p["unroll"], inner_tag="unr")
            knl = lp.split_iname(knl, "jo2", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # values in [-4, 4): the maximum matters, and every term is far from underflow
        return {"a": (8 * rng.random((m, n), dtype=np.float32) - 4).astype(np.float32)}

    def reference(inputs):
        a = inputs["a"].astype(np.float64)
        mx = a.max(axis=1)
        return {"out": mx + np.log(np.exp(a - mx[:, None]).sum(axis=1))}

    return TuningSpace(
        name="blind_logsumexp",
        description=f"row-wise log-sum-exp of a {m} x {n} float32 matrix: g0 lanes per "
                    f"row, rpg rows per group, local max and sum, lane loops unrolled",
        tune_params={"g0": (32, 64, 128, 256, 512), "rpg": (1, 2, 4, 8, 16),
                     "unroll": (1, 2, 4, 8)},
        restrictions=("g0*rpg >= 64 and g0*rpg <= 1024", "n % (g0*unroll) == 0",
                      "m % rpg == 0"),
        group_size=lambda p: (p["g0"], p["rpg"]),
        local_bytes=lambda p: 4 * p["rpg"] * (2 * p["g0"] + 1),
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference,
        rtol=1e-4)
