"""A 2-D copy probe for issue #34, as loopy kernels (role: calibration microbenchmark; no
held-out kernel), timed on the device by ``scripts/h100_copy2d_probe.py``.

heldout14 measured its 2-D data movement (a reflect/edge padding, an im2col of clamped shifts)
at about twice its prediction. These kernels time the pieces apart, one work item an output
point, 2-D groups ``(g0 along j, the contiguous axis; g1 along i)``, an ``n`` x ``n`` input:

* ``plain``: ``out[i, j] = in[i, j]``;
* ``edge``: an ``(n + 2 PAD)``-square output whose source index is clamped (edge);
* ``reflect``: the same, the source index reflected by comparisons (numpy's ``reflect``);
* ``shift``: one im2col plane, ``out[i, j] = in[clamp(i + 1), clamp(j - 1)]``;
* ``im2col9``: the nine planes of a 3 x 3 im2col, ``out[s, i, j]``, written by one kernel.

``bytes_moved`` counts each distinct input byte once plus every output byte.
"""

from __future__ import annotations

PAD = 4
CASES = ("plain", "edge", "reflect", "shift", "im2col9")
SIZES = (4096, 8192)
GROUPS = ((16, 16), (32, 8))
DTYPES = ("float32", "float64")
#: im2col's nine (di, dj) shifts, plane s = 3 (di + 1) + (dj + 1)
SHIFTS = tuple((di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1))


def _clamp(index: str) -> str:
    # loopy reads min()/max() as reductions: the clamp is two comparisons (a select each,
    # which the compiler turns into integer min/max)
    return f"if({index} < 0, 0, if({index} >= n, n - 1, {index}))"


def _reflect(index: str) -> str:
    return f"if({index} < 0, -({index}), if({index} >= n, 2*n - 2 - ({index}), {index}))"


def output_shape(case: str, n: int) -> tuple[int, ...]:
    if case in ("edge", "reflect"):
        return (n + 2 * PAD, n + 2 * PAD)
    return (9, n, n) if case == "im2col9" else (n, n)


def bytes_moved(case: str, n: int, itemsize: int) -> int:
    out = 1
    for extent in output_shape(case, n):
        out *= extent
    return (n * n + out) * itemsize


def copy2d(case: str, size: int, group: tuple[int, int], dtype: str = "float32"):
    """The ``case`` kernel (see the module's doc) for an ``n`` x ``n`` input; ``size`` only
    names it, ``n`` is the kernel's argument."""
    import loopy as lp
    import numpy as np

    extent = "n + %d" % (2 * PAD) if case in ("edge", "reflect") else "n"
    if case == "plain":
        body = "out[i, j] = inp[i, j]"
    elif case in ("edge", "reflect"):
        source = _clamp if case == "edge" else _reflect
        body = f"out[i, j] = inp[{source(f'i - {PAD}')}, {source(f'j - {PAD}')}]"
    elif case == "shift":
        body = f"out[i, j] = inp[{_clamp('i + 1')}, {_clamp('j - 1')}]"
    elif case == "im2col9":
        body = "\n".join(
            f"out[{3 * (di + 1) + dj + 1}, i, j] = inp[{_clamp(f'i + {di}')}, "
            f"{_clamp(f'j + {dj}')}]" for di, dj in SHIFTS)
    else:
        raise ValueError(f"unknown copy2d case {case!r}")
    out_shape = ("9", "n", "n") if case == "im2col9" else (extent, extent)
    knl = lp.make_kernel(
        f"{{[i, j]: 0 <= i < {extent} and 0 <= j < {extent}}}", body,
        [lp.GlobalArg("inp", np.dtype(dtype), shape=("n", "n")),
         lp.GlobalArg("out", np.dtype(dtype), shape=out_shape),
         lp.ValueArg("n", np.int32)],
        name=f"copy2d_{case}_n{size}_g{group[0]}x{group[1]}"
             f"{'' if dtype == 'float32' else '_f64'}",
        lang_version=(2018, 2), assumptions="n >= 2")
    knl = lp.split_iname(knl, "i", group[1], outer_tag="g.1", inner_tag="l.1")
    return lp.split_iname(knl, "j", group[0], outer_tag="g.0", inner_tag="l.0")


def probe_kernels():
    """(kernel, dtype, case, size, group) of every probe kernel, in measuring order
    (a dtype and size together: one input array serves them)."""
    return [(copy2d(c, s, g, dt), dt, c, s, g) for dt in DTYPES for s in SIZES
            for c in CASES for g in GROUPS]
