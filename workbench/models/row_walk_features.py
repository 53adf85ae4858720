"""Rows walked along one work item, and the error function, as features of the
expression language (issue #34, round 10).

``f_walk_<dtype>_load_sectors`` and ``f_walk_<dtype>_store_sectors`` (device features,
32-byte sectors of the whole launch, the same on every device; 4-byte integers go with
float32): the global accesses whose lanes are at least a sector apart (each lane its
own sector, so a warp's instruction touches 32 lines) while a sequential loop of the
same work item steps along the lane's own line (a row walked by one work item: a
running maximum along a row, a dense layer's output walking a row of W).  Each such
access is one sector a lane.  The sector features already count these sectors at the
catalog's prices, which are those of requests whose lines other warps share; the
``row_walk`` microbenchmarks (:mod:`workbench.kernels.generators.row_walk`) show that a
walked row costs more: a load about one L1 wavefront (one line a cycle per SM) per
sector whether the line survives in L1 or not (2^14 rows, where it does, cost no less
per sector than 2^20 rows, where it cannot), and a store, one partial write of a
sector a lane, four to six times the catalog's store price.  A model adds them at a
price of their own, learnt from ``row_walk``.

``f_l1_walk_s`` (a device feature, in seconds): the walked loads' 128-byte lines (L1
wavefronts: a warp's instruction needs one a line it touches) over the SMs (no more
than the launch has groups) times the clock of the float32 peak (the floors' figures: one line a cycle per SM, 1.98 GHz on
the H100).  Not fitted: a model takes the larger (smooth maximum) of its sum and this
time.  ``row_walk``'s ``sum`` rows run at 0.85 to 0.95 of it beyond a wave (2^20 rows
of 64: 0.257 ms for 0.272 ms measured in float32).

``f_l1_walk_held_s`` (round 19): ``f_l1_walk_s`` less the re-reads of a row that the
work item read in an earlier loop and the build keeps in its registers (a row of
constant length whose 32-bit words the build's registers a work item number at least):
heldout16's sigma_clip_rows reads its row of 40 samples in three loops at 92-179
registers a work item, and ``f_l1_walk_s`` charged each pass (4.3-6.1x over in float32).
Round 20: a held row is also walked once where its load sits in a sequential loop its
index does not read (heldout17's dct8_blocks sums its block of 8 values for each of 8
outputs: one walk, not 8).

``f_op_float32_erfc`` and ``f_op_float64_erfc`` (per sub-group): calls of ``erf`` and
``erfc``, which loopy counts as one ``special`` operation each; the library's error
function is a long sequence of instructions (``erfc_chain``: about 38 ps a warp's call
in float32 and 135 ps in float64 on the H100, against 7.5 and 16.5 ps for the special
functions' price).  A model adds them at a price of their own, learnt from
``erfc_chain``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import ROW_WALK_FEATURES
from workbench.models.device_structure import fitted_rows
from workbench.properties.symbolic import count_at

#: functions priced as the error function
ERF_FUNCTIONS = frozenset({"erf", "erfc"})
_SECTOR = 32
_LINE = 128
_SUBGROUP = 32
#: bytes of one 32-bit register: a walked row is held where the build's registers a work
#: item number at least its 32-bit words (round 19: heldout16's sigma_clip_rows keeps its
#: row of 40 samples, 40 and 80 words, at 92-179 registers a work item and walks it from
#: memory once for its three passes; heldout11's cross_entropy_rows, 128 words at 32
#: registers, walks its row in each of its passes)
_REGISTER_BYTES = 4


def flat_index(arg, index) -> object:
    """The element offset of the subscript ``index`` (a tuple, one entry a dimension)
    in the array ``arg``, from its dimensions' fixed strides: a pymbolic expression of
    the inames and sizes; None where a dimension has no fixed stride or the index has
    another number of entries than ``arg`` dimensions."""
    import loopy as lp

    strides = []
    for tag in arg.dim_tags or ():
        if not isinstance(tag, lp.kernel.array.FixedStrideArrayDimTag):
            return None
        strides.append(tag.stride)
    if len(strides) != len(index):
        return None
    return sum(i * s for i, s in zip(index, strides))


def _coefficient(flat, iname: str, names: dict) -> float | None:
    """The change of ``flat`` when ``iname`` steps by one from zero (None where the
    offset reads something other than inames and sizes, or is not a number)."""
    from pymbolic.mapper.evaluator import EvaluationMapper

    try:
        base = EvaluationMapper({**names, iname: 0})(flat)
        step = EvaluationMapper({**names, iname: 1})(flat)
        return float(step - base)
    except Exception:  # noqa: BLE001 - an index through loaded data, or symbolic
        return None


def _lanes(request) -> list[tuple[int, int]]:
    """(l.0, l.1) of the 32 lanes of a group's first warp (l.0 fastest)."""
    sizes = tuple(request.group_size) + (1, 1)
    return [(t % sizes[0], (t // sizes[0]) % sizes[1]) for t in range(_SUBGROUP)
            if t < sizes[0] * sizes[1]]


def _per_request(step0: float, step1: float, size: int, lanes) -> tuple[int, int]:
    """(sectors, lines) that one warp's instruction touches, from the lanes' steps.
    A warp's 8-byte accesses (256 bytes) are served as two half-warps, each its own
    lines: the two rows of a 16-wide group share a row's lines in float32 but not in
    float64 (dense_layer ``out_major``: float64 at 16 wide takes twice float32's time,
    at 32 wide the same)."""
    addresses = [(a * step0 + b * step1) * size for a, b in lanes]
    halves = ([addresses[:_SUBGROUP // 2], addresses[_SUBGROUP // 2:]] if size >= 8
              else [addresses])
    return (sum(len({int(x // _SECTOR) for x in h}) for h in halves),
            sum(len({int(x // _LINE) for x in h}) for h in halves))


@dataclass(frozen=True)
class LocalAxes:
    """The inames of a kernel tagged local axis 0 and local axis 1.  A kernel may have
    several of each (a prefetch's own lane inames beside the main instruction's:
    heldout_batched_gemv's ``x_dim_1`` beside ``i_outer``), and the order loopy keeps
    them in changes from one build of the same kernel to the next, so an access's lanes
    are read from its own instruction's inames (:meth:`of`), never from the kernel's."""

    axis0: frozenset[str]
    axis1: frozenset[str]

    def of(self, inames: frozenset) -> tuple[str | None, str | None]:
        """(local axis 0, local axis 1) iname among ``inames`` (an instruction's own
        and its reductions'), None where it has none.  loopy rejects an instruction
        within two inames of one axis; should one come, the first by name is taken, so
        the answer still depends on the kernel alone."""
        return (min(self.axis0 & inames, default=None),
                min(self.axis1 & inames, default=None))


@functools.lru_cache(maxsize=512)
def _arrays_and_local_axes(knl) -> tuple[dict, LocalAxes]:
    """The kernel's global arrays by name, and its inames of local axes 0 and 1."""
    import loopy as lp
    from loopy.kernel.data import LocalInameTag

    arrays = {a.name: a for a in knl.args if isinstance(a, lp.ArrayArg)}
    axes: dict[int, set[str]] = {0: set(), 1: set()}
    for n, iname in knl.inames.items():
        for t in iname.tags:
            if isinstance(t, LocalInameTag) and t.axis in axes:
                axes[t.axis].add(n)
    return arrays, LocalAxes(frozenset(axes[0]), frozenset(axes[1]))


def _subscripts(insn, arrays) -> list[tuple[str, str, tuple, frozenset]]:
    """(direction, array, index, reduction inames) of each distinct subscript of a
    global array in one instruction: its loads, then its stores."""
    from workbench.models.private_stack import walk_expression

    expr = getattr(insn, "expression", None)
    if expr is None:
        return []
    found: list[tuple[str, str, tuple, frozenset]] = []

    def on_sub(sub, red, direction):
        name = getattr(sub.aggregate, "name", None)
        if name in arrays:
            index = sub.index if isinstance(sub.index, tuple) else (sub.index,)
            found.append((direction, name, index, frozenset(red)))
    walk_expression(expr, lambda *_: None, lambda s, r: on_sub(s, r, "load"))
    for target in insn.assignees:
        if getattr(getattr(target, "aggregate", None), "name", None) in arrays:
            on_sub(target, frozenset(), "store")
    return list(dict.fromkeys(found))


def _held_row(knl, name: str, index: tuple, inames: frozenset, walked: frozenset,
              size: int, registers: float) -> tuple | None:
    """The row a walked load reads, named independently of its loop's iname (the
    array, the index with the walked inames renamed, the other inames), where the
    compiler keeps it in registers: walked inames of constant length whose elements
    take no more 32-bit words than the build's ``registers`` a work item.  None where it
    does not (a row of parametric length, a longer one, registers unknown)."""
    from pymbolic import var
    from pymbolic.mapper.substitutor import SubstitutionMapper, make_subst_func

    elements = 1
    for iname in walked:
        try:
            elements *= int(knl.get_constant_iname_length(iname))
        except Exception:  # noqa: BLE001 - a length that depends on the sizes
            return None
    if not elements * size <= registers * _REGISTER_BYTES:
        return None
    rename = SubstitutionMapper(make_subst_func(
        {iname: var(f"_walked{n}") for n, iname in enumerate(sorted(walked))}))
    return (name, tuple(rename(i) for i in index), inames - walked)


def _walks(spec, request, params: tuple, registers: float = float("nan")) -> tuple:
    """(direction, accesses per launch, element bytes, sectors a request, lines a
    request, whether it re-reads a row held in registers, the accesses of a held row
    walked once (None where that is all of them)) of each walked access; the accesses are polynomials of the sizes at
    work-item granularity (a warp's instruction is 32 of them); the sectors and lines
    a request from the first warp's lanes (two lanes 64 bytes apart share a line; the
    two rows of a 16-wide group that read the same row share its sectors).  A load of
    the same element in two instructions of one loop is one load (a maximum and a
    minimum of one entry: the compiler loads it once); a row a work item already read
    in an earlier loop and holds in its ``registers`` (:func:`_held_row`) is read again
    from them, not walked (round 19), and a held row is walked once, not once a step of
    a sequential loop its index does not read (round 20)."""
    from loopy.statistics import count_inames_domain
    from loopy.symbolic import get_dependencies

    from workbench.kernels.base import entry_kernel
    from workbench.models.parallelism import sequential_inames
    from workbench.models.private_stack import item_size

    knl = entry_kernel(spec.build(request))
    arrays, local = _arrays_and_local_axes(knl)
    if not local.axis0:
        return ()
    sequential = sequential_inames(knl)
    names = {n: 0 for n in knl.all_inames()}
    names.update(dict(params))
    lanes = _lanes(request)
    out, loads_seen, rows_held = [], set(), set()
    for insn in knl.instructions:
        for direction, name, index, red in _subscripts(insn, arrays):
            arg = arrays[name]
            size = item_size(arg, request)
            flat = flat_index(arg, index)
            inames = frozenset(insn.within_inames) | red
            lane, row = local.of(inames)
            if flat is None or lane is None:
                continue
            if direction == "load":
                if (name, index, inames) in loads_seen:
                    continue
                loads_seen.add((name, index, inames))
            lane_step = _coefficient(flat, lane, names)
            if lane_step is None or abs(lane_step) * size < _SECTOR:
                continue
            walked = frozenset(s for s in inames & sequential
                               if (lambda c: c is not None and 0 < abs(c) * size < _LINE)(
                                   _coefficient(flat, s, names)))
            if not walked:
                continue
            counted = inames
            if direction == "load":
                held = _held_row(knl, name, index, inames, walked, size, registers)
                reread = held is not None and held in rows_held
                if held is not None:
                    rows_held.add(held)
                    # a held row is walked once, not once a step of a loop its index
                    # does not read (round 20: dct8_blocks walks its block of 8 once
                    # for its 8 sums; the walk bound charged it 8 times)
                    used = frozenset().union(*(get_dependencies(i) for i in index))
                    counted = inames - ((inames & sequential) - used)
            row_step = (_coefficient(flat, row, names) or 0.0) if row is not None else 0.0
            sectors, lines = _per_request(lane_step, row_step, size, lanes)
            out.append((direction, count_inames_domain(knl, inames), size, sectors, lines,
                        direction == "load" and reread,
                        count_inames_domain(knl, counted) if counted != inames else None))
    return tuple(out)


@functools.lru_cache(maxsize=512)
def _erf_calls(spec, request):
    """Calls of erf/erfc per launch, polynomials at work-item granularity."""
    from workbench.kernels.base import entry_kernel
    from workbench.models.function_calls import calls_of

    prog = spec.build(request)
    return tuple(count for _, count in calls_of(entry_kernel(prog), dict.fromkeys(
        ERF_FUNCTIONS, "erf"), prog.callables_table))


@functools.lru_cache(maxsize=512)
def _groups(spec, request):
    """The launch's work groups, a polynomial of the sizes."""
    from loopy.kernel.data import GroupInameTag
    from loopy.statistics import count_inames_domain

    from workbench.kernels.base import entry_kernel

    knl = entry_kernel(spec.build(request))
    return count_inames_domain(knl, frozenset(
        n for n, iname in knl.inames.items()
        if any(isinstance(t, GroupInameTag) for t in iname.tags)))


def walk_and_erf(candidate: Candidate, registers: float = float("nan")
                 ) -> tuple[dict[tuple[str, str], float], float, float]:
    """({(element dtype, 'load' or 'store'): sectors} of walked rows, the walked
    loads' L1 lines (wavefronts: all, and less the re-reads of rows held in registers),
    erf/erfc calls per sub-group, work groups) of
    ``candidate``, whose build has ``registers`` a work item (NaN: unknown, no row is
    held); 8-byte elements are float64's, others float32's."""
    params = candidate.params_dict
    request = candidate.request()
    # warps' instructions per work item's: a group narrower than a warp (or not a
    # multiple of one) still runs whole warps, as loopy's sub-group counts have it
    items = math.prod(request.group_size)
    per_item = math.ceil(items / _SUBGROUP) / items
    sectors = {(d, k): 0.0 for d in ("float32", "float64") for k in ("load", "store")}
    lines = held_lines = 0.0
    for direction, count, size, per_sectors, per_lines, reread, once in _walks(
            candidate.spec, request, tuple(sorted(params.items())), registers):
        requests = count_at(count, params) * per_item
        sectors["float64" if size == 8 else "float32", direction] += requests * per_sectors
        if direction == "load":
            lines += requests * per_lines
            walked = requests if once is None else count_at(once, params) * per_item
            held_lines += 0.0 if reread else walked * per_lines
    calls = sum(count_at(c, params) for c in _erf_calls(candidate.spec, request))
    groups = count_at(_groups(candidate.spec, request), params) if lines else 0.0
    return sectors, (lines, held_lines), calls * per_item, groups


_WALK_SECTORS = tuple(n for n in ROW_WALK_FEATURES if n.startswith("f_walk_"))


def _walk_numbers(c: Candidate, device: str) -> dict[str, float]:
    """The walk's numbers at the build's registers (module level, so that the counting
    processes can be sent it: :func:`~workbench.models.device_structure.per_structure`)."""
    from workbench.models.occupancy_features import resources

    sectors, lines, calls, groups = walk_and_erf(c, resources(c, device).registers)
    found = dict.fromkeys(_WALK_SECTORS, 0.0)
    found.update({f"f_walk_{element}_{direction}_sectors": value
                  for (element, direction), value in sectors.items()})
    return {**found, "lines": lines[0], "held_lines": lines[1], "calls": calls,
            "groups": groups}


def row_walk_values(candidates: Sequence[Candidate], device: str
                    ) -> dict[str, np.ndarray]:
    """Every feature of this module for every candidate on ``device`` (NaN where a
    candidate cannot be built; ``f_l1_walk_s`` 0 on a device without floors)."""
    from workbench.models.floors import floors_of_device

    candidates = list(candidates)
    out = {name: np.zeros(len(candidates)) for name in ROW_WALK_FEATURES}
    floors = floors_of_device(device)
    clock_hz = floors.clock_hz if floors is not None else 0.0
    numbers = functools.partial(_walk_numbers, device=device)
    # counts of the kernel at its build's registers: fitted per structure of a factory
    # space (issue #33), so neither the registers nor the walk at every point
    for i, c, found in fitted_rows(candidates, numbers, out.values()):
        dtype = "float64" if str(c.dtype) == "float64" else "float32"
        for name in _WALK_SECTORS:
            out[name][i] = found[name]
        lines = (found["lines"], found["held_lines"])
        groups = found["groups"]
        out[f"f_op_{dtype}_erfc"][i] = found["calls"]
        # the lines of a launch of fewer groups than SMs are served by as many SMs
        # as it has groups (work_imbalance.busiest_sm_wavefronts: an even share of
        # the SMs, or one group's where that is more)
        sms = min(floors.sms, groups) if clock_hz and groups >= 1 else 0
        out["f_l1_walk_s"][i] = lines[0] / (sms * clock_hz) if sms else 0.0
        out["f_l1_walk_held_s"][i] = lines[1] / (sms * clock_hz) if sms else 0.0
    return out


provide_device_features(ROW_WALK_FEATURES, row_walk_values)
