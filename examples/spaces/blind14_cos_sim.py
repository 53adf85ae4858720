"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fourteenth set").
The cosine similarity of m pairs of float32 rows of 768 (a query's embedding against its
retrieved passage's, or a layer's activations before and after a change), three sums
in one pass over each pair: cos[r] = sum_k a[r, k] b[r, k] / sqrt(sum_k a[r, k]^2
sum_k b[r, k]^2).

    workbench tune examples/spaces/blind14_cos_sim.py:space --param m=65536

Knobs: lanes per row (rl: each lane sums its part of the pair's products and squares,
then the lanes' three sums are added in local memory), rows per work group (rpg, on
axis 1), how a row is parted among its lanes (cyclic or blocked), and the norms' product
under one square root or two square roots multiplied.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 768   # values a row


def space(m: int = 2 ** 16) -> TuningSpace:
    def kernel(p):
        rl, rpg = p["rl"], p["rpg"]
        r, part = f"{rpg}*g + v", N // rl
        k = f"j*{rl} + w" if p["order"] == "cyclic" else f"w*{part} + j"
        a, b = f"a[{r}, {k}]", f"b[{r}, {k}]"
        norm = ("sqrt(ta[v] * tb[v])" if p["norm"] == "one"
                else "(sqrt(ta[v]) * sqrt(tb[v]))")
        knl = lp.make_kernel(
            f"{{[g, v, w, j, u]: 0 <= g < {m // rpg} and 0 <= v < {rpg} "
            f"and 0 <= w, u < {rl} and 0 <= j < {part}}}",
            f"""
            for g, v
                # each lane sums the products and squares of its part of the pair
                for w
                    pd[v, w] = sum(j, {a} * {b}) {{id=pdot}}
                    pa[v, w] = sum(j, {a} * {a}) {{id=pnorma}}
                    pb[v, w] = sum(j, {b} * {b}) {{id=pnormb}}
                end
                # then the lanes' sums are added up
                td[v] = sum(u, pd[v, u]) {{id=tdot, dep=pdot}}
                ta[v] = sum(u, pa[v, u]) {{id=tnorma, dep=pnorma}}
                tb[v] = sum(u, pb[v, u]) {{id=tnormb, dep=pnormb}}
                # the row's lanes write its cosine alike (the same value)
                for w
                    cos[{r}] = td[v] / {norm} {{dep=tdot:tnorma:tnormb}}
                end
            end
            """,
            [lp.GlobalArg("a, b", np.float32, shape=(m, N)),
             lp.GlobalArg("cos", np.float32, shape=(m,), is_output=True),
             *(lp.TemporaryVariable(name, np.float32, shape=(rpg, rl),
                                    address_space=lp.AddressSpace.LOCAL)
               for name in ("pd", "pa", "pb")),
             # shared by the row's lanes: each sum of the lanes' parts ends in one lane
             *(lp.TemporaryVariable(name, np.float32, shape=(rpg,),
                                    address_space=lp.AddressSpace.LOCAL)
               for name in ("td", "ta", "tb"))],
            name="cos_sim", lang_version=(2018, 2),
            silenced_warnings=["write_race(td)", "write_race(ta)", "write_race(tb)",
                               "write_race(cos)"])
        knl = lp.tag_inames(knl, {"g": "g.0", "v": "l.1", "w": "l.0", "u": "l.0"})
        return knl

    def make_inputs(rng):
        # sixteenths in [0, 1): every product and sum is exact in float32 (only the
        # square roots and the division round), and no dot product cancels to near zero
        def draw():
            return (rng.integers(0, 16, size=(m, N)) / 16).astype(np.float32)

        a = draw()
        a[:, 0] = 0.5   # no row of zeros (its cosine would be 0/0)
        b = draw()
        b[:, 0] = 0.5
        return {"a": a, "b": b}

    def reference(inputs):
        a = inputs["a"].astype(np.float64)
        b = inputs["b"].astype(np.float64)
        return {"cos": (a * b).sum(axis=1)
                / np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))}

    return TuningSpace(
        name="blind14_cos_sim",
        description=f"cosine similarity of {m} pairs of float32 rows of {N}: rl lanes per "
                    f"row (three sums added in local memory), rpg rows per group, a row's "
                    f"part cyclic or blocked, one square root or two",
        tune_params={"rl": (16, 32, 64, 128, 256), "rpg": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "norm": ("one", "two")},
        restrictions=("rl*rpg >= 64 and rl*rpg <= 1024", "m % rpg == 0"),
        group_size=lambda p: (p["rl"], p["rpg"]),
        # the lanes' three sums, loopy's accumulators of their sums, the rows' totals
        local_bytes=lambda p: 24 * p["rl"] * p["rpg"] + 12 * p["rpg"],
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
