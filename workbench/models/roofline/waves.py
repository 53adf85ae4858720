"""Waves of concurrently running thread blocks (Ernst et al., section III-G).

Blocks are scheduled in launch order, ``bx`` fastest, then ``by``, then ``bz``
(linear block index ``bx + gx*(by + gy*bz)``). A *wave* is a run of
``blocks_per_wave`` consecutive blocks in that order; the last wave may be partial.
A run of consecutive linear indices is not a box of the grid, but it is a union of
at most five boxes (head of a row, full rows, full planes, full rows, tail of a
row); :func:`wave_groups` returns those boxes as
:class:`~workbench.models.roofline.address.ThreadGroup` objects, so the existing footprint
machinery (enumeration and ISL) applies unchanged.
"""

from __future__ import annotations

import math

from workbench.models.roofline.address import LaunchConfig, ThreadGroup


def _point(index: int, dims: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    out = []
    for g in dims:
        out.append((index % g, index % g + 1))
        index //= g
    return tuple(out)


def linear_range_boxes(dims: tuple[int, ...], start: int, stop: int
                       ) -> list[tuple[tuple[int, int], ...]]:
    """Boxes (half-open ranges per axis, fastest axis first) covering exactly the
    linear indices ``[start, stop)`` of a grid of extents ``dims``."""
    dims = tuple(int(d) for d in dims)
    if not 0 <= start <= stop <= math.prod(dims):
        raise ValueError(f"linear range [{start}, {stop}) outside grid {dims}")
    if start == stop:
        return []
    if len(dims) == 1:
        return [((start, stop),)]
    g0, rest = dims[0], dims[1:]
    first_row, last_row = start // g0, (stop - 1) // g0
    if first_row == last_row:
        return [((start - first_row * g0, stop - first_row * g0),) + _point(first_row, rest)]
    out = []
    if start % g0:
        out.append(((start % g0, g0),) + _point(first_row, rest))
        first_row += 1
    full_end = stop // g0
    out.extend(((0, g0),) + box for box in linear_range_boxes(rest, first_row, full_end))
    if stop % g0:
        out.append(((0, stop % g0),) + _point(full_end, rest))
    return out


def num_waves(launch: LaunchConfig, blocks_per_wave: int) -> int:
    if blocks_per_wave < 1:
        raise ValueError("blocks_per_wave must be positive")
    return -(-launch.blocks // int(blocks_per_wave))


def wave_range(launch: LaunchConfig, blocks_per_wave: int, wave: int) -> tuple[int, int]:
    """Linear block indices ``[start, stop)`` of wave number ``wave``."""
    n = num_waves(launch, blocks_per_wave)
    if not 0 <= wave < n:
        raise ValueError(f"wave {wave} outside 0..{n - 1}")
    start = wave * int(blocks_per_wave)
    return start, min(start + int(blocks_per_wave), launch.blocks)


def wave_groups(launch: LaunchConfig, blocks_per_wave: int, wave: int
                ) -> list[ThreadGroup]:
    """The blocks of wave ``wave`` as a list of disjoint box-shaped thread groups."""
    start, stop = wave_range(launch, blocks_per_wave, wave)
    return [ThreadGroup(launch, box)
            for box in linear_range_boxes(launch.grid, start, stop)]
