"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, thirteenth set").
Inclusive prefix sums of every segment of 1024 of n float32 values (a stream compaction's
or a histogram's offsets, each segment scanned by one work group), written the way a
user writes a group-local scan: each lane adds up its run of e consecutive values in
registers, the lanes' totals are scanned in local memory by Hillis and Steele's
log2(lanes) steps (lane l adds the partial sum 1, 2, 4, ... lanes to its left, a
barrier between steps; the buffer is padded with zeros on its left so that no lane
reads before it), and each lane adds the sum of the lanes before it to its own run.
The values are small integers, so every sum is exact.

    workbench tune examples/spaces/blind13_scan_hs.py:space --param n=67108864

Knobs: values per lane (e, so 1024 / e lanes a segment), segments per work group (spg,
on axis 1), one local buffer read into a register before each step's write or two
buffers read and written in turn, and whether the segment is first copied to local
memory (the lanes reading it side by side) or each lane reads its run from global
memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

S = 1024   # values a segment


def space(n: int = 2 ** 26) -> TuningSpace:
    def kernel(p):
        e, spg = p["e"], p["spg"]
        lanes = S // e
        steps = lanes.bit_length() - 1
        q = f"({spg}*g + v)"
        if p["stage"]:
            def value(k):
                return f"xs[v, l*{e} + {k}]"
        else:
            def value(k):
                return f"x[{S}*{q} + l*{e} + {k}]"
        dep_in = ":stage" if p["stage"] else ""
        lines = []
        if p["stage"]:
            lines.append(f"xs[v, c*{lanes} + l2] = x[{S}*{q} + c*{lanes} + l2] "
                         f"{{id=stage}}")
        # the lane's run, summed in registers
        lines.append(f"<> v0 = {value(0)} {{id=run0{dep_in and ', dep=stage'}}}")
        for k in range(1, e):
            lines.append(f"<> v{k} = v{k - 1} + {value(k)} {{id=run{k}, dep=run{k - 1}"
                         f"{dep_in}}}")
        last = f"v{e - 1}"
        bufs = ("A", "B") if p["buffers"] == 2 else ("A",)
        for b in bufs:
            lines.append(f"{b}[v, l] = 0.0f {{id=zero{b}}}")
        lines.append(f"A[v, {lanes} + l] = {last} {{id=put, dep=run{e - 1}}}")
        before = "put:zeroA" + (":zeroB" if len(bufs) == 2 else "")
        final = "A"
        for s in range(steps):
            off = 2 ** s
            if len(bufs) == 2:
                src, dst = ("A", "B") if s % 2 == 0 else ("B", "A")
                lines.append(f"{dst}[v, {lanes} + l] = {src}[v, {lanes} + l] + "
                             f"{src}[v, {lanes} + l - {off}] {{id=step{s}, dep={before}}}")
                final = dst
            else:
                lines.append(f"<> t{s} = A[v, {lanes} + l - {off}] "
                             f"{{id=read{s}, dep={before}}}")
                lines.append(f"A[v, {lanes} + l] = A[v, {lanes} + l] + t{s} "
                             f"{{id=step{s}, dep=read{s}}}")
            before = f"step{s}"
        # the sum of the lanes before this one: its inclusive sum less its own run
        lines.append(f"<> excl = {final}[v, {lanes} + l] - {last} {{id=excl, dep={before}}}")
        for k in range(e):
            lines.append(f"out[{S}*{q} + l*{e} + {k}] = v{k} + excl {{dep=excl}}")
        temps = [lp.TemporaryVariable(b, np.float32, shape=(spg, 2 * lanes),
                                      address_space=lp.AddressSpace.LOCAL) for b in bufs]
        if p["stage"]:
            temps.append(lp.TemporaryVariable("xs", np.float32, shape=(spg, S),
                                              address_space=lp.AddressSpace.LOCAL))
        knl = lp.make_kernel(
            f"{{[g, v, l, l2, c]: 0 <= g < {n // (S * spg)} and 0 <= v < {spg} "
            f"and 0 <= l, l2 < {lanes} and 0 <= c < {e}}}",
            "\n".join(["for g, v", *lines, "end"]),
            [lp.GlobalArg("x", np.float32, shape=(n,)),
             lp.GlobalArg("out", np.float32, shape=(n,), is_output=True), *temps],
            name="scan_hs", lang_version=(2018, 2))
        tags = {"g": "g.0", "v": "l.1", "l": "l.0"}
        if p["stage"]:
            tags.update({"l2": "l.0", "c": "unr"})
        return lp.tag_inames(knl, tags)

    def make_inputs(rng):
        return {"x": rng.integers(0, 9, size=n).astype(np.float32)}

    def reference(inputs):
        return {"out": inputs["x"].astype(np.float64).reshape(-1, S).cumsum(axis=1)
                .reshape(-1)}

    return TuningSpace(
        name="blind13_scan_hs",
        description=f"inclusive prefix sums of every segment of {S} of {n} float32 "
                    f"values, Hillis-Steele in local memory: e values per lane, spg "
                    f"segments per group, one or two local buffers, the segment first "
                    f"copied to local memory or not",
        tune_params={"e": (1, 2, 4, 8, 16, 32), "spg": (1, 2, 4),
                     "buffers": (1, 2), "stage": (0, 1)},
        restrictions=(f"n % ({S}*spg) == 0", f"{S} // e * spg <= 1024"),
        group_size=lambda p: (S // p["e"], p["spg"]),
        local_bytes=lambda p: 4 * p["spg"] * (2 * S // p["e"] * p["buffers"]
                                              + S * p["stage"]),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-6)
