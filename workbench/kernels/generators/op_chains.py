"""Calibration microbenchmarks for round 11 of issue #34: one operation in a dependent
chain, per precision (the arithmetic and special functions that heldout8's
mandelbrot_escape, distance_matrix and ray_sphere_hit and heldout7's black_scholes run).

``op_chain``: v <- f(v), ``rounds`` dependent rounds per entry, one load and one store
per entry. Variants (what a round is):

* ``fma``: v*c + d (a multiply and an add that the compiler may contract);
* ``add``: v + c;  ``mul``: v*c;
* ``div``: c / v;  ``sqrt``: sqrt(v);
* ``exp``: exp(c v) (a multiply and an exponential);  ``log``: log(c + v).

Round 12's variants (the power, and mixes of the special functions in one round, to
tell whether a mix costs the sum of its functions' rounds or less where they run on
different pipes):

* ``pow``: v ** c (a power with a non-integer exponent);
* ``exp_log``: log(c + exp(v));  ``exp_sqrt``: sqrt(exp(c v));  ``log_sqrt``:
  sqrt(log(c + v));  ``exp_log_sqrt``: sqrt(log(c + exp(v)));
* ``exp_pair``: exp(c v) + exp(d v), ``log_pair``: log(c + v) + log(d + v) (two
  independent calls a round: the same function's throughput with the work item's own
  parallelism doubled).

With 2^22 entries every SM holds as many warps as it can (the throughput price of a
round, the slope between round counts); with 2^14 entries each scheduler holds about
one warp (the latency of a dependent round). Role MEASUREMENT, found by name
(:mod:`workbench.kernels.derived`), not in the catalog.
"""

from __future__ import annotations

import functools
import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec

#: variant -> (a round's expression of v, its scalars (c, d))
OP_CHAIN_ROUNDS = {
    "fma": ("v*c + d", (0.5, 0.5)),
    "add": ("v + c", (0.25, 0.0)),
    "mul": ("v*c", (0.999, 0.0)),
    "div": ("c / v", (1.5, 0.0)),
    "sqrt": ("sqrt(v)", (0.0, 0.0)),
    "exp": ("exp(c*v)", (-1.0, 0.0)),
    "log": ("log(c + v)", (2.0, 0.0)),
    "pow": ("v ** c", (0.9, 0.0)),
    "exp_log": ("log(c + exp(v))", (2.0, 0.0)),
    "exp_sqrt": ("sqrt(exp(c*v))", (-1.0, 0.0)),
    "log_sqrt": ("sqrt(log(c + v))", (2.0, 0.0)),
    "exp_log_sqrt": ("sqrt(log(c + exp(v)))", (2.0, 0.0)),
    "exp_pair": ("exp(c*v) + exp(d*v)", (-1.0, -0.5)),
    "log_pair": ("log(c + v) + log(d + v)", (2.0, 3.0)),
}
OP_CHAIN_VARIANTS = tuple(OP_CHAIN_ROUNDS)
#: the variants that round 12 of #34 added (its device call measured only these)
ROUND12_VARIANTS = OP_CHAIN_VARIANTS[7:]

_NUMPY_ROUNDS = {
    "fma": lambda v, c, d: v * c + d,
    "add": lambda v, c, d: v + c,
    "mul": lambda v, c, d: v * c,
    "div": lambda v, c, d: c / v,
    "sqrt": lambda v, c, d: np.sqrt(v),
    "exp": lambda v, c, d: np.exp(c * v),
    "log": lambda v, c, d: np.log(c + v),
    "pow": lambda v, c, d: v ** c,
    "exp_log": lambda v, c, d: np.log(c + np.exp(v)),
    "exp_sqrt": lambda v, c, d: np.sqrt(np.exp(c * v)),
    "log_sqrt": lambda v, c, d: np.sqrt(np.log(c + v)),
    "exp_log_sqrt": lambda v, c, d: np.sqrt(np.log(c + np.exp(v))),
    "exp_pair": lambda v, c, d: np.exp(c * v) + np.exp(d * v),
    "log_pair": lambda v, c, d: np.log(c + v) + np.log(d + v),
}


def _build_op_chain(req: BuildRequest):
    u.require(req, OP_CHAIN_VARIANTS, 1)
    expression, _ = OP_CHAIN_ROUNDS[req.variant]
    knl = u.make_kernel(
        "{[i, r]: 0 <= i < n and 0 <= r < rounds}",
        f"""
        for i
            <> v = x[i] {{id=init}}
            for r
                v = {expression} {{id=round, dep=init}}
            end
            y[i] = v {{dep=round}}
        end
        """,
        [u.array("x", req.dtype, ("n",)), u.array("y", req.dtype, ("n",)),
         lp.ValueArg("c", req.dtype.numpy), lp.ValueArg("d", req.dtype.numpy),
         *u.size_args("n", "rounds")],
        name="op_chain", assumptions="n >= 1 and rounds >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _inputs(variant: str, params, dtype, rng) -> dict:
    c, d = OP_CHAIN_ROUNDS[variant][1]
    return {"x": u.random_array(rng, (params["n"],), dtype, low=1.0, high=2.0),
            "c": dtype.numpy.type(c), "d": dtype.numpy.type(d)}


def _reference(variant: str, inputs, params) -> dict:
    v = inputs["x"].astype(np.float64)
    c, d = float(inputs["c"]), float(inputs["d"])
    for _ in range(params["rounds"]):
        v = _NUMPY_ROUNDS[variant](v, c, d)
    return {"y": u.as_dtype_of(v, inputs["x"])}


@functools.lru_cache(maxsize=1)
def op_chain_specs() -> tuple[KernelSpec, ...]:
    """The round-11 microbenchmark spec (measurement role; not in the catalog)."""
    first = OP_CHAIN_VARIANTS[0]
    return (KernelSpec(
        name="op_chain", role=KernelRole.MEASUREMENT,
        description="v <- f(v), `rounds` dependent rounds per entry (fma, add, mul, div, "
                    "sqrt, exp, log, pow, and mixes of exp, log and sqrt): one "
                    "operation's throughput and latency, one load and one store",
        parameters=("n", "rounds"), variants=OP_CHAIN_VARIANTS, dtypes=u.FLOATS,
        group_dims=1, default_group_size_set="1d-med", build=_build_op_chain,
        size_cases=lambda p: tuple({"n": 2 ** (p + 4), "rounds": r} for r in (4, 16)),
        default_p=18, p_choices=(16, 18, 20),
        make_inputs=functools.partial(_inputs, first),
        reference=functools.partial(_reference, first),
        variant_make_inputs=_inputs, variant_reference=_reference,
        check_params={"n": 1000, "rounds": 3}),)
