"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eleventh set").
A rational function evaluated at n float32 arguments in [-1, 1], y = P(x) / Q(x), as a
user replaces a costly function by a fitted approximation: here the [6/6] Pade
approximant of exp, P of degree 6 with a_k = (12 - k)! 6! / (12! k! (6 - k)!) and
Q(x) = P(-x), positive on [-1, 1].  Both polynomials are evaluated either by Horner's
rule (six dependent multiply-adds each) or by Estrin's scheme (x^2 and x^4 first, then
independent pairs: a shorter chain), and the division done once.

    workbench tune examples/spaces/blind11_rational.py:space --param n=33554432

Knobs: the group size, values per work item (cyclic, a group's lanes side by side at
each step, or blocked, each lane on a run of its own), Horner or Estrin, and whether the
fourteen coefficients are read from an array argument or written into the code as
literals.
"""

from math import factorial

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

D = 6  # degree of numerator and denominator
A = tuple(factorial(2 * D - k) * factorial(D) / (factorial(2 * D) * factorial(k)
                                                  * factorial(D - k)) for k in range(D + 1))
#: the denominator's coefficients, b_k = (-1)^k a_k
B = tuple((-1) ** k * a for k, a in enumerate(A))


def _horner(c):
    text = c[D]
    for k in range(D - 1, -1, -1):
        text = f"({text}) * x[i] + {c[k]}"
    return text


def _estrin(c):
    pairs = [f"({c[k]} + {c[k + 1]} * x[i])" for k in range(0, D, 2)]
    return f"{pairs[0]} + x2 * {pairs[1]} + x4 * ({pairs[2]} + x2 * {c[D]})"


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        if p["coef"] == "array":
            a = [f"ca[{k}]" for k in range(D + 1)]
            b = [f"cb[{k}]" for k in range(D + 1)]
            coefficients = [lp.GlobalArg("ca", np.float32, shape=(D + 1,)),
                            lp.GlobalArg("cb", np.float32, shape=(D + 1,))]
        else:
            # the float32 values the array holds, written out as float literals
            a = [f"{float(np.float32(c))!r}f" for c in A]
            b = [f"{float(np.float32(c))!r}f" for c in B]
            coefficients = []
        if p["scheme"] == "horner":
            body = f"y[i] = ({_horner(a)}) / ({_horner(b)})"
        else:
            body = f"""
            <> x2 = x[i] * x[i]
            <> x4 = x2 * x2
            y[i] = ({_estrin(a)}) / ({_estrin(b)})
            """
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}", body,
            [lp.GlobalArg("x", np.float32, shape=(n,)), *coefficients,
             lp.GlobalArg("y", np.float32, shape=(n,), is_output=True)],
            name="rational", lang_version=(2018, 2))
        gs, vpi = p["gs"], p["vpi"]
        knl = lp.split_iname(knl, "i", gs * vpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", vpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        return {"x": (2 * rng.random(n, dtype=np.float32) - 1).astype(np.float32),
                "ca": np.array(A, dtype=np.float32), "cb": np.array(B, dtype=np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        # the float32 coefficients the kernel has (literals or array alike)
        a = inputs["ca"].astype(np.float64)[::-1]
        b = inputs["cb"].astype(np.float64)[::-1]
        return {"y": np.polyval(a, x) / np.polyval(b, x)}

    return TuningSpace(
        name="blind11_rational",
        description=f"[{D}/{D}] Pade approximant of exp at {n} float32 arguments: gs per "
                    f"group, vpi values per work item, cyclic or blocked, Horner or "
                    f"Estrin, coefficients from an array or as literals",
        tune_params={"gs": (64, 128, 256, 512, 1024), "vpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "scheme": ("horner", "estrin"),
                     "coef": ("array", "literal")},
        restrictions=("n % (gs*vpi) == 0",
                      # one value: no order to choose
                      lambda p: p["vpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
