"""Chains of dependent global loads, as a feature of the expression language (issue #34,
round 16).

A load whose address is computed from the value of an earlier load (a table searched
by bisection, a tree walked from its root, a pointer chase) cannot be issued before that
load returns: a warp pays the load's latency once a step, where independent loads of
the same count overlap.  The sector and request counts price every load as
independent, and the latency floors (:mod:`workbench.models.floors`) see a chain only
in a sequential loop of a launch that cannot fill the lanes, so a straight-line chain
in a full launch (heldout13's keyframe_sample: six bisection steps over a 64-key
table, 0.67-0.84 of its time predicted) was priced as a stream.

``f_dependent_loads_<dtype>`` (a sub-group, of the launch; ``dtype`` the last load's
array's, a 4-byte integer table counted as float32): the global loads on the kernel's
longest chain in which each load's subscript reads a value the one before loaded,
less two: the chain's root (a load whose address is known) and its first dependent
load (a gather, ``x[idx[i]]``, which the catalog's gathers and sparse kernels price
through the fitted weights), times the sub-groups that run the deepest load.  The
chain is followed through the private values that carry it (``mid = (lo + hi) // 2``
after ``lo`` was set from a load) in the order of the instructions' dependencies; a
sequential loop's body counts once (a pointer chase along a loop is the
``dependent loads`` caveat of :mod:`workbench.models.parallelism`).

A model prices the features at what the ``lookup_chain`` calibration microbenchmark
(``benchmarks/round16_chain_kernels.py``) measured a dependent step to cost with every
SM full, less what its sum already charges the step (``benchmarks/dependent_load_prices.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import DEPENDENT_LOAD_FEATURES
from workbench.models.device_structure import fitted_rows
from workbench.properties.symbolic import count_at
#: loads of a chain not counted: its root and one gather
UNCOUNTED_LEVELS = 2
_SUBGROUP = 32


def _ordered(knl) -> list:
    """``knl``'s instructions, each after the instructions it depends on."""
    by_id = {insn.id: insn for insn in knl.instructions}
    done: set[str] = set()
    out = []

    def visit(insn, stack=()):
        if insn.id in done or insn.id in stack:
            return
        for dep in sorted(insn.depends_on):
            if dep in by_id:
                visit(by_id[dep], (*stack, insn.id))
        done.add(insn.id)
        out.append(insn)

    for insn in knl.instructions:
        visit(insn)
    return out


def _names(expr) -> set[str]:
    from loopy.symbolic import get_dependencies

    return set(get_dependencies(expr))


def load_chain(knl) -> tuple[int, object | None, str]:
    """(the loads on ``knl``'s longest chain of dependent global loads, the instruction
    that issues its last load (None where the kernel loads nothing), that load's
    array)."""
    from loopy.kernel.data import AddressSpace
    from workbench.models.private_stack import walk_expression

    arrays = {a.name for a in knl.args
              if getattr(a, "address_space", None) == AddressSpace.GLOBAL}
    depth: dict[str, int] = {}      # private value -> the longest load chain behind it
    best, where, array = 0, None, ""
    for insn in _ordered(knl):
        expr = getattr(insn, "expression", None)
        if expr is None:
            continue
        loads: list[tuple[int, str]] = []

        def on_subscript(sub, _inames, loads=loads):
            name = getattr(sub.aggregate, "name", None)
            if name in arrays:
                loads.append((1 + max((depth.get(v, 0) for v in _names(sub.index)),
                                      default=0), name))
        walk_expression(expr, lambda *_: None, on_subscript)
        carried = max((depth.get(v, 0) for v in _names(expr)), default=0)
        here = max([carried, *(d for d, _ in loads)])
        if loads and max(loads)[0] > best:
            (best, array), where = max(loads), insn
        for name in insn.assignee_var_names():
            if name not in arrays:
                depth[name] = here
    return best, where, array


@functools.lru_cache(maxsize=512)
def _chain(spec, request):
    import loopy as lp

    prog = lp.preprocess_program(lp.infer_unknown_types(spec.build(request),
                                                        expect_completion=True))
    knl = prog[prog.default_entrypoint.name]
    loads, insn, array = load_chain(knl)
    if loads <= UNCOUNTED_LEVELS or insn is None:
        return 0, None, "float32"
    from workbench.properties.predicates import count_cut_domain

    dtype = "float64" if knl.arg_dict[array].dtype.numpy_dtype.itemsize == 8 else "float32"
    return (loads - UNCOUNTED_LEVELS,
            count_cut_domain(knl, insn, frozenset(insn.within_inames)), dtype)


def dependent_loads(candidate: Candidate) -> tuple[str, float]:
    """(the precision, ``f_dependent_loads_<dtype>``) of ``candidate`` (module
    docstring)."""
    levels, points, dtype = _chain(candidate.spec, candidate.request())
    if not levels:
        return dtype, 0.0
    params = candidate.params_dict
    items = count_at(points, params)
    return dtype, levels * items / _SUBGROUP


def _numbers(c: Candidate) -> dict[str, float]:
    # module level: the counting processes can be sent it (``per_structure``)
    dtype, value = dependent_loads(c)
    found = dict.fromkeys(DEPENDENT_LOAD_FEATURES, 0.0)
    found[f"f_dependent_loads_{dtype}"] = value
    return found


def dependent_load_values(candidates: Sequence[Candidate], device: str
                          ) -> dict[str, np.ndarray]:
    """Every feature of this module for every candidate (NaN where a candidate cannot
    be built); the same on every device."""
    candidates = list(candidates)
    out = {name: np.zeros(len(candidates)) for name in DEPENDENT_LOAD_FEATURES}
    # a count of the kernel: fitted per structure of a factory space (issue #33), each
    # precision's feature its own number (0 in the other)
    for i, _, found in fitted_rows(candidates, _numbers, out.values()):
        for name, value in found.items():
            out[name][i] = value
    return out


provide_device_features(DEPENDENT_LOAD_FEATURES, dependent_load_values)
