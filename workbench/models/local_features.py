"""Local-memory and barrier features of the expression language: what a local access
costs per *active* warp, and what a barrier-separated tree or scan costs when its
levels wait on one another (issue #34, item 3).

loopy counts a local access at sub-group granularity once per warp of the group,
whatever the guard around it: a tree level where 4 of 256 lanes work is counted as 8
warp accesses, and an access whose lanes collide in a bank as one.  The H100's
microbenchmarks (``sample_data/h100/local-trees-analysis.md``) say that a warp access
costs one cycle of its multiprocessor's local-memory pipe per *wavefront* (128 bytes
served at once), that idle warps cost nothing, and that a barrier costs its group a
latency that grows with the group's warps.  Names (device features: they need the
device's warp size and residency):

* ``f_local_wavefronts``: over every local load and store of the launch, the
  wavefronts of the warps that run it: active lanes per run from loopy's work-item
  count of the instruction over its count per group, split into warps of 32 in
  order (full warps, then one partial), each warp's wavefronts from the lanes'
  addresses (lane stride along ``lid``, item size): the most distinct words any bank
  serves, at least one.  float32 and float64 alike (a contiguous float64 warp
  access is two wavefronts);
* ``f_barrier_phases``: ``f_waves`` times the local barriers one work item passes:
  the barrier-separated phases each slot of the device runs one after another;
* ``f_barrier_phase_warps``: ``f_barrier_phases`` times the group's warps (a
  barrier's latency grows with the warps it gathers);
* ``f_local_chain``: ``f_waves`` times the local wavefronts per active warp of a
  group: the local accesses one warp issues in turn, a latency-bound floor where few
  warps share a multiprocessor;
* ``f_global_barrier_phases``: ``f_waves`` times the barriers per work item that
  close a phase in which a global load was stored to local memory (a prefetch): the
  group waits a global load's latency at each;
* ``f_prefetch_local_stores``: the launch's stores to local memory of values loaded
  from global memory (a prefetch), counted per warp of the group and run as loopy
  counts a local store: what loopy's local store count prices where the barrier
  after a store waits for its global load, without the stores of a tree or a scan
  (issue #34, round 5).

Each build is analysed once per process (an ISL count per instruction that touches
local memory); kernels without local memory or barriers cost nothing more.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import LOCAL_FEATURES
from workbench.models.device_structure import per_structure
from workbench.properties.banks import DEFAULT_BANK_BYTES as WORD
from workbench.properties.banks import DEFAULT_BANKS as BANKS
from workbench.properties.banks import conflict_degree

WARP = 32


@dataclass(frozen=True)
class LocalAccess:
    """One local load or store of an instruction: item size and lane strides."""

    itemsize: int
    lid_strides: tuple[int | None, ...]   # elements per step of lid(0), lid(1), ...


@dataclass(frozen=True)
class LocalInstruction:
    """An instruction that touches local memory, with its symbolic run counts."""

    lane_runs: object        # ISL PwQPolynomial: runs summed over work items
    group_runs: object       # the same, one per group and sequential trip
    accesses: tuple[LocalAccess, ...]
    exchange: bool = False   # reads local memory and stores to it (a tree or scan step)
    prefetch: bool = False   # stores to local memory what it loads from global memory


@dataclass(frozen=True)
class LocalProfile:
    """What a build does with local memory and barriers."""

    group_shape: tuple[int, ...]
    instructions: tuple[LocalInstruction, ...]
    barriers: object | None  # ISL PwQPolynomial: local barriers per work item
    global_barriers: object | None  # those after a global load stored to local memory


def warp_wavefronts(lanes: int, itemsize: int, lid_strides: Sequence[int | None],
                    group_shape: Sequence[int]) -> int:
    """Wavefronts of one warp access by its first ``lanes`` lanes: the bank passes
    (:func:`workbench.properties.banks.conflict_degree`) of those lanes, at least one;
    a stride that is not a number is taken as conflict-free."""
    if lanes <= 0:
        return 0
    degree = None
    if all(s is not None for s in lid_strides):
        degree = conflict_degree(dict(enumerate(lid_strides)), group_shape or (WARP,),
                                 itemsize, subgroup_size=lanes)
    if degree is None:
        degree = math.ceil(lanes * itemsize / (BANKS * WORD))
    return max(1, int(degree))


def _lane_inames(knl) -> dict[str, int]:
    """Inames tagged ``l.N``, by name: their axis N."""
    from loopy.kernel.data import LocalInameTag, filter_iname_tags_by_type

    out = {}
    for name in knl.all_inames():
        tags = filter_iname_tags_by_type(knl.iname_tags(name), LocalInameTag)
        if tags:
            out[name] = next(iter(tags)).axis
    return out


def _flat_index(tv, index) -> object:
    """A local temporary's subscript as one element offset (C order of its shape)."""
    index = index if isinstance(index, tuple) else (index,)
    shape = tuple(tv.shape or ())
    offset, stride = 0, 1
    for axis in reversed(range(len(index))):
        offset = offset + stride * index[axis]
        if axis < len(shape):
            stride = stride * shape[axis]
    return offset


def _lane_strides(offset, lanes: dict[str, int], dims: int) -> tuple[int | None, ...]:
    """The element stride of ``offset`` along each lane axis; None where it is not a
    whole number (an index that is not affine in the lane)."""
    from pymbolic.mapper.differentiator import differentiate

    out: list[int | None] = [0] * dims
    for name, axis in lanes.items():
        if axis >= dims:
            continue
        try:
            coefficient = differentiate(offset, name)
        except Exception:  # noqa: BLE001 - xor, calls, ...: not affine
            coefficient = None
        if out[axis] is None:  # another lane iname of this axis made it non-affine
            continue
        if isinstance(coefficient, (int, np.integer)):
            out[axis] += int(coefficient)
        elif coefficient is not None and hasattr(coefficient, "__int__"):
            try:
                out[axis] += int(coefficient)
            except (TypeError, ValueError):
                out[axis] = None
        else:
            out[axis] = None
    return tuple(out)


def _local_accesses(insn, local: dict, lanes: dict[str, int], dims: int
                    ) -> tuple[LocalAccess, ...]:
    """Every local subscript an instruction loads or stores (repeats included)."""
    from loopy.symbolic import WalkMapper
    from pymbolic.primitives import Subscript, Variable

    found: list[LocalAccess] = []

    class Collect(WalkMapper):
        def map_subscript(self, expr, *args):
            aggregate = expr.aggregate
            if isinstance(aggregate, Variable) and aggregate.name in local:
                tv = local[aggregate.name]
                found.append(LocalAccess(
                    np.dtype(tv.dtype.numpy_dtype).itemsize,
                    _lane_strides(_flat_index(tv, expr.index), lanes, dims)))
            super().map_subscript(expr, *args)

    # one walker per expression: loopy's walker visits equal subexpressions once, so
    # a store and a load of the same element need walkers of their own
    for target in (getattr(insn, "assignees", ()) or ()):
        if isinstance(target, Subscript):
            Collect()(target)
    if hasattr(insn, "expression"):
        Collect()(insn.expression)
    return tuple(found)


@functools.lru_cache(maxsize=256)
def _profile(spec, request) -> LocalProfile:
    import loopy as lp

    from workbench.kernels.base import entry_kernel
    from workbench.properties.counting import prepare
    from workbench.properties.predicates import insn_runs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pre = prepare(spec.build(request))
        knl = entry_kernel(pre)
        callables = pre.callables_table
        _, lsize = knl.get_grid_size_upper_bounds_as_exprs(callables)
        shape = tuple(int(s) for s in lsize)
        local = {name: tv for name, tv in knl.temporary_variables.items()
                 if tv.address_space == lp.AddressSpace.LOCAL}
        barriers = global_barriers = None
        if local:
            sync = lp.get_synchronization_map(pre, subgroup_size=WARP)
            for key, count in sync.items():
                if key.kind == "barrier_local":
                    barriers = count if barriers is None else barriers + count
            global_barriers = _barriers_after_global_loads(knl, callables, set(local))
        lanes = _lane_inames(knl)
        arrays = {a.name for a in knl.args if isinstance(a, lp.ArrayArg)}
        instructions = []
        for insn in knl.instructions:
            accesses = _local_accesses(insn, local, lanes, max(1, len(shape))) \
                if local else ()
            if not accesses:
                continue
            instructions.append(LocalInstruction(
                insn_runs(knl, callables, insn),
                insn_runs(knl, callables, insn, disregard_local_axes=True),
                accesses,
                bool(set(insn.assignee_var_names()) & set(local)
                     and set(insn.read_dependency_names()) & set(local)),
                bool(set(insn.assignee_var_names()) & set(local)
                     and set(insn.read_dependency_names()) & arrays)))
    return LocalProfile(shape, tuple(instructions), barriers, global_barriers)


def _barriers_after_global_loads(knl, callables, local: set[str]):
    """Local barriers per work item that close a phase in which a value loaded from
    global memory was stored to local memory (a prefetch): such a barrier waits for a
    global load's whole latency.  Counted over the linearized kernel as loopy counts
    barriers (the sequential loops around each one)."""
    import loopy as lp
    from loopy.schedule import Barrier, EnterLoop, LeaveLoop, RunInstruction
    from loopy.statistics import count_inames_domain

    linear = lp.get_one_linearized_kernel(knl, callables)
    arrays = {a.name for a in linear.args if isinstance(a, lp.ArrayArg)}
    loops: list[str] = []
    pending, total = False, None
    for item in linear.linearization:
        if isinstance(item, EnterLoop) and item.iname:
            loops.append(item.iname)
        elif isinstance(item, LeaveLoop) and item.iname:
            loops.pop()
        elif isinstance(item, RunInstruction):
            insn = linear.id_to_insn[item.insn_id]
            if set(insn.assignee_var_names()) & local and \
                    set(insn.read_dependency_names()) & arrays:
                pending = True
        elif isinstance(item, Barrier) and item.synchronization_kind == "local" \
                and pending:
            count = count_inames_domain(linear, frozenset(loops))
            total = count if total is None else total + count
            pending = False
    return total


def _evaluate(poly, params: dict) -> float:
    if poly is None:
        return 0.0
    return float(poly.eval_with_dict(params))


@dataclass(frozen=True)
class LocalStructure:
    """A launch's barrier-separated work through local memory, for caveats."""

    barriers: float          # local barriers one work item passes
    local_steps: int         # instructions that load or store local memory
    exchange_steps: int      # of them, those that read local memory into local memory
    idle_steps: int          # of them, those where fewer lanes work than the group has
    fewest_lanes: int        # the fewest lanes any of them runs with
    threads: int


def local_structure(candidate: Candidate) -> LocalStructure | None:
    """What a candidate does with local memory and barriers; None where it has no
    barrier-separated step from local into local memory (a tree or a scan: a prefetch
    from global memory alone is not one), or cannot be counted."""
    try:
        profile = _profile(candidate.spec, candidate.request())
        params = candidate.params_dict
        barriers = _evaluate(profile.barriers, params)
    except Exception:  # noqa: BLE001 - a kernel loopy cannot count: nothing to say
        return None
    exchange = sum(insn.exchange for insn in profile.instructions)
    if not exchange or barriers <= 0:
        return None
    threads = math.prod(profile.group_shape) if profile.group_shape else 1
    idle, fewest = 0, threads
    for insn in profile.instructions:
        runs = _evaluate(insn.group_runs, params)
        if runs <= 0:
            continue
        active = min(threads, int(round(_evaluate(insn.lane_runs, params) / runs)))
        if active < threads:
            idle += 1
        fewest = min(fewest, active)
    return LocalStructure(barriers, len(profile.instructions), exchange, idle, fewest,
                          threads)


def _kernel_counts(candidate: Candidate) -> tuple[float, ...]:
    """(wavefronts, barriers per work item, local wavefronts per active warp summed over
    a group's runs, warps per group, barriers after a global load per work item, 1 if
    any instruction touches local memory): counts of the kernel alone, so sums of
    monomials in a structure's knobs (:func:`local_values` fits them per structure;
    the groups they are divided by are counts of their own)."""
    profile = _profile(candidate.spec, candidate.request())
    params = candidate.params_dict
    threads = math.prod(profile.group_shape) if profile.group_shape else 1
    warps_per_group = math.ceil(threads / WARP)
    wavefronts = 0.0
    per_group_warp_accesses = 0.0
    groups = None
    for insn in profile.instructions:
        lanes = _evaluate(insn.lane_runs, params)
        runs = _evaluate(insn.group_runs, params)
        if runs <= 0:
            continue
        active = min(threads, max(0.0, lanes / runs))
        full, partial = divmod(int(round(active)), WARP)
        for acc in insn.accesses:
            per_run = full * warp_wavefronts(WARP, acc.itemsize, acc.lid_strides,
                                             profile.group_shape) \
                + warp_wavefronts(partial, acc.itemsize, acc.lid_strides,
                                  profile.group_shape)
            wavefronts += runs * per_run
            per_group_warp_accesses += runs * per_run / max(
                1, math.ceil(active / WARP))
    barriers = _evaluate(profile.barriers, params)
    return (wavefronts, barriers, per_group_warp_accesses, float(warps_per_group),
            _evaluate(profile.global_barriers, params), float(bool(profile.instructions)))


def local_values_of(candidate: Candidate) -> tuple[float, float, float, float, float]:
    """(wavefronts, barriers per work item, local wavefronts per active warp of a
    group, warps per group, barriers after a global load per work item) of one
    candidate, device aside."""
    wavefronts, barriers, accesses, warps, global_barriers, local = _kernel_counts(candidate)
    return (wavefronts, barriers, _chain(accesses, local, lambda: _groups_of(candidate)),
            warps, global_barriers)


def _chain(accesses: float, local: float, groups) -> float:
    """Local wavefronts per active warp of a group over the launch's groups (0 without
    a local-memory instruction; ``groups`` asked only then)."""
    n = groups() if local else None
    return accesses / n if n else 0.0


def prefetch_stores_of(candidate: Candidate) -> float:
    """Stores to local memory of values loaded from global memory (a prefetch: the
    barrier after it waits for the global loads), counted once per warp of the group
    and run, as loopy counts a local store: every warp of the group waits at the
    barrier, whether its lanes stored or not."""
    profile = _profile(candidate.spec, candidate.request())
    params = candidate.params_dict
    threads = math.prod(profile.group_shape) if profile.group_shape else 1
    warps = math.ceil(threads / WARP)
    return sum(warps * _evaluate(insn.group_runs, params)
               for insn in profile.instructions if insn.prefetch)


def _groups_of(candidate: Candidate) -> float:
    from workbench.models.candidate_features import candidate_feature_values
    from workbench.models.expressions.features import parse_feature_ref

    counts, _ = candidate_feature_values([candidate], [parse_feature_ref("f_thread_groups")])
    return float(counts["f_thread_groups"][0])


def local_values(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
    """Every local-memory feature of every candidate on ``device`` (NaN where a
    candidate cannot be built or counted)."""
    from workbench.models.occupancy_features import occupancy_values

    candidates = list(candidates)
    waves = occupancy_values(candidates, device)["f_waves"]
    out = {name: np.full(len(candidates), np.nan) for name in LOCAL_FEATURES}
    # a kernel loopy cannot count keeps no features: its rows stay NaN; the kernel's
    # own numbers are fitted per structure of a factory space (issue #33), the device's
    # waves applied to them here
    groups = None
    for i, found in enumerate(per_structure(candidates, _kernel_numbers)):
        if found is None:
            continue
        wavefronts, barriers, accesses, warps, global_barriers, local, prefetch = (
            found[n] for n in _NUMBERS)
        if local and groups is None:
            groups = _groups(candidates)
        chain = _chain(accesses, local, lambda: groups[i])
        out["f_local_wavefronts"][i] = wavefronts
        out["f_barrier_phases"][i] = waves[i] * barriers
        out["f_barrier_phase_warps"][i] = waves[i] * barriers * warps
        out["f_local_chain"][i] = waves[i] * chain
        out["f_global_barrier_phases"][i] = waves[i] * global_barriers
        out["f_prefetch_local_stores"][i] = prefetch
    return out


#: what :func:`local_values` takes from a kernel, device aside
_NUMBERS = ("wavefronts", "barriers", "accesses", "warps", "global_barriers", "local",
            "prefetch")


def _kernel_numbers(candidate: Candidate) -> dict[str, float]:
    return dict(zip(_NUMBERS, (*_known(candidate), _known_prefetch(candidate))))


def _groups(candidates: Sequence[Candidate]) -> np.ndarray:
    from workbench.models.candidate_features import candidate_feature_values
    from workbench.models.expressions.features import parse_feature_ref

    counts, _ = candidate_feature_values(candidates, [parse_feature_ref("f_thread_groups")])
    return counts["f_thread_groups"]


@functools.lru_cache(maxsize=4096)
def _known(candidate: Candidate) -> tuple[float, ...]:
    return _kernel_counts(candidate)


@functools.lru_cache(maxsize=4096)
def _known_prefetch(candidate: Candidate) -> float:
    return prefetch_stores_of(candidate)


provide_device_features(LOCAL_FEATURES, local_values)
