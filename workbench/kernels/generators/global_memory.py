"""Global-memory access-pattern kernels of the 2019 measurement set.

:func:`global_memory_pattern` loads from a variable number of input arrays at an
address with the requested strides along ``lid``/``gid`` axes, sums the loads and
stores one value per work item (or, for ``direction="store"``, stores with the
requested pattern). :class:`GlobalPattern` says where each work item reads or writes,
both as loopy pieces and as a numpy mirror for the reference.
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
    BuildRequest,
    DType,
    GroupSize,
    KernelRole,
    KernelSpec,
    format_group_size,
)
from workbench.kernels.generators.common import (
    DEFAULT_GROUP_1D,
    DEFAULT_GROUP_2D,
    SET_1D,
    SET_2D,
    _check_items,
    _loop_items,
    _require_group,
)

Direction = Literal["load", "store"]


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

# vim: foldmethod=marker
