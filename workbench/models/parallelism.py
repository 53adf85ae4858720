"""How much of the device a launch uses, and what a prediction cannot cover.

Every count-based family prices a kernel by its total work, as if the device ran it
spread over all its lanes.  A launch of fewer work items than the device has lanes
(one work item, in the worst case: a kernel whose loops are all sequential) does not
spread: its time is at least one work item's serial work (the *serial* bound of
:mod:`workbench.models.floors`, priced by the latency microbenchmarks of
:mod:`workbench.kernels.generators.latency`).  This module counts the launch
(:func:`launch_sizes`, :class:`LaunchUse`) and says so in the prediction, as
:class:`Caveat` records that the CLI prints:

* ``LOW_PARALLELISM``: the launch uses fewer work items than the device's lanes;
* ``SCAN_RECURRENCE``: a sequential loop stores, at every trip, a value carried from
  the trip before (a running sum, a forward substitution): serial dependence along
  an axis, which no count-based family prices;
* ``RUNNING_SUM``: the running sum of ``SCAN_RECURRENCE``, said as priced for a model
  that reads ``f_recurrence_s`` (:mod:`workbench.models.recurrence_features`);
* ``SUBSTITUTION``: the substitution of ``SCAN_RECURRENCE`` (loads feeding it), said
  as priced for a model that reads ``f_substitution_s``
  (:mod:`workbench.models.substitution_features`);
* ``BARRIER_IN_LOOP``: barriers inside a sequential loop, or more barrier phases
  than the group has active lanes' worth of work (few lanes active between them);
* ``DEPENDENT_LOADS``: a sequential loop whose load address is the value the trip
  before loaded (a pointer chase): each trip waits a whole memory latency;
* ``STACK``: the stack of ``SPILLS`` held by private arrays that loaded values index,
  said as priced for a model that reads ``f_stack_sectors``
  (:mod:`workbench.models.reuse_stack_features`);
* ``SPILLS``: the compiler's report (build-info, when one is in use:
  ``WORKBENCH_BUILD_INFO``) says the build spills registers or keeps private arrays
  on the stack, a cost no family counts;
* ``LOCAL_TREE`` / ``LOCAL_TREE_UNPRICED``: barrier-separated steps through local
  memory (a tree reduction or a scan in a work group; :func:`workbench.models.
  local_features.local_structure`): priced by a model that reads the local-memory
  features (``f_local_wavefronts``, ``f_barrier_phases``: ``models/overlap-fp64-trees.
  json``), outside what the others cover (they price every warp of the group at every
  step, idle or not, and no barrier waits).
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.kernels.candidate import Candidate


class CaveatKind(enum.Enum):
    LOW_PARALLELISM = "low parallelism"
    SCAN_RECURRENCE = "serial dependence"
    BARRIER_IN_LOOP = "barriers in a sequential loop"
    SPILLS = "register spills"
    DEPENDENT_LOADS = "dependent loads"
    LOCAL_TREE = "local-memory tree or scan"
    LOCAL_TREE_UNPRICED = "local-memory tree or scan, unpriced"
    RUNNING_SUM = "running sum"
    SUBSTITUTION = "substitution chain"
    STACK = "private arrays on the stack"


#: caveats that put a kernel outside what the count-based families cover
OUTSIDE_MODEL = frozenset({CaveatKind.SCAN_RECURRENCE, CaveatKind.BARRIER_IN_LOOP,
                           CaveatKind.SPILLS, CaveatKind.DEPENDENT_LOADS,
                           CaveatKind.LOCAL_TREE_UNPRICED})
#: the expression-language features that price local-memory trees and scans
LOCAL_TREE_FEATURES = frozenset({"f_local_wavefronts", "f_barrier_phases"})
#: the expression-language feature that prices a running sum's serial chain
RUNNING_SUM_FEATURE = "f_recurrence_s"
#: the expression-language feature that prices a substitution chain
SUBSTITUTION_FEATURE = "f_substitution_s"
#: the expression-language feature that prices private arrays kept on the stack
STACK_FEATURE = "f_stack_sectors"


@dataclass(frozen=True)
class Caveat:
    """One thing a prediction's user should know about it."""

    kind: CaveatKind
    message: str

    def says(self) -> str:
        return f"{self.kind.value}: {self.message}"

    def to_json(self) -> dict:
        return {"kind": self.kind.value, "message": self.message}


@dataclass(frozen=True)
class LaunchUse:
    """A launch's work items against the device's lanes."""

    work_items: int
    groups: int
    lanes: int

    @property
    def share(self) -> float:
        return self.work_items / self.lanes if self.lanes else float("nan")

    @property
    def low(self) -> bool:
        return 0 < self.work_items < self.lanes

    def says(self) -> str:
        percent = 100 * self.share
        shown = f"{percent:.0f}" if percent >= 1 else f"{percent:.1g}"
        return (f"uses {self.work_items:,} of {self.lanes:,} lanes ({shown} %; "
                f"{self.groups:,} work group{'s' if self.groups != 1 else ''})")


@functools.lru_cache(maxsize=512)
def _grid(spec, request):
    """A build's grid as expressions of its size parameters: (groups, items per group)."""
    from workbench.kernels.base import entry_kernel, grid_size_exprs

    program = spec.build(request)
    knl = entry_kernel(program)
    groups, local = grid_size_exprs(program, realized=_has_local_reduction_axis(knl))
    return tuple(groups), tuple(local), knl


def _has_local_reduction_axis(knl) -> bool:
    from loopy.kernel.data import LocalInameTag, filter_iname_tags_by_type

    used = set().union(*(insn.within_inames for insn in knl.instructions))
    return any(filter_iname_tags_by_type(knl.iname_tags(name), LocalInameTag)
               for name in knl.all_inames() - used)


def launch_sizes(candidate: Candidate) -> tuple[int, int] | None:
    """(work items, work groups) of a candidate's launch; None where its kernel cannot
    be built or its grid not evaluated."""
    from pymbolic import evaluate

    try:
        groups, local, _ = _grid(candidate.spec, candidate.request())
        params = dict(candidate.params)
        n_groups = math.prod(int(evaluate(g, params)) for g in groups) if groups else 1
        per_group = math.prod(int(evaluate(s, params)) for s in local) if local else 1
    except Exception:  # noqa: BLE001 - an unbuildable kernel has no launch to tell
        return None
    return n_groups * per_group, n_groups


def launch_use(candidate: Candidate, lanes: int) -> LaunchUse | None:
    sizes = launch_sizes(candidate)
    if sizes is None or lanes <= 0:
        return None
    return LaunchUse(sizes[0], sizes[1], lanes)


# {{{ structure: what the count-based families do not price

def sequential_inames(knl) -> set[str]:
    """The inames of a kernel that no hardware axis runs (its sequential loops)."""
    from loopy.kernel.data import HardwareConcurrentTag, filter_iname_tags_by_type

    return {name for name in knl.all_inames()
            if not filter_iname_tags_by_type(knl.iname_tags(name), HardwareConcurrentTag)}


def _subscript_inames(expr, var: str, inames) -> list[set[str]]:
    """The names among ``inames`` that each subscript of ``var`` in ``expr`` reads."""
    from loopy.symbolic import WalkMapper, get_dependencies

    found: list[set[str]] = []

    class Collect(WalkMapper):
        def map_subscript(self, expr, *args):
            if getattr(expr.aggregate, "name", None) == var:
                found.append(get_dependencies(expr.index) & inames)
            super().map_subscript(expr, *args)

    Collect()(expr)
    return found


@dataclass(frozen=True)
class RunningSum:
    """A value carried from trip to trip of sequential loops and stored at every
    trip: the trips of ``loops`` run one after another."""

    carried: str                 # the carried variable
    stored: str                  # what is written from it at every trip
    loops: frozenset[str]        # the sequential loops it is carried along


def running_sums(knl, sequential: set[str]) -> tuple[RunningSum, ...]:
    """Every running sum of a kernel (a value carried across sequential loops and
    stored to memory, a global or local array, at every trip of them)."""
    import loopy as lp
    from loopy.symbolic import get_dependencies

    inames = knl.all_inames()
    assignments = [i for i in knl.instructions if isinstance(i, lp.Assignment)]
    private = {name for name, tv in knl.temporary_variables.items()
               if tv.address_space == lp.AddressSpace.PRIVATE
               or (tv.address_space not in (lp.AddressSpace.LOCAL, lp.AddressSpace.GLOBAL)
                   and not tv.shape)}
    found = []
    for update in assignments:
        var = update.assignee_var_names()[0]
        if var not in update.read_dependency_names():
            continue
        resets = [i.within_inames for i in assignments if i is not update
                  and i.assignee_var_names()[0] == var
                  and var not in i.read_dependency_names()]
        target = get_dependencies(update.assignees[0]) & inames
        carried = (update.within_inames & sequential) - target
        for reset in resets:
            carried -= reset
        # registers written from the carried value at a trip (``<> s = 0.5*acc``):
        # a store of them to memory stores the running sum all the same
        reached = {var}
        grown = True
        while grown:
            grown = False
            for insn in assignments:
                name = insn.assignee_var_names()[0]
                if insn is not update and name in private and name not in reached \
                        and reached & insn.read_dependency_names() \
                        and carried & insn.within_inames:
                    reached.add(name)
                    grown = True
        for store in assignments:
            if store is update or not reached & store.read_dependency_names():
                continue
            if store.assignee_var_names()[0] in private:
                # a register written from the carried value waits for nothing: the
                # chain's latency hides behind the other warps' work when the SM is
                # full (heldout8's mandelbrot_escape, round 11 of #34)
                continue
            inside = carried & store.within_inames
            if inside:
                found.append(RunningSum(var, store.assignee_var_names()[0],
                                        frozenset(inside)))
    return tuple(found)


@dataclass(frozen=True)
class Substitution:
    """An array written at each trip of sequential loops (``written_along``) and read
    there, by a later instruction of the same trip, at indices of inner loops: each
    trip waits for what the trips before stored (a forward substitution).  ``steps``:
    the sequential loops of the reading instruction (one chained step per trip of
    them); ``loads``: the global arrays that instruction loads into the chain."""

    array: str
    written_along: frozenset[str]
    steps: frozenset[str]
    reader: str
    loads: tuple[str, ...]


def substitutions(knl, sequential: set[str]) -> tuple[Substitution, ...]:
    """Every substitution chain of a kernel (:class:`Substitution`)."""
    import loopy as lp
    from loopy.symbolic import get_dependencies

    inames = knl.all_inames()
    arrays = {a.name for a in knl.args if isinstance(a, lp.ArrayArg)}
    assignments = [i for i in knl.instructions if isinstance(i, lp.Assignment)]
    found = []
    for write in assignments:
        var = write.assignee_var_names()[0]
        along = get_dependencies(write.assignees[0]) & sequential
        for read in assignments:
            for used in _subscript_inames(read.expression, var, inames):
                loops = along & read.within_inames - used
                if loops and used:
                    # a sum over the earlier trips written as a reduction chains its
                    # steps as an explicit inner loop does
                    steps = (read.within_inames | read.reduction_inames()) & sequential
                    loads = arrays & read.read_dependency_names() - {var}
                    found.append(Substitution(var, frozenset(loops), frozenset(steps),
                                              read.id, tuple(sorted(loads))))
    return tuple(dict.fromkeys(found))


def _recurrence(knl, sequential: set[str], priced: bool = False,
                priced_substitutions: bool = False) -> Caveat | None:
    """A sequential loop whose trips depend on one another through what they store:
    a value carried across the loop stored at every trip (a running sum), or an array
    written at the loop's index and read there at other indices (a substitution)."""
    told: list[Caveat] = []
    for found in running_sums(knl, sequential):
        if priced:
            told.append(Caveat(
                CaveatKind.RUNNING_SUM,
                f"{found.stored} is written at every trip of the sequential loop "
                f"{', '.join(sorted(found.loops))} from {found.carried}, carried from "
                "trip to trip: priced as a serial chain of trips at the device's "
                f"measured column-loop trip ({RUNNING_SUM_FEATURE})"))
        else:
            told.append(Caveat(
                CaveatKind.SCAN_RECURRENCE,
                f"{found.stored} is written at every trip of the sequential loop "
                f"{', '.join(sorted(found.loops))} from {found.carried}, carried from "
                "trip to trip: the trips run one after another (a running sum), which "
                "the model prices as independent work"))
    for found in substitutions(knl, sequential):
        loops = ', '.join(sorted(found.written_along))
        if priced_substitutions and found.loads:
            told.append(Caveat(
                CaveatKind.SUBSTITUTION,
                f"{found.array} is written at each trip of the sequential loop {loops} "
                f"and read there at other indices, with loads of "
                f"{', '.join(found.loads)}: priced as a chain of steps at the device's "
                f"measured substitution step ({SUBSTITUTION_FEATURE})"))
        else:
            told.append(Caveat(
                CaveatKind.SCAN_RECURRENCE,
                f"{found.array} is written at each trip of the sequential loop {loops} "
                "and read there at other indices: each trip waits for the ones before "
                "(a substitution), which the model prices as independent work"))
    # one caveat a kernel: a chain the model does not price outweighs one it does
    unpriced = [c for c in told if c.kind is CaveatKind.SCAN_RECURRENCE]
    return (unpriced or told or [None])[0]


def _dependent_loads(knl, sequential: set[str]) -> Caveat | None:
    """A loop-carried variable that indexes a global array in its own update."""
    import loopy as lp

    inames = knl.all_inames()
    arrays = {a.name for a in knl.args if isinstance(a, lp.ArrayArg)}
    for insn in knl.instructions:
        if not isinstance(insn, lp.Assignment):
            continue
        var = insn.assignee_var_names()[0]
        if var not in insn.read_dependency_names() or not insn.within_inames & sequential:
            continue
        for array in arrays & insn.read_dependency_names():
            if any(var in used for used in _subscript_inames(insn.expression, array,
                                                              inames | {var})):
                return Caveat(CaveatKind.DEPENDENT_LOADS,
                              f"{var} = {array}[... {var} ...] in the sequential loop "
                              f"{', '.join(sorted(insn.within_inames & sequential))}: "
                              "each load waits for the one before, a whole memory "
                              "latency a trip, which the counts price as independent "
                              "accesses")
    return None


def structure_caveats(candidate: Candidate, priced_running_sums: bool = False,
                      priced_substitutions: bool = False) -> tuple[Caveat, ...]:
    """Caveats read from the kernel's code: serial recurrences along a sequential loop
    and barriers inside a sequential loop (a running sum said as priced where the
    model reads :data:`RUNNING_SUM_FEATURE`, a substitution where it reads
    :data:`SUBSTITUTION_FEATURE`)."""
    try:
        _, _, knl = _grid(candidate.spec, candidate.request())
    except Exception:  # noqa: BLE001 - nothing to read: no caveat
        return ()
    import loopy as lp

    sequential = sequential_inames(knl)
    out: list[Caveat] = []
    for found in (_recurrence(knl, sequential, priced_running_sums, priced_substitutions),
                  _dependent_loads(knl, sequential)):
        if found is not None:
            out.append(found)
    for insn in knl.instructions:
        if isinstance(insn, lp.BarrierInstruction) and insn.within_inames & sequential:
            out.append(Caveat(CaveatKind.BARRIER_IN_LOOP,
                              "a barrier inside the sequential loop "
                              f"{', '.join(sorted(insn.within_inames & sequential))}: "
                              "each trip waits for the whole group"))
            break
    return tuple(out)


def _declares_local(candidate: Candidate) -> bool:
    """Whether the kernel declares local-memory temporaries or reduces over a lane
    axis (loopy's tree in local memory): a cheap test before the local-memory
    analysis."""
    import loopy as lp
    from loopy.kernel.data import LocalInameTag, filter_iname_tags_by_type

    try:
        _, _, knl = _grid(candidate.spec, candidate.request())
    except Exception:  # noqa: BLE001
        return False
    if any(tv.address_space == lp.AddressSpace.LOCAL
           for tv in knl.temporary_variables.values()):
        return True
    return any(filter_iname_tags_by_type(knl.iname_tags(name), LocalInameTag)
               for insn in knl.instructions for name in insn.reduction_inames())


def spill_caveat(candidate: Candidate, device: str, priced_stack: bool = False
                 ) -> Caveat | None:
    """A caveat when the compiler's report in use says this build spills (its stack
    said as priced where the model reads ``f_stack_sectors`` and loaded values index
    the kernel's private arrays)."""
    from workbench.hardware.build_info import BuildKey
    from workbench.models.occupancy_features import build_info_in_use

    try:
        request = candidate.request()
    except Exception:  # noqa: BLE001
        return None
    key = BuildKey(candidate.spec.name, request.variant, request.dtype.value,
                   tuple(request.group_size))
    for info_file in build_info_in_use():
        if info_file.device.get("device") != device:
            continue
        info = info_file.info(key)
        if info is not None and info.spills:
            return Caveat(CaveatKind.SPILLS,
                          f"the build spills ({info.spill_stores} bytes stored, "
                          f"{info.spill_loads} loaded per work item) on {device}")
        if info is not None and info.stack_bytes and priced_stack \
                and _indexed_stack(candidate):
            return Caveat(CaveatKind.STACK,
                          f"the build keeps {info.stack_bytes} bytes of private arrays "
                          f"on the stack on {device} (loaded values index them): priced "
                          "by the sectors of every access to them (f_stack_sectors)")
        if info is not None and info.stack_bytes:
            return Caveat(CaveatKind.SPILLS,
                          f"the build keeps {info.stack_bytes} bytes of private arrays "
                          f"on the stack (local memory, not registers) on {device}: "
                          "every access to them is a memory access the counts do not "
                          "see")
    return None


def _indexed_stack(candidate: Candidate) -> bool:
    from workbench.models.private_stack import stack_and_explog

    try:
        return stack_and_explog(candidate)[0] > 0
    except Exception:  # noqa: BLE001 - a kernel that cannot be built: not priced
        return False


def local_tree_caveat(candidate: Candidate, priced: bool) -> Caveat | None:
    """A caveat for barrier-separated steps through local memory (a group's tree or
    scan), said as priced or not by the model in use."""
    from workbench.models.local_features import local_structure

    found = local_structure(candidate)
    if found is None:
        return None
    idle = (f"; {found.idle_steps} of its {found.local_steps} local steps run with "
            f"fewer lanes than the group's {found.threads} (as few as "
            f"{found.fewest_lanes})" if found.idle_steps else "")
    what = (f"{found.barriers:g} barrier-separated phase(s) per work item through local "
            f"memory (a tree or a scan in the work group){idle}")
    if priced:
        return Caveat(CaveatKind.LOCAL_TREE,
                      what + ": priced per wavefront of the warps that work and per "
                      "barrier phase (f_local_wavefronts, f_barrier_phases)")
    return Caveat(CaveatKind.LOCAL_TREE_UNPRICED,
                  what + ": this model prices every warp of the group at every step, "
                  "idle or not, and no wait at the barriers (block_scan: 2-5x over); "
                  "models/overlap-fp64-trees.json prices them")


def prediction_caveats(candidates: Sequence[Candidate], lanes: int, device: str = "",
                       features: frozenset[str] | None = None
                       ) -> tuple[tuple[Caveat, ...], ...]:
    """Every candidate's caveats (space points of a sequence: none).  ``features``:
    the model's expression features, where it has them (whether it prices local
    trees); None: a family without features."""
    priced = bool(features and LOCAL_TREE_FEATURES <= set(features))
    out = []
    for c in candidates:
        found: list[Caveat] = []
        use = launch_use(c, lanes) if lanes else None
        if use is not None and use.low:
            found.append(Caveat(CaveatKind.LOW_PARALLELISM,
                                use.says() + ": priced at least by one work item's "
                                "serial work"))
        found.extend(structure_caveats(
            c, priced_running_sums=bool(features and RUNNING_SUM_FEATURE in features),
            priced_substitutions=bool(features and SUBSTITUTION_FEATURE in features)))
        tree = local_tree_caveat(c, priced) if _declares_local(c) else None
        if tree is not None:
            found.append(tree)
        spill = spill_caveat(c, device, bool(features and STACK_FEATURE in features)) \
            if device else None
        if spill is not None:
            found.append(spill)
        out.append(tuple(found))
    return tuple(out)

# }}}
