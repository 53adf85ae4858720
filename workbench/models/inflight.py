"""The DRAM rate a stream reaches by the bytes each work item has in flight (issue #34,
round 18): Little's law priced from a calibration microbenchmark.

The DRAM stream bound (``f_dram_stream_s``) divides the bytes beyond L2 by the bandwidth of
the device's ``bandwidth.json`` (3,015 GB/s on the H100), which a copy of four elements a
work item measures.  By Little's law the rate a stream reaches is the bytes its warps keep
in flight over the DRAM latency, up to what the interface gives: with every SM full, a
kernel whose work items each move one float32 value in and one out keeps a quarter of the
calibration's bytes in flight.  Round 18's probe (``benchmarks/round18_inflight_kernels.py``,
``sample_data/h100/round18-probe.txt.xz``: ``k`` independent loads a work item summed into
one store, ``k`` = 1, 2, 4, 8, float32 and float64, 1-D groups of 256 and 2-D groups of
16 x 16 and 32 x 8, 256 and 512 MiB loaded) gives the rate as a share of the calibration's
by the bytes a work item moves across DRAM (its loads and its store, as the bound counts
them):

==============  ========================  =============================
bytes an item   1-D groups (flat)          2-D groups (grid, the mean of
                                           16 x 16 and 32 x 8)
==============  ========================  =============================
8 (f32, k=1)    2,365 GB/s: 0.785          2,157 GB/s: 0.716
12 (f32, k=2)   2,716: 0.901               2,591: 0.859
16 (f64, k=1)   2,876: 0.954               2,787: 0.924
24 (f64, k=2)   3,018: 1.0                 3,011: 1.0
==============  ========================  =============================

(the 512 MiB points; at 20, 36, 40 and 72 bytes an item the rate is the calibration's
within 2 %, at 36 in 16 x 16 groups 0.90).  The share at ``b`` bytes an item is the table's,
linear between its rows, the 8-byte row's below 8 bytes and 1 from 24 bytes on: a kernel
with a loop of loads over many elements a work item keeps the calibration's rate.  The bytes
an item are the footprint beyond L2's share of the launch's work items, so a stencil whose
neighbours come from L1 and L2 counts the value it brings in, not the loads it issues.

Such a stencil streams slower than a copy of the same bytes an item: round 15's 2-D 5- and
9-point stencils (``round15-probe.txt``) reach 0.609 of the calibration in float32 and 0.843
in float64, against the 2-D copies' 0.716 and 0.924.  ``f_dram_stencil_stream_s`` prices a
kernel in 2-D groups whose global loads read at least twice its footprint's bytes at
:data:`STENCIL_SHARE`, and every other kernel as ``f_dram_inflight_s``.
"""

from __future__ import annotations

import numpy as np

#: bytes a work item moves across DRAM, and the share of the calibration's rate a stream
#: of them reaches (1-D groups, 2-D groups); round 18's probe on the H100 (module docstring)
ITEM_BYTES = (8.0, 12.0, 16.0, 24.0)
FLAT_SHARE = (0.785, 0.901, 0.954, 1.0)
GRID_SHARE = (0.716, 0.859, 0.924, 1.0)
#: a 2-D stencil's share (loads that re-read their neighbours' values, at least
#: :data:`REREAD_RATIO` times the footprint): round 15's 5- and 9-point stencils on an
#: 8192 x 8192 grid in groups of 32 x 8, 16 x 16 and 64 x 4 (``round15-probe.txt``), the mean
#: rate over the six, counting both grids once: float32 (8 bytes an item) 1,837 GB/s, float64
#: (16) 2,541 GB/s; 1 from 24 bytes on as the streams
STENCIL_SHARE = (0.609, 0.609 + (0.843 - 0.609) / 2, 0.843, 1.0)
#: loaded bytes over footprint bytes from which a kernel's loads count as a stencil's
REREAD_RATIO = 2.0
#: the calibration's rate the shares divide (bandwidth.json's dram figure, GB/s)
CALIBRATION_GBPS = 3015.0


def stream_share(item_bytes: float, two_d: bool) -> float:
    """The share of the calibration's DRAM rate a stream reaches at ``item_bytes`` a work
    item (1 where the figure is unknown or not positive)."""
    if not np.isfinite(item_bytes) or item_bytes <= 0:
        return 1.0
    return float(np.interp(item_bytes, ITEM_BYTES, GRID_SHARE if two_d else FLAT_SHARE))


def stencil_share(item_bytes: float) -> float:
    """:func:`stream_share` for a 2-D stencil's re-reading loads (:data:`STENCIL_SHARE`)."""
    if not np.isfinite(item_bytes) or item_bytes <= 0:
        return 1.0
    return float(np.interp(item_bytes, ITEM_BYTES, STENCIL_SHARE))


def is_two_d(group_size) -> bool:
    """Whether a group spreads over two or more axes (more than one work item on each)."""
    return sum(1 for g in (group_size or ()) if g > 1) >= 2
