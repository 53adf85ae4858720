"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, fifteenth set").
An exponential moving average of n float32 series of T = 256 steps each (prices, sensor
channels or a model's per-feature statistics smoothed over time), one sequential walk
along each series by one work item: y[0] = x[0] and y[t] = a y[t - 1] + (1 - a) x[t]
with a = 7/8.  The series are the columns of a T x n matrix ("time": step by step,
neighbouring series neighbours in memory) or its rows ("series", n x T, each series
contiguous); the smoothed output is always written step by step (T x n), where the
lanes' writes of one step are neighbours.  The smoothing
factor is either a literal in the kernel or read per series from an array (a user who
smooths each series by its own factor; every factor 7/8 here, so both answers agree).

    workbench tune examples/spaces/blind15_ema_cols.py:space --param n=524288

Knobs: the group size, series per work item (spi, cyclic or blocked, in registers),
the layout, and the factor as a literal or per series from an array.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

T = 256        # steps a series
A = 0.875      # the smoothing factor: the weight of the average so far


def space(n: int = 2 ** 19) -> TuningSpace:
    def kernel(p):
        time = p["layout"] == "time"

        def at(t):
            return f"x[{t}, j]" if time else f"xs[j, {t}]"

        if p["coef"] == "literal":
            a, b, ins = f"{A!r}f", f"{1 - A!r}f", []
        else:
            a, b = "alpha[j]", "(1.0f - alpha[j])"
            ins = [lp.GlobalArg("alpha", np.float32, shape=(n,))]
        knl = lp.make_kernel(
            f"{{[j, t]: 0 <= j < {n} and 1 <= t < {T}}}",
            f"""
            for j
                <> acc = {at(0)} {{id=init}}
                y[0, j] = acc {{id=first, dep=init}}
                for t
                    acc = {a} * acc + {b} * {at('t')} {{id=step, dep=init:first}}
                    y[t, j] = acc {{dep=step}}
                end
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(T, n)) if time
             else lp.GlobalArg("xs", np.float32, shape=(n, T)), *ins,
             lp.GlobalArg("y", np.float32, shape=(T, n), is_output=True)],
            name="ema_cols", lang_version=(2018, 2))
        gs, spi = p["gs"], p["spi"]
        knl = lp.split_iname(knl, "j", gs * spi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "j_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "j_inner", spi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # values in [1/4, 1]: every average stays there, far from zero
        x = (0.25 + 0.75 * rng.random((T, n))).astype(np.float32)
        # both layouts of the same series: a point's kernel reads the one it names
        return {"x": x, "xs": np.ascontiguousarray(x.T),
                "alpha": np.full(n, A, np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        y = np.empty_like(x)
        y[0] = x[0]
        for t in range(1, T):
            y[t] = A * y[t - 1] + (1 - A) * x[t]
        return {"y": y}

    return TuningSpace(
        name="blind15_ema_cols",
        description=f"exponential moving average (a = 7/8) of {n} float32 series of {T} "
                    f"steps, a series walked by one work item: gs per group, spi series "
                    f"per work item (cyclic or blocked), series as columns or rows, the "
                    f"factor a literal or per series",
        tune_params={"gs": (32, 64, 128, 256), "spi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("time", "series"),
                     "coef": ("literal", "array")},
        restrictions=("n % (gs*spi) == 0",
                      # one series: no order to choose
                      lambda p: p["spi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
