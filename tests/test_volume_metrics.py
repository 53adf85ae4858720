"""Hardware metrics on top of the footprints: L1 bank conflicts, L2->L1, DRAM waves."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from workbench.models.roofline import (
    Access, LaunchConfig, ThreadGroup, capacity_miss_factor, dram_volume, footprint,
    l1_load_cycles, l2_l1_volume, linear_range_boxes, oversubscription, wave_groups)


# {{{ L1 load cycles

def reference_cycles(byte_addresses_per_halfwarp, bank_width=8, banks=16):
    total = 0
    for addrs, size in byte_addresses_per_halfwarp:
        words = {(a + o) // bank_width for a in addrs
                 for o in (*range(0, size, bank_width), size - 1)}
        per_bank = {}
        for w in words:
            per_bank[w % banks] = per_bank.get(w % banks, 0) + 1
        total += max(per_bank.values(), default=0)
    return total


@pytest.mark.parametrize("size,stride,per_hw", [
    (4, 1, 1), (8, 1, 1), (8, 2, 2), (4, 2, 1), (8, 4, 4), (4, 4, 2),
    (8, 32, 16), (4, 32, 16), (8, 16, 16), (8, 0, 1), (4, 0, 1), (16, 1, 2)])
def test_bank_conflicts_1d(size, stride, per_hw):
    launch = LaunchConfig((64,), (4,))
    acc = [Access.make("a", size, f"{stride}*tx + 64*bx")]
    assert l1_load_cycles(acc, launch, (2, 0, 0)) == 4 * per_hw
    # The reference: distinct 8 B words per bank, per half warp.
    ref = reference_cycles([([size * (stride * t + 128) for t in range(h, h + 16)], size)
                            for h in range(0, 64, 16)])
    assert ref == 4 * per_hw


def test_bank_conflicts_only_loads_summed_and_averaged():
    launch = LaunchConfig((32,), (8,))
    acc = [Access.make("a", 8, "tx + 32*bx"), Access.make("b", 8, "2*tx"),
           Access.make("c", 8, "tx", direction="store")]
    assert l1_load_cycles(acc, launch) == 2 * 1 + 2 * 2
    assert l1_load_cycles(acc, launch, [(0, 0, 0), (5, 0, 0)]) == 6.0
    # Loops: one instruction execution per iteration; guards mask threads.
    loop = [Access.make("a", 8, "tx + 16*i", loops={"i": (0, 5)})]
    assert l1_load_cycles(loop, LaunchConfig((16,))) == 5
    guarded = [Access.make("a", 8, "2*tx", guards=["tx < 8"])]
    assert l1_load_cycles(guarded, launch) == 1   # 8 threads, words 0..14 even: 1 each
    none = [Access.make("a", 8, "tx", guards=["tx < 0"])]
    assert l1_load_cycles(none, launch) == 0
    # A partial last half warp still costs a cycle.
    assert l1_load_cycles([Access.make("a", 4, "tx")], LaunchConfig((20,))) == 2


@pytest.mark.parametrize("nx,per_hw", [(64, 2), (68, 2), (72, 1), (65, 2)])
def test_bank_conflicts_narrow_blocks(nx, per_hw):
    # Block 8 x 8: a half warp reads two rows of 8 doubles nx apart (paper, fig. 5).
    launch = LaunchConfig((8, 8))
    acc = [Access.make("a", 8, f"tx + {nx}*ty")]
    assert l1_load_cycles(acc, launch) == 4 * per_hw
    ref = reference_cycles([([8 * (t % 8 + nx * (t // 8)) for t in range(h, h + 16)], 8)
                            for h in range(0, 64, 16)])
    assert ref == 4 * per_hw


def test_bank_conflicts_3d_block_random_against_reference():
    rng = random.Random(1)
    launch = LaunchConfig((4, 3, 5))
    for _ in range(10):
        cx, cy, cz, size = rng.randint(0, 9), rng.randint(0, 40), rng.randint(0, 90), \
            rng.choice((4, 8))
        acc = [Access.make("a", size, f"{cx}*tx + {cy}*ty + {cz}*tz + 3")]
        order = [(x, y, z) for z in range(5) for y in range(3) for x in range(4)]
        halves = [([size * (cx * x + cy * y + cz * z + 3) for x, y, z in order[h:h + 16]],
                   size) for h in range(0, 60, 16)]
        assert l1_load_cycles(acc, launch) == reference_cycles(halves)


def _random_looped_access(rng, guard_on_loop: bool):
    loops = {"i": (rng.randint(-3, 2), rng.randint(3, 40)),
             "j": (0, rng.randint(1, 9)),
             # a third loop, empty now and then: no instance at all
             "k": (0, rng.choice((0, 1, 3)))}
    coeffs = [rng.choice((0, 1, 2, 3, 5, 8, 16, 33, 64, -7)) for _ in range(5)]
    index = (f"{coeffs[0]}*tx + {coeffs[1]}*ty + {coeffs[2]}*i + {coeffs[3]}*j "
             f"+ {coeffs[4]}*bx + {rng.choice((0, 5, 12))}*k + {rng.randint(0, 50)}")
    guards = [f"tx < {rng.randint(1, 24)}"] if rng.random() < 0.5 else []
    if guard_on_loop:
        guards.append(f"i + tx < {rng.randint(5, 40)}")
    # the loops' own bounds, as loopy's domain repeats them: no guard of an instance
    guards += [f"i >= {loops['i'][0]}", f"j <= {loops['j'][1] - 1}"]
    if rng.random() < 0.3:
        guards.append(f"i + j < {rng.randint(2, 30)}")    # a triangle: walked
    if rng.random() < 0.2:
        guards.append(f"j - 2*k == {rng.randint(0, 2)}")  # an equality: walked
    return Access.make("a", rng.choice((1, 2, 4, 8, 12, 16)), index, loops=loops,
                       guards=guards, base_alignment=rng.choice((0, 4, 12)))


@pytest.mark.parametrize("seed", range(6))
def test_loop_classes_equal_every_instance_walked(seed):
    """The instances of a looped access counted once per class of their address's
    shift (l1_loads.loop_shifts) give what walking every instance gives: bank-conflict
    cycles and requested sectors alike, on random affine accesses of three loops (one
    of them empty now and then), with guards that read a loop (walked either way) and
    guards that do not."""
    from workbench.models.roofline.l1_loads import (
        _load_cycles_one, _sectors_one, loop_shifts)

    rng = random.Random(seed)
    launch = LaunchConfig((rng.choice((8, 16, 20, 32)), rng.choice((1, 2, 3))), (4,))
    checked = 0
    for k in range(12):
        acc = _random_looped_access(rng, guard_on_loop=k % 4 == 3)
        block = (rng.randint(0, 3), 0, 0)
        fast = (_load_cycles_one(acc, launch, block, {}, 16, 16, 8),
                _sectors_one(acc, launch, block, {}, 32, 32))
        walked = (_load_cycles_one(acc, launch, block, {}, 16, 16, 8, walk=True),
                  _sectors_one(acc, launch, block, {}, 32, 32, walk=True))
        assert fast == walked, (acc, launch, block)
        checked += loop_shifts(acc, {}, 32) is not None
    assert 1 <= checked < 12     # both ways taken: classes, and the walk

# }}}


# {{{ L2 -> L1 per block

def test_l2_l1_1d_block():
    launch = LaunchConfig((100,), (10,))
    acc = [Access.make("a", 4, "tx + 100*bx"), Access.make("b", 4, "tx + 100*bx",
                                                              direction="store")]
    vol = l2_l1_volume(acc, launch)
    assert vol.load_sectors_bytes == 32 * -(-400 // 32) == 416
    assert vol.load_lines_bytes == 128 * -(-400 // 128) == 512
    assert vol.store_bytes == 416 and vol.sectors_bytes == 832 and vol.lines_bytes == 512
    # Block 3 starts at byte 1200 (mid-sector, mid-line).
    vol3 = l2_l1_volume(acc, launch, (3, 0, 0), method="enumerate")
    assert vol3.load_sectors_bytes == 32 * (1599 // 32 - 1200 // 32 + 1)
    assert vol3.load_lines_bytes == 128 * (1599 // 128 - 1200 // 128 + 1)
    # Averaging over representative blocks.
    avg = l2_l1_volume(acc, launch, [(0, 0, 0), (3, 0, 0)])
    assert avg.load_sectors_bytes == (416 + vol3.load_sectors_bytes) / 2
    # Write-through: a repeated store instruction is counted again, loads are not.
    twice = acc + [Access.make("b", 4, "tx + 100*bx", direction="store"),
                   Access.make("a", 4, "tx + 100*bx")]
    vol2 = l2_l1_volume(twice, launch)
    assert vol2.store_bytes == 2 * 416 and vol2.load_sectors_bytes == 416


R = 4


def star_accesses(block, halo=R):
    bx_, by_, bz_ = block
    x = f"(tx + {bx_}*bx + {halo})"
    y = f"(ty + {by_}*by + {halo})"
    z = f"(tz + {bz_}*bz + {halo})"
    offsets = [(0, 0, 0)] + [o for d in range(1, R + 1) for s in (d, -d)
                             for o in ((s, 0, 0), (0, s, 0), (0, 0, s))]
    acc = [Access.make("a", 8, f"({z} + {dz})*nx*ny + ({y} + {dy})*nx + {x} + {dx}")
           for dx, dy, dz in offsets]
    acc.append(Access.make("b", 8, f"{z}*nx*ny + {y}*nx + {x}", direction="store"))
    return acc


def test_l2_l1_star_stencil_32x4x8():
    block = (32, 4, 8)
    params = {"nx": 208, "ny": 120, "nz": 90}   # rows start on 128 B lines
    launch = LaunchConfig(block, (4, 4, 4))
    acc = star_accesses(block)
    vol = l2_l1_volume(acc, launch, (1, 2, 1), params)
    enum = l2_l1_volume(acc, launch, (1, 2, 1), params, method="enumerate")
    assert vol == enum
    group = ThreadGroup.block(launch, 1, 2, 1)
    assert vol.load_sectors_bytes == 32 * footprint(acc[:-1], group, 32,
                                                    method="enumerate", params=params)["a"]
    # Closed form: rows in the block's x-y-z box read x-halo too (40 doubles = 10
    # sectors, 3 lines); the 2R*bz y-halo rows and 2R*by z-halo rows read 32 doubles
    # (8 sectors, 3 lines since they start 4 doubles into a line).
    center, halo_rows = 4 * 8, 2 * R * 8 + 2 * R * 4
    assert vol.load_sectors_bytes == 32 * (10 * center + 8 * halo_rows) == 34816
    assert vol.load_lines_bytes == 128 * 3 * (center + halo_rows)
    assert vol.store_bytes == 8 * 32 * 4 * 8
    # Every row here starts and ends on a sector: sectors add nothing to the bytes.
    assert vol.load_sectors_bytes == footprint(acc[:-1], group, 1, params=params)["a"] \
        == 8 * (32 * 4 * 8 + 2 * R * (4 * 8 + 32 * 8 + 32 * 4))
    # Shifted by one double, every row touches one more sector.
    odd = l2_l1_volume(star_accesses(block, halo=R + 1), launch, (1, 2, 1), params)
    assert odd.load_sectors_bytes == 32 * (11 * center + 9 * halo_rows)


def test_capacity_miss_factor_and_oversubscription():
    assert capacity_miss_factor(0.0, 0.8, 50.0, 5.0) == pytest.approx(0.8 * np.exp(-50))
    assert capacity_miss_factor(100.0, 0.8, 50.0, 5.0) == pytest.approx(0.8)
    r = capacity_miss_factor(np.linspace(0, 5, 11), 1.0, 20.0, 3.0)
    assert np.all(np.diff(r) > 0) and np.all((r >= 0) & (r <= 1))
    assert oversubscription(49152, 4, 128 * 1024) == pytest.approx(1.5)
    with pytest.raises(ValueError):
        oversubscription(1, 1, 0)

# }}}


# {{{ DRAM waves

def test_linear_range_boxes_cover_exactly():
    rng = random.Random(3)
    dims = (5, 7, 3)
    order = list(itertools.product(range(3), range(7), range(5)))  # z, y, x
    for _ in range(40):
        s = rng.randint(0, 105)
        e = rng.randint(s, 105)
        boxes = linear_range_boxes(dims, s, e)
        assert len(boxes) <= 5
        pts = [(x, y, z) for b in boxes for x in range(*b[0]) for y in range(*b[1])
               for z in range(*b[2])]
        assert sorted(pts, key=lambda p: (p[2], p[1], p[0])) == \
            [(x, y, z) for z, y, x in order[s:e]]


def test_dram_stream_equals_array_bytes():
    launch = LaunchConfig((256,), (1000,))
    acc = [Access.make("a", 4, "tx + 256*bx"),
           Access.make("b", 4, "tx + 256*bx", direction="store")]
    vol = dram_volume(acc, launch, 80 * 8)
    assert vol.exact and vol.waves == 2
    assert vol.load_bytes == vol.store_bytes == 1000 * 256 * 4
    # Large grid: representative waves, still exact for a stream.
    big = LaunchConfig((256,), (100_001,))
    vol = dram_volume(acc, big, 640)
    assert not vol.exact and vol.waves == 157
    assert vol.load_bytes == vol.total_bytes / 2 == 100_001 * 256 * 4


def test_dram_3d_grid_stream_odd_waves():
    launch = LaunchConfig((32, 4), (5, 7, 3))
    acc = [Access.make("a", 4, "tx + 32*bx + 160*(ty + 4*by) + 160*28*bz")]
    vol = dram_volume(acc, launch, 11)
    assert vol.waves == 10 and vol.load_bytes == 160 * 28 * 3 * 4 and vol.store_bytes == 0
    last = wave_groups(launch, 11, 9)   # blocks 99..104: tail of one row, then a row
    assert sum(np.prod([hi - lo for lo, hi in g.blocks]) for g in last) == 6


def test_dram_1d_stencil_overlap_and_coverage():
    launch = LaunchConfig((64,), (100,))
    acc = [Access.make("a", 8, "tx + 64*bx + d", loops={"d": (0, 3)})]
    vol = dram_volume(acc, launch, 10)
    w = vol.load_waves
    assert w[0].curr_bytes == 32 * 161 and w[0].overlap_bytes == 0
    assert all(x.curr_bytes == 32 * 161 and x.overlap_bytes == 32 for x in w[1:])
    assert vol.load_bytes == 32 * (1 + (64 * 100 + 2) * 8 // 32) == 32 * 1601
    assert vol.load_bytes == 32 * footprint(acc, ThreadGroup.grid(launch), 32)["a"]
    # Coverage factor and a miss ratio of 1: no reuse from the previous wave.
    vol = dram_volume(acc, launch, 10, l2_bytes=6 * 2**20, miss_ratio=lambda c: 1.0)
    assert vol.load_waves[1].coverage == pytest.approx((6 * 2**20 - 160 * 32) / (161 * 32))
    assert vol.load_bytes == 10 * 161 * 32


def brute_wave_sectors(block, grid, nx, ny, blocks):
    sectors = set()
    for bl in blocks:
        bx, by = bl % grid[0], bl // grid[0]
        for ty in range(block[1]):
            for tx in range(block[0]):
                x, y = tx + block[0] * bx + 1, ty + block[1] * by + 1
                for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
                    sectors.add((8 * ((y + dy) * nx + x + dx)) // 32)
    return sectors


def test_dram_2d_stencil_waves_against_brute_force():
    block, grid, nx, ny, bpw = (16, 4), (6, 9), 98, 38, 8
    launch = LaunchConfig(block, grid)
    acc = [Access.make("a", 8, f"(ty + 4*by + 1 + {dy})*{nx} + tx + 16*bx + 1 + {dx}")
           for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))]
    vol = dram_volume(acc, launch, bpw)
    total = 0
    prev = set()
    for k, wv in enumerate(vol.load_waves):
        curr = brute_wave_sectors(block, grid, nx, ny,
                                  range(k * bpw, min((k + 1) * bpw, 54)))
        assert wv.curr_bytes == 32 * len(curr) and wv.prev_bytes == 32 * len(prev)
        assert wv.overlap_bytes == 32 * len(curr & prev)
        total += 32 * (len(curr) - len(curr & prev))
        prev = curr
    assert vol.load_bytes == total

# }}}


def test_dram_volume_enumeration_equals_isl_on_the_star_stencil():
    """The fast enumerated wave volume and the ISL one agree exactly."""
    from workbench.models.roofline import Access, LaunchConfig, dram_volume
    nx = ny = nz = 32
    accs = []
    for axis in range(3):
        for d in range(-4, 5):
            if d == 0 and axis:
                continue
            off = [0, 0, 0]
            off[axis] = d
            idx = (f"({nz + 8}*{ny + 8})*(tz + 4*bz + 4 + {off[2]}) + "
                   f"{nx + 8}*(ty + 4*by + 4 + {off[1]}) + (tx + 8*bx + 4 + {off[0]})")
            accs.append(Access.make("u", 8, idx))
    launch = LaunchConfig(block=(8, 4, 4), grid=(nx // 8, ny // 4, nz // 4))
    a = dram_volume(accs, launch, blocks_per_wave=16, method="isl")
    b = dram_volume(accs, launch, blocks_per_wave=16, method="enumerate")
    assert a.load_bytes == b.load_bytes > 0
    assert [w.overlap_bytes for w in a.load_waves] == [w.overlap_bytes for w in b.load_waves]
