"""Vector (1-D) memory-access kernels of paper section 4.1.

* ``vector_scale_add`` ("Vector Scale and Add"): ``out[i] = alpha*x[s*i] + beta*y[s*i]``
  for ``i < n``. The inputs hold ``s*n`` elements of which every s-th is used, so the
  loads have stride s and use 1/s of their footprint; the n results are stored with
  stride 1 ("each thread computes one value in the result").
* ``global_access`` ("Stride-1 Global Access"): copy (1 load, 1 store), sum of four
  arrays into a fifth (4 loads, 1 store), store of the element index (0 loads, 1 store).
* ``filled_access`` ("Stride-2/-3 Filled Global Access"), see below.

Reading of the filled-access description
----------------------------------------
The paper: "summations of pairwise sums of consecutive elements in a 2 x n array
(column-major data layout), prefetching elements in a stride-2 access pattern
(first fetches elements i, i+2, ..., i+2(gsize-1), then i+1, i+3, ..., then adds
pairs). Each of n threads performs a summation over 256 of these pairwise sums and
stores the result in one index of a 1 x n output array."

The data is ``a``, an ``s x n`` array in Fortran order, so column ``j`` (the s
"consecutive elements" ``a[0, j] .. a[s-1, j]``) is contiguous and its sum is the
pairwise (s=2) or triowise (s=3) sum ``q_j``. Work item ``i`` sums the 256 sums
``q_i .. q_{i+255}`` that start at its own column::

    out[i] = sum_{k=0}^{255} (a[0, i+k] + ... + a[s-1, i+k]),   i + k < n

Sharing the columns between neighbouring work items is what keeps the array at the
paper's ``s x n`` (256 private columns per work item would need 256 times the
memory at the paper's sizes, n up to 2^26). The window is truncated at the end of
the array, so the last 255 work items sum fewer terms; this is counted exactly.

Each work group fetches the columns its windows cover (``gsize + 255`` of them) into
local memory one row at a time, in passes of ``gsize`` columns: in a pass over row
r, lane ``lid`` reads ``a[r, j0 + lid]``, i.e. addresses with stride s, exactly the
paper's "i, i+2, ..., i+2(gsize-1)". The s row passes together read every element
of the footprint (utilization 100%: the "2/2" and "3/3" stride classes, as opposed
to ``vector_scale_add``'s "1/2" and "1/3"). The summation reads local memory only.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ vector scale and add

_STRIDES: Mapping[str, int] = {"stride1": 1, "stride2": 2, "stride3": 3}


def _build_scale_add(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_STRIDES), 1)
    s = _STRIDES[req.variant]
    length = "n" if s == 1 else f"{s}*n"
    index = "i" if s == 1 else f"{s}*i"
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"out[i] = alpha*x[{index}] + beta*y[{index}]",
        [u.array("x", req.dtype, (length,)), u.array("y", req.dtype, (length,)),
         u.array("out", req.dtype, ("n",)),
         lp.ValueArg("alpha", req.dtype.numpy), lp.ValueArg("beta", req.dtype.numpy),
         *u.size_args("n")],
        name="vector_scale_add", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _scale_add_inputs(variant: str, params, dtype, rng) -> dict:
    length = _STRIDES[variant] * params["n"]
    return {"x": u.random_array(rng, (length,), dtype),
            "y": u.random_array(rng, (length,), dtype),
            "alpha": dtype.numpy.type(1.5), "beta": dtype.numpy.type(0.75)}


def _scale_add_reference(variant: str, inputs, params) -> dict:
    s = _STRIDES[variant]
    x, y = (inputs[v][::s].astype(np.float64) for v in ("x", "y"))
    res = float(inputs["alpha"]) * x + float(inputs["beta"]) * y
    return {"out": u.as_dtype_of(res, inputs["x"])}


VECTOR_SCALE_ADD = KernelSpec(
    name="vector_scale_add",
    role=KernelRole.MEASUREMENT,
    description="out[i] = alpha*x[s*i] + beta*y[s*i]: two vectors scaled and added, "
                "read with stride s = 1, 2, 3.",
    parameters=("n",),
    variants=tuple(_STRIDES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_scale_add,
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(4), scale=2)),
    default_p=20,
    p_choices=(18, 20, 21),
    make_inputs=partial(_scale_add_inputs, "stride1"),
    reference=partial(_scale_add_reference, "stride1"),
    variant_make_inputs=_scale_add_inputs,
    variant_reference=_scale_add_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ stride-1 global access

#: variant -> (input arrays, instructions). The index is stored through an int32
#: temporary: written directly into a float array, loopy would render the index
#: arithmetic in floating point, performing float operations the op counts miss.
_ACCESS: Mapping[str, tuple[tuple[str, ...], str]] = {
    "copy": (("a",), "out[i] = a[i]"),
    "sum4": (("a", "b", "c", "d"), "out[i] = a[i] + b[i] + c[i] + d[i]"),
    "store_index": ((), """
        for i
            <int32> idx = i
            out[i] = idx
        end
        """),
}


def _build_access(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_ACCESS), 1)
    inputs, insns = _ACCESS[req.variant]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}", insns,
        [*(u.array(v, req.dtype, ("n",)) for v in inputs),
         u.array("out", req.dtype, ("n",)), *u.size_args("n")],
        name="global_access", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _access_inputs(variant: str, params, dtype, rng) -> dict:
    return {v: u.random_array(rng, (params["n"],), dtype) for v in _ACCESS[variant][0]}


def _access_reference(variant: str, inputs, params) -> dict:
    if variant == "store_index":
        # No input fixes the dtype; float64 holds every index exactly.
        return {"out": np.arange(params["n"], dtype=np.float64)}
    res = sum(inputs[v].astype(np.float64) for v in _ACCESS[variant][0])
    return {"out": u.as_dtype_of(res, inputs["a"])}


GLOBAL_ACCESS = KernelSpec(
    name="global_access",
    role=KernelRole.MEASUREMENT,
    description="Stride-1 global access on n-vectors: copy (1 load, 1 store), sum of "
                "four arrays (4 loads, 1 store), store of the index (0 loads, 1 store).",
    parameters=("n",),
    variants=tuple(_ACCESS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_access,
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(9))),
    default_p=18,
    p_choices=(17, 18, 19, 20),
    make_inputs=partial(_access_inputs, "copy"),
    reference=partial(_access_reference, "copy"),
    variant_make_inputs=_access_inputs,
    variant_reference=_access_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ stride-2/3 filled access

#: How many pairwise (triowise) sums each work item adds up (paper: 256).
FILLED_WINDOW = 256

_FILLED: Mapping[str, int] = {"stride2": 2, "stride3": 3}


def _build_filled(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_FILLED), 1)
    s = _FILLED[req.variant]
    (g0,) = req.group_size
    column_sum = " + ".join(f"a[{r}, i + k]" for r in range(s))
    knl = u.make_kernel(
        f"{{[i, k]: 0 <= i < n and 0 <= k < {FILLED_WINDOW} and i + k < n}}",
        f"out[i] = sum(k, {column_sum})",
        [u.array("a", req.dtype, (s, "n"), order="F"), u.array("out", req.dtype, ("n",)),
         *u.size_args("n")],
        name="filled_access", assumptions="n >= 1")
    knl = u.split_1d(knl, "i", req.group_size)
    # Fetch the group's window row by row (a_row is unrolled and outermost); each row
    # is read in passes of g0 lanes, lane -> a[row, j0 + lane]: stride s in memory.
    knl = lp.add_prefetch(knl, "a", ["i_inner", "k"], dim_arg_names=["a_row", "a_col"],
                          fetch_outer_inames="i_outer", default_tag=None)
    knl = lp.split_iname(knl, "a_col", g0, inner_tag="l.0")
    knl = lp.tag_inames(knl, {"a_row": "unr"})
    return lp.prioritize_loops(knl, "a_row,a_col_outer")


def _filled_inputs(variant: str, params, dtype, rng) -> dict:
    return {"a": u.random_array(rng, (_FILLED[variant], params["n"]), dtype, order="F")}


def _filled_reference(inputs, params) -> dict:
    a = inputs["a"]
    column_sums = a.astype(np.float64).sum(axis=0)
    padded = np.concatenate([column_sums, np.zeros(FILLED_WINDOW - 1)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, FILLED_WINDOW)
    return {"out": u.as_dtype_of(windows.sum(axis=1), a)}


FILLED_ACCESS = KernelSpec(
    name="filled_access",
    role=KernelRole.MEASUREMENT,
    description="Each work item sums 256 column sums of an s x n column-major array "
                "(s = 2: pairwise, s = 3: triowise), fetched to local memory row by "
                "row: stride-s global reads that together use every element.",
    parameters=("n",),
    variants=tuple(_FILLED),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_filled,
    size_cases=lambda p: tuple({"n": n} for n in u.pow2(p, range(4), scale=3)),
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=partial(_filled_inputs, "stride2"),
    reference=_filled_reference,
    variant_make_inputs=_filled_inputs,
    check_params={"n": 700},
)

# }}}

#: This module's catalog entries, in catalog order.
SPECS: tuple[KernelSpec, ...] = (VECTOR_SCALE_ADD, GLOBAL_ACCESS, FILLED_ACCESS)
