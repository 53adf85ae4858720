"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eleventh set").
One radix-2 butterfly stage of batched complex float32 FFTs, out of place, as a user
writes one launch of a decimation-in-time transform: the stage whose butterflies join
values H = 64 apart.  Butterfly q (of n / 2) joins a = x[i] and b = x[i + H], with
i = 2H (q // H) + q % H and the twiddle w = exp(-2 pi i j / 2H), j = q % H:
y[i] = a + w b and y[i + H] = a - w b.  The input is read either as two planes of real
and imaginary parts ("split") or interleaved (n x 2, "interleaved", the same values);
the output is always two planes.

    workbench tune examples/spaces/blind11_fft_stage.py:space --param n=33554432

Knobs: the group size, butterflies per work item (cyclic, a group's lanes side by side
at each step, or blocked, each lane on a run of its own), the input's layout, and
whether the twiddles are read from a table of H values or computed (a cosine and a
sine per butterfly).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

H = 64  # half the span of the stage's butterflies


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        i = f"({2 * H} * (q // {H}) + q % {H})"
        if p["layout"] == "split":
            ar, ai = f"xr[{i}]", f"xi[{i}]"
            br, bi = f"xr[{i} + {H}]", f"xi[{i} + {H}]"
            data = [lp.GlobalArg("xr", np.float32, shape=(n,)),
                    lp.GlobalArg("xi", np.float32, shape=(n,))]
        else:
            ar, ai = f"x[{i}, 0]", f"x[{i}, 1]"
            br, bi = f"x[{i} + {H}, 0]", f"x[{i} + {H}, 1]"
            data = [lp.GlobalArg("x", np.float32, shape=(n, 2))]
        if p["twiddle"] == "table":
            wr, wi = f"wr[q % {H}]", f"wi[q % {H}]"
            data += [lp.GlobalArg("wr", np.float32, shape=(H,)),
                     lp.GlobalArg("wi", np.float32, shape=(H,))]
        else:
            angle = f"(q % {H}) * {-np.pi / H:.9f}f"
            wr, wi = f"cos({angle})", f"sin({angle})"
        knl = lp.make_kernel(
            f"{{[q]: 0 <= q < {n // 2}}}",
            f"""
            <> tr = {wr} * {br} - {wi} * {bi}
            <> ti = {wr} * {bi} + {wi} * {br}
            yr[{i}] = {ar} + tr
            yi[{i}] = {ai} + ti
            yr[{i} + {H}] = {ar} - tr
            yi[{i} + {H}] = {ai} - ti
            """,
            [*data,
             lp.GlobalArg("yr", np.float32, shape=(n,), is_output=True),
             lp.GlobalArg("yi", np.float32, shape=(n,), is_output=True)],
            name="fft_stage", lang_version=(2018, 2))
        gs, bpi = p["gs"], p["bpi"]
        knl = lp.split_iname(knl, "q", gs * bpi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "q_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "q_inner", bpi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        xr = (2 * rng.random(n, dtype=np.float32) - 1).astype(np.float32)
        xi = (2 * rng.random(n, dtype=np.float32) - 1).astype(np.float32)
        angle = -np.pi * np.arange(H) / H
        # both layouts of the same values: a point's kernel reads the one it names
        return {"xr": xr, "xi": xi, "x": np.stack([xr, xi], axis=1),
                "wr": np.cos(angle).astype(np.float32),
                "wi": np.sin(angle).astype(np.float32)}

    def reference(inputs):
        x = inputs["xr"].astype(np.float64) + 1j * inputs["xi"].astype(np.float64)
        pairs = x.reshape(-1, 2, H)
        w = np.exp(-1j * np.pi * np.arange(H) / H)
        y = np.stack([pairs[:, 0] + w * pairs[:, 1], pairs[:, 0] - w * pairs[:, 1]],
                     axis=1).reshape(-1)
        return {"yr": y.real, "yi": y.imag}

    return TuningSpace(
        name="blind11_fft_stage",
        description=f"one radix-2 butterfly stage (values {H} apart) of batched complex "
                    f"float32 FFTs over {n} values: gs per group, bpi butterflies per "
                    f"work item, cyclic or blocked, input split or interleaved, twiddles "
                    f"from a table or computed",
        tune_params={"gs": (64, 128, 256, 512, 1024), "bpi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("split", "interleaved"),
                     "twiddle": ("table", "computed")},
        restrictions=("n % (2*gs*bpi) == 0",
                      # one butterfly: no order to choose
                      lambda p: p["bpi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-3)   # the check's absolute floor, rtol/1000, above a cancellation's ulps
