"""Global loads that re-read values the work item holds in registers (issue #34, round 20).

``f_held_reread_<dtype>_load_sectors`` (device features, sectors of the launch as the
sector features count them, ``dtype`` float32, float64 or int32): the share of the global load sectors
``f_mem_access_global_<dtype>_load_sectors`` counts that re-read, in the same work item,
elements of the same array that work item has already loaded and that the build keeps
in its registers.  loopy counts every instance of a load subscript over its instruction's
inames; the device loads each element once and re-reads it from a register where the
compiler can keep it.  heldout17's dct8_blocks sums the block's eight values times a
cosine for each of eight outputs: loopy counts 64 load sectors a work item, the build
loads the 8 values once; heldout16's sigma_clip_rows reads its row of 40 samples in
three loops, counted three times.  A model subtracts them from the sector features
(``p_ldq*(f_mem_access_global_float32_load_sectors -
f_held_reread_float32_load_sectors)``), in its sum and in its overlap's memory side.

An array's loads are held where, for one work item (every hardware iname at 0, the sizes
at the candidate's values), the elements its load subscripts read over their own
sequential (and unrolled) inames can be listed (no index that reads another array, at
most :data:`_MOST_ELEMENTS` instances), no instruction of the kernel stores to the
array, and the distinct elements' 32-bit words of every such array of the kernel
together are no more than the build's registers a work item (round 19's test for a held
row: the compiler's figure where a build-info file gives it, the estimate otherwise).
Together, not each alone: unseen's batched_small_gemm (16x16, float32) re-reads 64
values of A and 64 of B a work item at 64 registers, and holding either (each alone
fits) put it 25% -> 30% off.  Its held sectors are its load sectors times ``1 -
distinct / instances``, the instances counted as the sector features count them: a
subscript once per instruction, and the same subscript over the same inames in two
instructions once (the sector features' sharing merges them).  A matmul's re-reads
(another work item's loads, a loop of the sizes' length), a stencil's neighbours (other
elements) and a row longer than the registers (heldout11's cross_entropy_rows, 128
samples at 32 registers; heldout5's rms_norm_rows, 64 at 32) are not held.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import HELD_REREAD_FEATURES
from workbench.models.device_structure import fitted_rows

_SUBGROUP = 32
_REGISTER_BYTES = 4
#: the most load instances one work item's subscript may make to be listed (a loop of
#: the sizes' length is never listed: its length is not constant)
_MOST_ELEMENTS = 4096
_DTYPES = ("float32", "float64", "int32")
#: values of the hardware inames (one tuple a trial, an entry an iname in name order) at
#: which a work item's elements are named
_HARDWARE_TRIALS = tuple(tuple(int(v) for v in row) for row in
                         np.random.default_rng(20).integers(64, 4096, size=(3, 8)))


def _load_subscripts(knl, arrays) -> tuple[dict, set]:
    """({array: [(index, inames), ...]} of the distinct global load subscripts, a
    subscript over the same inames once, and the arrays some instruction stores to."""
    from workbench.models.private_stack import walk_expression

    loads: dict[str, dict] = {}
    stored = set()
    for insn in knl.instructions:
        for target in getattr(insn, "assignees", ()):
            name = getattr(getattr(target, "aggregate", None), "name", None)
            if name in arrays:
                stored.add(name)
        expr = getattr(insn, "expression", None)
        if expr is None:
            continue

        def on_sub(sub, red, within=frozenset(insn.within_inames)):
            name = getattr(sub.aggregate, "name", None)
            if name in arrays:
                index = sub.index if isinstance(sub.index, tuple) else (sub.index,)
                loads.setdefault(name, {})[index, within | frozenset(red)] = None
        walk_expression(expr, lambda *_: None, on_sub)
    return {a: list(v) for a, v in loads.items()}, stored


def _elements(knl, arg, index, inames, sequential, params) -> list[tuple] | None:
    """The elements one work item's instances of a subscript read (one a point of its
    sequential inames' domain, with the hardware inames at 0), each named by its flat
    offsets at :data:`_HARDWARE_TRIALS` (two subscripts read one element where every
    offset agrees: ``d[i]`` and ``d[j]`` differ, though the work item (0, 0) reads both
    at 0), or None where they cannot be listed."""
    import islpy as isl
    from pymbolic.mapper.evaluator import EvaluationMapper

    from workbench.models.row_walk_features import flat_index

    flat = flat_index(arg, index)
    if flat is None:
        return None
    loops = sorted(inames & sequential)
    hardware = sorted(inames - sequential)
    domain = knl.get_inames_domain(frozenset(inames))
    space = domain.get_space()
    for name, value in [*params.items(), *((h, 0) for h in hardware)]:
        for kind in (isl.dim_type.param, isl.dim_type.set):
            at = space.find_dim_by_name(kind, name)
            if at >= 0:
                domain = domain.fix_val(kind, at, isl.Val.int_from_si(domain.get_ctx(), int(value)))
    keep = set(loops)
    for at in reversed(range(domain.dim(isl.dim_type.set))):
        if domain.get_dim_name(isl.dim_type.set, at) not in keep:
            domain = domain.project_out(isl.dim_type.set, at, 1)
    domain = domain.project_out(isl.dim_type.param, 0, domain.dim(isl.dim_type.param))
    if not domain.is_bounded():
        return None
    points: list[dict] = []

    def on_point(point):
        if len(points) > _MOST_ELEMENTS:
            return
        points.append({domain.get_dim_name(isl.dim_type.set, k):
                       point.get_coordinate_val(isl.dim_type.set, k).to_python()
                       for k in range(domain.dim(isl.dim_type.set))})
    (domain.to_set() if isinstance(domain, isl.BasicSet) else domain).foreach_point(on_point)
    if len(points) > _MOST_ELEMENTS:
        return None
    out = []
    for point in points or [{}]:
        element = []
        for trial in _HARDWARE_TRIALS:
            try:
                value = EvaluationMapper({**params, **dict(zip(hardware, trial)), **point})(flat)
            except Exception:  # noqa: BLE001 - an index through loaded data
                return None
            if not float(value).is_integer():
                return None
            element.append(int(value))
        out.append(tuple(element))
    return out


@functools.lru_cache(maxsize=512)
def _held_shares(spec, request, params: tuple, registers: float) -> dict[str, float]:
    """{array: share of its counted load instances that re-read held elements}, for the
    arrays whose loads the build holds (none elsewhere)."""
    import loopy as lp

    from workbench.kernels.base import entry_kernel
    from workbench.models.parallelism import sequential_inames
    from workbench.models.private_stack import item_size

    if not registers > 0:
        return {}
    knl = entry_kernel(spec.build(request))
    arrays = {a.name: a for a in knl.args if isinstance(a, lp.ArrayArg)}
    loads, stored = _load_subscripts(knl, arrays)
    sequential = sequential_inames(knl)
    values = dict(params)
    out, words = {}, 0.0
    for name, subscripts in loads.items():
        if name in stored:
            continue
        instances, distinct = 0, set()
        for index, inames in subscripts:
            found = _elements(knl, arrays[name], index, inames, sequential, values)
            if found is None:
                break
            instances += len(found)
            distinct.update(found)
        else:
            if instances > len(distinct):
                out[name] = 1.0 - len(distinct) / instances
                words += len(distinct) * item_size(arrays[name], request) / _REGISTER_BYTES
    # the held arrays' values together in the build's registers, or none held (a small
    # GEMM's row of A and column of B at 64 registers: 128 words, neither held)
    return out if words <= registers else {}


def held_sectors(candidate: Candidate, registers: float) -> dict[str, float]:
    """{dtype: held re-read load sectors of the launch} of ``candidate``, whose build has
    ``registers`` a work item (NaN: unknown, nothing held)."""
    from workbench.models.expressions.feature_values import build_feature_values
    from workbench.models.expressions.features import parse_feature_ref
    from workbench.properties import Granularity, kernel_properties

    out = dict.fromkeys(_DTYPES, 0.0)
    shares = _held_shares(candidate.spec, candidate.request(),
                          tuple(sorted(candidate.params_dict.items())), float(registers))
    if not shares:
        return out
    props = kernel_properties(candidate.spec, granularity=Granularity.SUBGROUP,
                              subgroup_size=_SUBGROUP, variant=candidate.variant,
                              dtype=str(candidate.dtype), group_size=candidate.group_size)
    refs = [parse_feature_ref(f"f_mem_access_global_{d}_load_sectors") for d in _DTYPES]
    params = {k: np.array([v]) for k, v in candidate.params_dict.items()}
    for array, share in shares.items():
        alone = replace(props, accesses=tuple(r for r in props.accesses
                                              if r.variable == array))
        values = build_feature_values(alone, refs, params)
        for d, ref in zip(_DTYPES, refs):
            out[d] += share * float(values[ref.name][0])
    return out


def _held_at_build(c: Candidate, device: str) -> dict[str, float]:
    """The held sectors at the build's registers (module level, so that the counting
    processes can be sent it: :func:`~workbench.models.device_structure.per_structure`)."""
    from workbench.models.occupancy_features import resources

    return held_sectors(c, resources(c, device).registers)


def held_reread_values(candidates: Sequence[Candidate], device: str
                       ) -> dict[str, np.ndarray]:
    """Every feature of this module for every candidate on ``device`` (NaN where a
    candidate cannot be built)."""
    candidates = list(candidates)
    out = {name: np.zeros(len(candidates)) for name in HELD_REREAD_FEATURES}
    # counts of the kernel at its build's registers: fitted per structure of a factory
    # space (issue #33), so neither the registers nor the sectors at every point
    for i, _, found in fitted_rows(
            candidates, functools.partial(_held_at_build, device=device), out.values()):
        for d, value in found.items():
            out[f"f_held_reread_{d}_load_sectors"][i] = value
    return out


provide_device_features(HELD_REREAD_FEATURES, held_reread_values)
