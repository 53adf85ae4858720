"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, seventeenth set").
The magnitude and the phase of n complex float32 samples stored interleaved (real,
imaginary; a radar's or an SDR's IQ stream, or an FFT's output turned into a
spectrum): mag[i] = sqrt(re^2 + im^2) and ph[i] = atan2(im, re).

    workbench tune examples/spaces/blind17_mag_phase.py:space --param n=33554432

Knobs: the group size, samples per work item (spi, cyclic or blocked, in
registers), how a sample is read (two float32 loads, or one float2 load: the
interleaved axis tagged as a vector), and where the results go (two arrays, or one
array of (mag, ph) pairs, interleaved like the input).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        body = """
        mag[i] = sqrt(z[i, 0] * z[i, 0] + z[i, 1] * z[i, 1])
        ph[i] = atan2(z[i, 1], z[i, 0])
        """
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            body,
            [lp.GlobalArg("z", np.float32, shape=(n, 2)),
             lp.GlobalArg("mag", np.float32, shape=(n,), is_output=True),
             lp.GlobalArg("ph", np.float32, shape=(n,), is_output=True)],
            name="mag_phase", lang_version=(2018, 2))
        if p["load"] == "float2":
            knl = lp.tag_array_axes(knl, "z", "c,vec")
        gs, spi = p["gs"], p["spi"]
        knl = lp.split_iname(knl, "i", gs * spi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", spi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # real parts in [-1, 1], imaginary parts 0.1 to 1 from zero (either sign): no
        # sample sits on atan2's branch cut, where float32 may land on either side
        re = 2.0 * rng.random(n) - 1.0
        im = (0.1 + 0.9 * rng.random(n)) * rng.choice((-1.0, 1.0), size=n)
        return {"z": np.stack([re, im], axis=1).astype(np.float32)}

    def reference(inputs):
        z = inputs["z"].astype(np.float64)
        mag, ph = np.hypot(z[:, 0], z[:, 1]), np.arctan2(z[:, 1], z[:, 0])
        return {"mag": mag, "ph": ph}

    return TuningSpace(
        name="blind17_mag_phase",
        description=f"magnitude and phase of {n} interleaved complex float32 samples: gs "
                    f"per group, spi samples per work item (cyclic or blocked), two loads "
                    f"or a float2",
        tune_params={"gs": (32, 64, 128, 256, 512), "spi": (1, 2, 4, 8),
                     "order": ("cyclic", "blocked"), "load": ("scalar", "float2")},
        restrictions=("n % (gs*spi) == 0",
                      # one sample: no order to choose
                      lambda p: p["spi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
