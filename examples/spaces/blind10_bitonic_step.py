"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, tenth set").
One compare-exchange stage of a bitonic sort of n float32 keys, written out of place as a
user writes one launch of the sort's loop: the stage that merges bitonic runs of K = 1024
at distance J = 128.  Pair p (of n / 2) joins key i = 2J (p // J) + p % J with key i + J;
the smaller goes first where the run ascends ((i // K) even), last where it descends.

    workbench tune examples/spaces/blind10_bitonic_step.py:space --param n=33554432

Knobs: the group size, pairs per work item (cyclic: a group's lanes side by side at each
step, or blocked: each lane on a run of its own, both in registers by loopy's ILP), and
how the pair is ordered (the fmin and fmax built-ins, or a comparison and two selects).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

K = 1024  # the length of the bitonic runs this stage merges
J = 128  # the distance of the keys compared


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        i = f"{2 * J}*(p // {J}) + p % {J}"
        # (i // K) % 2 for i as above: J divides K / 2, so p's own block decides
        up = f"(p // {K // 2}) % 2 == 0"
        if p["minmax"] == "builtin":
            lo, hi = "fmin(a, b)", "fmax(a, b)"
        else:
            lo, hi = "if(a < b, a, b)", "if(a < b, b, a)"
        knl = lp.make_kernel(
            f"{{[p]: 0 <= p < {n // 2}}}",
            f"""
            for p
                <float32> a = x[{i}]
                <float32> b = x[{i} + {J}]
                <float32> lo = {lo}
                <float32> hi = {hi}
                out[{i}] = if({up}, lo, hi)
                out[{i} + {J}] = if({up}, hi, lo)
            end
            """,
            [lp.GlobalArg("x", np.float32, shape=(n,)),
             lp.GlobalArg("out", np.float32, shape=(n,), is_output=True)],
            name="bitonic_step", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "p", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "p_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "p_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # distinct keys in a random order (a stage of the sort sees any order)
        return {"x": rng.permutation(n).astype(np.float32)}

    def reference(inputs):
        x = inputs["x"].astype(np.float64).reshape(n // (2 * J), 2, J)
        a, b = x[:, 0, :], x[:, 1, :]
        block = np.arange(n // (2 * J))[:, None] * 2 * J + np.arange(J)[None, :]
        up = (block // K) % 2 == 0
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        out = np.stack([np.where(up, lo, hi), np.where(up, hi, lo)], axis=1)
        return {"out": out.reshape(n)}

    return TuningSpace(
        name="blind10_bitonic_step",
        description=f"one bitonic compare-exchange stage (runs of {K}, distance {J}) of "
                    f"{n} float32 keys, out of place: gs per group, ppi pairs per work "
                    f"item, cyclic or blocked, fmin/fmax built-ins or compare and select",
        tune_params={"gs": (32, 64, 128, 256, 512, 1024), "ppi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "minmax": ("builtin", "select")},
        restrictions=("n % (2*gs*ppi) == 0",
                      # one pair: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        local_bytes=lambda p: 0,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-6)
