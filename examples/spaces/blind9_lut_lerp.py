"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, ninth set").
A function tabulated at 4097 points on [0, 1] and evaluated at n float32 arguments by
linear interpolation, as a user replaces a costly function by a lookup table:
u = 4096 x, k = floor(u), y = T[k] + (u - k) (T[k + 1] - T[k]) (a gather of two
neighbouring table entries an argument, at places the data decide).

    workbench tune examples/spaces/blind9_lut_lerp.py:space --param n=33554432

Knobs: the group size, arguments per work item (ipi, unrolled), cyclic (a group's lanes side by
side at each step) or blocked (each lane on a run of its own), and whether each group
first copies the whole table (16 KiB) into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

NT = 4096


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        gs, ipi, local = p["gs"], p["ipi"], p["local"]
        block = gs * ipi
        i = (f"{block}*io + {gs}*s + l" if p["order"] == "cyclic"
             else f"{block}*io + {ipi}*l + s")
        tab = "Tl" if local else "T"
        copy = "Tl[t] = T[t] {id=copy}" if local else ""
        dep = " {dep=copy}" if local else ""
        knl = lp.make_kernel(
            f"{{[io, l, s, t]: 0 <= io < {n // block} and 0 <= l < {gs} "
            f"and 0 <= s < {ipi} and 0 <= t <= {NT}}}",
            f"""
            for io
                {copy}
                for l, s
                    <> u = x[{i}] * {NT}.0f
                    <int32> k = floor(u)
                    y[{i}] = {tab}[k] + (u - k) * ({tab}[k + 1] - {tab}[k]){dep}
                end
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(n,)),
             lp.GlobalArg("T", np.float32, shape=(NT + 1,)),
             lp.GlobalArg("y", np.float32, shape=(n,), is_output=True)]
            + ([lp.TemporaryVariable("Tl", np.float32, shape=(NT + 1,),
                                     address_space=lp.AddressSpace.LOCAL)]
               if local else []),
            name="lut_lerp", lang_version=(2018, 2))
        knl = lp.tag_inames(knl, {"io": "g.0", "l": "l.0", "s": "unr"})
        if local:
            # the whole group copies the table, its lanes side by side
            knl = lp.split_iname(knl, "t", gs, inner_tag="l.0")
        return knl

    def make_inputs(rng):
        grid = np.linspace(0, 1, NT + 1)
        # a smooth positive function (no zero to make a relative check meaningless)
        return {"x": rng.random(n, dtype=np.float32),
                "T": (1.5 + 0.5 * np.sin(6 * grid)).astype(np.float32)}

    def reference(inputs):
        table = inputs["T"].astype(np.float64)
        u = inputs["x"].astype(np.float64) * NT      # exact: NT is a power of two
        k = np.floor(u).astype(np.int64)
        return {"y": table[k] + (u - k) * (table[k + 1] - table[k])}

    return TuningSpace(
        name="blind9_lut_lerp",
        description=f"lookup table of {NT + 1} float32 entries with linear interpolation "
                    f"at {n} arguments: gs per group, ipi arguments per work item, "
                    f"cyclic or blocked, optional local copy of the table",
        tune_params={"gs": (64, 128, 256, 512, 1024), "ipi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "local": (0, 1)},
        restrictions=("n % (gs*ipi) == 0",
                      # one argument: no order to choose
                      lambda p: p["ipi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 4 * (NT + 1) * p["local"],
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
