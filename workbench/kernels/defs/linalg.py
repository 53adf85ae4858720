"""Matrix kernels: tiled and naive multiplication, 'skinny' multiplication, transpose.

Paper section 4.1 ("Matrix Multiplication", "Naive Matrix Multiplication",
"Transpose") and section 5 ("'Skinny' Matrix Multiplication"). All matrices are
row-major, so the column index is the one placed on work-group axis 0.

Tiling with non-square groups: for a ``g0 x g1`` group, C is computed in
``g1 x g0`` tiles (``j`` by ``g0`` on l.0, ``i`` by ``g1`` on l.1) and the summation
index ``k`` is cut into tiles of length ``g0``. The local-memory tiles are then
``g1 x g0`` of A and ``g0 x g0`` of B; for the paper's square groups they are the
``gsize x gsize`` tiles it describes. Loopy spreads the fetch of a tile that is larger
than the group over several passes and guards partial tiles, so any size works.
"""

from __future__ import annotations

from collections.abc import Mapping

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, DType, KernelRole, KernelSpec


# {{{ matrix multiplication (tiled, skinny, naive)

def _matmul_kernel(name: str, dtype: DType, group_size, *, tiled: bool,
                   square: bool = False) -> lp.TranslationUnit:
    """C = A B with A n x m, B m x l (m = l = n when *square*); sizes stay symbolic."""
    m, l_ = ("n", "n") if square else ("m", "l")
    sizes = ("n",) if square else ("n", "m", "l")
    knl = u.make_kernel(
        f"{{[i, j, k]: 0 <= i < n and 0 <= j < {l_} and 0 <= k < {m}}}",
        "c[i, j] = sum(k, a[i, k] * b[k, j])",
        [u.array("a", dtype, ("n", m)),
         u.array("b", dtype, (m, l_)),
         u.array("c", dtype, ("n", l_)),
         *u.size_args(*sizes)],
        name=name, assumptions=" and ".join(f"{s} >= 1" for s in sizes))
    knl = u.split_2d(knl, "i", "j", group_size)
    if tiled:
        g0 = group_size[0]
        knl = lp.split_iname(knl, "k", g0)
        # 'l.auto' lets loopy put the contiguous tile axis on l.0, so both tile
        # fetches read global memory with stride 1.
        knl = lp.add_prefetch(knl, "a", ["i_inner", "k_inner"], default_tag="l.auto")
        knl = lp.add_prefetch(knl, "b", ["k_inner", "j_inner"], default_tag="l.auto")
        # Each tile fetch uses only one group axis; it still runs in every group.
        knl = lp.add_inames_for_unused_hw_axes(knl)
    return knl


def _matmul_inputs(params: Mapping[str, int], dtype: DType,
                   rng: np.random.Generator) -> dict:
    n = params["n"]
    m, l_ = params.get("m", n), params.get("l", n)  # square (naive) kernel: n only
    return {"a": u.random_array(rng, (n, m), dtype),
            "b": u.random_array(rng, (m, l_), dtype)}


def _matmul_reference(inputs: Mapping[str, np.ndarray], params: Mapping[str, int]
                      ) -> dict:
    a, b = inputs["a"], inputs["b"]
    return {"c": u.as_dtype_of(a.astype(np.float64) @ b.astype(np.float64), a)}


#: The paper's four shape cases, as (m, l) in terms of n.
_SHAPES: Mapping[str, tuple] = {
    "square": (lambda n: n, lambda n: n),        # n = m = l
    "l_half": (lambda n: n, lambda n: n // 2),   # n = m, l = n/2
    "m_half": (lambda n: n // 2, lambda n: n),   # n = l, m = n/2
    "n_half": (lambda n: 2 * n, lambda n: 2 * n),  # m = l, n = m/2
}


def _tiled_shape_cases(variant: str, p: int) -> tuple[dict[str, int], ...]:
    m_of, l_of = _SHAPES[variant]
    return tuple({"n": n, "m": m_of(n), "l": l_of(n)} for n in u.pow2(p, range(4)))


def _build_matmul_tiled(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_SHAPES), 2)
    return _matmul_kernel("matmul_tiled", req.dtype, req.group_size, tiled=True)


MATMUL_TILED = KernelSpec(
    name="matmul_tiled",
    role=KernelRole.MEASUREMENT,
    description="Tiled C = A B (A n x m, B m x l, row-major) with local-memory tile "
                "prefetch; variants are the paper's four shape cases.",
    parameters=("n", "m", "l"),
    variants=tuple(_SHAPES),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_matmul_tiled,
    size_cases=lambda p: _tiled_shape_cases("square", p),
    variant_size_cases=_tiled_shape_cases,
    default_p=8,
    p_choices=(7, 8, 9),
    make_inputs=_matmul_inputs,
    reference=_matmul_reference,
    # Deliberately not multiples of any group size: exercises loopy's edge guards.
    check_params={"n": 70, "m": 45, "l": 53},
)


def _build_skinny(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("default",), 2)
    return _matmul_kernel("skinny_matmul", req.dtype, req.group_size, tiled=True)


SKINNY_MATMUL = KernelSpec(
    name="skinny_matmul",
    role=KernelRole.TEST,
    description="Tiled C = A B with n = l = m/8 (long inner dimension), local-memory "
                "tile prefetch.",
    parameters=("n", "m", "l"),
    variants=("default",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_skinny,
    size_cases=lambda p: tuple({"n": n, "m": 8 * n, "l": n} for n in u.pow2(p, range(4))),
    default_p=9,
    p_choices=(9, 10),
    make_inputs=_matmul_inputs,
    reference=_matmul_reference,
    check_params={"n": 40, "m": 320, "l": 40},
)


def _build_matmul_naive(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("default",), 2)
    return _matmul_kernel("matmul_naive", req.dtype, req.group_size, tiled=False,
                          square=True)


def _square(p: int) -> tuple[dict[str, int], ...]:
    return tuple({"n": n} for n in u.pow2(p, range(4)))


MATMUL_NAIVE = KernelSpec(
    name="matmul_naive",
    role=KernelRole.MEASUREMENT,
    description="Untiled square C = A B: each work item forms one inner product "
                "straight from global memory.",
    parameters=("n",),
    variants=("default",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_matmul_naive,
    size_cases=_square,
    default_p=8,
    p_choices=(6, 8, 9),
    make_inputs=_matmul_inputs,
    reference=_matmul_reference,
    check_params={"n": 50},
)

# }}}


# {{{ transpose

#: variant -> (instruction, prefetch?). In every variant the work item (i, j) has j
#: on axis 0, so whichever array is indexed [i, j] is accessed with stride 1 and the
#: one indexed [j, i] with stride n.
_TRANSPOSE: Mapping[str, tuple[str, bool]] = {
    "prefetch": ("out[i, j] = a[j, i]", True),  # stride-n read replaced by a local tile
    "read_strided": ("out[i, j] = a[j, i]", False),  # stride-1 writes, stride-n reads
    "write_strided": ("out[j, i] = a[i, j]", False),  # stride-1 reads, stride-n writes
}


def _build_transpose(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_TRANSPOSE), 2)
    insn, prefetch = _TRANSPOSE[req.variant]
    knl = u.make_kernel(
        "{[i, j]: 0 <= i, j < n}", insn,
        [u.array("a", req.dtype, ("n", "n")), u.array("out", req.dtype, ("n", "n")),
         *u.size_args("n")],
        name="transpose", assumptions="n >= 1")
    knl = u.split_2d(knl, "i", "j", req.group_size)
    if prefetch:
        # The group's tile of a (g0 rows x g1 columns) is fetched with the tile's
        # contiguous axis on l.0 ('l.auto' picks it), so global reads are stride 1;
        # the transposition happens in local memory.
        knl = lp.add_prefetch(knl, "a", ["i_inner", "j_inner"], default_tag="l.auto")
    return knl


def _transpose_inputs(params, dtype, rng) -> dict:
    return {"a": u.random_array(rng, (params["n"], params["n"]), dtype)}


TRANSPOSE = KernelSpec(
    name="transpose",
    role=KernelRole.MEASUREMENT,
    description="out = a^T for a square n x n row-major matrix, one element per work "
                "item; variants: local-memory tile (stride-1 reads and writes), "
                "strided reads, strided writes.",
    parameters=("n",),
    variants=tuple(_TRANSPOSE),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_transpose,
    size_cases=_square,
    default_p=10,
    p_choices=(10, 11),
    make_inputs=_transpose_inputs,
    reference=lambda inputs, params: {"out": inputs["a"].T.copy()},
    check_params={"n": 70},
)

# }}}

#: This module's catalog entries, in catalog order.
SPECS: tuple[KernelSpec, ...] = (MATMUL_TILED, SKINNY_MATMUL, MATMUL_NAIVE, TRANSPOSE)
