"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, third set").
Many independent tridiagonal systems of N = 32 unknowns solved by the Thomas algorithm
(a forward sweep, then back substitution), one system per work item, float32. The
diagonals a (below), b (main), c (above) and the right-hand side d are stored
unknown-major, a[k, s], so that neighbouring systems are neighbours in memory.

    workbench tune examples/spaces/blind3_tridiag.py:space --param ns=1048576

Knobs: the work group size (gs systems on axis 0), systems per work item (spi, cyclic
or blocked; each keeps its sweep's coefficients in private arrays) and the unrolling of
both sweeps.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 32


def space(ns: int = 2 ** 20) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[s, k, kb]: 0 <= s < {ns} and 1 <= k < {N} and 0 <= kb < {N - 1}}}",
            f"""
            for s
                cp[0] = c[0, s] / b[0, s] {{id=cp0}}
                dp[0] = d[0, s] / b[0, s] {{id=dp0}}
                for k
                    <> r = 1 / (b[k, s] - a[k, s]*cp[k - 1]) {{id=r, dep=cp0}}
                    cp[k] = c[k, s]*r {{id=fwd_c, dep=r}}
                    dp[k] = (d[k, s] - a[k, s]*dp[k - 1])*r {{id=fwd_d, dep=r:dp0}}
                end
                <> xk = dp[{N - 1}] {{id=last, dep=fwd_d}}
                x[{N - 1}, s] = xk {{id=store_last, dep=last}}
                for kb
                    xk = dp[{N - 2} - kb] - cp[{N - 2} - kb]*xk {{id=back, dep=store_last:fwd_c}}
                    x[{N - 2} - kb, s] = xk {{dep=back}}
                end
            end
            """,
            [lp.GlobalArg("a, b, c, d", np.float32, shape=(N, ns)),
             lp.GlobalArg("x", np.float32, shape=(N, ns), is_output=True),
             *(lp.TemporaryVariable(name, np.float32, shape=(N,),
                                    address_space=lp.AddressSpace.PRIVATE)
               for name in ("cp", "dp"))],
            name="tridiag", lang_version=(2018, 2))
        gs, spi = p["gs"], p["spi"]
        knl = lp.split_iname(knl, "s", gs * spi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "s_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "s_inner", spi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "k", p["unroll"], inner_tag="unr")
            knl = lp.split_iname(knl, "kb", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # diagonally dominant (|b| > |a| + |c|): the sweep needs no pivoting
        def off():
            return rng.random((N, ns), dtype=np.float32)

        return {"a": off(), "c": off(), "d": off(),
                "b": (rng.random((N, ns), dtype=np.float32) + 3).astype(np.float32)}

    def reference(inputs):
        a, b, c, d = (inputs[v].astype(np.float64) for v in "abcd")
        cp, dp = np.empty_like(c), np.empty_like(d)
        cp[0], dp[0] = c[0] / b[0], d[0] / b[0]
        for k in range(1, N):
            r = 1 / (b[k] - a[k] * cp[k - 1])
            cp[k], dp[k] = c[k] * r, (d[k] - a[k] * dp[k - 1]) * r
        x = np.empty_like(d)
        x[N - 1] = dp[N - 1]
        for k in range(N - 2, -1, -1):
            x[k] = dp[k] - cp[k] * x[k + 1]
        return {"x": x}

    return TuningSpace(
        name="blind3_tridiag",
        description=f"{ns} tridiagonal float32 systems of {N} unknowns (Thomas "
                    f"algorithm): gs systems per group, spi systems per work item "
                    f"(cyclic or blocked), both sweeps unrolled",
        tune_params={"gs": (32, 64, 128, 256, 512), "spi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "unroll": (1, 2, 4)},
        restrictions=(lambda p: p["spi"] > 1 or p["order"] == "cyclic",
                      "ns % (gs*spi) == 0"),
        group_size=lambda p: (p["gs"],),
        problem={"ns": ns}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
