"""Loopy kernels written as a user would write them, none of them in the catalog.

Every model family predicts each of them from this file alone:

    workbench predict examples/kernels/my_kernels.py:saxpy --param n=16777216
    workbench predict examples/kernels/my_kernels.py:matmul --param n=2048 \\
        --weights sample_data/h100/weights-linear-fp64.json
    workbench predict examples/kernels/my_kernels.py:row_sums --param n=4096,m=4096 \\
        --model roofline --device-model h100

``matmul`` is named like a catalog kernel on purpose: ``FILE.py:VAR`` always means the
file's kernel (a float64 one here), never the catalog's.
"""

import loopy as lp
import numpy as np

LANG = (2018, 2)

# y = a*x + y, 256 work items per group
saxpy = lp.make_kernel(
    "{[i]: 0 <= i < n}", "y[i] = a*x[i] + y[i]",
    [lp.GlobalArg("x, y", np.float32, shape="n"), lp.ValueArg("a", np.float32), ...],
    lang_version=LANG, name="saxpy")
saxpy = lp.split_iname(saxpy, "i", 256, outer_tag="g.0", inner_tag="l.0")

# float64 matrix product, 16x16 groups, no local memory (named like the catalog's)
matmul = lp.make_kernel(
    "{[i, j, k]: 0 <= i, j, k < n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    [lp.GlobalArg("a, b, c", np.float64, shape=("n", "n")), ...],
    lang_version=LANG, name="matmul")
matmul = lp.split_iname(matmul, "i", 16, outer_tag="g.1", inner_tag="l.1")
matmul = lp.split_iname(matmul, "j", 16, outer_tag="g.0", inner_tag="l.0")

# row sums of an n x m float32 matrix: one work item per row, a strided walk
row_sums = lp.make_kernel(
    "{[i, j]: 0 <= i < n and 0 <= j < m}", "s[i] = sum(j, a[i, j])",
    [lp.GlobalArg("a", np.float32, shape=("n", "m")),
     lp.GlobalArg("s", np.float32, shape="n"), ...],
    lang_version=LANG, name="row_sums")
row_sums = lp.split_iname(row_sums, "i", 128, outer_tag="g.0", inner_tag="l.0")

# 5-point float64 Laplacian on the interior of an n x n grid, 32x8 groups
laplace5 = lp.make_kernel(
    "{[i, j]: 1 <= i, j < n - 1}",
    "out[i, j] = u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1] - 4*u[i, j]",
    [lp.GlobalArg("u, out", np.float64, shape=("n", "n")), ...],
    lang_version=LANG, name="laplace5")
laplace5 = lp.split_iname(laplace5, "j", 32, outer_tag="g.0", inner_tag="l.0")
laplace5 = lp.split_iname(laplace5, "i", 8, outer_tag="g.1", inner_tag="l.1")

# transpose through a 16x16 local tile (float32)
transpose_tiled = lp.make_kernel(
    "{[i, j]: 0 <= i, j < n}", "b[j, i] = a[i, j]",
    [lp.GlobalArg("a, b", np.float32, shape=("n", "n")), ...],
    lang_version=LANG, name="transpose_tiled")
transpose_tiled = lp.split_iname(transpose_tiled, "i", 16, outer_tag="g.0",
                                 inner_tag="l.0")
transpose_tiled = lp.split_iname(transpose_tiled, "j", 16, outer_tag="g.1",
                                 inner_tag="l.1")
transpose_tiled = lp.add_prefetch(transpose_tiled, "a", ["i_inner", "j_inner"],
                                  fetch_outer_inames="i_outer,j_outer",
                                  default_tag="l.auto")

# a batch of small float64 matrix-vector products: y[b] = A[b] x[b], 8x8 each
batched_gemv = lp.make_kernel(
    "{[b, i, k]: 0 <= b < nb and 0 <= i, k < 8}",
    "y[b, i] = sum(k, A[b, i, k]*x[b, k])",
    [lp.GlobalArg("A", np.float64, shape=("nb", 8, 8)),
     lp.GlobalArg("x, y", np.float64, shape=("nb", 8)), ...],
    lang_version=LANG, name="batched_gemv")
batched_gemv = lp.split_iname(batched_gemv, "b", 32, outer_tag="g.0", inner_tag="l.1")
batched_gemv = lp.tag_inames(batched_gemv, {"i": "l.0"})

#: sizes at which the examples are meant to run (what ``--param`` would give)
SIZES = {"saxpy": {"n": 1 << 24}, "matmul": {"n": 1024}, "row_sums": {"n": 4096, "m": 4096},
         "laplace5": {"n": 4096}, "transpose_tiled": {"n": 4096},
         "batched_gemv": {"nb": 1 << 16}}
