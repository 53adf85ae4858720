"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, nineteenth set").
One time step of n particles falling under gravity with linear drag (semi-implicit
Euler): positions and velocities stored as float4 structures (x, y, z, w; w a mass or
padding, copied), v' = v + dt (g - k v) and then x' = x + dt v', with dt = 1/64,
k = 1/4 and g = (0, -10, 0) (a particle system's or a spray's update, as a user writes
it before adding collisions).

    workbench tune examples/spaces/blind19_particle_push.py:space --param n=8388608

Knobs: the group size, particles per work item (ppi, cyclic or blocked, in
registers), how a particle is read and written (four float32 accesses, or one float4:
the component axis tagged as a vector), and the velocity's formula: as written, or
folded (v (1 - dt k) + dt g, the constants worked out in Python).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

DT, K, G = 1.0 / 64.0, 0.25, (0.0, -10.0, 0.0)


def space(n: int = 2 ** 23) -> TuningSpace:
    def kernel(p):
        lines = []
        for c in range(3):
            if p["form"] == "drag":
                v = f"vel[i, {c}] + {DT}f * ({G[c]}f - {K}f * vel[i, {c}])"
            else:
                v = f"vel[i, {c}] * {1.0 - DT * K}f + {DT * G[c]}f"
            lines += [f"<float32> v{c} = {v}",
                      f"vel_out[i, {c}] = v{c}",
                      f"pos_out[i, {c}] = pos[i, {c}] + {DT}f * v{c}"]
        lines += ["vel_out[i, 3] = vel[i, 3]", "pos_out[i, 3] = pos[i, 3]"]
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            "\n".join(lines),
            [lp.GlobalArg("pos", np.float32, shape=(n, 4)),
             lp.GlobalArg("vel", np.float32, shape=(n, 4)),
             lp.GlobalArg("pos_out", np.float32, shape=(n, 4), is_output=True),
             lp.GlobalArg("vel_out", np.float32, shape=(n, 4), is_output=True)],
            name="particle_push", lang_version=(2018, 2))
        if p["access"] == "float4":
            for name in ("pos", "vel", "pos_out", "vel_out"):
                knl = lp.tag_array_axes(knl, name, "c,vec")
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # positions in [-64, 64], velocities in 256ths of [-4, 4]; w in [1, 2]
        pos = (128.0 * rng.random((n, 4), dtype=np.float32) - 64.0).astype(np.float32)
        vel = (rng.integers(-1024, 1025, size=(n, 4)) / 256.0).astype(np.float32)
        pos[:, 3] = 1.0 + rng.random(n, dtype=np.float32)
        vel[:, 3] = pos[:, 3]
        return {"pos": pos, "vel": vel}

    def reference(inputs):
        pos = inputs["pos"].astype(np.float64)
        vel = inputs["vel"].astype(np.float64)
        v = vel[:, :3] + DT * (np.array(G) - K * vel[:, :3])
        return {"vel_out": np.concatenate([v, vel[:, 3:]], axis=1),
                "pos_out": np.concatenate([pos[:, :3] + DT * v, pos[:, 3:]], axis=1)}

    return TuningSpace(
        name="blind19_particle_push",
        description=f"one semi-implicit Euler step of {n} float4 particles under gravity "
                    f"and drag: gs per group, ppi particles per work item (cyclic or "
                    f"blocked), scalar or float4 access, the drag as written or folded",
        tune_params={"gs": (64, 128, 256, 512), "ppi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "access": ("scalar", "float4"),
                     "form": ("drag", "folded")},
        restrictions=("n % (gs*ppi) == 0",
                      # one particle: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
