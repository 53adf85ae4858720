"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, twelfth set").
Line of sight along the rows of a terrain (a viewshed along m rays): an observer
stands 1.5 above the first sample of each row, the slope to sample k (k = 1 ... 512)
is s_k = (h_k - h_0 - 1.5) / k (the reciprocals of k read from a table), sample k is
visible where s_k is at least the running maximum of the slopes before it, and the
horizon is that running maximum including s_k: vis (int8) and horizon (float32), one
sequential walk along each row by one work item, float32 throughout, so that the
reference repeats the kernel's roundings and the comparisons agree exactly.  The
terrain is read either as stored, row by row ("rows", m x 513), or transposed
beforehand, sample by sample ("samples", 513 x m, neighbouring rows neighbours in
memory); both outputs are written sample by sample (N x m), where the lanes' writes of
one step are neighbours.

    workbench tune examples/spaces/blind12_los_max.py:space --param m=131072

Knobs: the group size, rows per work item (cyclic or blocked, registers), the layout,
and the unrolling of the walk along a row.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

N = 512    # samples a row after the observer's
EYE = 1.5  # the observer's height above the ground


def space(m: int = 2 ** 17) -> TuningSpace:
    def kernel(p):
        rows = p["layout"] == "rows"

        def at(k):
            return f"h[r, {k}]" if rows else f"ht[{k}, r]"

        knl = lp.make_kernel(
            f"{{[r, k]: 0 <= r < {m} and 0 <= k < {N}}}",
            f"""
            for r
                <> h0 = {at(0)} + {EYE}f {{id=h0}}
                <> best = -3.0e38f {{id=init}}
                for k
                    <> s = ({at('k + 1')} - h0) * invd[k] {{id=slope, dep=h0}}
                    vis[k, r] = if(s >= best, 1, 0) {{id=vis, dep=slope:init}}
                    best = fmax(best, s) {{id=walk, dep=vis}}
                    horizon[k, r] = best {{dep=walk}}
                end
            end
            """,
            [lp.GlobalArg("h", np.float32, shape=(m, N + 1)) if rows
             else lp.GlobalArg("ht", np.float32, shape=(N + 1, m)),
             lp.GlobalArg("invd", np.float32, shape=(N,)),
             lp.GlobalArg("vis", np.int8, shape=(N, m), is_output=True),
             lp.GlobalArg("horizon", np.float32, shape=(N, m), is_output=True)],
            name="los_max", lang_version=(2018, 2))
        gs, rpi = p["gs"], p["rpi"]
        knl = lp.split_iname(knl, "r", gs * rpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "r_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "r_inner", rpi, outer_tag="l.0", inner_tag="ilp")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "k", p["unroll"], inner_tag="unr")
        return knl

    def make_inputs(rng):
        # a rough random walk: ridges hide the valleys behind them
        h = np.cumsum(rng.normal(size=(m, N + 1)), axis=1).astype(np.float32)
        # both layouts of the same terrain: a point's kernel reads the one it names
        return {"h": h, "ht": np.ascontiguousarray(h.T),
                "invd": (1 / np.arange(1, N + 1, dtype=np.float32)).astype(np.float32)}

    def reference(inputs):
        h = inputs["h"]
        h0 = h[:, :1] + np.float32(EYE)
        s = (h[:, 1:] - h0) * inputs["invd"][None, :]
        horizon = np.maximum.accumulate(s, axis=1)
        before = np.concatenate([np.full((m, 1), -3.0e38, np.float32), horizon[:, :-1]],
                                axis=1)
        return {"vis": np.ascontiguousarray((s >= before).astype(np.int8).T),
                "horizon": np.ascontiguousarray(horizon.T)}

    return TuningSpace(
        name="blind12_los_max",
        description=f"line of sight along {m} terrain rows of {N} float32 samples "
                    f"(running maximum of the slopes, visibility as int8): gs per group, "
                    f"rpi rows per work item (cyclic or blocked), terrain read by rows or "
                    f"by samples, the walk unrolled by 4 or not",
        tune_params={"gs": (32, 64, 128, 256), "rpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("rows", "samples"),
                     "unroll": (1, 4)},
        restrictions=("m % (gs*rpi) == 0",
                      # one row: no order to choose
                      lambda p: p["rpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"m": m}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-6)
