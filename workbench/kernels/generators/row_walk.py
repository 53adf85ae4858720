"""Calibration microbenchmarks for round 10 of issue #34: rows walked along one work
item (lanes a row apart), and the error function.

* ``row_walk``: one work item per row of ``cols`` entries (a parameter), rows stored
  one after the other, so the 32 lanes of a warp are a row apart and every load or
  store instruction touches 32 different 128-byte lines, one sector each; the work
  item walks its own row in order, so each line is used again by the next trips of
  the same lane if it survives in L1 until then. Variants: ``sum`` (loads only: the
  row's sum, one store per row), ``fill`` (stores only: one load per row, a store per
  entry), ``copy`` (a load and a store per entry, no chain between entries);
* ``erfc_chain``: v <- erfc(c v), ``rounds`` dependent rounds per entry (the error
  function's price, enough independent entries per SM to reach throughput).

Each has role MEASUREMENT and is found by name (:mod:`workbench.kernels.derived`), not
listed in the catalog: its measurements join a fit through their own store
(``benchmarks/row_walk_microbench.py``).
"""

from __future__ import annotations

import functools
import math

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelSpec

ROW_WALK_VARIANTS = ("sum", "fill", "copy")
_ERFC_SCALE = 0.5


def _build_row_walk(req: BuildRequest):
    u.require(req, ROW_WALK_VARIANTS, 1)
    body = {
        "sum": "out[i] = sum(c, x[i, c])",
        "fill": "<> v = s[i] {id=v}\ny[i, c] = v {dep=v}",
        "copy": "y[i, c] = x[i, c]",
    }[req.variant]
    args = {
        "sum": [u.array("x", req.dtype, ("n", "cols")), u.array("out", req.dtype, ("n",))],
        "fill": [u.array("s", req.dtype, ("n",)), u.array("y", req.dtype, ("n", "cols"))],
        "copy": [u.array("x", req.dtype, ("n", "cols")),
                 u.array("y", req.dtype, ("n", "cols"))],
    }[req.variant]
    knl = u.make_kernel(
        "{[i, c]: 0 <= i < n and 0 <= c < cols}", body,
        [*args, *u.size_args("n", "cols")],
        name="row_walk", assumptions="n >= 1 and cols >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _row_walk_inputs(variant: str, params, dtype, rng) -> dict:
    n, cols = params["n"], params["cols"]
    if variant == "fill":
        return {"s": u.random_array(rng, (n,), dtype)}
    return {"x": u.random_array(rng, (n, cols), dtype)}


def _row_walk_reference(variant: str, inputs, params) -> dict:
    cols = params["cols"]
    if variant == "sum":
        x = inputs["x"]
        return {"out": u.as_dtype_of(x.astype(np.float64).sum(axis=1), x)}
    if variant == "fill":
        s = inputs["s"]
        return {"y": np.repeat(s[:, None], cols, axis=1)}
    return {"y": inputs["x"].copy()}


def _build_erfc(req: BuildRequest):
    u.require(req, ("default",), 1)
    knl = u.make_kernel(
        "{[i, r]: 0 <= i < n and 0 <= r < rounds}",
        """
        for i
            <> v = x[i] {id=init}
            for r
                v = erfc(c * v) {id=round, dep=init}
            end
            y[i] = v {dep=round}
        end
        """,
        [u.array("x", req.dtype, ("n",)), u.array("y", req.dtype, ("n",)),
         lp.ValueArg("c", req.dtype.numpy), *u.size_args("n", "rounds")],
        name="erfc_chain", assumptions="n >= 1 and rounds >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _erfc_inputs(params, dtype, rng) -> dict:
    return {"x": u.random_array(rng, (params["n"],), dtype, low=0.0, high=2.0),
            "c": dtype.numpy.type(_ERFC_SCALE)}


def _erfc_reference(inputs, params) -> dict:
    erfc = np.vectorize(math.erfc, otypes=[np.float64])
    v = inputs["x"].astype(np.float64)
    for _ in range(params["rounds"]):
        v = erfc(_ERFC_SCALE * v)
    return {"y": u.as_dtype_of(v, inputs["x"])}


def _spec(*args, **kwargs) -> KernelSpec:
    return u.measurement_spec(*args, **kwargs, default_p=18, p_choices=(16, 18, 20))


@functools.lru_cache(maxsize=1)
def row_walk_specs() -> tuple[KernelSpec, ...]:
    """The two microbenchmark specs (measurement role; not in the catalog)."""
    first = ROW_WALK_VARIANTS[0]
    return (
        _spec("row_walk",
              "one work item a row of `cols` entries, lanes a row apart: every "
              "instruction touches 32 lines, one sector each; the item walks its row "
              "(sum: loads; fill: stores; copy: both)",
              ROW_WALK_VARIANTS, _build_row_walk, ("n", "cols"),
              lambda p: tuple({"n": 2 ** p, "cols": c} for c in (16, 64)),
              {"n": 300, "cols": 7}, functools.partial(_row_walk_inputs, first),
              functools.partial(_row_walk_reference, first),
              _row_walk_inputs, _row_walk_reference),
        _spec("erfc_chain",
              "v <- erfc(c v), `rounds` dependent rounds per entry: the error "
              "function in a chain, one load and one store",
              ("default",), _build_erfc, ("n", "rounds"),
              lambda p: tuple({"n": 2 ** (p + 4), "rounds": r} for r in (1, 4, 16)),
              {"n": 1000, "rounds": 3}, _erfc_inputs, _erfc_reference),
    )
