"""Calls of exp, log and sqrt (round 11) and of sin, cos, tan and atan2 (round 15), per
precision, as features of the expression language (issue #34).

``f_op_<dtype>_<fn>_calls`` (``fn`` one of exp, log, sqrt; per sub-group, like loopy's
operation counts): calls of that function in the kernel's instructions, the reduction
loops around a call included; expm1 and exp2 count as exp, log1p, log2 and log10 as
log (every function of ``f_op_<dtype>_explog``).  loopy counts each as one ``special`` operation (exp and
log also in ``f_op_<dtype>_explog``), priced by weights fitted on kernels where such
calls hide behind memory; the ``op_chain`` calibration microbenchmark
(:mod:`workbench.kernels.generators.op_chains`) measured each function in a dependent
chain with every SM full, and a model adds these features at the measured price less
what its sum already charges a call (``benchmarks/op_chain_prices.py``): a correction
that may be negative (exp in float64 costs less than the fitted weights charge it).
Calls of other names (rsqrt, pow, ...) are not counted here.

Round 15 counts sin, cos, tan and atan2 the same way (``f_op_<dtype>_{sin,cos,tan,atan2}_calls``)
and a sine and a cosine in one kernel (``f_op_<dtype>_sin_cos_mixes``: the smaller count, as
a Newton step of Kepler's equation takes both of one argument): the trig chains of
``benchmarks/round15_probe_kernels.py`` measured each on the H100, and a round-15 model prices
them as round 11's prices exp, log and sqrt (``benchmarks/trig_stencil_prices.py``).

``f_op_<dtype>_<a>_<b>_mixes`` (``a_b`` one of exp_log, exp_sqrt, log_sqrt; round 12):
the smaller of the two functions' call counts in one kernel, a sub-group. The op_chain
rounds that mix two functions (round 12) cost, with every SM full, a few percent less
than the two functions' rounds alone in float32 (their instructions use different
pipes, which warps at different points of the program keep busy at once) and up to 16%
more in float64; a model prices a mix by the measured difference.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import FUNCTION_CALL_FEATURES, FUNCTION_MIX_FEATURES
from workbench.models.device_structure import fitted_rows
from workbench.properties.symbolic import count_at

#: the functions counted apart, by the family whose measured price they take (the
#: exponential and logarithm variants of ``f_op_<dtype>_explog`` priced as exp and log)
PRICED_FUNCTIONS = {"exp": "exp", "expm1": "exp", "exp2": "exp",
                    "log": "log", "log1p": "log", "log2": "log", "log10": "log",
                    "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan",
                    "atan2": "atan2"}
_FAMILIES = ("exp", "log", "sqrt", "sin", "cos", "tan", "atan2")
_PRECISIONS = ("float32", "float64")
_MIXES = (("exp", "log"), ("exp", "sqrt"), ("log", "sqrt"), ("sin", "cos"))
_SUBGROUP = 32


def calls_of(knl, families: Mapping[str, str], callables: Mapping | None = None
             ) -> list[tuple[str, object]]:
    """(family, calls per launch at work-item granularity) of every call in ``knl``
    (a loopy kernel) of a function that ``families`` maps to a family, the reduction
    loops around a call included; a call under an affine ``if`` where the condition
    holds, as loopy's ``special`` count of it.  ``callables``: the program's callables
    table, which names each call by its function (see :func:`_function_name`)."""
    return [(family, count) for family, _, count in
            typed_calls_of(knl, families, lambda _: "", callables)]


def _function_name(call, callables: Mapping | None) -> str | None:
    """The function a call calls: loopy renames a function called with arguments of two
    types in one kernel (``sin`` and ``sin_0``: one callable a type), the callable
    keeping the function's own name."""
    name = getattr(call.function, "name", None)
    if callables is not None and name in callables:
        own = getattr(callables[name], "name", name)
        return own if isinstance(own, str) else name
    return name


def typed_calls_of(knl, families: Mapping[str, str], dtype_of,
                   callables: Mapping | None = None) -> list[tuple[str, str, object]]:
    """:func:`calls_of` with each call's type, ``dtype_of(call)`` (a name such as
    ``float64``, or "" where unknown): (family, type, calls)."""
    from workbench.models.private_stack import walk_expression
    from workbench.properties.predicates import count_cut_domain

    out = []
    for insn in knl.instructions:
        expr = getattr(insn, "expression", None)
        if expr is None:
            continue
        found: list[tuple[str, str, frozenset]] = []

        def on_call(call, red, found=found):
            name = _function_name(call, callables)
            if name in families:
                found.append((families[name], dtype_of(call), frozenset(red)))
        walk_expression(expr, on_call, lambda *_: None)
        out += [(name, dtype,
                 count_cut_domain(knl, insn, frozenset(insn.within_inames) | red))
                for name, dtype, red in found]
    return out


@functools.lru_cache(maxsize=512)
def _calls(spec, request) -> tuple[tuple[str, str, object], ...]:
    """(family, type, calls per launch at work-item granularity) of every priced call;
    the type is loopy's inference of the call's own (its arguments'), so a float64 call
    in a float32 kernel counts where loopy's ``special`` count of it does."""
    import loopy as lp
    from loopy.type_inference import TypeReader

    prog = lp.preprocess_program(lp.infer_unknown_types(spec.build(request),
                                                        expect_completion=True))
    knl = prog[prog.default_entrypoint.name]
    types = TypeReader(knl, prog.callables_table)

    def dtype_of(call) -> str:
        try:
            found = types(call)
            return str(getattr(found, "numpy_dtype", found))
        except Exception:  # noqa: BLE001 - a type loopy cannot say: the kernel's
            return ""

    return tuple(typed_calls_of(knl, PRICED_FUNCTIONS, dtype_of, prog.callables_table))


def typed_function_calls(candidate: Candidate) -> dict[tuple[str, str], float]:
    """{(precision, family): calls per sub-group} of ``candidate``; a call whose type
    is not a float type loopy can name takes the candidate's precision."""
    params = candidate.params_dict
    own = "float64" if str(candidate.dtype) == "float64" else "float32"
    calls = {(dt, fn): 0.0 for dt in _PRECISIONS for fn in _FAMILIES}
    for name, dtype, poly in _calls(candidate.spec, candidate.request()):
        calls[dtype if dtype in _PRECISIONS else own, name] += count_at(poly, params) / _SUBGROUP
    return calls


def function_calls(candidate: Candidate) -> dict[str, float]:
    """{family (exp, log, sqrt, sin, cos, tan, atan2): calls per sub-group} of ``candidate``, every
    precision."""
    calls = dict.fromkeys(_FAMILIES, 0.0)
    for (_, name), value in typed_function_calls(candidate).items():
        calls[name] += value
    return calls


def _flat_calls(candidate: Candidate) -> dict[str, float]:
    return {f"{dtype}|{name}": v for (dtype, name), v in typed_function_calls(candidate).items()}


def function_call_values(candidates: Sequence[Candidate], device: str
                         ) -> dict[str, np.ndarray]:
    """Every feature of this module for every candidate (NaN where a candidate cannot
    be built); the same on every device.  A mix pairs calls of one precision."""
    candidates = list(candidates)
    out = {name: np.zeros(len(candidates))
           for name in (*FUNCTION_CALL_FEATURES, *FUNCTION_MIX_FEATURES)}
    # calls of the kernel: fitted per structure of a factory space (issue #33)
    for i, _, flat in fitted_rows(candidates, _flat_calls, out.values()):
        calls = {tuple(k.split("|")): v for k, v in flat.items()}
        for (dtype, name), value in calls.items():
            out[f"f_op_{dtype}_{name}_calls"][i] = value
        for dtype in _PRECISIONS:
            for a, b in _MIXES:
                out[f"f_op_{dtype}_{a}_{b}_mixes"][i] = min(calls[dtype, a],
                                                            calls[dtype, b])
    return out


provide_device_features((*FUNCTION_CALL_FEATURES, *FUNCTION_MIX_FEATURES),
                        function_call_values)
