"""loopy's preprocessing for counting: what the counters read, without what only code
generation reads.

loopy's ``preprocess_program`` ends with two passes for code generation alone:
``infer_arg_descr`` (the shapes and strides each callee is called with, for its
signature in the generated code) and ``inline_kernels_with_gbarriers`` (a callee kernel
with a global barrier inlined into its caller).  Neither changes an instruction, a
domain, a type or an address space of a program whose only kernel is its entry point
(no callee kernel: the calls are to loopy's or the target's scalar functions), and
there the counts, the barriers' linearization and the footprints read the same kernel
without them.  The descriptors pass walks every expression of the kernel and its
callables' renaming, a quarter of preprocessing on a factory point (section 62 of
sample_data/h100/structure-ranking.md).

So a one-kernel program is preprocessed here by loopy's own passes, in
``preprocess_program``'s order, up to those two; any other program, and any loopy but
the one these passes were read from, goes through ``preprocess_program`` whole.  Not
through its disk memo: keying it hashes the whole kernel and storing pickles it, a
good part of preprocessing's own time, for a point that is counted once and whose
counts are cached anyway.  The result is for counting only (never for code
generation: its callables carry no argument descriptors).
"""

from __future__ import annotations

import loopy as lp

#: the loopy whose ``preprocess_program`` the passes below follow (pyproject's pin)
PASSES_READ_FROM = "2025.2"


def _loopy_version() -> str:
    from loopy.version import VERSION_TEXT

    return VERSION_TEXT


def _callable_kernels(t_unit: lp.TranslationUnit) -> list[str]:
    from loopy.kernel.function_interface import CallableKernel

    return [name for name, clbl in t_unit.callables_table.items()
            if isinstance(clbl, CallableKernel)]


def counting_passes_apply(t_unit: lp.TranslationUnit) -> bool:
    """Whether :func:`preprocess_for_counting` may leave out the code-generation passes:
    one kernel (no callee kernel), not preprocessed yet, under the loopy they were
    read from."""
    from loopy.kernel import KernelState

    return (_loopy_version() == PASSES_READ_FROM
            and t_unit.state < KernelState.PREPROCESSED
            and len(_callable_kernels(t_unit)) == 1)


def _preprocess_kernels(t_unit: lp.TranslationUnit) -> lp.TranslationUnit:
    """``_preprocess_single_kernel`` on each kernel, as ``preprocess_program`` does."""
    from constantdict import constantdict
    from loopy.kernel.function_interface import CallableKernel, ScalarCallable
    from loopy.preprocess import _preprocess_single_kernel

    new_callables = {}
    for name, clbl in t_unit.callables_table.items():
        if isinstance(clbl, CallableKernel):
            clbl = clbl.copy(subkernel=_preprocess_single_kernel(
                clbl.subkernel, is_entrypoint=name in t_unit.entrypoints))
        elif not isinstance(clbl, ScalarCallable):
            raise NotImplementedError(f"Unknown callable type {type(clbl).__name__}.")
        new_callables[name] = clbl
    return t_unit.copy(callables_table=constantdict(new_callables))


def preprocess_for_counting(t_unit: lp.TranslationUnit) -> lp.TranslationUnit:
    """``preprocess_program`` less ``infer_arg_descr`` and ``inline_kernels_with_gbarriers``
    where :func:`counting_passes_apply`; else ``preprocess_program`` itself (without
    its disk memo)."""
    from loopy.preprocess import preprocess_program

    if not counting_passes_apply(t_unit):
        preprocess = getattr(preprocess_program, "__wrapped__", preprocess_program)
        return preprocess(t_unit)

    from loopy.kernel.creation import apply_single_writer_dependency_heuristic
    from loopy.preprocess import filter_reachable_callables
    from loopy.transform.realize_reduction import realize_reduction
    from loopy.transform.subst import expand_subst
    from loopy.translation_unit import resolve_callables
    from loopy.type_inference import infer_unknown_types

    t_unit = t_unit.with_entrypoints(_callable_kernels(t_unit)[0])
    t_unit = resolve_callables(t_unit)
    t_unit = filter_reachable_callables(t_unit)
    t_unit = infer_unknown_types(t_unit, expect_completion=False)
    t_unit = expand_subst(t_unit)
    t_unit = apply_single_writer_dependency_heuristic(t_unit)
    t_unit = realize_reduction(t_unit, unknown_types_ok=False)
    return _preprocess_kernels(t_unit)
