"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eleventh set").
Int8 quantisation of an m x n float32 matrix with a scale per row (static, calibrated
scales, as a user quantises activations or weights row by row), and the dequantised
values in the same kernel ("fake quantisation", to measure the error it brings):
code[r, c] = clamp(floor(x[r, c] inv[r] + 1/2), -127, 127) as a signed char (the
round-half-up a user writes) and deq[r, c] = code[r, c] s[r], with inv[r] = 1 / s[r]
given beside s (no division in the kernel).  The scales are powers of two (a shift, as
block formats keep them), so every product is exact.  Two outputs, one of bytes.

    workbench tune examples/spaces/blind11_quant_rows.py:space --param m=8192

Knobs: the group shape bx x by (columns x rows), columns per work item (cyclic, a
group's lanes side by side at each step, or blocked, each lane on a run of its own), and
whether the row's two scales are first read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 4096  # columns


def space(m: int = 8192) -> TuningSpace:
    def kernel(p):
        knl = lp.make_kernel(
            f"{{[r, c]: 0 <= r < {m} and 0 <= c < {N}}}",
            """
            <> t = floor(x[r, c] * inv[r] + 0.5f)
            <> v = if(t > 127.0f, 127.0f, if(t < -127.0f, -127.0f, t))
            code[r, c] = v
            deq[r, c] = v * s[r]
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, N)),
             lp.GlobalArg("inv", np.float32, shape=(m,)),
             lp.GlobalArg("s", np.float32, shape=(m,)),
             lp.GlobalArg("code", np.int8, shape=(m, N), is_output=True),
             lp.GlobalArg("deq", np.float32, shape=(m, N), is_output=True)],
            name="quant_rows", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "r", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "c", bx * cpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "c_inner", bx, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "c_inner", cpi, outer_tag="l.0", inner_tag="ilp")
        if p["local"]:
            for name in ("inv", "s"):
                knl = lp.add_prefetch(knl, name, ["r_inner"],
                                      fetch_outer_inames="r_outer, c_outer",
                                      temporary_address_space=lp.AddressSpace.LOCAL,
                                      default_tag="l.1")
            # every lane of a row writes its scales alike (the same values)
            knl = lp.add_inames_for_unused_hw_axes(knl)
        return knl

    def make_inputs(rng):
        # rows of different spreads, each scale a power of two: 127 codes span the
        # row's values but for a few beyond them, which the clamp catches
        s = np.exp2(rng.integers(-12, 0, size=m)).astype(np.float32)
        x = ((2 * rng.random((m, N), dtype=np.float32) - 1) * 135 * s[:, None])
        return {"x": x.astype(np.float32), "s": s, "inv": (1 / s).astype(np.float32)}

    def reference(inputs):
        # float32 as the kernel computes: the product is exact, then one rounding of the
        # sum (a fused multiply-add gives the same)
        v = np.clip(np.floor(inputs["x"] * inputs["inv"][:, None] + np.float32(0.5)),
                    -127, 127)
        return {"code": v.astype(np.int8),
                "deq": v.astype(np.float32) * inputs["s"][:, None]}

    return TuningSpace(
        name="blind11_quant_rows",
        description=f"int8 codes and dequantised values of {m} float32 rows of {N} with a "
                    f"scale per row: bx x by groups, cpi columns per work item, cyclic or "
                    f"blocked, optional local copy of the rows' scales",
        tune_params={"bx": (64, 128, 256), "by": (1, 2, 4), "cpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "local": (0, 1)},
        restrictions=("m % by == 0",
                      # one column: no order to choose
                      lambda p: p["cpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: 8 * p["local"] * p["by"],
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
