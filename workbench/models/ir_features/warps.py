"""Cache lines a warp touches per global access, from the access's lane strides.

A warp is 32 consecutive work items of a group, numbered along local axis 0, then 1,
then 2 (the linear local id, as NVIDIA forms warps).  Lane ``t``'s element offset is
the access's lane stride along each local axis times the lane's local id on it;
times the element size and floor-divided by the 128-byte line, the distinct values
among the lanes that run the access are the lines it touches.  As in the paper, the
offsets are taken relative to lane 0 (its address on a line boundary): the base
address of an array and the group's offset inside it are unknown before a run.

Only the group's first warp is looked at: its lanes have the same local ids in every
group, and a later warp of the group differs from it only where the group's axis-0
extent does not divide 32 evenly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.properties.features import Direction
from workbench.properties.symbolic import Expression

WARP_SIZE = 32
CACHE_LINE_BYTES = 128


@dataclass(frozen=True)
class WarpAccess:
    """One global subscript of one instruction, as a warp sees it.

    ``lane_strides[k]`` is the element stride between neighbouring lanes along local
    axis k (None where the subscript is not affine in the lane); ``active[k]`` the
    lanes along axis k that run the instruction (its iname's extent there, or the
    group's); ``count`` the work-item executions over the whole grid.
    """

    array: str
    direction: Direction
    itemsize: int
    lane_strides: tuple[Expression | None, ...]
    active: tuple[Expression, ...]
    count: Expression

    @property
    def affine(self) -> bool:
        return all(s is not None for s in self.lane_strides)


def warp_lines(group: Sequence[np.ndarray], strides: Sequence[np.ndarray] | None,
               active: Sequence[np.ndarray], itemsize: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Distinct lines the first warp touches and its lanes that take part, per
    parameter set; each argument holds one array (or scalar) per local axis.

    Without strides (a subscript not affine in the lane) every taking part lane is
    taken to touch a line of its own: the worst case.
    """
    sizes = [np.asarray(g, dtype=np.int64).reshape(-1, 1) for g in group]
    lane = np.arange(WARP_SIZE, dtype=np.int64).reshape(1, -1)
    ids = []
    rest = lane
    for size in sizes[:-1]:
        ids.append(rest % size)
        rest = rest // size
    ids.append(rest)
    taking_part = ids[-1] < sizes[-1]   # lanes past the group's end form no warp
    for lid, extent in zip(ids, active):
        extent = np.asarray(extent, dtype=np.int64).reshape(-1, 1)
        taking_part = taking_part & (lid < extent)
    lanes = taking_part.sum(axis=1)
    if strides is None:
        return lanes, lanes
    offset = np.zeros(taking_part.shape, dtype=np.int64)
    for lid, stride in zip(ids, strides):
        offset = offset + np.asarray(stride, dtype=np.int64).reshape(-1, 1) * lid
    line = (offset * itemsize) // CACHE_LINE_BYTES
    # idle lanes get a value below every line, sorted first and never counted
    idle = np.iinfo(np.int64).min
    line = np.sort(np.where(taking_part, line, idle), axis=1)
    first = np.concatenate([np.ones((line.shape[0], 1), dtype=bool),
                            line[:, 1:] != line[:, :-1]], axis=1)
    return (first & (line != idle)).sum(axis=1), lanes


def average_lines(per_access: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]
                  ) -> np.ndarray:
    """Lines per warp access, averaged over ``(lines, lanes, work-item count)`` of
    every access, each weighted by its warp accesses (count / lanes); 0 where a
    kernel has no global access."""
    num = den = 0.0
    for lines, lanes, count in per_access:
        warps = np.where(lanes > 0, np.asarray(count, dtype=np.float64)
                         / np.maximum(lanes, 1), 0.0)
        num = num + lines * warps
        den = den + warps
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64),
                                   np.asarray(den, dtype=np.float64))
    return np.divide(num, den, out=np.zeros(num.shape), where=den > 0)
