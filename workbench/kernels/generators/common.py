"""Conventions and helpers shared by every 2019 measurement-kernel generator.

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

import loopy as lp

from workbench.errors import GroupSizeError, UnknownNameError
from workbench.kernels.base import (
    GROUP_SIZE_SETS,
    BuildRequest,
    GroupSize,
    format_group_size,
)

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
