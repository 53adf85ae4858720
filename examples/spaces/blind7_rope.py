"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventh set").
Rotary position embedding of an s x nh x d float32 tensor (s tokens, nh heads of d
features, rotate-half form): with h = d/2, c = cos[t, p] and q = sin[t, p],
out[t, hd, p] = x[t, hd, p] c - x[t, hd, p + h] q and
out[t, hd, p + h] = x[t, hd, p + h] c + x[t, hd, p] q; every head of a token shares
its row of the two tables.

    workbench tune examples/spaces/blind7_rope.py:space --param s=8192 --param nh=16

Knobs: lanes along the feature pairs (pl; the rest of the 64 pairs in registers by
loopy's ILP), heads per work group (hpg, on axis 1), heads per work item (hpi, ILP)
and whether the token's rows of the tables are first read into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

D = 128


def space(s: int = 8192, nh: int = 16) -> TuningSpace:
    h = D // 2

    def kernel(p):
        knl = lp.make_kernel(
            f"{{[t, hd, q]: 0 <= t < {s} and 0 <= hd < {nh} and 0 <= q < {h}}}",
            f"""
            <> lo = x[t, hd, q]
            <> hi = x[t, hd, q + {h}]
            out[t, hd, q] = lo*cos_t[t, q] - hi*sin_t[t, q]
            out[t, hd, q + {h}] = hi*cos_t[t, q] + lo*sin_t[t, q]
            """,
            [lp.GlobalArg("x", np.float32, shape=(s, nh, D)),
             lp.GlobalArg("cos_t, sin_t", np.float32, shape=(s, h)),
             lp.GlobalArg("out", np.float32, shape=(s, nh, D), is_output=True)],
            name="rope", lang_version=(2018, 2))
        pl, hpg, hpi = p["pl"], p["hpg"], p["hpi"]
        knl = lp.tag_inames(knl, {"t": "g.0"})
        knl = lp.split_iname(knl, "hd", hpg * hpi, outer_tag="g.1")
        knl = lp.split_iname(knl, "hd_inner", hpg, outer_tag="ilp", inner_tag="l.1")
        knl = lp.split_iname(knl, "q", pl, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            for table in ("cos_t", "sin_t"):
                knl = lp.add_prefetch(knl, table, ["q_outer", "q_inner"],
                                      fetch_outer_inames="t, hd_outer",
                                      temporary_address_space=lp.AddressSpace.LOCAL,
                                      default_tag="l.auto")
            # the copies run along the pairs' lanes; every head row of the group
            # stores the same values
            knl = lp.add_inames_for_unused_hw_axes(knl)
        return knl

    def make_inputs(rng):
        angle = rng.random((s, h)) * 2 * np.pi
        return {"x": (2 * rng.random((s, nh, D), dtype=np.float32) - 1).astype(np.float32),
                "cos_t": np.cos(angle).astype(np.float32),
                "sin_t": np.sin(angle).astype(np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        c = inputs["cos_t"].astype(np.float64)[:, None, :]
        q = inputs["sin_t"].astype(np.float64)[:, None, :]
        lo, hi = x[..., :h], x[..., h:]
        return {"out": np.concatenate([lo * c - hi * q, hi * c + lo * q], axis=-1)}

    return TuningSpace(
        name="blind7_rope",
        description=f"rotary position embedding of {s} tokens x {nh} heads x {D} float32: "
                    f"pl lanes along the pairs, hpg heads per group, hpi per work item, "
                    f"optional local copies of the token's table rows",
        tune_params={"pl": (16, 32, 64), "hpg": (1, 2, 4, 8, 16), "hpi": (1, 2, 4),
                     "local": (0, 1)},
        restrictions=("pl*hpg >= 32 and pl*hpg <= 1024", "nh % (hpg*hpi) == 0",
                      f"{h} % pl == 0"),
        group_size=lambda p: (p["pl"], p["hpg"]),
        local_bytes=lambda p: 4 * p["local"] * 2 * h,
        problem={"s": s, "nh": nh}, kernel=kernel, make_inputs=make_inputs,
        reference=reference, rtol=1e-4)
