"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, eleventh set").
The input transform of a Winograd F(2 x 2, 3 x 3) convolution on a float32 image of
c = 64 channels and (2t + 2) x (2t + 2) pixels: every 4 x 4 tile d (tiles two pixels
apart, so neighbours overlap by two) becomes V = B^T d B with
B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], written for the
batched products that follow as V[4a + b, ch, ty, tx] (sixteen planes of c x t x t).
The image is read either channel first (c x h x w, "chw") or channel last (h x w x c,
"hwc", the same pixels).

    workbench tune examples/spaces/blind11_winograd_in.py:space --param t=256

Knobs: the group shape bx x by (tiles across x down y), tiles per work item along x
(loopy's ILP), the image's layout, the transform written as sixteen sums of four
entries of d ("direct") or the rows first into sixteen temporaries, then the columns
("two_pass", fewer additions), and whether the group's patch of the image is first read
into local memory.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

C = 64  # channels
BT = ((1, 0, -1, 0), (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, 0, -1))


def _signed_sum(terms):
    """``a + b - c`` from (coefficient, text) pairs, the coefficients 1, -1 or 0."""
    text = " ".join(f"{'-' if c < 0 else '+'} {term}" for c, term in terms if c)
    return text[2:] if text[0] == "+" else "-" + text[2:]


def space(t: int = 256) -> TuningSpace:
    side = 2 * t + 2

    def kernel(p):
        array = "x" if p["layout"] == "chw" else "xh"

        def d(u, v):
            y, x = f"2*ty + {u}", f"2*tx + {v}"
            return f"{array}[ch, {y}, {x}]" if array == "x" else f"{array}[{y}, {x}, ch]"

        lines = []
        if p["form"] == "direct":
            for a in range(4):
                for b in range(4):
                    terms = [(BT[a][u] * BT[b][v], d(u, v))
                             for u in range(4) for v in range(4)]
                    lines.append(f"V[{4 * a + b}, ch, ty, tx] = {_signed_sum(terms)}")
        else:
            for a in range(4):
                for v in range(4):
                    row = _signed_sum([(BT[a][u], d(u, v)) for u in range(4)])
                    lines.append(f"<> r{a}{v} = {row}")
            for a in range(4):
                for b in range(4):
                    col = _signed_sum([(BT[b][v], f"r{a}{v}") for v in range(4)])
                    lines.append(f"V[{4 * a + b}, ch, ty, tx] = {col}")
        knl = lp.make_kernel(
            f"{{[ch, ty, tx]: 0 <= ch < {C} and 0 <= ty, tx < {t}}}",
            "\n".join(lines),
            [lp.GlobalArg("x", np.float32, shape=(C, side, side)) if array == "x"
             else lp.GlobalArg("xh", np.float32, shape=(side, side, C)),
             lp.GlobalArg("V", np.float32, shape=(16, C, t, t), is_output=True)],
            name="winograd_in", lang_version=(2018, 2))
        bx, by, tpi = p["bx"], p["by"], p["tpi"]
        knl = lp.tag_inames(knl, {"ch": "g.2"})
        knl = lp.split_iname(knl, "ty", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "tx", bx * tpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "tx_inner", bx, outer_tag="ilp", inner_tag="l.0")
        if p["local"]:
            knl = lp.add_prefetch(knl, array, ["ty_inner", "tx_inner_outer", "tx_inner_inner"],
                                  fetch_bounding_box=True,
                                  fetch_outer_inames="ch, ty_outer, tx_outer",
                                  temporary_address_space=lp.AddressSpace.LOCAL,
                                  default_tag="l.auto")
        return knl

    def make_inputs(rng):
        # small integers held as float32: every sum of the transform is exact
        x = rng.integers(-8, 9, size=(C, side, side)).astype(np.float32)
        # both layouts of the same pixels: a point's kernel reads the one it names
        return {"x": x, "xh": np.ascontiguousarray(x.transpose(1, 2, 0))}

    def reference(inputs):
        x = inputs["x"].astype(np.float64)
        bt = np.array(BT, dtype=np.float64)
        tiles = np.stack([np.stack([x[:, u:u + 2 * t:2, v:v + 2 * t:2] for v in range(4)])
                          for u in range(4)])        # d[u, v, ch, ty, tx]
        V = np.einsum("au,uvcyx,bv->abcyx", bt, tiles, bt, optimize=True)
        return {"V": V.reshape(16, C, t, t)}

    return TuningSpace(
        name="blind11_winograd_in",
        description=f"Winograd F(2x2, 3x3) input transform of {C} float32 channels of "
                    f"{side}^2 pixels ({t}^2 tiles): bx x by groups of tiles, tpi tiles per "
                    f"work item, channel first or last, sixteen direct sums or rows then "
                    f"columns, optional local copy of the group's patch",
        tune_params={"bx": (16, 32, 64), "by": (1, 2, 4, 8), "tpi": (1, 2),
                     "layout": ("chw", "hwc"), "form": ("direct", "two_pass"),
                     "local": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 128", "t % (bx*tpi) == 0", "t % by == 0"),
        group_size=lambda p: (p["bx"], p["by"]),
        local_bytes=lambda p: (4 * p["local"] * (2 * p["by"] + 2)
                               * (2 * p["bx"] * p["tpi"] + 2)),
        problem={"t": t}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-4)
