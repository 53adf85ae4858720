"""Calibration microbenchmarks for three things no catalog kernel exercises (issue #34,
round 7): global loads that the L1 cache serves without a local-memory prefetch, a
private array indexed by loaded data (kept on the stack), and dependent chains of
exponentials and logarithms.

* ``window_filter``: out[i] = sum_k f[k] x[s i + k] for ``taps`` taps (a parameter),
  windows of neighbouring work items overlapping (stride s = 1 or 3); every tap a
  global load that L1 serves after the first warp touched its lines;
* ``broadcast_coeffs``: y[e] = sum_j (c[0, j] a_e + c[1, j] b_e) for ``m`` columns of a
  small coefficient matrix that every work item reads (uniform loads, all L1 hits)
  and two values of its own;
* ``private_scatter``: each work item adds ``chunk`` values into ``keys`` private sums
  picked by a loaded int32 key (a data-dependent index into a private array, so the
  compiler keeps it on the stack), then writes the sums; values interleaved over the
  items (adjacent lanes);
* ``explog_chain``: v <- log(c + exp(v)), ``rounds`` dependent rounds per entry.

Each has role MEASUREMENT and is found by name (:mod:`workbench.kernels.derived`), not
listed in the catalog: its measurements join a fit through their own store
(``benchmarks/reuse_stack_microbench.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec

#: variant -> stride of the windows of neighbouring work items
WINDOW_STRIDES: Mapping[str, int] = {"stride1": 1, "stride3": 3}
#: variant -> private sums per work item
SCATTER_KEYS: Mapping[str, int] = {"keys8": 8, "keys32": 32}
_CHAIN_SHIFT = 0.5


def _build_window(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(WINDOW_STRIDES), 1)
    s = WINDOW_STRIDES[req.variant]
    knl = u.make_kernel(
        "{[i, k]: 0 <= i < n and 0 <= k < taps}",
        f"out[i] = sum(k, f[k] * x[{s}*i + k])",
        [u.array("x", req.dtype, (f"{s}*n + taps",)), u.array("f", req.dtype, ("taps",)),
         u.array("out", req.dtype, ("n",)), *u.size_args("n", "taps")],
        name="window_filter", assumptions="n >= 1 and taps >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _window_inputs(variant: str, params, dtype, rng) -> dict:
    s, n, taps = WINDOW_STRIDES[variant], params["n"], params["taps"]
    return {"x": u.random_array(rng, (s * n + taps,), dtype),
            "f": u.random_array(rng, (taps,), dtype, low=0.1)}


def _window_reference(variant: str, inputs, params) -> dict:
    s, n, taps = WINDOW_STRIDES[variant], params["n"], params["taps"]
    x, f = inputs["x"].astype(np.float64), inputs["f"].astype(np.float64)
    out = sum(f[k] * x[k:k + s * n:s][:n] for k in range(taps))
    return {"out": u.as_dtype_of(out, inputs["x"])}


def _build_broadcast(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("default",), 1)
    knl = u.make_kernel(
        "{[e, j]: 0 <= e < n and 0 <= j < m}",
        """
        for e
            <> a = x[0, e] {id=a}
            <> b = x[1, e] {id=b}
            y[e] = sum(j, c[0, j]*a + c[1, j]*b) {dep=a:b}
        end
        """,
        [u.array("x", req.dtype, (2, "n")), u.array("c", req.dtype, (2, "m")),
         u.array("y", req.dtype, ("n",)), *u.size_args("n", "m")],
        name="broadcast_coeffs", assumptions="n >= 1 and m >= 1")
    return u.split_1d(knl, "e", req.group_size)


def _broadcast_inputs(params, dtype, rng) -> dict:
    return {"x": u.random_array(rng, (2, params["n"]), dtype),
            "c": u.random_array(rng, (2, params["m"]), dtype)}


def _broadcast_reference(inputs, params) -> dict:
    x, c = inputs["x"].astype(np.float64), inputs["c"].astype(np.float64)
    return {"y": u.as_dtype_of(c.sum(axis=1) @ x, inputs["x"])}


def _build_scatter(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(SCATTER_KEYS), 1)
    keys = SCATTER_KEYS[req.variant]
    knl = u.make_kernel(
        f"{{[c, b0, k, b1]: 0 <= c < n and 0 <= b0, b1 < {keys} and 0 <= k < chunk}}",
        """
        for c
            acc[b0] = 0 {id=zero}
            for k
                <> key = keys[k*n + c] {id=key}
                acc[key] = acc[key] + vals[k*n + c] {id=add, dep=zero:key}
            end
            sums[b1, c] = acc[b1] {dep=add}
        end
        """,
        [lp.GlobalArg("keys", np.int32, shape=("chunk*n",)),
         u.array("vals", req.dtype, ("chunk*n",)), u.array("sums", req.dtype, (keys, "n")),
         lp.TemporaryVariable("acc", req.dtype.numpy, shape=(keys,),
                              address_space=lp.AddressSpace.PRIVATE),
         *u.size_args("n", "chunk")],
        name="private_scatter", assumptions="n >= 1 and chunk >= 1")
    knl = lp.tag_inames(knl, {"b0": "unr", "b1": "unr"})
    return u.split_1d(knl, "c", req.group_size)


def _scatter_inputs(variant: str, params, dtype, rng) -> dict:
    size = params["chunk"] * params["n"]
    return {"keys": rng.integers(0, SCATTER_KEYS[variant], size, dtype=np.int32),
            "vals": u.random_array(rng, (size,), dtype)}


def _scatter_reference(variant: str, inputs, params) -> dict:
    n, chunk = params["n"], params["chunk"]
    keys = inputs["keys"].reshape(chunk, n)
    vals = inputs["vals"].astype(np.float64).reshape(chunk, n)
    sums = np.stack([np.where(keys == b, vals, 0.0).sum(axis=0)
                     for b in range(SCATTER_KEYS[variant])])
    return {"sums": u.as_dtype_of(sums, inputs["vals"])}


def _build_chain(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("default",), 1)
    knl = u.make_kernel(
        "{[i, r]: 0 <= i < n and 0 <= r < rounds}",
        """
        for i
            <> v = x[i] {id=init}
            for r
                v = log(c + exp(v)) {id=round, dep=init}
            end
            y[i] = v {dep=round}
        end
        """,
        [u.array("x", req.dtype, ("n",)), u.array("y", req.dtype, ("n",)),
         lp.ValueArg("c", req.dtype.numpy), *u.size_args("n", "rounds")],
        name="explog_chain", assumptions="n >= 1 and rounds >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _chain_inputs(params, dtype, rng) -> dict:
    return {"x": u.random_array(rng, (params["n"],), dtype, low=-2, high=2),
            "c": dtype.numpy.type(_CHAIN_SHIFT)}


def _chain_reference(inputs, params) -> dict:
    v = inputs["x"].astype(np.float64)
    for _ in range(params["rounds"]):
        v = np.log(_CHAIN_SHIFT + np.exp(v))
    return {"y": u.as_dtype_of(v, inputs["x"])}


def _spec(*args, **kwargs) -> KernelSpec:
    return u.measurement_spec(*args, **kwargs, default_p=22, p_choices=(20, 21, 22))


@functools.lru_cache(maxsize=1)
def reuse_stack_chain_specs() -> tuple[KernelSpec, ...]:
    """The four microbenchmark specs (measurement role; not in the catalog)."""
    first_window, first_keys = next(iter(WINDOW_STRIDES)), next(iter(SCATTER_KEYS))
    return (
        _spec("window_filter",
              "out[i] = sum_k f[k] x[s i + k] over `taps` taps, no prefetch: the "
              "windows of neighbouring items overlap (stride 1 or 3), L1 serves them",
              tuple(WINDOW_STRIDES), _build_window, ("n", "taps"),
              lambda p: tuple({"n": 2 ** p, "taps": t} for t in (4, 16, 64)),
              {"n": 1000, "taps": 5}, functools.partial(_window_inputs, first_window),
              functools.partial(_window_reference, first_window),
              _window_inputs, _window_reference),
        _spec("broadcast_coeffs",
              "y[e] = sum_j c[0, j] a_e + c[1, j] b_e: every item reads the whole "
              "small matrix c (uniform loads, L1 hits) and two values of its own",
              ("default",), _build_broadcast, ("n", "m"),
              lambda p: tuple({"n": 2 ** p, "m": m} for m in (8, 32, 128)),
              {"n": 1000, "m": 5}, _broadcast_inputs, _broadcast_reference),
        _spec("private_scatter",
              "each item adds `chunk` values into private sums picked by a loaded "
              "int32 key (a data-dependent index into a private array: the stack)",
              tuple(SCATTER_KEYS), _build_scatter, ("n", "chunk"),
              lambda p: tuple({"n": 2 ** (p - 4), "chunk": c} for c in (16, 64)),
              {"n": 300, "chunk": 7}, functools.partial(_scatter_inputs, first_keys),
              functools.partial(_scatter_reference, first_keys),
              _scatter_inputs, _scatter_reference),
        _spec("explog_chain",
              "v <- log(c + exp(v)), `rounds` dependent rounds per entry: "
              "exponentials and logarithms in a chain, one load and one store",
              ("default",), _build_chain, ("n", "rounds"),
              lambda p: tuple({"n": 2 ** p, "rounds": r} for r in (1, 4, 16)),
              {"n": 1000, "rounds": 3}, _chain_inputs, _chain_reference),
    )
