"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifteenth set").
The largest and the second largest value of each of m float32 rows of 1024 (a beam
search's two best scores, a detector's margin between its best and runner-up, or the
two peaks of a spectrum): top1[r] = max_k x[r, k] and top2[r] the largest of what is
left when one copy of top1 is taken out (so a row whose maximum occurs twice has
top2 = top1).  Each lane keeps its own best two of its part of the row in registers
(a2 = max(a2, min(a1, x)), then a1 = max(a1, x)), writes them to local memory, and
every lane of the row then merges the lanes' pairs the same way, in order.

    workbench tune examples/spaces/blind15_top2_rows.py:space --param m=262144

Knobs: lanes per row (rl), rows per work group (rpg, on axis 1), how a row is parted
among its lanes (cyclic or blocked), and the lane's loop unrolled by 4 or not.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 1024        # values a row
LOW = -3.0e38   # below every value: the empty pair


def space(m: int = 2 ** 18) -> TuningSpace:
    def kernel(p):
        rl, rpg = p["rl"], p["rpg"]
        r, part = f"{rpg}*g + v", N // rl
        k = f"j*{rl} + w" if p["order"] == "cyclic" else f"w*{part} + j"
        knl = lp.make_kernel(
            f"{{[g, v, w, j, u]: 0 <= g < {m // rpg} and 0 <= v < {rpg} "
            f"and 0 <= w < {rl} and 0 <= j < {part} and 0 <= u < {rl}}}",
            f"""
            for g, v, w
                # the lane's best two of its part of the row
                <> a1 = {LOW!r}f {{id=i1}}
                <> a2 = {LOW!r}f {{id=i2}}
                for j
                    <> xv = x[{r}, {k}] {{id=load}}
                    a2 = fmax(a2, fmin(a1, xv)) {{id=s2, dep=i1:i2:load}}
                    a1 = fmax(a1, xv) {{id=s1, dep=s2}}
                end
                p1[v, w] = a1 {{id=w1, dep=s1}}
                p2[v, w] = a2 {{id=w2, dep=s2}}
                # then every lane merges the row's lanes' pairs alike
                <> t1 = {LOW!r}f {{id=j1}}
                <> t2 = {LOW!r}f {{id=j2}}
                for u
                    t2 = fmax(fmax(t2, p2[v, u]), fmin(t1, p1[v, u])) {{id=m2, dep=j1:j2:w1:w2}}
                    t1 = fmax(t1, p1[v, u]) {{id=m1, dep=m2}}
                end
                top1[{r}] = t1 {{dep=m1}}
                top2[{r}] = t2 {{dep=m2}}
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, N)),
             lp.GlobalArg("top1, top2", np.float32, shape=(m,), is_output=True),
             *(lp.TemporaryVariable(name, np.float32, shape=(rpg, rl),
                                    address_space=lp.AddressSpace.LOCAL)
               for name in ("p1", "p2"))],
            name="top2_rows", lang_version=(2018, 2),
            silenced_warnings=["write_race(top1)", "write_race(top2)"])
        knl = lp.tag_inames(knl, {"g": "g.0", "v": "l.1", "w": "l.0"})
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "j", p["unroll"], inner_tag="unr")
            # the copies of the body inside the loop (loopy may nest them the other way)
            knl = lp.prioritize_loops(knl, "j_outer,j_inner")
        return knl

    def make_inputs(rng):
        # values of float32 drawn from [0, 1): comparisons only, nothing rounds
        return {"x": rng.random((m, N), dtype=np.float32)}

    def reference(inputs):
        s = np.sort(inputs["x"], axis=1)
        return {"top1": s[:, -1], "top2": s[:, -2]}

    return TuningSpace(
        name="blind15_top2_rows",
        description=f"largest and second largest of each of {m} float32 rows of {N}: rl "
                    f"lanes per row (their pairs merged through local memory), rpg rows "
                    f"per group, a row's part cyclic or blocked, the lane's loop unrolled "
                    f"by 4 or not",
        tune_params={"rl": (8, 16, 32, 64, 128), "rpg": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "unroll": (1, 4)},
        restrictions=("rl*rpg >= 32 and rl*rpg <= 1024", "m % rpg == 0"),
        group_size=lambda p: (p["rl"], p["rpg"]),
        local_bytes=lambda p: 8 * p["rl"] * p["rpg"],
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=0.0)
