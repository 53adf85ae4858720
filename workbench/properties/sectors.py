"""The 32-byte sectors one sub-group's global access touches, from its work-item strides.

A global load or store of a warp is served in 32-byte sectors: the memory system moves
every sector that holds a byte one of the 32 lanes asks for.  Stride 1 in lid(0) over
float32 touches 4 sectors (128 bytes), stride 2 touches 8, stride 8 and more touch 32
(one per lane), and a lid(0)-uniform access touches 1.  In a group whose first
dimension is below the sub-group size the lanes span rows: a 16 x 16 group's warp
reads two 64-byte row pieces, 4 float32 sectors when rows are far apart.

Only the strides are known, not the base address: the lowest lane's element is taken
to start a sector (an aligned access).  A stride that is not an integer (symbolic, a
row length ``n``; or not affine, a gather through an index array) is taken as large:
lanes that differ along that axis never share a sector.  That is the worst case for
a gather, and the common case for a row length.

Accesses of one array that differ by a constant offset and have the same strides
(``z[2*i]`` and ``z[2*i + 1]``: the real and imaginary parts of interleaved complex
numbers; the four outputs of a 2 x 2 upsampling) fill each other's gaps: together
they touch the union of their sectors, not the sum.  :func:`sector_sharing` reads
them off the kernel's access model and gives, per array and direction, the share of
the accesses' own sectors that their union keeps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from loopy.symbolic import WalkMapper

from workbench.properties.features import Direction
from workbench.properties.lanes import lane_coordinates

SECTOR_BYTES = 32


def sectors_per_access(lid_strides: Mapping[int, object] | Sequence[tuple[int, object]],
                       group_size: Sequence[int], element_bytes: int, *,
                       subgroup_size: int = 32, sector_bytes: int = SECTOR_BYTES,
                       offsets: Sequence[int] = (0,)) -> int:
    """Distinct sectors the lanes of one sub-group touch in one access.

    ``lid_strides`` maps a work-item axis to the element stride along it (an axis left
    out has stride 0); a non-integer stride (symbolic or None) counts as large.  With
    several ``offsets`` (elements), the union over accesses at those offsets.
    """
    strides = dict(lid_strides)
    coords = lane_coordinates(group_size, subgroup_size)
    lane_offset = np.zeros(len(coords), dtype=np.int64)
    far = []   # axes whose stride is not a number: each coordinate is a region of its own
    for axis in range(coords.shape[1]):
        stride = strides.get(axis, 0)
        if isinstance(stride, (int, np.integer)):
            lane_offset += int(stride) * coords[:, axis]
        else:
            far.append(coords[:, axis])
    regions = list(zip(*far)) if far else [()] * len(coords)
    offset = (lane_offset[None, :] + np.asarray(offsets, dtype=np.int64)[:, None]).ravel()
    regions = regions * len(offsets)
    offset = offset - offset.min()   # the lowest address starts a sector, whatever the signs
    first = offset * element_bytes // sector_bytes
    last = (offset * element_bytes + element_bytes - 1) // sector_bytes
    touched = set()
    for region, lo, hi in zip(regions, first.tolist(), last.tolist()):
        touched.update((region, s) for s in range(lo, hi + 1))
    return len(touched)


def dense_sectors(lid_strides: Mapping[int, object] | Sequence[tuple[int, object]],
                  group_size: Sequence[int], element_bytes: int, *,
                  subgroup_size: int = 32, sector_bytes: int = SECTOR_BYTES) -> int:
    """Sectors the distinct elements of one sub-group's access would fill if they lay
    side by side: what the access needs from DRAM where the sectors' other bytes are
    read by other sub-groups (a transposed read of a dense array) or later."""
    strides = dict(lid_strides)
    coords = lane_coordinates(group_size, subgroup_size)
    moving = [coords[:, axis] for axis in range(coords.shape[1])
              if strides.get(axis, 0) != 0]
    distinct = len(set(zip(*moving))) if moving else 1
    return -(-distinct * element_bytes // sector_bytes)


# {{{ accesses that share sectors

_TRIALS = 8


def _flat_index(layout, index) -> object | None:
    """``sum(index_k * stride_k)`` as an expression; None without fixed strides."""
    if len(layout.strides) != len(index) or any(s is None for s in layout.strides):
        return None
    total = 0
    for idx, stride in zip(index, layout.strides):
        total = total + idx * stride
    return total


def _at(expr, context) -> int | None:
    from pymbolic import evaluate

    try:
        value = evaluate(expr, context)
    except Exception:  # noqa: BLE001 - a name the context lacks: an indirect index
        return None
    return int(value) if float(value).is_integer() else None


def _probe(expr, contexts, local_inames) -> tuple[tuple | None, tuple | None]:
    """(address at each context, lid stride per axis) by evaluating at random points;
    (None, None) where the index reads another array.  A stride that is not the same
    number at every point (symbolic, not affine) is None."""
    base = [_at(expr, c) for c in contexts]
    if any(b is None for b in base):
        return None, None
    strides = []
    for inames in local_inames:
        inames = [i for i in inames if i in contexts[0]]   # others: not in any index
        steps = set()
        for c, b in zip(contexts, base):
            moved = [_at(expr, {**c, i: c[i] + 1}) for i in inames]
            steps.add(sum(m - b for m in moved if m is not None)
                      if all(m is not None for m in moved) else None)
        strides.append(steps.pop() if len(steps) == 1 else None)
    return tuple(base), tuple(strides)


def sector_sharing(model, group_size: Sequence[int], *, subgroup_size: int = 32,
                   sector_bytes: int = SECTOR_BYTES) -> dict[tuple[str, Direction], float]:
    """Per (array, direction): the sectors of its accesses' unions over their own.

    ``model`` is a :class:`~workbench.properties.accesses.KernelAccesses`.  Accesses
    of one array and direction with the same lid strides whose addresses differ by a
    constant are one union; the share is the sum of the unions' sectors over the sum
    of every access's own (1 where nothing is shared).  Every access is weighted
    alike, whatever its instruction's trip count.
    """
    from loopy.symbolic import get_dependencies

    rng = np.random.default_rng(0)
    names = set()
    subscripts = []
    for ins in model.instructions:
        for sub in dict.fromkeys(ins.subscripts):
            layout = model.arrays.get(sub.array)
            expr = None if layout is None else _flat_index(layout, sub.index)
            subscripts.append((sub, layout, expr))
            if expr is not None:
                names |= set(get_dependencies(expr))
    contexts = [{n: int(rng.integers(64, 4096)) for n in sorted(names)}
                for _ in range(_TRIALS)]
    axes = sorted({axis for kind, axis in model.hardware_axes.values() if kind == "local"})
    local_inames = [[i for i, (kind, a) in model.hardware_axes.items()
                     if kind == "local" and a == axis] for axis in range(max(axes, default=-1) + 1)]
    own: dict[tuple[str, Direction], int] = {}
    unions: dict[tuple, list[list[tuple[int, ...]]]] = {}
    for sub, layout, expr in subscripts:
        if layout is None:
            continue
        key = (sub.array, sub.direction)
        address, strides = (None, None) if expr is None else _probe(expr, contexts,
                                                                      local_inames)
        # an index that reads another array (a gather) is large along every axis
        lid = dict(enumerate(strides)) if strides is not None \
            else {a: None for a in range(len(group_size))}
        own[key] = own.get(key, 0) + sectors_per_access(
            lid, group_size, layout.itemsize, subgroup_size=subgroup_size,
            sector_bytes=sector_bytes)
        if address is None:
            unions.setdefault((*key, "gather", len(unions)), []).append([])
            continue
        clusters = unions.setdefault((*key, strides), [])
        for cluster in clusters:
            shift = {a - b for a, b in zip(address, cluster[0])}
            if len(shift) == 1:
                cluster.append(address)
                break
        else:
            clusters.append([address])
    union: dict[tuple[str, Direction], int] = {}
    for (array, direction, strides, *_), clusters in unions.items():
        layout = model.arrays[array]
        for cluster in clusters:
            if not cluster:   # a gather: its own sectors
                n = sectors_per_access({a: None for a in range(len(group_size))},
                                       group_size, layout.itemsize,
                                       subgroup_size=subgroup_size, sector_bytes=sector_bytes)
            else:
                offsets = sorted({a[0] - cluster[0][0] for a in cluster})
                n = sectors_per_access(dict(enumerate(strides)), group_size,
                                       layout.itemsize, subgroup_size=subgroup_size,
                                       sector_bytes=sector_bytes, offsets=offsets)
            union[array, direction] = union.get((array, direction), 0) + n
    return {key: union.get(key, n) / n for key, n in own.items() if n > 0}

# }}}


# {{{ indices that divide a work-item coordinate

@dataclass(frozen=True)
class LaneSectors:
    """Sectors of one array's accesses in one direction, from the lanes' addresses:
    ``own`` per access (the mean over its subscripts), ``share`` their union's over the
    sum of their own, ``dense`` the sectors the distinct elements would fill."""

    own: float
    share: float
    dense: float


class _DividesLane(WalkMapper):
    """Whether an index divides (or takes the remainder of) an expression of a lane
    iname: loopy's stride collector drops the denominator of ``(j_outer + j_inner) //
    3`` (it warns so), which makes the lanes' stride that of ``j`` itself."""

    def __init__(self, lane_inames):
        super().__init__()
        self.lane_inames = lane_inames
        self.found = False

    def _check(self, expr):
        from loopy.symbolic import get_dependencies

        if get_dependencies(expr) & self.lane_inames:
            self.found = True

    def map_floor_div(self, expr, *args, **kwargs):
        self._check(expr)
        return super().map_floor_div(expr, *args, **kwargs)

    def map_remainder(self, expr, *args, **kwargs):
        self._check(expr)
        return super().map_remainder(expr, *args, **kwargs)


def lane_enumerated_sectors(model, group_size: Sequence[int], *, subgroup_size: int = 32,
                            sector_bytes: int = SECTOR_BYTES
                            ) -> dict[tuple[str, Direction], LaneSectors]:
    """Per (array, direction) whose index divides a lane coordinate: its sectors per
    sub-group access, counted from the addresses of the first sub-group's lanes.

    The work-item strides loopy reports for such an index are wrong (the lanes of
    ``src[(2*j) // 3]`` are two thirds of an element apart, not two), so the lanes'
    addresses are evaluated instead: every other name (group and loop inames, sizes)
    takes random values, the same for every subscript of a trial, so that subscripts
    at a constant offset of each other (``sx`` and ``sx + 1``) share sectors as they do
    in the hardware; the mean over eight trials.  Arrays whose indices are affine in
    the lanes are not listed (:func:`sectors_per_access` counts them from the strides).
    """
    from loopy.symbolic import get_dependencies

    axes = {iname: axis for iname, (kind, axis) in model.hardware_axes.items()
            if kind == "local"}
    subs: dict[tuple[str, Direction], list] = {}
    names: set = set()
    divides: set = set()
    for ins in model.instructions:
        for sub in dict.fromkeys(ins.subscripts):
            layout = model.arrays.get(sub.array)
            expr = None if layout is None else _flat_index(layout, sub.index)
            if expr is None:
                continue
            key = (sub.array, sub.direction)
            subs.setdefault(key, []).append(expr)
            names |= set(get_dependencies(expr))
            finder = _DividesLane(set(axes))
            finder(expr)
            if finder.found:
                divides.add(key)
    if not divides:
        return {}
    rng = np.random.default_rng(0)
    coords = lane_coordinates(group_size, subgroup_size)
    out = {}
    for key in sorted(divides, key=lambda k: (k[0], k[1].value)):
        itemsize = model.arrays[key[0]].itemsize
        own = union = dense = 0.0
        for _ in range(_TRIALS):
            context = {n: int(rng.integers(64, 4096)) for n in sorted(names)}
            everything: set = set()
            for expr in subs[key]:
                touched, elements = set(), set()
                for lane in coords:
                    at = {**context, **{i: int(lane[a]) for i, a in axes.items()
                                        if a < len(lane)}}
                    address = _at(expr, at)
                    if address is None:
                        break
                    elements.add(address)
                    first = address * itemsize // sector_bytes
                    last = (address * itemsize + itemsize - 1) // sector_bytes
                    touched.update(range(first, last + 1))
                own += len(touched)
                dense += -(-len(elements) * itemsize // sector_bytes)
                everything |= touched
            union += len(everything)
        n = _TRIALS * len(subs[key])
        if own > 0:
            out[key] = LaneSectors(own / n, union / own, dense / n)
    return out

# }}}


__all__ = ["SECTOR_BYTES", "LaneSectors", "dense_sectors", "lane_enumerated_sectors",
           "sector_sharing", "sectors_per_access"]
