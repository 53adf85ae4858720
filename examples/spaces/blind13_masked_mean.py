"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, thirteenth set").
The mean of each row of an m x 1024 float32 matrix over the entries its int8 mask
keeps (a padded batch's mean over its real tokens, or an image row's mean over its
valid pixels): mean[r] = sum_k [mask[r, k] != 0] x[r, k] / sum_k [mask[r, k] != 0],
every row keeping at least one entry.

    workbench tune examples/spaces/blind13_masked_mean.py:space --param m=131072

Knobs: lanes per row (rl: each lane sums its part of the row and counts its kept
entries, then the lanes' sums and counts are added in local memory), rows per work
group (rpg, on axis 1), how a row is parted among its lanes (cyclic or blocked), and
whether the mask selects (a conditional) or multiplies (the flag as a float).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 1024


def space(m: int = 2 ** 17) -> TuningSpace:
    def kernel(p):
        rl, rpg = p["rl"], p["rpg"]
        r, part = f"{rpg}*g + v", N // rl
        k = f"j*{rl} + w" if p["order"] == "cyclic" else f"w*{part} + j"
        if p["form"] == "select":
            kept = f"if(mask[{r}, {k}] != 0, x[{r}, {k}], 0.0f)"
            one = f"if(mask[{r}, {k}] != 0, 1.0f, 0.0f)"
        else:
            kept = f"x[{r}, {k}] * mask[{r}, {k}]"
            one = f"mask[{r}, {k}] * 1.0f"
        knl = lp.make_kernel(
            f"{{[g, v, w, j, u]: 0 <= g < {m // rpg} and 0 <= v < {rpg} "
            f"and 0 <= w, u < {rl} and 0 <= j < {part}}}",
            f"""
            for g, v
                # each lane sums and counts the kept entries of its part of the row
                for w
                    ps[v, w] = sum(j, {kept}) {{id=psum}}
                    pc[v, w] = sum(j, {one}) {{id=pcount}}
                end
                # then the lanes' sums and counts are added up
                tot[v] = sum(u, ps[v, u]) {{id=total, dep=psum}}
                cnt[v] = sum(u, pc[v, u]) {{id=count, dep=pcount}}
                # the row's lanes write its mean alike (the same value)
                for w
                    mean[{r}] = tot[v] / cnt[v] {{dep=total:count}}
                end
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, N)),
             lp.GlobalArg("mask", np.int8, shape=(m, N)),
             lp.GlobalArg("mean", np.float32, shape=(m,), is_output=True),
             *(lp.TemporaryVariable(name, np.float32, shape=(rpg, rl),
                                    address_space=lp.AddressSpace.LOCAL)
               for name in ("ps", "pc")),
             # shared by the row's lanes: each sum of the lanes' parts ends in one lane
             *(lp.TemporaryVariable(name, np.float32, shape=(rpg,),
                                    address_space=lp.AddressSpace.LOCAL)
               for name in ("tot", "cnt"))],
            name="masked_mean", lang_version=(2018, 2),
            silenced_warnings=["write_race(tot)", "write_race(cnt)",
                               "write_race(mean)"])
        knl = lp.tag_inames(knl, {"g": "g.0", "v": "l.1", "w": "l.0", "u": "l.0"})
        return knl

    def make_inputs(rng):
        # a prefix of each row kept (a padded sequence's real length, 1 to N), and a
        # few holes besides (invalid samples inside it)
        x = rng.random((m, N), dtype=np.float32)
        length = rng.integers(1, N + 1, size=(m, 1))
        mask = (np.arange(N) < length) & ((rng.random((m, N)) > 0.1)
                                          | (np.arange(N) == 0))
        return {"x": x, "mask": mask.astype(np.int8)}

    def reference(inputs):
        keep = inputs["mask"] != 0
        x = inputs["x"].astype(np.float64)
        return {"mean": (x * keep).sum(axis=1) / keep.sum(axis=1)}

    return TuningSpace(
        name="blind13_masked_mean",
        description=f"mean over an int8 mask's kept entries of each of {m} float32 rows "
                    f"of {N}: rl lanes per row, rpg rows per group, a row's part cyclic "
                    f"or blocked among its lanes, the mask selecting or multiplying",
        tune_params={"rl": (32, 64, 128, 256, 512), "rpg": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "form": ("select", "mul")},
        restrictions=("rl*rpg >= 64 and rl*rpg <= 1024", "m % rpg == 0"),
        group_size=lambda p: (p["rl"], p["rpg"]),
        # the lanes' sums and counts, loopy's accumulators of their sums, the rows' totals
        local_bytes=lambda p: 16 * p["rl"] * p["rpg"] + 8 * p["rpg"],
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
