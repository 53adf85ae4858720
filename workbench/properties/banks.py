"""Local-memory bank conflicts of one access, from its work-item strides.

Local (shared) memory is split into banks; the work items of one sub-group (warp)
that touch different words of the same bank are served one after another, while
work items reading the same word share it (broadcast).  The *conflict degree* of an
access is the number of passes one sub-group needs: the largest number of distinct
words any bank is asked for.  A transposed read of a 32-wide float tile (lid(0)
stride 32) needs 32 passes; a row read (stride 1) needs one.

The sub-group's work items are laid out as OpenCL does on NVIDIA and AMD hardware:
lid(0) fastest, then lid(1), then lid(2), sub-group 0 starting at lid = 0.
32 banks of 4 bytes are what NVIDIA (since Maxwell) and AMD GCN/RDNA LDS have.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from workbench.properties.lanes import lane_coordinates

DEFAULT_BANKS = 32
DEFAULT_BANK_BYTES = 4


def conflict_degree(lid_strides: Mapping[int, object] | Sequence[tuple[int, object]],
                    group_size: Sequence[int], element_bytes: int, *,
                    subgroup_size: int = 32, banks: int = DEFAULT_BANKS,
                    bank_bytes: int = DEFAULT_BANK_BYTES) -> int | None:
    """Bank passes one sub-group needs for an access with these element strides.

    ``lid_strides`` maps a work-item axis to the element stride along it (an axis
    left out has stride 0).  A stride that is not an integer (symbolic or not
    affine) gives None: the degree is unknown.
    """
    strides = dict(lid_strides)
    if any(not isinstance(s, (int, np.integer)) for s in strides.values()):
        return None
    coords = lane_coordinates(group_size, subgroup_size)
    words_per_bank: dict[int, set[int]] = {}
    for c in coords:
        offset = sum(int(strides.get(axis, 0)) * v for axis, v in enumerate(c))
        first = offset * element_bytes // bank_bytes
        last = (offset * element_bytes + element_bytes - 1) // bank_bytes
        for word in range(first, last + 1):
            words_per_bank.setdefault(word % banks, set()).add(word)
    return max((len(w) for w in words_per_bank.values()), default=1)


__all__ = ["conflict_degree", "DEFAULT_BANKS", "DEFAULT_BANK_BYTES"]
