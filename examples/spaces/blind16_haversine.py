"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixteenth set").
Great-circle distances (haversine formula) of n pairs of points on a sphere of radius
6371 (km), latitudes and longitudes in radians: with
hv = sin^2((lat2 - lat1)/2) + cos lat1 cos lat2 sin^2((lon2 - lon1)/2),
d = 2 R asin(sqrt(hv)) ("asin") or 2 R atan2(sqrt(hv), sqrt(1 - hv)) ("atan2"), the
two forms users copy.  The pairs are read as an array of structures ("aos", n x 4:
lat1, lon1, lat2, lon2) or as a structure of arrays ("soa", 4 x n).

    workbench tune examples/spaces/blind16_haversine.py:space --param n=33554432

Knobs: the group size, pairs per work item (ppi, cyclic or blocked, in registers), the
layout and the form.
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace

R = 6371.0   # the sphere's radius


def space(n: int = 2 ** 25) -> TuningSpace:
    def kernel(p):
        if p["layout"] == "aos":
            f = [f"pts[i, {c}]" for c in range(4)]
            ins = [lp.GlobalArg("pts", np.float32, shape=(n, 4))]
        else:
            f = [f"ptsT[{c}, i]" for c in range(4)]
            ins = [lp.GlobalArg("ptsT", np.float32, shape=(4, n))]
        arc = ("asin(sqrt(hv))" if p["form"] == "asin"
               else "atan2(sqrt(hv), sqrt(1.0f - hv))")
        knl = lp.make_kernel(
            f"{{[i]: 0 <= i < {n}}}",
            f"""
            <> lat1 = {f[0]}
            <> lat2 = {f[2]}
            <> sa = sin(0.5f * (lat2 - lat1))
            <> sb = sin(0.5f * ({f[3]} - {f[1]}))
            <> hv = sa * sa + cos(lat1) * cos(lat2) * sb * sb
            d[i] = {2 * R!r}f * {arc}
            """,
            [*ins, lp.GlobalArg("d", np.float32, shape=(n,), is_output=True)],
            name="haversine", lang_version=(2018, 2))
        gs, ppi = p["gs"], p["ppi"]
        knl = lp.split_iname(knl, "i", gs * ppi, outer_tag="g.0")
        if p["order"] == "cyclic":
            knl = lp.split_iname(knl, "i_inner", gs, outer_tag="ilp", inner_tag="l.0")
        else:
            knl = lp.split_iname(knl, "i_inner", ppi, outer_tag="l.0", inner_tag="ilp")
        return knl

    def make_inputs(rng):
        # the first point south and the second north (latitudes 0.2 to 0.6 from the
        # equator) and longitudes at most 1.5 apart: hv in [0.03, 0.8], so neither the
        # square roots nor the arcs sit where float32 loses digits
        pts = np.empty((n, 4), np.float32)
        pts[:, 0] = -rng.uniform(0.2, 0.6, n)
        pts[:, 1] = rng.uniform(-1.5, 1.5, n)
        pts[:, 2] = rng.uniform(0.2, 0.6, n)
        pts[:, 3] = pts[:, 1] + rng.uniform(-1.5, 1.5, n)
        # both layouts of the same pairs: a point's kernel reads the one it names
        return {"pts": pts, "ptsT": np.ascontiguousarray(pts.T)}

    def reference(inputs):
        lat1, lon1, lat2, lon2 = inputs["pts"].astype(np.float64).T
        hv = (np.sin((lat2 - lat1) / 2) ** 2
              + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2)
        return {"d": 2 * R * np.arcsin(np.sqrt(hv))}

    return TuningSpace(
        name="blind16_haversine",
        description=f"haversine distances of {n} float32 point pairs: gs per group, ppi "
                    f"pairs per work item (cyclic or blocked), pairs as structures or "
                    f"arrays, the arc by asin or atan2",
        tune_params={"gs": (64, 128, 256, 512), "ppi": (1, 2, 4),
                     "order": ("cyclic", "blocked"), "layout": ("aos", "soa"),
                     "form": ("asin", "atan2")},
        restrictions=("n % (gs*ppi) == 0",
                      # one pair: no order to choose
                      lambda p: p["ppi"] > 1 or p["order"] == "cyclic"),
        group_size=lambda p: (p["gs"],),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=1e-5)
