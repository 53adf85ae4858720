"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eleventh set").
The largest entry of each row of an m x 1024 float32 matrix and its column, in one
kernel (a classifier's prediction from its scores, or a greedy decoder's next token):
best[r] = max_k x[r, k] and where[r] = argmax_k x[r, k], an int32, written with loopy's
argmax reduction.

    workbench tune examples/spaces/blind11_argmax_rows.py:space --param m=65536

Knobs: lanes per row (rl: each lane finds the largest of its part, then the lanes
compare their winners in local memory), rows per work group (rpg, on axis 1), how a
row is parted among its lanes (cyclic, the lanes side by side at each step, or blocked,
each lane on a run of its own), and whether a lane's loop is unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 1024


def space(m: int = 2 ** 16) -> TuningSpace:
    def kernel(p):
        rl, rpg = p["rl"], p["rpg"]
        r, part = f"{rpg}*g + v", N // rl
        k = f"j*{rl} + w" if p["order"] == "cyclic" else f"w*{part} + j"
        knl = lp.make_kernel(
            f"{{[g, v, w, j, u]: 0 <= g < {m // rpg} and 0 <= v < {rpg} "
            f"and 0 <= w, u < {rl} and 0 <= j < {part}}}",
            f"""
            for g, v
                # each lane finds the winner of its part of the row
                for w
                    pb[v, w], pk[v, w] = argmax(j, x[{r}, {k}], {k}) {{id=part}}
                end
                # then the lanes compare their winners
                best[{r}], where[{r}] = argmax(u, pb[v, u], pk[v, u]) {{dep=part}}
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, N)),
             lp.GlobalArg("best", np.float32, shape=(m,), is_output=True),
             lp.GlobalArg("where", np.int32, shape=(m,), is_output=True),
             lp.TemporaryVariable("pb", np.float32, shape=(rpg, rl),
                                  address_space=lp.AddressSpace.LOCAL),
             lp.TemporaryVariable("pk", np.int32, shape=(rpg, rl),
                                  address_space=lp.AddressSpace.LOCAL)],
            name="argmax_rows", lang_version=(2018, 2))
        knl = lp.tag_inames(knl, {"g": "g.0", "v": "l.1", "w": "l.0", "u": "l.0"})
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"j": "unr"})
        return knl

    def make_inputs(rng):
        # every row's entries distinct (a shuffled ramp with a row's own offset), so
        # the argmax has one answer
        ramp = np.tile(np.arange(N, dtype=np.float32) / N, (m, 1))
        x = rng.permuted(ramp, axis=1) + rng.random((m, 1), dtype=np.float32)
        return {"x": x.astype(np.float32)}

    def reference(inputs):
        x = inputs["x"]
        return {"best": x.max(axis=1), "where": x.argmax(axis=1).astype(np.int32)}

    return TuningSpace(
        name="blind11_argmax_rows",
        description=f"largest entry and its column of each of {m} float32 rows of {N}: "
                    f"rl lanes per row, rpg rows per group, a row's part cyclic or "
                    f"blocked among its lanes, the lanes' loops unrolled or not",
        tune_params={"rl": (32, 64, 128, 256, 512), "rpg": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "unroll": (0, 1)},
        restrictions=("rl*rpg >= 64 and rl*rpg <= 1024", "m % rpg == 0"),
        group_size=lambda p: (p["rl"], p["rpg"]),
        # the lanes' winners and loopy's accumulators of the comparison, a float and an int each
        local_bytes=lambda p: 16 * p["rl"] * p["rpg"],
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
