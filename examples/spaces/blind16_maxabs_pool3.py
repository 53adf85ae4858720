"""BLIND (never fit, choose or tune anything on it; see README.md, "Blind, sixteenth set").
2-D max-abs pooling with a 3 x 3 window and stride 3 (windows side by side, no
overlap), float32: out[i, j] is the largest |u[3i + di, 3j + dj]|, 0 <= di, dj < 3,
for a 3n x 3n input (the peak magnitude of a signed field per block, as for a
quantiser's scales or a detector's response map).

    workbench tune examples/spaces/blind16_maxabs_pool3.py:space --param n=4096

Knobs: the work group (bx columns by by rows), output columns per work item (cpi,
interleaved by ILP), and how the magnitude is taken: the largest fabs of the nine
("fabs"), or the window's largest and smallest values first, then fmax(mx, -mn)
("minmax", two reductions).
"""

import loopy as lp
import numpy as np

from workbench.tuning import TuningSpace


def space(n: int = 4096) -> TuningSpace:
    m = 3 * n

    def kernel(p):
        at = "u[3*i + di, 3*j + dj]"
        if p["form"] == "fabs":
            body = f"out[i, j] = max((di, dj), fabs({at}))"
        else:
            body = f"""
            <> mx = max((di, dj), {at})
            <> mn = min((di, dj), {at})
            out[i, j] = fmax(mx, -mn)
            """
        knl = lp.make_kernel(
            f"{{[i, j, di, dj]: 0 <= i, j < {n} and 0 <= di, dj < 3}}",
            body,
            [lp.GlobalArg("u", np.float32, shape=(m, m)),
             lp.GlobalArg("out", np.float32, shape=(n, n), is_output=True)],
            name="maxabs_pool3", lang_version=(2018, 2))
        bx, by, cpi = p["bx"], p["by"], p["cpi"]
        knl = lp.split_iname(knl, "i", by, outer_tag="g.1", inner_tag="l.1")
        knl = lp.split_iname(knl, "j", bx * cpi, outer_tag="g.0")
        knl = lp.split_iname(knl, "j_inner", bx, outer_tag="ilp", inner_tag="l.0")
        knl = lp.tag_inames(knl, {"di": "unr", "dj": "unr"})
        return knl

    def make_inputs(rng):
        return {"u": rng.standard_normal((m, m), dtype=np.float32)}

    def reference(inputs):
        u = np.abs(inputs["u"])
        return {"out": u.reshape(n, 3, n, 3).max(axis=(1, 3))}

    return TuningSpace(
        name="blind16_maxabs_pool3",
        description=f"3 x 3 max-abs pooling, stride 3, {m}^2 to {n}^2 float32: group "
                    f"bx x by, cpi columns per work item, fabs of each or max and min "
                    f"first",
        tune_params={"bx": (32, 64, 128), "by": (1, 2, 4, 8), "cpi": (1, 2, 4),
                     "form": ("fabs", "minmax")},
        restrictions=("n % by == 0 and n % (bx*cpi) == 0", "bx*by <= 1024"),
        group_size=lambda p: (p["bx"], p["by"]),
        problem={"n": n}, kernel=kernel, make_inputs=make_inputs, reference=reference,
        rtol=0.0)
