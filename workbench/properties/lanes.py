"""Where the work items of one sub-group (warp) sit in their work group.

The sub-group's lanes are laid out as OpenCL does on NVIDIA and AMD hardware: lid(0)
fastest, then lid(1), then lid(2), sub-group 0 starting at lid = 0.  A group smaller
than the sub-group fills only part of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def lane_coordinates(group_size: Sequence[int], subgroup_size: int = 32) -> np.ndarray:
    """(lanes, axes) array: the local id of each lane of the group's first sub-group."""
    dims = [int(g) for g in group_size] or [1]
    lanes = np.arange(subgroup_lanes(dims, subgroup_size))
    coords = np.empty((len(lanes), len(dims)), dtype=np.int64)
    rest = lanes
    for axis, d in enumerate(dims):
        coords[:, axis] = rest % d
        rest = rest // d
    return coords


def subgroup_lanes(group_size: Sequence[int], subgroup_size: int = 32) -> int:
    """Work items in one sub-group: the sub-group size, or the whole group if smaller."""
    return min(int(subgroup_size), int(np.prod([int(g) for g in group_size] or [1])))


__all__ = ["lane_coordinates", "subgroup_lanes"]
