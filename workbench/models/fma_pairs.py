"""Multiplications the compiler fuses into an addition, as features of the expression
language (issue #34, round 11).

``f_op_<dtype>_fma_pairs`` (per sub-group, like loopy's operation counts): in every
sum of the kernel's preprocessed instructions (reductions realised as ``acc = acc +
body``), the terms that are products, at most one per addition: ``a*b + c`` is one
fused multiply-add, ``a*b - c*d + e`` two, ``a*b + c*d`` one.  loopy counts a
multiplication and an addition for each; OpenCL C contracts them by default and the
GPU issues one instruction.  heldout8's mandelbrot_escape (64 dependent iterations of
``z <- z^2 + c`` a pixel, no memory traffic to speak of) runs at about one issue slot
a counted operation less these pairs, where the sum charged every multiplication; a
model prices the pairs by taking them out of the multiplications
(``p_mul*(f_op_float32_mul - f_op_float32_fma_pairs)``).  Sums of integers (indices)
are not counted, nor a product of another type than its sum (``i*j`` in a float sum, a
float32 product in a float64 sum: converted before the addition, and its
multiplication counted in another type): the types are loopy's own inference.  An
instruction under an affine ``if`` counts where its condition holds, as its operations
do (:mod:`workbench.properties.predicates`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import FMA_FEATURES
from workbench.models.device_structure import per_structure
from workbench.properties.symbolic import count_at

_SUBGROUP = 32
_FLOATS = {"float32", "float64"}


def _real_product(expr) -> bool:
    """A product with at least one multiplication: not a bare negation ``(-1)*x``,
    but ``(-1)*(a*b)`` is one."""
    from pymbolic.primitives import Product, is_zero

    if not isinstance(expr, Product):
        return False
    factors = [c for c in expr.children if not is_zero(c + 1)]
    return len(factors) >= 2 or (len(factors) == 1 and _real_product(factors[0]))


@functools.lru_cache(maxsize=512)
def _pairs(spec, request) -> tuple[tuple[str, object], ...]:
    """(dtype, fused pairs per launch at work-item granularity) of every sum."""
    import loopy as lp
    from loopy.symbolic import WalkMapper
    from loopy.type_inference import TypeReader

    from workbench.properties.predicates import count_cut_domain

    prog = lp.preprocess_program(lp.infer_unknown_types(spec.build(request),
                                                        expect_completion=True))
    knl = prog[prog.default_entrypoint.name]
    types = TypeReader(knl, prog.callables_table)
    out = []

    def _dtype(expr) -> str:
        try:
            return str(types(expr).numpy_dtype)
        except Exception:  # noqa: BLE001 - a type loopy cannot say: none
            return ""

    for insn in knl.instructions:
        expr = getattr(insn, "expression", None)
        if expr is None:
            continue
        found: dict[str, int] = {}

        class Visit(WalkMapper):
            def map_sum(self, expr, *args):
                products = [c for c in expr.children if _real_product(c)]
                name = _dtype(expr) if products else ""
                if name in _FLOATS:
                    # only a product in the sum's own type fuses with it: an integer
                    # product (i*j) or a float32 one in a float64 sum is converted
                    # first, and loopy counts its multiplication in another type
                    fused = sum(1 for c in products if _dtype(c) == name)
                    pairs = min(fused, len(expr.children) - 1)
                    if pairs:
                        found[name] = found.get(name, 0) + pairs
                for c in expr.children:
                    self.rec(c, *args)

            def map_subscript(self, expr, *args):
                return  # indices are integers

        Visit()(expr)
        if found:
            # under an affine ``if``: where the condition holds, as loopy's counts
            domain = count_cut_domain(knl, insn, insn.within_inames)
            out += [(name, pairs * domain) for name, pairs in found.items()]
    return tuple(out)


def fma_pairs(candidate: Candidate) -> dict[str, float]:
    """{dtype: fused multiply-add pairs per sub-group} of ``candidate``."""
    params = candidate.params_dict
    out = dict.fromkeys(sorted(_FLOATS), 0.0)
    for name, poly in _pairs(candidate.spec, candidate.request()):
        out[name] += count_at(poly, params) / _SUBGROUP
    return out


def fma_pair_values(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
    """Every feature of this module for every candidate (NaN where a candidate cannot
    be built); the same on every device."""
    candidates = list(candidates)
    out = {name: np.zeros(len(candidates)) for name in FMA_FEATURES}
    # per structure of a factory space: the pairs are counts (issue #33)
    for i, found in enumerate(per_structure(candidates, fma_pairs)):
        for name, value in (found or dict.fromkeys(_FLOATS, np.nan)).items():
            out[f"f_op_{name}_fma_pairs"][i] = value
    return out


provide_device_features(FMA_FEATURES, fma_pair_values)
