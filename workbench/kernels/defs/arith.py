"""Arithmetic-only kernels ("Arithmetic Operations", paper section 4.1).

Work item (i, j) of an n x n row-major output computes

    out[i, j] = sum_{s=0}^{k-1} e(a, b, c),   a = i+1, b = j+1, c = s+1

where ``e`` is a chain of eight operations of one kind (add/sub, mul, div, pow or
rsqrt). Nothing is loaded from global memory; one store per work item.

Why the expressions look the way they do:

* Every operation in the chain takes the previous partial result, which depends on
  the summation index, as an operand. The compiler can therefore neither hoist any
  operation out of the loop nor fold it (IEEE semantics forbid reassociating
  ``((c*a)*b)*c...``); the accumulation and the final store keep the result alive.
  The pow and rsqrt chains start from ``c`` alone, since bringing in ``a`` or ``b``
  would take an operation of another kind.
* ``a``, ``b`` and ``c`` are converted from int32 temporaries. Assigning ``i + 1``
  straight to a float would make loopy render the integer arithmetic in floating
  point, i.e. perform float operations that its op counts attribute to int32.
* The ``+ 1`` keeps divisors, rsqrt arguments and pow bases positive, and the chains
  are arranged so values stay well inside float32 range at the paper's sizes
  (``mul`` peaks near 1e27 at n = 1024, k = 728; ``div`` near 1e-22).
* pow exponents (0.875, 1.125) are exact binary fractions: loopy types such literals
  as float32, so the float32 kernel stays single precision throughout.

Besides the eight operations of its kind, each step has one addition (the
accumulation, kept separate from the chain through a temporary ``e``), as "a
summation over k" implies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec

#: Operations of the variant's kind per summation step.
CHAIN_LENGTH = 8

_POW_EXPONENTS = (0.875, 1.125)


def _nest(fmt: str, inner: str, times: int) -> str:
    for _ in range(times):
        inner = fmt.format(inner)
    return inner


def _nest_pow(inner: str) -> str:
    for t in range(CHAIN_LENGTH):
        inner = f"({inner}) ** {_POW_EXPONENTS[t % 2]}"
    return inner


#: variant -> loopy expression in a, b, c (exactly CHAIN_LENGTH operations).
_EXPRESSIONS: Mapping[str, str] = {
    "add_sub": "c + a - b + c + b - a + c + a + b",
    "mul": "c * a * b * c * a * b * c * a * b",
    "div": "c / a / b / c / a / b / c / a / b",
    "pow": _nest_pow("c"),
    "rsqrt": _nest("rsqrt({})", "c", CHAIN_LENGTH),
}


def _pow_chain(c: np.ndarray) -> np.ndarray:
    for t in range(CHAIN_LENGTH):
        c = c ** _POW_EXPONENTS[t % 2]
    return c


def _rsqrt_chain(c: np.ndarray) -> np.ndarray:
    for _ in range(CHAIN_LENGTH):
        c = 1 / np.sqrt(c)
    return c


#: The same expressions for numpy (a: column, b: row, c: summation axis 0).
_NUMPY: Mapping[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    "add_sub": lambda a, b, c: c + a - b + c + b - a + c + a + b,
    "mul": lambda a, b, c: c * a * b * c * a * b * c * a * b,
    "div": lambda a, b, c: c / a / b / c / a / b / c / a / b,
    "pow": lambda a, b, c: _pow_chain(c),
    "rsqrt": lambda a, b, c: _rsqrt_chain(c),
}


def _build(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_EXPRESSIONS), 2)
    dt = req.dtype.value
    knl = u.make_kernel(
        "{[i, j, s]: 0 <= i, j < n and 0 <= s < k}",
        f"""
        for i, j
            <int32> ia = i + 1
            <int32> ib = j + 1
            <{dt}> a = ia {{id=a}}
            <{dt}> b = ib {{id=b}}
            <{dt}> acc = 0 {{id=init}}
            for s
                <int32> ic = s + 1
                <{dt}> c = ic {{id=c}}
                <{dt}> e = {_EXPRESSIONS[req.variant]} {{id=e, dep=a:b:c}}
                acc = acc + e {{id=update, dep=init:e}}
            end
            out[i, j] = acc {{dep=update}}
        end
        """,
        [u.array("out", req.dtype, ("n", "n")), *u.size_args("n", "k")],
        name="arith", assumptions="n >= 1 and k >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _reference(variant: str, inputs, params) -> dict:
    n, k = params["n"], params["k"]
    idx = np.arange(1, n + 1, dtype=np.float64)
    c = np.arange(1, k + 1, dtype=np.float64)[:, None, None]
    a, b = idx[None, :, None], idx[None, None, :]
    terms = np.broadcast_to(_NUMPY[variant](a, b, c), (k, n, n))
    return {"out": terms.sum(axis=0)}


def _size_cases(p: int) -> tuple[dict[str, int], ...]:
    return tuple({"n": n, "k": k} for k in (256, 512, 728) for n in u.pow2(p, range(3)))


ARITH = KernelSpec(
    name="arith",
    role=KernelRole.MEASUREMENT,
    description="No global loads; each work item of an n x n output sums, over k "
                "steps, a chain of 8 operations of one kind on its indices.",
    parameters=("n", "k"),
    variants=tuple(_EXPRESSIONS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build,
    size_cases=_size_cases,
    default_p=8,
    p_choices=(7, 8),
    make_inputs=lambda params, dtype, rng: {},
    reference=partial(_reference, "add_sub"),
    variant_reference=_reference,
    check_params={"n": 40, "k": 24},
)

#: This module's catalog entries, in catalog order.
SPECS: tuple[KernelSpec, ...] = (ARITH,)
