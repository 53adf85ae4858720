"""Arithmetic that computes the addresses of global loads, as features of the expression
language (issue #34, round 19).

``f_op_<dtype>_address_add`` and ``f_op_<dtype>_address_mul`` (per sub-group, like
loopy's operation counts; the multiplications less those fused into an addition, as
:mod:`workbench.models.fma_pairs` counts them): the floating-point additions and
multiplications of the instructions whose results a global load's index depends on,
directly or through other temporaries (a gather's rotated coordinate, its floor).
Round 18's overlap hides the arithmetic under the global accesses (``A + M - smin(A,
M)``); heldout16's bilinear affine warp, Catmull-Rom resampler and corner response came
out about 20 % lower than without it, because the arithmetic that computes an address
runs before the load that needs it and cannot hide under it.  A model takes these
operations out of the hidden share.  Operations inside subscripts are not counted (as
loopy's counts have it); an instruction under an affine ``if`` counts where its
condition holds.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import ADDRESS_ARITHMETIC_FEATURES
from workbench.models.feature_rows import built_rows
from workbench.properties.symbolic import count_at

_SUBGROUP = 32
_FLOATS = ("float32", "float64")


def _address_temporaries(knl, arrays) -> set[str]:
    """The temporaries a global load's index depends on, through any chain of
    instructions."""
    from loopy.symbolic import get_dependencies

    from workbench.models.private_stack import walk_expression

    needed: set[str] = set()

    def on_load(sub, _red):
        if getattr(sub.aggregate, "name", None) in arrays:
            needed.update(get_dependencies(sub.index))
    for insn in knl.instructions:
        expr = getattr(insn, "expression", None)
        if expr is not None:
            walk_expression(expr, lambda *_: None, on_load)
    writers: dict[str, list] = {}
    for insn in knl.instructions:
        for name in insn.assignee_var_names():
            writers.setdefault(name, []).append(insn)
    frontier = [n for n in needed if n in writers]
    while frontier:
        name = frontier.pop()
        for insn in writers[name]:
            for dep in get_dependencies(insn.expression):
                if dep in writers and dep not in needed:
                    needed.add(dep)
                    frontier.append(dep)
    return {n for n in needed if n in writers and n not in arrays}


@functools.lru_cache(maxsize=512)
def _address_ops(spec, request) -> tuple[tuple[str, str, object], ...]:
    """(dtype, 'add' or 'mul', operations per launch at work-item granularity) of the
    instructions that compute a global load's address."""
    import loopy as lp
    from loopy.symbolic import WalkMapper
    from loopy.type_inference import TypeReader
    from pymbolic.primitives import is_zero

    from workbench.models.fma_pairs import _real_product
    from workbench.properties.predicates import count_cut_domain

    prog = lp.preprocess_program(lp.infer_unknown_types(spec.build(request),
                                                        expect_completion=True))
    knl = prog[prog.default_entrypoint.name]
    arrays = {a.name for a in knl.args if isinstance(a, lp.ArrayArg)}
    address = _address_temporaries(knl, arrays)
    types = TypeReader(knl, prog.callables_table)

    def _dtype(expr) -> str:
        try:
            return str(types(expr).numpy_dtype)
        except Exception:  # noqa: BLE001 - a type loopy cannot say: none
            return ""

    out = []
    for insn in knl.instructions:
        if not set(insn.assignee_var_names()) & address:
            continue
        found: dict[tuple[str, str], int] = {}

        class Visit(WalkMapper):
            def map_sum(self, expr, *args):
                name = _dtype(expr)
                if name in _FLOATS:
                    found[name, "add"] = found.get((name, "add"), 0) + len(expr.children) - 1
                    fused = sum(1 for c in expr.children
                                if _real_product(c) and _dtype(c) == name)
                    found[name, "mul"] = found.get((name, "mul"), 0) - min(
                        fused, len(expr.children) - 1)
                for c in expr.children:
                    self.rec(c, *args)

            def map_product(self, expr, *args):
                name = _dtype(expr)
                if name in _FLOATS:
                    factors = [c for c in expr.children if not is_zero(c + 1)]
                    found[name, "mul"] = found.get((name, "mul"), 0) + len(factors) - 1
                for c in expr.children:
                    self.rec(c, *args)

            def map_subscript(self, expr, *args):
                return  # not counted, as loopy's counts have it

        Visit()(insn.expression)
        if any(found.values()):
            domain = count_cut_domain(knl, insn, insn.within_inames)
            out += [(name, op, count * domain) for (name, op), count in found.items()
                    if count]
    return tuple(out)


def address_ops(candidate: Candidate) -> dict[tuple[str, str], float]:
    """{(dtype, 'add' or 'mul'): operations per sub-group} computing global addresses."""
    params = candidate.params_dict
    out = {(d, op): 0.0 for d in _FLOATS for op in ("add", "mul")}
    for name, op, poly in _address_ops(candidate.spec, candidate.request()):
        out[name, op] += count_at(poly, params) / _SUBGROUP
    return out


def address_arithmetic_values(candidates: Sequence[Candidate], device: str
                              ) -> dict[str, np.ndarray]:
    """Every feature of this module for every candidate (NaN where a candidate cannot
    be built); the same on every device."""
    candidates = list(candidates)
    out = {name: np.zeros(len(candidates)) for name in ADDRESS_ARITHMETIC_FEATURES}
    for i, _, found in built_rows(candidates, address_ops, out.values()):
        for (name, op), value in found.items():
            out[f"f_op_{name}_address_{op}"][i] = value
    return out


provide_device_features(ADDRESS_ARITHMETIC_FEATURES, address_arithmetic_values)
