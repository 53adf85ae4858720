"""L1 -> register cycles and the sectors loads request from L1 (Ernst et al., sections
III-B and III-F; the definitions are in :mod:`workbench.models.roofline.metrics`).

Both walk the byte address of every thread of a block at every instance of a load
(every iteration of the loops around it).  An affine address moves by the same bytes
for every thread from one iteration to the next, so the instances fall into a few
classes that cost the same (:func:`loop_shifts`), and each class is walked once.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

import numpy as np

from workbench.models.roofline.address import (
    BLOCK_VARS, Access, Direction, LaunchConfig, bound_address)
from workbench.models.roofline.distinct import distinct, distinct_count, distinct_with_counts
from workbench.models.roofline.footprint import _select

SECTOR = 32


def blocks_list(block) -> list[tuple[int, int, int]]:
    """A single ``(bx, by, bz)`` or a sequence of them."""
    if len(block) and isinstance(block[0], (tuple, list)):
        return [tuple(b) + (0,) * (3 - len(b)) for b in block]
    return [tuple(block) + (0,) * (3 - len(block))]


def _thread_bytes(access: Access, launch: LaunchConfig, block, params, group: int,
                  loops_at_start: bool = False):
    """Byte address of every (instruction instance, thread) of one block that
    accesses memory, and the index of its ``group``-thread slice (half warp, warp);
    with ``loops_at_start``, of the instance at the loops' first values alone."""
    addr = bound_address(access, params)
    bdx, bdy, bdz = launch.block
    t = np.arange(launch.threads_per_block, dtype=np.int64)
    values = {"tx": t % bdx, "ty": (t // bdx) % bdy, "tz": t // (bdx * bdy)}
    values = {k: v.reshape(1, -1) for k, v in values.items()}
    values.update(dict(zip(BLOCK_VARS, (np.int64(b) for b in block))))
    loops = addr.loop_ranges
    if loops_at_start:
        loops = {name: (lo, lo + 1) for name, (lo, hi) in loops.items() if hi > lo}
    if loops:
        grids = np.meshgrid(*[np.arange(lo, hi, dtype=np.int64)
                              for lo, hi in loops.values()], indexing="ij")
        for name, g in zip(loops, grids):
            values[name] = g.reshape(-1, 1)
        n_inst = grids[0].size if grids else 1
    else:
        n_inst = 1
    shape = (n_inst, t.size)
    if n_inst == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64), 0
    byte = access.base_alignment + access.element_size * np.broadcast_to(
        np.asarray(addr.index.evaluate(values), dtype=np.int64), shape)
    mask = np.ones(shape, dtype=bool)
    for g in addr.guards:
        mask &= np.broadcast_to(np.asarray(g.holds(values)), shape)
    n_hw = -(-t.size // group)
    inst = (np.arange(n_inst, dtype=np.int64).reshape(-1, 1) * n_hw
            + (t // group).reshape(1, -1))
    inst = np.broadcast_to(inst, shape)[mask]
    return byte[mask], inst, n_inst * n_hw


def _holds_on_loops(guard, loops: dict) -> bool:
    """Whether a guard reads loop variables alone and holds at every one of their
    values (a loop's own bounds, as loopy's domain repeats them): affine, it holds on
    the whole box of the loops' ranges where it holds at every corner."""
    names = sorted(guard.expr.variables)
    if not set(names) <= set(loops) or any(loops[n][1] <= loops[n][0] for n in names):
        return False
    ends = [(loops[n][0], loops[n][1] - 1) for n in names]
    return all(bool(guard.holds(dict(zip(names, corner))))
               for corner in itertools.product(*ends))


#: an access in no loop: one instance, unshifted
_ONE_INSTANCE = (np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64))


def loop_shifts(access: Access, params, modulus: int
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """The byte shifts, modulo ``modulus``, that the access's loops add to the address
    of its instance at their first values, and how many instances have each: (shifts,
    counts), or None where a guard reads a loop variable (then an instance's active
    threads depend on it) to say more than the loop's range says.

    The address is affine, so a loop iteration moves every thread's address by the
    same number of bytes.  Moved by a multiple of a sector, a warp touches as many
    sectors; by a multiple of a bank's width, a half warp's words fall into the same
    banks turned round, so the fullest bank is as full.  Each loop's shifts repeat
    with a period of ``modulus / gcd(step, modulus)`` iterations, and the loops'
    shifts add, so the instances fall into at most ``modulus`` classes, whose sizes
    are the loops' histograms convolved modulo ``modulus``: a metric summed over all
    instances is one instance per class, weighted (issue #33: a matrix product's
    register-blocked loads, every iteration of its ``k`` loop walked, cost the
    roofline minutes a space)."""
    if not access.address.loops:
        return _ONE_INSTANCE
    addr = bound_address(access, params)
    loops = addr.loop_ranges
    if any(g.expr.variables & set(loops) and not _holds_on_loops(g, loops)
           for g in addr.guards):
        return None
    coeffs = addr.index.coeffs
    classes = np.zeros(modulus, dtype=np.int64)
    classes[0] = 1
    for name, (lo, hi) in loops.items():
        if hi <= lo:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        step = access.element_size * coeffs.get(name, 0) % modulus
        along = np.bincount(step * np.arange(hi - lo, dtype=np.int64) % modulus,
                            minlength=modulus)
        moved = np.zeros(modulus, dtype=np.int64)
        for shift in np.flatnonzero(along):
            moved += along[shift] * np.roll(classes, shift)
        classes = moved
    shifts = np.flatnonzero(classes)
    return shifts, classes[shifts]


def _cycles(byte, inst, slices: int, element_size: int, banks: int,
            bank_width: int) -> int:
    """Per slice (half warp of one instance), the distinct words in its fullest bank;
    summed."""
    offsets = sorted(set(range(0, element_size, bank_width)) | {element_size - 1})
    words = np.concatenate([(byte + o) // bank_width for o in offsets])
    insts = np.tile(inst, len(offsets))
    # distinct (instruction, word) pairs as one int64 key each: 1-D unique is far
    # faster than unique over columns
    lo = int(words.min())
    span = int(words.max()) - lo + 1
    if span * slices < 2 ** 62:
        keys = distinct(insts * span + (words - lo))
        pair_inst, pair_word = keys // span, keys % span + lo
    else:  # pragma: no cover - addresses spread over more than 2**62 / instructions
        pairs = np.unique(np.stack([insts, words]), axis=1)
        pair_inst, pair_word = pairs[0], pairs[1]
    bank_keys, counts = distinct_with_counts(pair_inst * banks + pair_word % banks)
    worst = np.zeros(slices, dtype=np.int64)
    np.maximum.at(worst, bank_keys // banks, counts)
    return int(worst.sum())


def _sectors(byte, inst, element_size: int, sector: int) -> int:
    """Distinct sectors per slice (warp of one instance), summed."""
    # an element overlaps the sectors of its first byte, of every sector start inside
    # it, and of its last byte
    offsets = sorted(set(range(0, element_size, sector)) | {element_size - 1})
    sectors = [(byte + o) // sector for o in offsets]
    lo = int(sectors[0].min())
    span = int(sectors[-1].max()) - lo + 1
    keys = np.concatenate([inst * span + (s - lo) for s in sectors])
    return distinct_count(keys)


def _per_instance_class(access: Access, launch: LaunchConfig, block, params,
                        group: int, modulus: int, metric, walk: bool) -> int:
    """``metric(byte, inst, slices)`` summed over every instance of an access: one
    instance per class of :func:`loop_shifts`, weighted, or (``walk``, or a guard
    that reads a loop) every instance walked."""
    classes = None if walk else loop_shifts(access, params, modulus)
    if classes is None:
        byte, inst, slices = _thread_bytes(access, launch, block, params, group)
        return metric(byte, inst, slices) if byte.size else 0
    shifts, counts = classes
    if not len(shifts):
        return 0          # a loop of no iteration: no instance at all
    byte, inst, slices = _thread_bytes(access, launch, block, params, group,
                                       loops_at_start=True)
    if byte.size == 0:
        return 0
    return sum(int(n) * metric(byte + int(s), inst, slices)
               for s, n in zip(shifts, counts))


def _load_cycles_one(access: Access, launch: LaunchConfig, block, params,
                     half_warp: int, banks: int, bank_width: int,
                     walk: bool = False) -> int:
    return _per_instance_class(
        access, launch, block, params, half_warp, bank_width,
        lambda byte, inst, slices: _cycles(byte, inst, slices, access.element_size,
                                           banks, bank_width), walk)


def _sectors_one(access: Access, launch: LaunchConfig, block, params, warp: int,
                 sector: int, walk: bool = False) -> int:
    return _per_instance_class(
        access, launch, block, params, warp, sector,
        lambda byte, inst, _: _sectors(byte, inst, access.element_size, sector), walk)


def l1_requested_sectors(accesses: Iterable[Access], launch: LaunchConfig,
                         block=(0, 0, 0), params: Mapping[str, int] | None = None, *,
                         warp: int = 32, sector: int = SECTOR) -> float:
    """Sectors the loads of one block request from L1 (the paper's ``Vup`` of the
    L2 -> L1 transfer, in sectors): per load instruction and warp, the distinct
    ``sector``-byte sectors its threads touch, summed.  This is what L1 would fetch
    from L2 with no reuse between instructions; mean over the blocks asked for."""
    loads = _select(accesses, Direction.LOAD)
    params = dict(params or {})
    blocks = blocks_list(block)
    total = sum(_sectors_one(acc, launch, b, params, warp, sector)
                for b in blocks for acc in loads)
    return total / len(blocks)


def l1_load_cycles(accesses: Iterable[Access], launch: LaunchConfig,
                   block=(0, 0, 0), params: Mapping[str, int] | None = None, *,
                   half_warp: int = 16, banks: int = 16, bank_width: int = 8
                   ) -> float:
    """L1 -> register cycles of the load instructions of one thread block.

    ``block`` is ``(bx, by, bz)`` or a list of representative blocks (averaged).
    Per load instruction and half warp: the largest number of distinct
    ``bank_width``-byte words that fall into one of ``banks`` banks; summed.
    """
    loads = _select(accesses, Direction.LOAD)
    params = dict(params or {})
    blocks = blocks_list(block)
    total = sum(_load_cycles_one(acc, launch, b, params, half_warp, banks, bank_width)
                for b in blocks for acc in loads)
    return total / len(blocks)


__all__ = ["SECTOR", "blocks_list", "l1_load_cycles", "l1_requested_sectors",
           "loop_shifts"]
