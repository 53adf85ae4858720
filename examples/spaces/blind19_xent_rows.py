"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, nineteenth set").
Softmax cross-entropy of each row of an m x n float32 matrix of logits against an int32
label per row (a classifier's training loss before the mean over the batch):
loss[i] = log(sum_j exp(x[i, j])) - x[i, label[i]], the row's log-sum-exp less its
label's logit.

    workbench tune examples/spaces/blind19_xent_rows.py:space --param m=131072 --param n=1024

Knobs: lanes per row (g0: each lane walks every g0-th logit, the lanes' partial sums
added in local memory), rows per work group (rpg), the unrolling of the lanes' loops,
and the log-sum-exp's form: stable (the row's maximum first, a second walk summing
exp(x - max)) or plain (one walk summing exp(x), as a user whose logits are small
writes it).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(m: int = 131072, n: int = 1024) -> TuningSpace:
    def kernel(p):
        g0, rpg = p["g0"], p["rpg"]
        row = f"{rpg}*io + ii"
        pick = f"x[{row}, label[{row}]]"
        if p["form"] == "stable":
            body = f"""
                for k
                    <> m1 = -1e30f {{id=i1}}
                    for jo
                        m1 = fmax(m1, x[{row}, {g0}*jo + k]) {{id=u1, dep=i1}}
                    end
                end
                top[ii] = max(k, m1) {{id=top, dep=u1}}
                for k3
                    <> s1 = 0 {{id=i2}}
                    for jo3
                        s1 = s1 + exp(x[{row}, {g0}*jo3 + k3] - top[ii]) \
                            {{id=u2, dep=i2:top}}
                    end
                end
                loss[{row}] = log(sum(k3, s1)) + top[ii] - {pick} {{dep=u2}}
                """
            silenced = ["write_race(top)", "write_race(loss)"]
        else:
            body = f"""
                for k3
                    <> s1 = 0 {{id=i2}}
                    for jo3
                        s1 = s1 + exp(x[{row}, {g0}*jo3 + k3]) {{id=u2, dep=i2}}
                    end
                end
                loss[{row}] = log(sum(k3, s1)) - {pick} {{dep=u2}}
                """
            silenced = ["write_race(loss)"]
        knl = lp.make_kernel(
            f"{{[io, ii, k, jo, k3, jo3]: 0 <= io < {m // rpg} and 0 <= ii < {rpg}"
            f" and 0 <= k, k3 < {g0} and 0 <= jo, jo3 < {n // g0}}}",
            f"""
            for io, ii
                {body}
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, n)),
             lp.GlobalArg("label", np.int32, shape=(m,)),
             lp.GlobalArg("loss", np.float32, shape=(m,), is_output=True)]
            + ([lp.TemporaryVariable("top", np.float32, shape=(rpg,),
                                     address_space=lp.AddressSpace.LOCAL)]
               if p["form"] == "stable" else []),
            name="xent_rows", lang_version=(2018, 2), silenced_warnings=silenced)
        tags = {"io": "g.0", "ii": "l.1", "k3": "l.0"}
        if p["form"] == "stable":
            tags["k"] = "l.0"
        knl = lp.tag_inames(knl, tags)
        if p["unroll"] > 1:
            for loop in ("jo3",) + (("jo",) if p["form"] == "stable" else ()):
                knl = lp.split_iname(knl, loop, p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # logits in 64ths of [-4, 4] (small enough for the plain form's exp), labels
        # anywhere in the row
        return {"x": rng.integers(-256, 257, size=(m, n), dtype=np.int16)
                .astype(np.float32) / np.float32(64.0),
                "label": rng.integers(0, n, size=m, dtype=np.int32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        top = x.max(axis=1)
        lse = np.log(np.exp(x - top[:, None]).sum(axis=1)) + top
        return {"loss": lse - x[np.arange(m), inputs["label"]]}

    return TuningSpace(
        name="blind19_xent_rows",
        description=f"softmax cross-entropy of the {m} rows of {n} float32 logits against "
                    f"int32 labels: g0 lanes per row, rpg rows per group, lane loops "
                    f"unrolled, the log-sum-exp stable (max first) or plain",
        tune_params={"g0": (32, 64, 128, 256, 512), "rpg": (1, 2, 4, 8),
                     "unroll": (1, 4), "form": ("stable", "plain")},
        restrictions=("g0*rpg >= 64 and g0*rpg <= 1024", "n % (g0*unroll) == 0",
                      "m % rpg == 0"),
        group_size=lambda p: (p["g0"], p["rpg"]),
        local_bytes=lambda p: 4 * p["rpg"] * (p["g0"] + 1 + (p["form"] == "stable")),
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=2e-5)
