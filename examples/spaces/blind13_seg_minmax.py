"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, thirteenth set").
The smallest and the largest value of every segment of 64 along the rows of an
m x 4096 float32 matrix (a signal's envelope per bucket, as a plot or a level-of-detail
pass draws it from a long recording): lo[r, s] = min_k x[r, 64 s + k] and
hi[r, s] = max_k x[r, 64 s + k], two m x 64 outputs.

    workbench tune examples/spaces/blind13_seg_minmax.py:space --param m=16384

Knobs: lanes per segment (sl: each lane finds the extremes of its part of the
segment, then the segment's lanes compare theirs in local memory; one lane walks the
whole segment), segments per work group (spg, on axis 1), how a segment is parted
among its lanes (cyclic or blocked), and whether a lane's loop is unrolled.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 4096   # values a row
S = 64     # values a segment
B = N // S  # segments a row


def space(m: int = 16384) -> TuningSpace:
    def kernel(p):
        sl, spg = p["sl"], p["spg"]
        # segment q (of m*B) is row q // B, bucket q % B
        q, part = f"{spg}*g + v", S // sl
        k = f"j*{sl} + w" if p["order"] == "cyclic" else f"w*{part} + j"
        at = f"x[({q}) // {B}, {S}*(({q}) % {B}) + {k}]"
        knl = lp.make_kernel(
            f"{{[g, v, w, j, u]: 0 <= g < {m * B // spg} and 0 <= v < {spg} "
            f"and 0 <= w, u < {sl} and 0 <= j < {part}}}",
            f"""
            for g, v
                # each lane finds the extremes of its part of the segment
                for w
                    plo[v, w] = min(j, {at}) {{id=plo}}
                    phi[v, w] = max(j, {at}) {{id=phi}}
                end
                # then the segment's lanes compare theirs
                lo[({q}) // {B}, ({q}) % {B}] = min(u, plo[v, u]) {{dep=plo}}
                hi[({q}) // {B}, ({q}) % {B}] = max(u, phi[v, u]) {{dep=phi}}
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(m, N)),
             lp.GlobalArg("lo, hi", np.float32, shape=(m, B), is_output=True),
             *(lp.TemporaryVariable(name, np.float32, shape=(spg, sl),
                                    address_space=lp.AddressSpace.LOCAL)
               for name in ("plo", "phi"))],
            name="seg_minmax", lang_version=(2018, 2))
        knl = lp.tag_inames(knl, {"g": "g.0", "v": "l.1", "w": "l.0", "u": "l.0"})
        if p["unroll"]:
            knl = lp.tag_inames(knl, {"j": "unr"})
        return knl

    def make_inputs(rng):
        return {"x": (2 * rng.random((m, N), dtype=np.float32) - 1).astype(np.float32)}

    def reference(inputs):
        seg = inputs["x"].reshape(m, B, S)
        return {"lo": seg.min(axis=2), "hi": seg.max(axis=2)}

    return TuningSpace(
        name="blind13_seg_minmax",
        description=f"minimum and maximum of every segment of {S} along {m} float32 rows "
                    f"of {N}: sl lanes per segment, spg segments per group, a segment's "
                    f"part cyclic or blocked among its lanes, the lanes' loops unrolled "
                    f"or not",
        tune_params={"sl": (1, 2, 4, 8, 16, 32, 64), "spg": (1, 2, 4, 8, 16, 32, 64),
                     "order": ("cyclic", "blocked"), "unroll": (0, 1)},
        restrictions=("sl*spg >= 64 and sl*spg <= 512",
                      # one lane (or one value a lane): the two orders are one
                      lambda p: 1 < p["sl"] < S or p["order"] == "cyclic",
                      # one value a lane: no loop to unroll
                      lambda p: p["sl"] < S or p["unroll"] == 0),
        group_size=lambda p: (p["sl"], p["spg"]),
        # the lanes' extremes, and loopy's accumulators of their comparison
        local_bytes=lambda p: 16 * p["sl"] * p["spg"],
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-6)
