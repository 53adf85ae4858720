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

Unique footprints (:mod:`workbench.models.roofline.footprint`) are computed per array at any
granularity by the paper's two methods, ``method="enumerate"`` (numpy, cost grows
with the thread count) and ``method="isl"`` (barvinok ``card()`` of unions of affine
images, cost independent of the thread and block counts); both give exact, equal
counts. :func:`unit_sets` exposes the ISL sets for intersections (wave overlaps).

Hardware metrics built on these footprints (:mod:`workbench.models.roofline.metrics`):
L1 load cycles from bank conflicts per half warp, per-block L2 -> L1 volumes
(32 B sectors transferred, 128 B lines allocated, write-through stores), the
capacity-miss function ``R(O)``, and DRAM volumes per wave of concurrent blocks
with previous-wave overlap and coverage factor (:mod:`workbench.models.roofline.waves`).

Left for later
--------------
* fitting the capacity-miss functions (needs measurements);
* device descriptions (SM count, cache sizes, blocks per SM) and the roofline-style
  performance prediction built on these volumes;
* control flow beyond affine guards, indirect addressing, non-affine (floor/mod)
  indices, and symbolic (unfixed) size parameters.
"""

from workbench.models.roofline.address import (
    BLOCK_VARS, HW_VARS, THREAD_VARS, Access, AddressExpression, AffineExpression,
    Constraint, Direction, LaunchConfig, ThreadGroup)
from workbench.models.roofline.footprint import (
    METHODS, card_int, footprint, unique_bytes, unique_lines, unique_sectors,
    unique_units, unit_sets)
from workbench.models.roofline.from_loopy import accesses_from_loopy, launch_from_loopy
from workbench.models.roofline.metrics import (
    DramVolume, L2L1Volume, WaveVolume, capacity_miss_factor, capacity_miss_volume,
    dram_volume, l1_load_cycles, l2_l1_volume, oversubscription)
from workbench.models.roofline.limiters import (
    Limiter, RooflineInputs, RooflinePrediction, estimate_inputs, predict_block, roofline)
from workbench.models.roofline.blocks import block_sizes, candidate_blocks, rank_blocks
from workbench.kernels.study import study_block_sizes
from workbench.models.roofline.waves import (
    linear_range_boxes, num_waves, wave_groups, wave_range)

__all__ = [
    "BLOCK_VARS", "HW_VARS", "METHODS", "THREAD_VARS", "Access", "AddressExpression",
    "AffineExpression", "Constraint", "Direction", "LaunchConfig", "ThreadGroup",
    "accesses_from_loopy", "card_int", "footprint", "launch_from_loopy",
    "unique_bytes", "unique_lines", "unique_sectors", "unique_units", "unit_sets",
    # metrics (workbench.models.roofline.metrics, .waves)
    "DramVolume", "L2L1Volume", "WaveVolume", "capacity_miss_factor",
    "capacity_miss_volume", "dram_volume", "l1_load_cycles", "l2_l1_volume",
    "linear_range_boxes", "num_waves", "oversubscription", "wave_groups", "wave_range",
    # extended roofline (workbench.models.roofline.limiters)
    "Limiter", "RooflineInputs", "RooflinePrediction", "block_sizes", "estimate_inputs",
    "predict_block", "rank_blocks", "roofline", "study_block_sizes",
]
