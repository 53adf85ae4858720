"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, twelfth set").
One explicit step of 2-D anisotropic diffusion with a coefficient per cell and per
direction (heat flow in a layered material, or an image smoothed less across its
edges): the flux through a face is the mean of the two cells' coefficients times the
difference of their values, kx across the columns and ky across the rows, so
out = u + dt (flux east - flux west + flux south - flux north), on an (n + 2)^2 grid
with a one-cell border to n^2 interior cells, float32.

    workbench tune examples/spaces/blind12_aniso_diff.py:space --param n=8192

Knobs: the group bx x by, rows per work item (registers), and what is first read into
local memory: nothing, the group's tile of u with its halo, or u and both coefficient
tiles (not with one row a group, where loopy refuses kx's one-row copy).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

DT = 0.2  # the step: stable for coefficients below 1 (dt * 4 max k <= 1)


def space(n: int = 8192) -> TuningSpace:
    def kernel(p):
        c, e, w = "[i + 1, j + 1]", "[i + 1, j + 2]", "[i + 1, j]"
        s, nn = "[i + 2, j + 1]", "[i, j + 1]"
        knl = lp.make_kernel(
            f"{{[i, j]: 0 <= i, j < {n}}}",
            f"""
            <> uc = u{c}
            <> fe = (kx{c} + kx{e}) * (u{e} - uc)
            <> fw = (kx{c} + kx{w}) * (uc - u{w})
            <> fs = (ky{c} + ky{s}) * (u{s} - uc)
            <> fn = (ky{c} + ky{nn}) * (uc - u{nn})
            out[i, j] = uc + {DT / 2}f * (fe - fw + fs - fn)
            """,
            [lp.GlobalArg("u, kx, ky", np.float32, shape=(n + 2, n + 2)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="aniso_diff", lang_version=(2018, 2))
        bx, by, rpi = p["bx"], p["by"], p["rpi"]
        knl = lp.split_iname(knl, "i", by * rpi, outer_tag="g.1")
        knl = lp.split_iname(knl, "i_inner", by, outer_tag="ilp", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx, outer_tag="g.0", inner_tag="l.0")
        for name in {"none": (), "u": ("u",), "all": ("u", "kx", "ky")}[p["local"]]:
            knl = lp.add_prefetch(knl, name, ["i_inner_outer", "i_inner_inner", "j_inner"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="i_outer, j_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        shape = (n + 2, n + 2)
        # coefficients in [0.05, 1): every face conducts, some far more than others
        return {"u": rng.random(shape, dtype=np.float32),
                "kx": (0.05 + 0.95 * rng.random(shape, dtype=np.float32)).astype(np.float32),
                "ky": (0.05 + 0.95 * rng.random(shape, dtype=np.float32)).astype(np.float32)}

    def reference(inputs):
        u, kx, ky = (inputs[v].astype(np.float64) for v in ("u", "kx", "ky"))

        def at(a, di, dj):
            return a[di:di + n, dj:dj + n]

        uc, kxc, kyc = at(u, 1, 1), at(kx, 1, 1), at(ky, 1, 1)
        flux = ((kxc + at(kx, 1, 2)) * (at(u, 1, 2) - uc)
                - (kxc + at(kx, 1, 0)) * (uc - at(u, 1, 0))
                + (kyc + at(ky, 2, 1)) * (at(u, 2, 1) - uc)
                - (kyc + at(ky, 0, 1)) * (uc - at(u, 0, 1)))
        return {"out": uc + DT / 2 * flux}

    def local_bytes(p):
        rows = p["by"] * p["rpi"]
        tiles = {"none": 0, "u": (rows + 2) * (p["bx"] + 2),
                 # u's tile with both halos; kx's with the columns', ky's with the rows'
                 "all": (rows + 2) * (p["bx"] + 2) + rows * (p["bx"] + 2)
                 + (rows + 2) * p["bx"]}
        return 4 * tiles[p["local"]]

    return TuningSpace(
        name="blind12_aniso_diff",
        description=f"one explicit step of 2-D anisotropic diffusion with per-cell "
                    f"coefficients kx and ky, {n + 2}^2 to {n}^2 float32: group bx x by, "
                    f"rpi rows per work item, local tiles of nothing, u, or u, kx and ky",
        tune_params={"bx": (32, 64, 128), "by": (1, 2, 4, 8), "rpi": (1, 2, 4),
                     "local": ("none", "u", "all")},
        restrictions=("bx*by >= 64", "n % (by*rpi) == 0 and n % bx == 0",
                      # one row a group: kx's tile is one row, copied along l.0 alone,
                      # which loopy refuses (and with three l.1 inames in the kernel
                      # cannot add the unused axis to)
                      lambda p: p["local"] != "all" or p["by"] * p["rpi"] > 1,
                      lambda p: local_bytes(p) <= 48 * 1024),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=local_bytes,
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
