"""Analytic data-volume estimation for GPU kernels (Ernst et al.), first part.

Design
------
The estimator works on *address expressions*, not on one code generator's IR, as in
the paper (section III-B): an :class:`Access` is a byte address
``base_alignment + element_size * index`` where ``index`` is an
:class:`AffineExpression` in the thread coordinates ``tx, ty, tz``, the block
coordinates ``bx, by, bz``, loop variables with constant ranges and size parameters,
optionally restricted by affine guards. All model objects are frozen dataclasses:

* :class:`LaunchConfig` -- ``block=(x, y, z)`` threads, ``grid=(x, y, z)`` blocks;
* :class:`AffineExpression`, :class:`Constraint` -- integer affine forms, parsed from
  strings (``"tx + 128*bx + 1"``) or pymbolic expressions;
* :class:`AddressExpression` -- index + loop ranges + guards;
* :class:`Access` -- array, element size, base alignment, address, direction;
* :class:`ThreadGroup` -- the collaborative group: a box of blocks of a launch
  (optionally a sub-box of threads per block): one block, a wave, the whole grid.

Two front ends produce accesses: the plain API (:meth:`Access.make`) and
:func:`accesses_from_loopy`, which maps a loopy kernel's global subscripts, iname
tags (``l.k`` -> thread, ``g.k`` -> block), domains (as loop ranges and guards) and
array strides to the same objects, with size parameters fixed.

Unique footprints (:mod:`workbench.volumes.footprint`) are computed per array at any
granularity by the paper's two methods, ``method="enumerate"`` (numpy, cost grows
with the thread count) and ``method="isl"`` (barvinok ``card()`` of unions of affine
images, cost independent of the thread and block counts); both give exact, equal
counts. :func:`unit_sets` exposes the ISL sets for intersections (wave overlaps).

Left for later
--------------
* L1 bank conflicts / cycles per half-warp (needs a linear thread order and warp
  grouping; :class:`ThreadGroup` ``threads=`` already selects sub-blocks);
* L1 and L2 volume models: compulsory (Vcomp) vs capacity misses, 128 B allocation
  vs 32 B sector transfer, representative-block averaging;
* DRAM volumes from waves of concurrently running blocks, previous-wave overlap
  and coverage factor;
* device descriptions (SM count, cache sizes, blocks per SM) and the roofline-style
  performance prediction built on these volumes;
* control flow beyond affine guards, indirect addressing, non-affine (floor/mod)
  indices, and symbolic (unfixed) size parameters.
"""

from workbench.volumes.address import (
    BLOCK_VARS, HW_VARS, THREAD_VARS, Access, AddressExpression, AffineExpression,
    Constraint, Direction, LaunchConfig, ThreadGroup)
from workbench.volumes.footprint import (
    METHODS, card_int, footprint, unique_bytes, unique_lines, unique_sectors,
    unique_units, unit_sets)
from workbench.volumes.loopy_bridge import accesses_from_loopy, launch_from_loopy

__all__ = [
    "BLOCK_VARS", "HW_VARS", "METHODS", "THREAD_VARS", "Access", "AddressExpression",
    "AffineExpression", "Constraint", "Direction", "LaunchConfig", "ThreadGroup",
    "accesses_from_loopy", "card_int", "footprint", "launch_from_loopy",
    "unique_bytes", "unique_lines", "unique_sectors", "unique_units", "unit_sets",
]
