"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eighteenth set").
Layer normalisation of the rows of an m x n float32 matrix without the affine part
(a transformer's LayerNorm with its scale and shift folded into the next layer, or a
feature standardised per sample): with mu the row's mean and var its (population)
variance, out[i, j] = (x[i, j] - mu_i) / sqrt(var_i + eps), eps = 1e-5.

    workbench tune examples/spaces/blind18_layernorm_rows.py:space --param m=32768 --param n=1024

Knobs: lanes per row (g0: each lane sums every g0-th entry, the lanes add up in local
memory), rows per work group (rpg), the unrolling of the lanes' loops, and the
variance's form: one pass (the sums of x and x^2 together, var = E[x^2] - mu^2) or two
passes (the mean first, then the sum of (x - mu)^2, as a careful user writes it).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

EPS = 1e-5


def space(m: int = 32768, n: int = 1024) -> TuningSpace:
    def kernel(p):
        g0, rpg = p["g0"], p["rpg"]
        row = f"{rpg}*io + ii"
        if p["form"] == "onepass":
            stats = f"""
                for k
                    <> s1 = 0 {{id=i1}}
                    <> s2 = 0 {{id=i2}}
                    for jo
                        s1 = s1 + x[{row}, {g0}*jo + k] {{id=u1, dep=i1}}
                        s2 = s2 + x[{row}, {g0}*jo + k]**2 {{id=u2, dep=i2}}
                    end
                end
                mu[ii] = sum(k, s1) / {n} {{id=mean, dep=u1}}
                rstd[ii] = 1 / sqrt(sum(k, s2) / {n} - mu[ii]**2 + {EPS}f) \
                    {{id=rstd, dep=u2:mean}}
                """
        else:
            stats = f"""
                for k
                    <> s1 = 0 {{id=i1}}
                    for jo
                        s1 = s1 + x[{row}, {g0}*jo + k] {{id=u1, dep=i1}}
                    end
                end
                mu[ii] = sum(k, s1) / {n} {{id=mean, dep=u1}}
                for k3
                    <> s2 = 0 {{id=i2}}
                    for jo3
                        s2 = s2 + (x[{row}, {g0}*jo3 + k3] - mu[ii])**2 \
                            {{id=u2, dep=i2:mean}}
                    end
                end
                rstd[ii] = 1 / sqrt(sum(k3, s2) / {n} + {EPS}f) {{id=rstd, dep=u2}}
                """
        knl = lp.make_kernel(
            f"{{[io, ii, k, jo, k3, jo3, k2, jo2]: 0 <= io < {m // rpg} and 0 <= ii < {rpg}"
            f" and 0 <= k, k2, k3 < {g0} and 0 <= jo, jo2, jo3 < {n // g0}}}",
            f"""
            for io, ii
                {stats}
                for k2, jo2
                    out[{row}, {g0}*jo2 + k2] = (x[{row}, {g0}*jo2 + k2] - mu[ii]) \
                        * rstd[ii] {{dep=rstd}}
                end
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, n)),
             lp.GlobalArg("out", np.float32, shape=(m, n), is_output=True),
             lp.TemporaryVariable("mu", np.float32, shape=(rpg,),
                                  address_space=lp.AddressSpace.LOCAL),
             lp.TemporaryVariable("rstd", np.float32, shape=(rpg,),
                                  address_space=lp.AddressSpace.LOCAL)],
            name="layernorm_rows", lang_version=(2018, 2),
            silenced_warnings=["write_race(mu)", "write_race(rstd)"])
        tags = {"io": "g.0", "ii": "l.1", "k": "l.0", "k2": "l.0"}
        if p["form"] == "twopass":
            tags["k3"] = "l.0"
        knl = lp.tag_inames(knl, tags)
        if p["unroll"] > 1:
            for loop in ("jo", "jo2") + (("jo3",) if p["form"] == "twopass" else ()):
                knl = lp.split_iname(knl, loop, p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # each row is its offset c (in [-1, 1]) plus n/2 deviations d and their
        # negatives, shuffled, everything in 64ths: the row's sum is exactly n c in
        # float32, so the mean is exact, x - mu exact and at least 1 from zero, and the
        # one-pass variance E[x^2] - mu^2 (about c^2 + 2.3 less c^2) loses no digits
        c = rng.integers(-64, 65, size=(m, 1)) / 64.0
        d = rng.integers(64, 129, size=(m, n // 2)) / 64.0
        dev = rng.permuted(np.concatenate([d, -d], axis=1), axis=1)
        return {"x": (c + dev).astype(np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        mu = x.mean(axis=1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
        return {"out": (x - mu) / np.sqrt(var + np.float32(EPS))}

    return TuningSpace(
        name="blind18_layernorm_rows",
        description=f"layer normalisation (no affine) of the rows of a {m} x {n} float32 "
                    f"matrix: g0 lanes per row, rpg rows per group, lane loops unrolled, "
                    f"the variance in one pass or two",
        tune_params={"g0": (32, 64, 128, 256, 512), "rpg": (1, 2, 4, 8),
                     "unroll": (1, 4), "form": ("onepass", "twopass")},
        restrictions=("g0*rpg >= 64 and g0*rpg <= 1024", "n % (g0*unroll) == 0",
                      "m % rpg == 0"),
        group_size=lambda p: (p["g0"], p["rpg"]),
        local_bytes=lambda p: 4 * p["rpg"] * (p["g0"] + 2),
        problem={"m": m, "n": n}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=2e-5)
