"""Measurement-kernel generators of the 2019 paper (Stevens & Klöckner, "A mechanism
for balancing accuracy and scope in cross-machine black-box GPU performance
modeling", section on measurement kernel design).

The 2018 catalog (``workbench.kernels.defs``) holds a fixed set of measurement
kernels. The 2019 paper instead *generates* one small kernel per feature it wants to
calibrate, so that every feature can be measured in isolation:

* :func:`global_memory_pattern`: loads from a variable number of input arrays at an
  address with the requested strides along ``lid``/``gid`` axes, sums the loads and
  stores one value per work item (or, for ``direction="store"``, stores with the
  requested pattern);
* :func:`arithmetic`: 32 private variables updated by one kind of operation in a loop
  of 64 inner trips, unrolled 64 times (fewer for division, pow and float64 rsqrt,
  see :func:`default_unroll`), ordered as in SHOC's MaxFlops so that no update
  depends on the four before it;
* :func:`local_memory_moves`: bank-conflict-free moves between local-memory
  locations, with barriers only where the moves need them;
* :func:`barriers`: a controlled number of local barriers and nothing else;
* :func:`empty`: the catalog's empty kernel (launch overhead).

:func:`measurement_set_2019` bundles a default set. None of these specs is
registered in the catalog: the 2018 catalog and its campaign stay as they are.

Conventions shared by every generator
-------------------------------------
* Size parameters are int32 ``ValueArg`` s and stay symbolic, so one built kernel
  serves every size case and :func:`workbench.properties.extract_properties` gives
  counts valid for all of them.
* Kernels with a loop (arithmetic, local moves, barriers) take ``n`` work items
  (1-D) and a trip count ``iters``. ``n`` must be a multiple of the work-group size:
  the size cases are ``n = 3 * 2**p`` (a multiple of 128, 256 and 384 for p >= 7), so
  every group is full, barriers are never inside a guard, and local data never
  comes from an idle work item. Their size cases keep ``n`` (which fills the device)
  and vary ``iters``: per-iteration costs then separate from per-group ones.
* Values are made from work-item indices through int32 temporaries (an int-to-float
  conversion is not a float operation), so the float-operation counts are exactly
  the designed ones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import loopy as lp
import numpy as np

from workbench.errors import GroupSizeError, ParameterError, UnknownNameError
from workbench.kernels import _util as u
from workbench.kernels.base import (
    GROUP_SIZE_SETS,
    BuildRequest,
    DType,
    GroupSize,
    KernelRole,
    KernelSpec,
    format_group_size,
)

Direction = Literal["load", "store"]

#: The work-group size set of every 1-D generator (128, 256 and 384 work items).
SET_1D = "1d-med"
#: The set whose sizes 2-D patterns are checked against (16x12, 16x16, 32x16).
SET_2D = "2d-med"
#: Work-group size of patterns whose footprint depends on it (paper: 256 throughout).
DEFAULT_GROUP_1D: GroupSize = (256,)
DEFAULT_GROUP_2D: GroupSize = (16, 16)

#: Local memory a generated kernel may use (the smallest common per-group limit).
LOCAL_MEMORY_LIMIT = 48 * 1024

#: ``n`` of a loop kernel's size cases is ``LOOP_ITEMS_FACTOR * 2**p``.
LOOP_ITEMS_FACTOR = 3


def _loop_items(p: int) -> int:
    return LOOP_ITEMS_FACTOR * 2 ** p


def _check_items() -> int:
    """Work items of the pocl checks: the smallest multiple of every 1-D set size (768),
    so each size of the set runs full groups, two to six of them."""
    return math.lcm(*(math.prod(g) for g in GROUP_SIZE_SETS[SET_1D].sizes))


def _require_group(req: BuildRequest, dims: int, fixed: GroupSize | None = None) -> None:
    if req.variant != "default":
        raise UnknownNameError("variant", req.variant, ("default",))
    if len(req.group_size) != dims:
        raise GroupSizeError(
            f"expected a {dims}-D work-group size, got {format_group_size(req.group_size)}")
    if fixed is not None and req.group_size != fixed:
        raise GroupSizeError(
            f"this kernel's array extents are built for work groups of "
            f"{format_group_size(fixed)}, got {format_group_size(req.group_size)}")


def _loop_domain(group: int, inames: str, conditions: str) -> str:
    """Work items ``G*g + l < n`` (g -> g.0, l -> l.0) plus the kernel's own inames.

    Written with explicit group/lane inames, rather than a split ``i``, because the
    local-memory addresses are functions of the lane alone.
    """
    return (f"{{[g, l, {inames}]: 0 <= l < {group} and 0 <= g and {group}*g + l < n "
            f"and {conditions}}}")


def _loop_assumptions(group: int) -> str:
    return f"n >= 1 and iters >= 1 and n mod {group} = 0"


def _tag_grid(knl: lp.TranslationUnit) -> lp.TranslationUnit:
    return lp.tag_inames(knl, {"g": "g.0", "l": "l.0"})


# {{{ global memory access patterns

@dataclass(frozen=True)
class GlobalPattern:
    """Where each work item of a global-memory measurement kernel reads or writes.

    With lane ``(l0, l1)`` of group ``g0`` the element index into every (flat) pattern
    array is::

        addr = sl0*l0 + sl1*l1 + sg0*g0

    (``sl`` = ``lid_strides``, ``sg0`` the gid stride; 1-D patterns have no ``l1``
    term). The grid is 1-D, groups along axis 0, also for 2-D work groups: a 2-D
    grid's contiguous row pitch would be ``groups0 * block``, which is not affine in
    the size parameters, and neither loopy's footprints nor the model's stride
    classes could use it. Contiguous groups (``gid_strides=None``) are placed back to
    back, each taking a block of ``B = max(lane extent, sl0*G0, sl1*G1)`` elements, the
    lane extent being ``sl0*(G0-1) + sl1*(G1-1) + 1``: ``sg0 = B``. Groups then never
    overlap, and a lane stride s > 1 uses 1/s of the footprint. An explicit gid stride
    places groups anywhere: overlapping (the same data read by several groups) or
    leaving gaps.

    The array extents depend on the group size, except for 1-D contiguous patterns
    with a lane stride >= 1, where ``addr = sl0*i`` for work item ``i``. Those take the
    work-item count ``n`` and every size of the 1-D set; all others fix their group
    size (``group_size``) and take the number of groups, ``groups``.
    """

    lid_strides: tuple[int, ...]
    gid_stride: int | None
    group_size: GroupSize | None  # None: any 1-D size (work-item parameterization)

    @property
    def dims(self) -> int:
        return len(self.lid_strides)

    @property
    def by_items(self) -> bool:
        return self.group_size is None

    @property
    def parameters(self) -> tuple[str, ...]:
        return ("n",) if self.by_items else ("groups",)

    def lane_extent(self) -> int:
        assert self.group_size is not None
        return sum(s * (g - 1) for s, g in zip(self.lid_strides, self.group_size)) + 1

    def group_stride(self) -> int:
        """sg0: the explicit gid stride, or the contiguous block (class docstring)."""
        if self.gid_stride is not None:
            return self.gid_stride
        assert self.group_size is not None
        return max(self.lane_extent(),
                   *(s * g for s, g in zip(self.lid_strides, self.group_size)))

    # -- loopy pieces ------------------------------------------------------------

    def domain(self) -> str:
        if self.by_items:
            return "{[i]: 0 <= i < n}"
        lanes = ", ".join(f"l{a}" for a in range(self.dims))
        bounds = " and ".join(f"0 <= l{a} < {g}" for a, g in enumerate(self.group_size))
        return f"{{[g0, {lanes}]: 0 <= g0 < groups and {bounds}}}"

    def address(self) -> str:
        if self.by_items:
            return f"{self.lid_strides[0]}*i"
        lanes = [f"{s}*l{a}" for a, s in enumerate(self.lid_strides)]
        return " + ".join([*lanes, f"{self.group_stride()}*g0"])

    def workitem(self) -> str:
        """Flat work-item index: stride 1 along lid(0), so stores of it coalesce."""
        if self.by_items:
            return "i"
        if self.dims == 1:
            return f"{self.group_size[0]}*g0 + l0"
        g0, g1 = self.group_size
        return f"l0 + {g0}*l1 + {g0 * g1}*g0"

    def extent(self) -> str:
        """Elements of a pattern array: the largest address plus one."""
        if self.by_items:
            return f"{self.lid_strides[0]}*n"
        return f"{self.lane_extent()} + {self.group_stride()}*(groups - 1)"

    def workitems_extent(self) -> str:
        return "n" if self.by_items else f"{math.prod(self.group_size)}*groups"

    def schedule(self, knl: lp.TranslationUnit, group_size: GroupSize) -> lp.TranslationUnit:
        if self.by_items:
            return u.split_1d(knl, "i", group_size)
        tags = {"g0": "g.0", **{f"l{a}": f"l.{a}" for a in range(self.dims)}}
        return lp.tag_inames(knl, tags)

    # -- numpy mirror --------------------------------------------------------------

    def addresses(self, params: Mapping[str, int]) -> np.ndarray:
        """``addr`` of every work item, in flat work-item order (int64)."""
        if self.by_items:
            return self.lid_strides[0] * np.arange(params["n"], dtype=np.int64)
        # Flat order is l0 fastest, then l1, then g0: meshgrid axes (g0, l1, l0).
        sizes = (params["groups"], *reversed(self.group_size))
        g0, *lanes = np.meshgrid(*(np.arange(s, dtype=np.int64) for s in sizes),
                                 indexing="ij")
        lanes = lanes[::-1]  # -> l0, l1
        addr = self.group_stride() * g0
        for s, lane in zip(self.lid_strides, lanes):
            addr = addr + s * lane
        return addr.reshape(-1)

    def n_extent(self, params: Mapping[str, int]) -> int:
        if self.by_items:
            return self.lid_strides[0] * params["n"]
        return self.lane_extent() + self.group_stride() * (params["groups"] - 1)

    def lanes_distinct(self) -> bool:
        """Whether the lanes of one group address distinct elements (no store race)."""
        if self.by_items:
            return self.lid_strides[0] >= 1
        lanes = np.meshgrid(*(np.arange(g) for g in self.group_size), indexing="ij")
        addr = sum(s * lane for s, lane in zip(self.lid_strides, lanes))
        return np.unique(addr).size == addr.size


def _format_strides(prefix: str, strides: Sequence[int] | None) -> str:
    return f"{prefix}contig" if strides is None else prefix + "x".join(map(str, strides))


def _validate_strides(what: str, strides: Sequence[int], dims: int | None) -> tuple[int, ...]:
    out = tuple(int(s) for s in strides)
    if not 1 <= len(out) <= 2 or (dims is not None and len(out) != dims):
        want = "1 or 2" if dims is None else str(dims)
        raise ParameterError(f"{what} need {want} entries (lid/gid axes 0 and 1), got {out}")
    if any(s < 0 or s != t for s, t in zip(out, strides)):
        raise ParameterError(f"{what} must be non-negative integers, got {tuple(strides)}")
    return out


def global_memory_pattern(n_arrays: int, lid_strides: tuple[int, ...],
                          gid_strides: tuple[int, ...] | None = None,
                          dtype: str = "float32", direction: Direction = "load",
                          group_size: GroupSize | None = None) -> KernelSpec:
    """A kernel exercising one global-memory access pattern (paper: AFR = 1 patterns).

    ``direction="load"``: every work item loads element ``addr`` (see
    :class:`GlobalPattern`) of each of ``n_arrays`` input arrays ``a0, a1, ...``, adds
    the loads (``n_arrays - 1`` float additions, the only arithmetic) and stores the
    sum to ``out`` at its flat work-item index (stride 1). The sum keeps every load
    alive without adding work that could dominate the timing.

    ``direction="store"``: every work item loads ``x`` at its flat work-item index
    (stride 1) and stores that value at ``addr`` into each of ``n_arrays`` output
    arrays ``out0, out1, ...``. The outputs are also inputs: a strided store leaves
    holes, which keep what was there. Groups are contiguous for stores (overlapping
    groups would race) and the lanes of one group must write distinct elements.

    ``lid_strides`` has one entry for 1-D work groups and two for 2-D ones (axis 0
    first). ``gid_strides`` is ``None`` (contiguous groups) or ``(sg0,)``: the grid is
    1-D in every case (see :class:`GlobalPattern`). An explicit gid stride fixes the
    group size to ``group_size`` (default 256, or 16x16 in 2-D), since the array
    extents then depend on it; so does any 2-D pattern and a 1-D lane stride of 0.

    The name encodes the configuration, e.g. ``gmem_load_2arr_l4_gcontig_float32``
    (two arrays, lid(0) stride 4, contiguous groups) or
    ``gmem_load_1arr_l1_g64_wg256_float32`` (gid(0) stride 64: groups of 256 overlap).
    """
    if direction not in ("load", "store"):
        raise UnknownNameError("direction", str(direction), ("load", "store"))
    if int(n_arrays) != n_arrays or n_arrays < 1:
        raise ParameterError(f"n_arrays must be a positive integer, got {n_arrays!r}")
    n_arrays = int(n_arrays)
    dt = DType.parse(dtype)
    lid = _validate_strides("lid_strides", lid_strides, None)
    dims = len(lid)
    gid = None if gid_strides is None else _validate_strides("gid_strides", gid_strides, 1)
    if direction == "store" and gid is not None:
        raise ParameterError("store patterns place groups contiguously (gid_strides=None): "
                             "explicit gid strides may make groups overlap and race")
    by_items = dims == 1 and gid is None and lid[0] >= 1 and group_size is None
    fixed: GroupSize | None = None
    if not by_items:
        fixed = tuple(group_size) if group_size is not None else \
            (DEFAULT_GROUP_1D if dims == 1 else DEFAULT_GROUP_2D)
        if len(fixed) != dims or any(int(g) < 1 for g in fixed):
            raise GroupSizeError(
                f"a {dims}-D pattern needs a {dims}-D work-group size, got {fixed}")
        fixed = tuple(int(g) for g in fixed)
    pattern = GlobalPattern(lid, None if gid is None else gid[0], fixed)
    if direction == "store" and not pattern.lanes_distinct():
        raise ParameterError(
            f"lid strides {lid} make lanes of one group store to the same element")

    wg = "" if fixed is None else f"_wg{format_group_size(fixed)}"
    name = (f"gmem_{direction}_{n_arrays}arr_{_format_strides('l', lid)}_"
            f"{_format_strides('g', gid)}{wg}_{dt.value}")
    pattern_arrays = tuple(f"{'a' if direction == 'load' else 'out'}{k}"
                           for k in range(n_arrays))

    def build(req: BuildRequest) -> lp.TranslationUnit:
        _require_group(req, dims, fixed)
        if req.dtype is not dt:
            raise UnknownNameError(f"dtype of {name!r}", req.dtype.value, (dt.value,))
        addr, w = pattern.address(), pattern.workitem()
        if direction == "load":
            total = " + ".join(f"{a}[{addr}]" for a in pattern_arrays)
            insns = f"out[{w}] = {total}"
            args = [*(u.array(a, dt, (pattern.extent(),)) for a in pattern_arrays),
                    u.array("out", dt, (pattern.workitems_extent(),))]
        else:
            # One load into a temporary, however many arrays are stored to.
            stores = "\n".join(f"{a}[{addr}] = v {{dep=load}}" for a in pattern_arrays)
            insns = f"<{dt.value}> v = x[{w}] {{id=load}}\n{stores}"
            args = [u.array("x", dt, (pattern.workitems_extent(),)),
                    *(lp.GlobalArg(a, dt.numpy, shape=(pattern.extent(),),
                                   is_input=True, is_output=True)
                      for a in pattern_arrays)]
        assumptions = " and ".join(f"{p} >= 1" for p in pattern.parameters)
        knl = u.make_kernel(pattern.domain(), insns, [*args, *u.size_args(*pattern.parameters)],
                            name="gmem_pattern", assumptions=assumptions)
        return pattern.schedule(knl, req.group_size)

    def make_inputs(params, dtype_, rng) -> dict:
        length = pattern.n_extent(params)
        items = pattern.addresses(params).size
        if direction == "load":
            return {a: u.random_array(rng, (length,), dt, low=0.5, high=1.5)
                    for a in pattern_arrays}
        return {"x": u.random_array(rng, (items,), dt, low=0.5, high=1.5),
                **{a: np.zeros(length, dt.numpy) for a in pattern_arrays}}

    def reference(inputs, params) -> dict:
        addr = pattern.addresses(params)
        if direction == "load":
            total = sum(np.asarray(inputs[a], np.float64)[addr] for a in pattern_arrays)
            return {"out": u.as_dtype_of(total, dt)}
        out = {}
        for a in pattern_arrays:
            res = np.array(inputs[a], dtype=dt.numpy, copy=True)
            res[addr] = inputs["x"]
            out[a] = res
        return out

    if by_items:
        def size_cases(p: int) -> tuple[dict[str, int], ...]:
            return tuple({"n": _loop_items(p + t)} for t in range(4))
        default_p, p_choices = 20, (17, 18, 19, 20, 21, 22)
        check = {"n": _check_items()}
    else:
        def size_cases(p: int) -> tuple[dict[str, int], ...]:
            return tuple({"groups": 2 ** (p + t)} for t in range(4))
        default_p, p_choices = 14, (12, 13, 14, 15, 16)
        check = {"groups": 3}

    sg = "contiguous groups" if gid is None else f"gid(0) stride {gid[0]}"
    what = (f"loads {n_arrays} array(s) and stores their sum (stride 1)"
            if direction == "load" else
            f"loads one value (stride 1) and stores it to {n_arrays} array(s)")
    return KernelSpec(
        name=name,
        role=KernelRole.MEASUREMENT,
        description=f"Global {direction} pattern, lid strides {lid}, {sg}: each work item "
                    f"{what}; {dt.value}.",
        parameters=pattern.parameters,
        variants=("default",),
        dtypes=(dt,),
        group_dims=dims,
        default_group_size_set=SET_1D if dims == 1 else SET_2D,
        build=build,
        size_cases=size_cases,
        default_p=default_p,
        p_choices=p_choices,
        make_inputs=make_inputs,
        reference=reference,
        check_params=check,
        fixed_group_size=fixed,
    )

# }}}


# {{{ arithmetic

#: Private variables updated round-robin (paper: enough for full SIMD use without
#: spilling registers).
N_PRIVATE = 32
#: Unroll factor of the inner loop (paper, after SHOC's MaxFlops).
UNROLL = 64
#: Update ``j`` reads variable ``(j + PARTNER_OFFSET) % N_PRIVATE``, last written
#: ``PARTNER_OFFSET`` updates earlier; itself was written ``N_PRIVATE`` updates earlier.
PARTNER_OFFSET = 16
#: The paper's rule: no update reads a variable written by the four updates before it.
MIN_DEPENDENCY_DISTANCE = 4

#: op -> the loopy expression of update j (``{p}``: partner, ``{j}``: itself,
#: ``{s}``: the runtime scalar of update j's half) and the op kinds it performs.
_UPDATES: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "add": ("r{p} - r{j}", ("add",)),
    "mul": ("r{p} * r{j}", ("mul",)),
    "madd": ("r{p} * {s} + r{j}", ("mul", "add")),
    "div": ("r{p} / r{j}", ("div",)),
    "rsqrt": ("rsqrt(r{p})", ("special",)),
    "pow": ("r{p} ** {s}", ("pow",)),
}

#: Accepted spellings of the ops (the paper's special-function feature is rsqrt here).
ARITHMETIC_OPS: tuple[str, ...] = tuple(_UPDATES)
_ALIASES: Mapping[str, str] = {"special": "rsqrt", "fma": "madd", "sub": "add"}

#: Runtime scalars (alpha: updates 0..15, beta: 16..31) of the ops that take them.
#: Passed as arguments so the compiler cannot specialize them (pow(x, 2) -> x*x...).
#: madd: a' = a + 0.5 b, b' = b - 4 a' has period 4 (trace 0, determinant 1): values
#: stay small dyadic rationals, exact in any float type. pow: (b**1.25)**0.8 ~ b.
_SCALARS: Mapping[str, tuple[float, float]] = {"madd": (0.5, -4.0), "pow": (1.25, 0.8)}


#: Unroll factors below 64 for ops that compile to long library sequences rather than
#: one instruction. On an H100 (NVIDIA OpenCL) a 64x unrolled float32 pow kernel (2048
#: inlined pow calls) took 240 s to compile; unrolled once it took 1.4 s and ran 15%
#: faster, and 4x unrolled divisions ran 20% faster than 64x: large bodies of long
#: sequences miss the instruction cache, a cost no real kernel's few such ops pay. The
#: count of updates per iteration (64 x 32) does not depend on the unroll factor.
_HEAVY_UNROLL: Mapping[tuple[str, str | None], int] = {
    ("pow", None): 1, ("div", None): 4, ("rsqrt", "float64"): 4}


def default_unroll(op: str, dtype: str | DType = "float32") -> int:
    """How many of the 64 inner trips :func:`arithmetic` writes out by default: all 64
    (the paper's factor) except for ops that are long instruction sequences."""
    op, dt = _canonical_op(op), DType.parse(dtype).value
    return _HEAVY_UNROLL.get((op, dt), _HEAVY_UNROLL.get((op, None), UNROLL))


def _partner(j: int) -> int:
    return (j + PARTNER_OFFSET) % N_PRIVATE


def update_schedule(op: str = "madd") -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The 32 updates of one loop iteration in order: (variable written, variables read).

    Sequence position ``k`` writes ``r[k % 32]`` and reads its partner ``r[(k+16) % 32]``
    (and, except for rsqrt and pow, itself): the nearest read is 16 updates back, well
    beyond the paper's four, so up to 16 independent updates can be in flight. Each
    pair (j, j+16) forms a two-variable recurrence chosen to keep values bounded for
    any trip count (see the op notes in :func:`arithmetic`).
    """
    reads_self = "{j}" in _UPDATES[_canonical_op(op)][0]
    return tuple((j, (_partner(j), j) if reads_self else (_partner(j),))
                 for j in range(N_PRIVATE))


def _canonical_op(op: str) -> str:
    op = _ALIASES.get(op, op)
    if op not in _UPDATES:
        raise UnknownNameError("arithmetic op", op, (*_UPDATES, *_ALIASES))
    return op


def arithmetic_op_counts(op: str, dtype: str, iters: int) -> dict[str, int]:
    """Designed float operations of one work item, by property name.

    ``iters * 64 * 32`` updates of the op's kind(s), plus the 31 additions of the
    final sum of the 32 variables.
    """
    op = _canonical_op(op)
    dt = DType.parse(dtype).value
    updates = iters * UNROLL * N_PRIVATE
    counts: dict[str, int] = {}
    for kind in _UPDATES[op][1]:
        counts[f"f_op_{dt}_{kind}"] = counts.get(f"f_op_{dt}_{kind}", 0) + updates
    counts[f"f_op_{dt}_add"] = counts.get(f"f_op_{dt}_add", 0) + N_PRIVATE - 1
    return counts


def _initial_values(op: str, w: np.ndarray) -> np.ndarray:
    """Initial r[j] of work items w, shape (32, len(w)); mirrors the kernel's ints."""
    j = np.arange(N_PRIVATE)[:, None]
    if op == "mul":
        # +-1: the only magnitudes products keep bounded; partners differ in sign.
        return (1 - 2 * ((w[None, :] + j + j // PARTNER_OFFSET) % 2)).astype(np.float64)
    return ((w[None, :] + j) % 8 + 2).astype(np.float64)


def _initial_int_expr(op: str, j: int, w: str) -> str:
    if op == "mul":
        return f"1 - 2*(({w} + {j + j // PARTNER_OFFSET}) % 2)"
    return f"({w} + {j}) % 8 + 2"


def _simulate(op: str, r: np.ndarray, updates_per_var: int,
              scalars: tuple[float, float] | None) -> np.ndarray:
    """Run the kernel's recurrence in float64 (r: (32, items), updated in place)."""
    for _ in range(updates_per_var):
        for j in range(N_PRIVATE):
            p = _partner(j)
            s = None if scalars is None else scalars[0 if j < PARTNER_OFFSET else 1]
            if op == "add":
                r[j] = r[p] - r[j]
            elif op == "mul":
                r[j] = r[p] * r[j]
            elif op == "madd":
                r[j] = r[p] * s + r[j]
            elif op == "div":
                r[j] = r[p] / r[j]
            elif op == "rsqrt":
                r[j] = 1.0 / np.sqrt(r[p])
            else:
                r[j] = r[p] ** s
    return r


def arithmetic(op: str, dtype: str = "float32", unroll: int | None = None) -> KernelSpec:
    """A SHOC-MaxFlops-style kernel: 32 private variables, 64x unrolled updates.

    Each work item initializes ``r0 .. r31`` from its index, then runs ``iters``
    iterations of a loop over 64 inner trips, each of which updates every variable
    once in the order of :func:`update_schedule` (``r_j`` from its partner
    ``r_{j+16}``). The inner loop is unrolled ``unroll`` times in the source: 64 (the
    paper) by default, fewer for long library sequences (see :func:`default_unroll`;
    a name then says e.g. ``arith32x64_unroll4_div_float32``). Finally each work item
    stores ``r0 + ... + r31`` (31 additions), which keeps all updates alive. No global
    loads; one store per work item; :func:`arithmetic_op_counts` gives the counts.

    Ops and why the values stay finite for any ``iters`` (each pair a, b = r_j, r_{j+16}):

    * ``add``: ``a' = b - a``, ``b' = a' - b``: period 3, small integers (exact);
    * ``mul``: ``a' = b * a``: values are +-1 (the only bounded choice for products);
    * ``madd``: ``a' = b*alpha + a`` (alpha = 0.5, beta = -4 for b): period 4, exact;
    * ``div``: ``a' = b / a``: period 3 in log space, values in [1/9, 9];
    * ``rsqrt`` (alias ``special``): ``a' = rsqrt(b)``: converges to 1, no error growth;
    * ``pow``: ``a' = b ** alpha`` (alpha = 1.25, beta = 0.8): returns to ``b``.

    The reference replays the recurrence in float64.
    """
    op = _canonical_op(op)
    dt = DType.parse(dtype)
    unroll = default_unroll(op, dt) if unroll is None else int(unroll)
    if unroll < 1 or UNROLL % unroll:
        raise ParameterError(f"unroll must divide {UNROLL}, got {unroll!r}")
    tag = "" if unroll == UNROLL else f"_unroll{unroll}"
    name = f"arith{N_PRIVATE}x{UNROLL}{tag}_{op}_{dt.value}"
    expr_fmt, kinds = _UPDATES[op]
    scalars = _SCALARS.get(op)

    def build(req: BuildRequest) -> lp.TranslationUnit:
        _require_group(req, 1)
        if req.dtype is not dt:
            raise UnknownNameError(f"dtype of {name!r}", req.dtype.value, (dt.value,))
        (group,) = req.group_size
        w = f"{group}*g + l"
        lines = ["for g, l"]
        for j in range(N_PRIVATE):
            lines.append(f"<int32> k{j} = {_initial_int_expr(op, j, w)}")
            lines.append(f"<{dt.value}> r{j} = k{j} {{id=init{j}}}")
        lines.append("for it, u")
        inits = ":".join(f"init{j}" for j in range(N_PRIVATE))
        for j, (p, *_) in update_schedule(op):
            s = "alpha" if j < PARTNER_OFFSET else "beta"
            # A chain of scheduling dependencies fixes the order within the body.
            dep = inits if j == 0 else f"upd{j - 1}"
            lines.append(f"r{j} = {expr_fmt.format(p=p, j=j, s=s)} {{id=upd{j}, dep={dep}}}")
        lines.append("end")
        total = " + ".join(f"r{j}" for j in range(N_PRIVATE))
        lines.append(f"out[{w}] = {total} {{dep=upd{N_PRIVATE - 1}}}")
        lines.append("end")
        args = [u.array("out", dt, ("n",))]
        if scalars is not None:
            args += [lp.ValueArg("alpha", dt.numpy), lp.ValueArg("beta", dt.numpy)]
        knl = u.make_kernel(
            _loop_domain(group, "it, u", f"0 <= it < iters and 0 <= u < {UNROLL}"),
            "\n".join(lines), [*args, *u.size_args("n", "iters")],
            name=f"arith_{op}", assumptions=_loop_assumptions(group))
        if unroll == UNROLL:
            knl = lp.prioritize_loops(knl, "it,u")
            knl = lp.tag_inames(knl, {"u": "unr"})
        else:  # the same 64 inner trips, `unroll` of them per source copy
            knl = lp.split_iname(knl, "u", unroll, inner_tag="unr")
            knl = lp.prioritize_loops(knl, "it,u_outer,u_inner")
        return _tag_grid(knl)

    def make_inputs(params, dtype_, rng) -> dict:
        if scalars is None:
            return {}
        return {"alpha": dt.numpy.type(scalars[0]), "beta": dt.numpy.type(scalars[1])}

    def reference(inputs, params) -> dict:
        w = np.arange(params["n"])
        used = None if scalars is None else \
            (float(inputs["alpha"]), float(inputs["beta"]))  # the dtype-rounded values
        r = _simulate(op, _initial_values(op, w), params["iters"] * UNROLL, used)
        return {"out": r.sum(axis=0)}

    per_update = " and ".join(kinds)
    return KernelSpec(
        name=name,
        role=KernelRole.MEASUREMENT,
        description=f"{N_PRIVATE} private {dt.value} variables, each updated by one "
                    f"{per_update} per iteration of a loop unrolled {UNROLL} times "
                    f"(no update depends on the {MIN_DEPENDENCY_DISTANCE} before it); "
                    "the sum is stored once per work item.",
        parameters=("n", "iters"),
        variants=("default",),
        dtypes=(dt,),
        group_dims=1,
        default_group_size_set=SET_1D,
        build=build,
        size_cases=lambda p: tuple({"n": _loop_items(p), "iters": 2 ** (t + 2)}
                                   for t in range(4)),
        default_p=15,
        p_choices=(13, 14, 15, 16, 17),
        make_inputs=make_inputs,
        reference=reference,
        check_params={"n": _check_items(), "iters": 1},
        rtol=1e-4,
    )

# }}}


# {{{ local memory

def local_memory_moves(dtype: str = "float32", moves_per_barrier: int = 1) -> KernelSpec:
    """Moves between local-memory locations, stride 1 in lid(0), no bank conflicts.

    Two local arrays ``A`` and ``B`` of ``m x (G+1)`` elements (``m`` =
    ``moves_per_barrier``, ``G`` the group size). Lane ``l`` initializes ``A[j, l+1]``
    and ``B[j, l]`` from its index; then each of ``iters`` iterations runs two phases::

        B[j, l+1] = A[j, l+1]    for j < m     (A[j, l+1] was written by lane l+1)
        barrier
        A[j, l]   = B[j, l]      for j < m     (B[j, l]  was written by lane l-1)
        barrier

    Every move reads data another lane wrote, so the barriers are needed (loopy places
    them: one per phase, plus one before the final read), and nothing more is. Lanes
    read and write distinct, consecutive elements: no write races, no simultaneous
    reads of one location, no bank conflicts. Shifting the lanes by one between the
    phases leaves ``A[j, 1..G]`` unchanged, so after the loop lane ``l`` stores
    ``A[0, l+1] + ... + A[m-1, l+1]`` (m-1 additions), its own initial values: a result
    that does not depend on the group size, yet is only right if every move was.

    Per work item: ``2m(iters+1)`` local stores, ``m(2 iters + 1)`` local loads,
    ``2 iters + 1`` barriers, one global store.
    """
    dt = DType.parse(dtype)
    m = int(moves_per_barrier)
    if m != moves_per_barrier or m < 1:
        raise ParameterError(f"moves_per_barrier must be a positive integer, got "
                             f"{moves_per_barrier!r}")
    name = f"lmem_moves_{m}perbarrier_{dt.value}"

    def build(req: BuildRequest) -> lp.TranslationUnit:
        _require_group(req, 1)
        if req.dtype is not dt:
            raise UnknownNameError(f"dtype of {name!r}", req.dtype.value, (dt.value,))
        (group,) = req.group_size
        nbytes = 2 * m * (group + 1) * dt.numpy.itemsize
        if nbytes > LOCAL_MEMORY_LIMIT:
            raise GroupSizeError(
                f"{name} needs {nbytes} bytes of local memory with groups of {group} "
                f"(limit {LOCAL_MEMORY_LIMIT}); use fewer moves per barrier")
        w = f"{group}*g + l"
        total = " + ".join(f"a_loc[{j}, l + 1]" for j in range(m))
        insns = f"""
        for g, l
            for j0
                <int32> ka = {_lmem_int_expr('a', w, 'j0')}
                <int32> kb = {_lmem_int_expr('b', w, 'j0')}
                a_loc[j0, l + 1] = ka {{id=init_a}}
                b_loc[j0, l] = kb {{id=init_b}}
            end
            for k
                for j1
                    b_loc[j1, l + 1] = a_loc[j1, l + 1] {{id=phase1, dep=init_a:init_b}}
                end
                for j2
                    a_loc[j2, l] = b_loc[j2, l] {{id=phase2, dep=phase1}}
                end
            end
            out[{w}] = {total} {{dep=phase2:init_a}}
        end
        """
        local = [lp.TemporaryVariable(v, dt.numpy, shape=(m, group + 1),
                                      address_space=lp.AddressSpace.LOCAL)
                 for v in ("a_loc", "b_loc")]
        knl = u.make_kernel(
            _loop_domain(group, "k, j0, j1, j2",
                         f"0 <= k < iters and 0 <= j0, j1, j2 < {m}"),
            insns, [u.array("out", dt, ("n",)), *local, *u.size_args("n", "iters")],
            name="lmem_moves", assumptions=_loop_assumptions(group))
        knl = lp.prioritize_loops(knl, "k,j1")
        knl = lp.prioritize_loops(knl, "k,j2")
        knl = lp.tag_inames(knl, {"j0": "unr", "j1": "unr", "j2": "unr"})
        return _tag_grid(knl)

    def reference(inputs, params) -> dict:
        w = np.arange(params["n"])
        total = sum(_lmem_values("a", w, j) for j in range(m))
        return {"out": u.as_dtype_of(total, dt)}

    return KernelSpec(
        name=name,
        role=KernelRole.MEASUREMENT,
        description=f"{m} {dt.value} move(s) between local arrays per barrier, two "
                    "barrier phases per iteration, lid(0) stride 1 (no bank conflicts).",
        parameters=("n", "iters"),
        variants=("default",),
        dtypes=(dt,),
        group_dims=1,
        default_group_size_set=SET_1D,
        build=build,
        size_cases=lambda p: tuple({"n": _loop_items(p), "iters": 2 ** (t + 5)}
                                   for t in range(4)),
        default_p=17,
        p_choices=(15, 16, 17, 18, 19),
        make_inputs=lambda params, dtype_, rng: {},
        reference=reference,
        check_params={"n": _check_items(), "iters": 3},
    )


_LMEM_VALUES: Mapping[str, tuple[int, int]] = {"a": (3, 1), "b": (5, 17)}


def _lmem_int_expr(array: str, w: str, j: str) -> str:
    step, offset = _LMEM_VALUES[array]
    return f"({w} + {step}*{j}) % 16 + {offset}"


def _lmem_values(array: str, w: np.ndarray, j: int) -> np.ndarray:
    step, offset = _LMEM_VALUES[array]
    return ((w + step * j) % 16 + offset).astype(np.float64)


def local_memory_counts(moves_per_barrier: int, iters: int) -> dict[str, int]:
    """Designed local accesses and barriers of one work item (see
    :func:`local_memory_moves`), keyed by the dtype-free part of the property name."""
    m = moves_per_barrier
    return {"local_store": 2 * m * (iters + 1), "local_load": m * (2 * iters + 1),
            "barrier": 2 * iters + 1, "add": m - 1}

# }}}


# {{{ barriers

def barriers(n_barriers: int = 1) -> KernelSpec:
    """Each work item meets ``n_barriers * iters`` local barriers, and does nothing else
    but store its index once (so the launch has a checkable effect).

    The body of an ``iters``-trip loop holds ``n_barriers`` explicit barriers: the
    per-barrier cost then grows with ``iters`` at a fixed grid, apart from launch and
    per-group costs. Any float dtype; the index store uses it.
    """
    nb = int(n_barriers)
    if nb != n_barriers or nb < 1:
        raise ParameterError(f"n_barriers must be a positive integer, got {n_barriers!r}")
    name = f"barriers_{nb}periter"

    def build(req: BuildRequest) -> lp.TranslationUnit:
        _require_group(req, 1)
        (group,) = req.group_size
        w = f"{group}*g + l"
        bars = "\n".join(
            f"... lbarrier {{id=bar{b}{f', dep=bar{b - 1}' if b else ''}}}"
            for b in range(nb))
        insns = f"""
        for g, l
            for k
                {bars}
            end
            <int32> idx = {w}
            out[{w}] = idx {{dep=bar{nb - 1}}}
        end
        """
        knl = u.make_kernel(
            _loop_domain(group, "k", "0 <= k < iters"), insns,
            [u.array("out", req.dtype, ("n",)), *u.size_args("n", "iters")],
            name="barriers", assumptions=_loop_assumptions(group))
        return _tag_grid(knl)

    return KernelSpec(
        name=name,
        role=KernelRole.MEASUREMENT,
        description=f"{nb} local barrier(s) per iteration of an iters-trip loop; one "
                    "index store per work item.",
        parameters=("n", "iters"),
        variants=("default",),
        dtypes=u.FLOATS,
        group_dims=1,
        default_group_size_set=SET_1D,
        build=build,
        size_cases=lambda p: tuple({"n": _loop_items(p), "iters": 2 ** (t + 5)}
                                   for t in range(4)),
        default_p=17,
        p_choices=(15, 16, 17, 18, 19),
        make_inputs=lambda params, dtype_, rng: {},
        reference=lambda inputs, params: {"out": np.arange(params["n"], dtype=np.float64)},
        check_params={"n": _check_items(), "iters": 3},
    )

# }}}


# {{{ empty kernel and the default set

def empty() -> KernelSpec:
    """The catalog's empty kernel, unchanged: one launch-overhead kernel for both
    papers' campaigns, under the name the campaign already treats as the overhead."""
    from workbench.kernels.defs.empty import EMPTY
    return EMPTY


#: Lid strides and array counts of the default set's global loads (paper: the strides
#: that separate coalesced, partly and fully uncoalesced access).
DEFAULT_LOAD_STRIDES: tuple[int, ...] = (1, 2, 3, 4, 8, 32)
DEFAULT_ARRAY_COUNTS: tuple[int, ...] = (1, 2, 3, 4)
DEFAULT_STORE_STRIDES: tuple[int, ...] = (2, 3, 4, 8, 32)
#: 2-D lane strides (16x16 groups): half-used rows, and a transposed (column) read.
DEFAULT_2D_LID_STRIDES: tuple[tuple[int, int], ...] = ((1, 32), (16, 1))
DEFAULT_MOVES_PER_BARRIER: tuple[int, ...] = (1, 4)
DEFAULT_BARRIERS_PER_ITER: tuple[int, ...] = (1, 4)


def measurement_set_2019(dtypes: Sequence[str] = ("float32",)) -> tuple[KernelSpec, ...]:
    """The default 2019 measurement set.

    Per dtype: global loads from 1..4 arrays at lid strides 1, 2, 3, 4, 8, 32
    (contiguous groups, every 1-D group size); strided stores (lid strides 2, 3, 4, 8,
    32; stride-1 stores come with every load kernel); two 2-D patterns (16x16 groups);
    every arithmetic op; local moves with 1 and 4 moves per barrier. Once: barriers (1
    and 4 per iteration, the count per work item set by ``iters``) and the empty
    kernel. For float32 that is 42 kernels; on an H100 each one's smallest default
    case took 5 us to 3 ms.
    """
    specs: list[KernelSpec] = []
    for dtype in dtypes:
        dt = DType.parse(dtype).value
        specs += [global_memory_pattern(k, (s,), None, dt)
                  for s in DEFAULT_LOAD_STRIDES for k in DEFAULT_ARRAY_COUNTS]
        specs += [global_memory_pattern(1, (s,), None, dt, "store")
                  for s in DEFAULT_STORE_STRIDES]
        specs += [global_memory_pattern(1, lid, None, dt) for lid in DEFAULT_2D_LID_STRIDES]
        specs += [arithmetic(op, dt) for op in ARITHMETIC_OPS]
        specs += [local_memory_moves(dt, m) for m in DEFAULT_MOVES_PER_BARRIER]
    specs += [barriers(nb) for nb in DEFAULT_BARRIERS_PER_ITER]
    specs.append(empty())
    return tuple(specs)

# }}}

# vim: foldmethod=marker
