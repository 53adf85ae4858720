"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, tenth set").
The mean and the (population) variance of each row of an m x 512 float32 matrix in one
kernel, two outputs, as a user writes per-row statistics (a normalisation layer's first
half, or image rows' statistics): mean[r] = sum_k x[r, k] / n, var[r] either from the sum
of squares ("sumsq", the textbook one-pass formula: sum_k x^2 / n - mean^2) or from the
deviations from the mean ("deviation": sum_k (x - mean)^2 / n, the second sum after the
first).  loopy runs the two sums one after the other over the row either way.

    workbench tune examples/spaces/blind10_mean_var.py:space --param m=131072

Knobs: lanes per row (rl: each lane sums its part, the lanes add up their parts in local
memory), rows per work group (rpg, on axis 1), the formula of the variance, and whether
a lane's part of the row is a loop or unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 512


def space(m: int = 2 ** 17) -> TuningSpace:
    def kernel(p):
        rl, rpg = p["rl"], p["rpg"]
        r = f"{rpg}*g + v"
        if p["formula"] == "sumsq":
            second = f"sum(k2, x[{r}, k2] * x[{r}, k2])"
            var = f"s2[v] / {N}.0f - (s1[v] / {N}.0f) * (s1[v] / {N}.0f)"
        else:
            second = f"sum(k2, (x[{r}, k2] - s1[v] / {N}.0f) * (x[{r}, k2] - s1[v] / {N}.0f))"
            var = f"s2[v] / {N}.0f"
        knl = lp.make_kernel(
            f"{{[g, v, k1, k2, w]: 0 <= g < {m // rpg} and 0 <= v < {rpg} "
            f"and 0 <= k1, k2 < {N} and 0 <= w < {rl}}}",
            f"""
            for g, v
                s1[v] = sum(k1, x[{r}, k1]) {{id=s1}}
                s2[v] = {second} {{id=s2, dep=s1}}
                # the row's lanes write its two results alike (the same values)
                for w
                    mean[{r}] = s1[v] / {N}.0f {{id=mean, dep=s1}}
                    var[{r}] = {var} {{id=var, dep=s2}}
                end
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, N)),
             lp.GlobalArg("mean", np.float32, shape=(m,), is_output=True),
             lp.GlobalArg("var", np.float32, shape=(m,), is_output=True),
             # shared by the row's lanes: each reduction leaves its sum in one lane
             lp.TemporaryVariable("s1", np.float32, shape=(rpg,),
                                  address_space=lp.AddressSpace.LOCAL),
             lp.TemporaryVariable("s2", np.float32, shape=(rpg,),
                                  address_space=lp.AddressSpace.LOCAL)],
            name="mean_var", lang_version=(2018, 2),
            silenced_warnings=["write_race(s1)", "write_race(s2)", "write_race(mean)",
                               "write_race(var)"])
        knl = lp.tag_inames(knl, {"g": "g.0", "v": "l.1", "w": "l.0"})
        loop = "unr" if p["unroll"] else None
        for name in ("k1", "k2"):
            knl = lp.split_iname(knl, name, rl, outer_tag=loop, inner_tag="l.0")
            # each lane sums its part first, then the lanes add up their parts
            knl = lp.split_reduction_outward(knl, f"{name}_inner")
        return knl

    def make_inputs(rng):
        # values in [0, 1), as pixel intensities: the sum of squares' cancellation
        # stays within float32's reach
        return {"x": rng.random((m, N), dtype=np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        return {"mean": x.mean(axis=1), "var": x.var(axis=1)}

    return TuningSpace(
        name="blind10_mean_var",
        description=f"mean and variance of each of {m} float32 rows of {N} in one "
                    f"kernel: rl lanes per row, rpg rows per group, variance from the sum of "
                    f"squares or from the deviations, the lanes' loops unrolled or not",
        tune_params={"rl": (16, 32, 64, 128, 256), "rpg": (1, 2, 4, 8),
                     "formula": ("sumsq", "deviation"), "unroll": (0, 1)},
        restrictions=("rl*rpg >= 64 and rl*rpg <= 1024", "m % rpg == 0"),
        group_size=lambda p: (p["rl"], p["rpg"]),
        local_bytes=lambda p: 4 * p["rpg"] * (2 * p["rl"] + 2),
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)
