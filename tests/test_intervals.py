"""The intervals footprint method (unions of contiguous runs) against enumeration and
ISL, its fallbacks, batching of shifted accesses, and L1 requested sectors."""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np
import pytest

from workbench.kernels.study import lbm_spec, star_stencil_spec
from workbench.models.roofline import (
    Access, Direction, LaunchConfig, ThreadGroup, accesses_from_loopy, footprint)
from workbench.models.roofline.intervals import footprint_ranges, union_size, unit_ranges
from workbench.models.roofline.l1_loads import l1_requested_sectors

GRANULARITIES = (1, 32, 128)


def counts(accesses, group, granularity, method, **kw):
    """Per-array counts with empty arrays dropped (methods may or may not list them)."""
    return {k: v for k, v in footprint(accesses, group, granularity, method=method,
                                       **kw).items() if v}


def assert_three_agree(accesses, group, granularities=GRANULARITIES, isl=True, **kw):
    out = {}
    for g in granularities:
        ivl = counts(accesses, group, g, "intervals", **kw)
        enum = counts(accesses, group, g, "enumerate", **kw)
        assert ivl == enum, (g, group.blocks, group.threads, ivl, enum)
        if isl:
            assert counts(accesses, group, g, "isl", **kw) == enum, (g, group.blocks)
        out[g] = enum
    return out


# {{{ hand-written affine accesses

LAUNCH = LaunchConfig((16, 4, 2), (3, 2, 2))
NX, NY = 16 * 3 + 5, 4 * 2 + 3          # padded row / plane extents (elements)
X = "(tx + 16*bx)"
Y = "(ty + 4*by)"
Z = "(tz + 2*bz)"
LIN = f"({X} + {NX}*({Y} + {NY}*{Z}))"


def groups(launch=LAUNCH):
    """Single blocks (first, interior, last), several blocks, a partial box not
    touching the grid's origin, a thread sub-box, and the whole grid."""
    gx, gy, gz = launch.grid
    yield "block0", ThreadGroup.block(launch)
    yield "block_mid", ThreadGroup.block(launch, gx // 2, gy - 1, gz // 2)
    yield "block_last", ThreadGroup.block(launch, gx - 1, gy - 1, gz - 1)
    yield "row", ThreadGroup(launch, ((0, gx), (0, 1), (0, 1)))
    yield "partial", ThreadGroup(launch, ((1, gx), (gy - 1, gy), (gz - 1, gz)))
    yield "threads", ThreadGroup(launch, ((0, gx), (0, gy), (0, 1)),
                                 threads=((3, 11), (1, 3), (1, 2)))
    yield "grid", ThreadGroup.grid(launch)


CASES = {
    "stride1_f32": [Access.make("a", 4, LIN)],
    "stride1_f64_loads_and_store": [
        Access.make("a", 8, LIN), Access.make("a", 8, f"{LIN} + 1"),
        Access.make("b", 8, LIN, direction="store")],
    "reversed_f64": [Access.make("a", 8, f"5000 - {LIN}")],
    "reversed_f32_misaligned": [Access.make("a", 4, f"5000 - {LIN}", base_alignment=2)],
    "misaligned_f64": [Access.make("a", 8, LIN, base_alignment=12),
                       Access.make("c", 4, f"{LIN} + 3", base_alignment=36)],
    # k runs contiguously; k, tx, bx merge into one coordinate of 5 * 48 elements
    "loop_is_run": [Access.make("a", 8, f"k + 5*tx + 80*bx + 300*ty",
                                loops={"k": (0, 5)})],
    # a y-stencil written with a loop variable (negative lower bound)
    "loop_other": [Access.make("a", 8, f"{X} + {NX}*({Y} + 2 + k + {NY}*{Z})",
                               loops={"k": (-2, 3)})],
    # contiguous along ty, strided along tx: the run is not tx
    "run_along_ty": [Access.make("a", 8, "ty + 4*by + 9*tx + 9*16*bx")],
    "guard_run_upper": [Access.make("a", 8, LIN, guards=[f"{X} < 37"])],
    "guard_run_lower": [Access.make("a", 8, LIN, guards=[f"{X} >= 21"])],
    "guard_run_both_reversed": [Access.make("a", 4, f"7000 - {LIN}",
                                            guards=[f"{X} >= 5", f"{X} <= 40"])],
    "guard_run_thread_only": [Access.make("a", 8, LIN, guards=["tx >= 3", "tx < 13"])],
    "guard_other_coords": [Access.make("a", 8, LIN,
                                       guards=[f"{Y} < 6", f"{Z} >= 1", "ty + tz <= 3"])],
    "guard_coupled_run_other": [Access.make("a", 8, LIN,
                                            guards=[f"{X} + 2*{Y} < 40",
                                                    f"{X} - {Y} >= 2"])],
    # coefficients other than +-1 on the run: ceil / floor of the clipped bounds
    "guard_run_coefficients": [Access.make("a", 8, LIN,
                                           guards=[f"2*{X} + {Y} <= 41",
                                                   f"3*{X} - {Y} >= 7"]),
                               Access.make("b", 4, f"900 - {LIN}",
                                           guards=[f"-3*{X} + 2*tz + 50 >= 0",
                                                   f"2*{X} + ty >= 9"])],
    "guard_coupled_loop": [Access.make("a", 8, f"{X} + {NX}*(k + {NY}*{Z})",
                                       loops={"k": (0, 6)}, guards=["k <= tx"])],
    "equality_one_var": [Access.make("a", 8, LIN, guards=["bz == 0"]),
                         Access.make("b", 4, LIN, guards=["tz == 1", "2*ty == 4"])],
    "equality_no_solution": [Access.make("a", 8, LIN, guards=["2*ty == 3"]),
                             Access.make("b", 8, LIN)],
    "constant_guards": [Access.make("a", 8, LIN, guards=["0 <= 1"]),
                        Access.make("b", 8, LIN, guards=["1 <= 0"])],
}


#: barvinok needs about three minutes to count array b of this case over the whole
#: grid at byte granularity: no ISL on the grid there
ISL_SLOW = {"guard_run_coefficients"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_intervals_equal_enumeration_and_isl(name):
    accesses = CASES[name]
    isl_groups = ("block_mid", "partial", "threads") + \
        (() if name in ISL_SLOW else ("grid",))
    for label, group in groups():
        # ISL on a few groups only (it is the slow one); enumeration on all
        assert_three_agree(accesses, group, isl=label in isl_groups)


def test_intervals_closed_forms():
    """Absolute numbers, so that all three methods cannot be wrong together."""
    acc = [Access.make("a", 4, "tx + 64*bx")]
    launch = LaunchConfig((64,), (10,))
    block3 = ThreadGroup.block(launch, 3)
    # bytes 768 .. 1023: sectors 24..31, lines 6..7
    assert unit_ranges(acc[0], block3, 32, {}).tolist() == [[24, 31]]
    assert unit_ranges(acc[0], block3, 128, {}).tolist() == [[6, 7]]
    assert footprint(acc, ThreadGroup.grid(launch), 1, method="intervals") == {"a": 2560}
    # reversed: element 1000 - x at byte 4*(1000 - x); block 1 (x = 64..127) covers
    # bytes 3492..3747
    rev = Access.make("a", 4, "1000 - tx - 64*bx")
    r = unit_ranges(rev, ThreadGroup.block(launch, 1), 1, {})
    assert r.tolist() == [[4 * (1000 - 127), 4 * (1000 - 64) + 3]]
    # an 8-byte element at a 4-byte offset straddles: 65 sectors for 256 elements
    mis = [Access.make("a", 8, "tx + 64*bx", base_alignment=4)]
    group = ThreadGroup(launch, ((0, 4),))
    assert footprint(mis, group, 32, method="intervals") == {"a": 65}
    assert footprint(mis, group, 128, method="intervals") == {"a": 17}
    # guards clip the run from both sides: x in [10, 150)
    g = [Access.make("a", 8, "tx + 64*bx", guards=["tx + 64*bx >= 10",
                                                   "tx + 64*bx < 150"])]
    assert footprint(g, ThreadGroup.grid(launch), 1, method="intervals") == \
        {"a": 8 * 140}
    # loop folded into the run: k + 5*tx covers 0 .. 5*64*10 - 1 exactly once
    lp_ = [Access.make("a", 8, "k + 5*tx + 320*bx", loops={"k": (0, 5)})]
    assert footprint(lp_, ThreadGroup.grid(launch), 8, method="intervals") == {"a": 3200}
    # a run along ty with tx strided: 4 rows of 16 elements = 16 runs
    col = Access.make("a", 4, "ty + 100*tx")
    r = unit_ranges(col, ThreadGroup.block(LaunchConfig((16, 4))), 1, {})
    assert r.shape == (16, 2) and np.all(r[:, 1] - r[:, 0] + 1 == 16)


def test_equality_guard_on_block_coordinate():
    # bz == 0 keeps exactly the first z-slab of blocks
    acc = [Access.make("a", 8, LIN, guards=["bz == 0"])]
    whole = footprint(acc, ThreadGroup.grid(LAUNCH), 1, method="intervals")
    slab = footprint([Access.make("a", 8, LIN)],
                     ThreadGroup(LAUNCH, ((0, 3), (0, 2), (0, 1))), 1, method="intervals")
    assert whole == slab == {"a": 8 * 48 * 8 * 2}
    assert footprint(acc, ThreadGroup.block(LAUNCH, 0, 0, 1), 32,
                     method="intervals") == {"a": 0}
    # the guarded coordinate need not appear in the index
    row = [Access.make("a", 8, "tx + 16*bx", guards=["bz == 1"])]
    for group, want in ((ThreadGroup.block(LAUNCH, 2, 1, 0), 0),
                        (ThreadGroup.block(LAUNCH, 2, 1, 1), 8 * 16),
                        (ThreadGroup.grid(LAUNCH), 8 * 48)):
        assert counts(row, group, 1, "intervals") == counts(row, group, 1, "enumerate") \
            == ({"a": want} if want else {})


def test_random_accesses_against_enumeration():
    """Seeded random affine accesses, guards and groups: intervals == enumeration
    whenever the method applies (and it applies to most of them)."""
    rng = random.Random(20261122)
    names = ["tx", "ty", "tz", "bx", "by", "bz", "k"]
    handled = 0
    for _ in range(200):
        block = (rng.choice([1, 4, 8]), rng.choice([1, 2, 3]), rng.choice([1, 2]))
        grid = (rng.choice([1, 2, 3]), rng.choice([1, 2]), rng.choice([1, 2]))
        launch = LaunchConfig(block, grid)
        box = []
        for g in grid:
            lo = rng.randrange(g)
            box.append((lo, rng.randrange(lo + 1, g + 1)))
        group = ThreadGroup(launch, tuple(box))
        accs = []
        for _ in range(rng.randint(1, 3)):
            terms = {v: rng.choice([1, -1, 2, 3, block[0], block[0] * grid[0], 16, 32])
                     for v in rng.sample(names, rng.randint(1, 4))}
            index = " + ".join(f"({c})*{v}" for v, c in terms.items())
            guards = []
            for _ in range(rng.choice([0, 1, 2])):
                vs = rng.sample(names, rng.randint(1, 3))
                lhs = " + ".join(f"({rng.choice([1, -1, 2, -3])})*{v}" for v in vs)
                ops = ["<", "<=", ">", ">="] + (["=="] if len(vs) == 1 else [])
                guards.append(f"{lhs} {rng.choice(ops)} {rng.randint(-3, 12)}")
            accs.append(Access.make(rng.choice("ab"), rng.choice([1, 4, 8, 16]),
                                    f"{index} + {rng.randint(-9, 99)}",
                                    loops={"k": (rng.randint(-2, 1), rng.randint(2, 5))},
                                    guards=guards, base_alignment=rng.choice([0, 4, 12])))
        for g in (1, 32):
            if footprint_ranges(accs, group, g, {}) is None:
                continue
            handled += 1
            assert counts(accs, group, g, "intervals") == \
                counts(accs, group, g, "enumerate"), (accs, group, g)
    assert handled >= 150


# }}}


# {{{ what the method does not handle

UNHANDLED = {
    "coupled_equality": [Access.make("a", 8, "tx + 16*bx + 100*ty", guards=["tx == ty"])],
    "one_bad_among_good": [Access.make("a", 8, "tx + 16*bx"),
                           Access.make("b", 8, "2*tx + 7*ty", guards=["tx == ty"])],
}


@pytest.mark.parametrize("accesses", [
    [Access.make("a", 4, "2*tx + 64*bx")],                  # no unit-stride coordinate
    [Access.make("a", 8, "tx + 16*bx"), Access.make("b", 8, "2*tx + 7*ty")],
    [Access.make("u", 4, "(ty + 1)*70 + 17*tx + 3", guards=["tx + 16*bx < 45"])],
])
def test_accesses_without_a_unit_stride_run_point_by_point(accesses):
    launch = LaunchConfig((16, 4), (3, 2))
    for group in (ThreadGroup.block(launch, 1, 1), ThreadGroup.grid(launch)):
        for g in GRANULARITIES:
            enum = footprint(accesses, group, g, method="enumerate")
            assert footprint(accesses, group, g, method="intervals") == enum
            assert footprint(accesses, group, g, method="isl") == enum


@pytest.mark.parametrize("name", sorted(UNHANDLED))
def test_unhandled_accesses_fall_back(name):
    accesses = UNHANDLED[name]
    launch = LaunchConfig((16, 4), (3, 2))
    for group in (ThreadGroup.block(launch, 1, 1), ThreadGroup.grid(launch)):
        bad = [a for a in accesses if unit_ranges(a, group, 32, {}) is None]
        assert bad and bad[-1] is accesses[-1]
        assert footprint_ranges(accesses, group, 32, {}) is None
        with pytest.raises(ValueError, match="intervals"):
            footprint(accesses, group, 32, method="intervals")
        for g in GRANULARITIES:
            enum = footprint(accesses, group, g, method="enumerate")
            assert footprint(accesses, group, g, method="auto") == enum
            assert sum(enum.values()) > 0


def test_handled_access_keeps_working_beside_the_fallback():
    # the good access alone is handled
    launch = LaunchConfig((16, 4), (3, 2))
    good = UNHANDLED["one_bad_among_good"][0]
    r = unit_ranges(good, ThreadGroup.grid(launch), 8, {})
    assert r is not None and union_size([r]) == 48

# }}}


# {{{ batching of shifted accesses

def star_2d(halo=2):
    offs = [(0, 0)] + [o for d in range(1, halo + 1) for s in (d, -d)
                       for o in ((s, 0), (0, s))]
    return [Access.make("u", 8, f"(ty + 4*by + {halo} + {dy})*70 + tx + 16*bx + {halo}"
                        f" + {dx}", guards=["tx + 16*bx < 45"]) for dx, dy in offs]


def test_shifted_accesses_share_one_batch():
    launch = LaunchConfig((16, 4), (3, 3))
    acc = star_2d()
    assert len(acc) == 9
    for group in (ThreadGroup.block(launch, 1, 1), ThreadGroup.grid(launch)):
        for g in GRANULARITIES:
            ranges = footprint_ranges(acc, group, g, {})
            assert list(ranges) == ["u"] and len(ranges["u"]) == 1
            single = unit_ranges(acc[0], group, g, {})
            # one range per run and run of consecutive shifts: the row's five loads
            # (dx of -2 to 2) are one, the four other rows' (dy of +-1, +-2) one each
            assert ranges["u"][0].shape == (5 * len(single), 2)
            assert union_size(ranges["u"]) == \
                footprint(acc, group, g, method="enumerate")["u"]
    # a different guard, element size or array starts a batch of its own
    extra = [Access.make("u", 8, "(ty + 4*by)*70 + tx + 16*bx", guards=["ty >= 1"]),
             Access.make("u", 4, "(ty + 4*by)*70 + tx + 16*bx + 5"),
             Access.make("w", 8, "(ty + 4*by)*70 + tx + 16*bx", direction="store")]
    grid = ThreadGroup.grid(launch)
    ranges = footprint_ranges(acc + extra, grid, 32, {})
    assert sorted(ranges) == ["u", "w"] and len(ranges["u"]) == 3
    assert {k: union_size(v) for k, v in ranges.items()} == \
        footprint(acc + extra, grid, 32, method="enumerate")
    # the same guard shape with another constant is another batch, too
    base = "(ty + 4*by)*70 + tx + 16*bx"
    cut = [Access.make("u", 8, f"{base} + {c}", guards=[f"tx + ty < {lim}"])
           for c, lim in ((0, 5), (1, 5), (2, 9))]
    ranges = footprint_ranges(cut, grid, 1, {})
    assert len(ranges["u"]) == 2
    for g in GRANULARITIES:
        assert footprint(cut, grid, g, method="intervals") == \
            footprint(cut, grid, g, method="enumerate")

# }}}


# {{{ the study kernels through loopy

PARAMS = {"nx": 40, "ny": 24, "nz": 20}
SPECS = {"star": star_stencil_spec, "lbm": lbm_spec}
BLOCKS = ((32, 4, 2), (1, 8, 4), (16, 8, 1))
R = 4


@functools.lru_cache(maxsize=None)
def study_accesses(kernel, variant, block):
    spec = SPECS[kernel]()
    program = spec.build(spec.request(variant, "float64", block))
    return accesses_from_loopy(program, PARAMS)


def expected_grid_bytes(kernel):
    nx, ny, nz = PARAMS["nx"], PARAMS["ny"], PARAMS["nz"]
    n = nx * ny * nz
    faces = ny * nz + nx * nz + nx * ny
    if kernel == "star":
        return {"u": 8 * (n + 2 * R * faces), "out": 8 * n}
    return {"f": 8 * 15 * n, "phi": 8 * (n + 2 * faces), "f_new": 8 * 15 * n}


@pytest.mark.parametrize("kernel", sorted(SPECS))
@pytest.mark.parametrize("variant", ("nofold", "fold_y", "fold_z"))
@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_study_kernels_intervals_equal_enumeration(kernel, variant, block):
    accesses, launch = study_accesses(kernel, variant, block)
    grid = ThreadGroup.grid(launch)
    # whole grid: closed form in bytes, and sectors against enumeration
    assert counts(accesses, grid, 1, "intervals") == expected_grid_bytes(kernel)
    assert counts(accesses, grid, 32, "intervals") == counts(accesses, grid, 32,
                                                             "enumerate")
    gx, gy, gz = launch.grid
    for group in (ThreadGroup.block(launch, gx // 2, gy // 2, gz // 2),
                  ThreadGroup.block(launch, gx - 1, gy - 1, gz - 1)):   # edge: guards
        assert_three_agree(accesses, group, isl=False)
    partial = ThreadGroup(launch, ((gx // 2, gx), (0, 2), (gz - 2, gz)))
    assert_three_agree(accesses, partial, granularities=(32,), isl=False)
    # loads and stores separately (the DRAM model splits them): here each array is
    # only loaded or only stored
    lines = counts(accesses, grid, 128, "intervals")
    for d in ("load", "store"):
        arrays = {a.array for a in accesses if a.direction.value == d}
        assert counts(accesses, grid, 128, "intervals", direction=d) == \
            {k: v for k, v in lines.items() if k in arrays}


@pytest.mark.parametrize("kernel", sorted(SPECS))
def test_study_kernels_intervals_equal_isl(kernel):
    accesses, launch = study_accesses(kernel, "fold_z", (32, 4, 2))
    gx, gy, gz = launch.grid
    assert_three_agree(accesses, ThreadGroup.block(launch, gx - 1, 1, gz - 1),
                       granularities=(32, 128))
    if kernel == "lbm":   # barvinok is quick on the LBM's few distinct shapes
        assert_three_agree(accesses, ThreadGroup.grid(launch), granularities=(32,))


def test_study_kernel_loads_are_batched():
    accesses, launch = study_accesses("lbm", "nofold", (32, 4, 2))
    loads = [a for a in accesses if a.direction is Direction.LOAD]
    assert len(loads) == 15 + 7
    ranges = footprint_ranges(loads, ThreadGroup.block(launch, 1, 1, 1), 32, {})
    # 15 pulled populations differ only in the index constant, so do the 7 phi loads
    assert sorted(ranges) == ["f", "phi"]
    assert len(ranges["f"]) == 1 and len(ranges["phi"]) == 1
    accesses, launch = study_accesses("star", "nofold", (32, 4, 2))
    ranges = footprint_ranges(accesses, ThreadGroup.grid(launch), 32, {})
    assert len(ranges["u"]) == 1 and len(ranges["out"]) == 1

# }}}


# {{{ L1 requested sectors

def brute_requested_sectors(accesses, launch, blocks, warp=32, sector=32):
    """Per load instruction (loop iteration) and warp: distinct sectors, summed;
    mean over ``blocks``."""
    bdx, bdy, bdz = launch.block
    total = 0
    for bx, by, bz in blocks:
        for acc in accesses:
            if acc.direction is not Direction.LOAD:
                continue
            addr = acc.address
            loops = addr.loop_ranges
            for it in itertools.product(*(range(lo, hi) for lo, hi in loops.values())):
                values = dict(zip(loops, it))
                values.update(bx=bx, by=by, bz=bz)
                per_warp = {}
                for t in range(launch.threads_per_block):
                    values.update(tx=t % bdx, ty=(t // bdx) % bdy, tz=t // (bdx * bdy))
                    if not all(g.holds(values) for g in addr.guards):
                        continue
                    byte = acc.base_alignment + acc.element_size * int(
                        addr.index.evaluate(values))
                    secs = per_warp.setdefault(t // warp, set())
                    for b in range(byte, byte + acc.element_size):
                        secs.add(b // sector)
                total += sum(len(s) for s in per_warp.values())
    return total / len(blocks)


REQUESTED = {
    # 32 consecutive doubles per warp: 8 sectors
    "rows_f64": (LaunchConfig((32, 4, 1), (2, 2)),
                 [Access.make("a", 8, "tx + 64*ty + 32*bx")], 8 * 4),
    # X = 1: every thread of a warp in its own row: 32 sectors per warp
    "x1_f64": (LaunchConfig((1, 32, 2), (4, 1, 2)),
               [Access.make("a", 8, "bx + 100*(ty + 32*by) + 5000*(tz + 2*bz)")], 32 * 2),
    "x1_f32_loop": (LaunchConfig((1, 16, 4), (4, 2, 1)),
                    [Access.make("a", 4, "bx + 100*(ty + 16*by) + 4000*tz + 3*k",
                                 loops={"k": (0, 3)})], None),
    "stencil_f64_misaligned_guarded": (
        LaunchConfig((8, 4, 2), (3, 2, 2)),
        [Access.make("u", 8, f"(tz + 2*bz + 1 + dz)*{30 * 12} + (ty + 4*by + 1)*30 "
                     f"+ tx + 8*bx + 1 + dx", loops={"dx": (-1, 2), "dz": (-1, 2)},
                     guards=["tx + 8*bx < 21", "dx + dz <= 1"], base_alignment=4),
         Access.make("v", 4, "tx + 8*bx + 30*ty", guards=["ty + tx <= 6"]),
         Access.make("o", 8, "tx + 8*bx", direction="store")], None),
    # every thread of a warp reads one element: one sector per warp
    "broadcast": (LaunchConfig((32, 2, 1), (3,)), [Access.make("a", 8, "ty + 100*bx")],
                  2),
    # misaligned doubles: 32 threads span 9 sectors (two half warps would need 10)
    "misaligned_f64": (LaunchConfig((64,), (3,)),
                       [Access.make("a", 8, "tx + 64*bx", base_alignment=4)], 2 * 9),
    # overlapping rows of 16 floats 8 apart: a warp reads 24 floats = 3 sectors
    "overlapping_rows_f32": (LaunchConfig((16, 4), (2,)),
                             [Access.make("a", 4, "tx + 8*ty + 16*bx")], 2 * 3),
    "f32_strided": (LaunchConfig((16, 8, 1), (2, 1)),
                    [Access.make("a", 4, "3*tx + 48*bx + 1000*ty", base_alignment=8)],
                    None),
}


@pytest.mark.parametrize("name", sorted(REQUESTED))
def test_l1_requested_sectors_brute_force(name):
    launch, accesses, known = REQUESTED[name]
    gx, gy, gz = launch.grid
    blocks = [(0, 0, 0), (gx - 1, gy - 1, gz - 1)]
    for bl in ([blocks[0]], blocks):
        got = l1_requested_sectors(accesses, launch, bl if len(bl) > 1 else bl[0])
        assert got == brute_requested_sectors(accesses, launch, bl)
    if known is not None:
        assert l1_requested_sectors(accesses, launch, (0, 0, 0)) == known
    # stores are not requested from L1
    stores = [Access(a.array, a.element_size, a.address, a.base_alignment,
                     Direction.STORE) for a in accesses]
    assert l1_requested_sectors(stores, launch, (0, 0, 0)) == 0


def test_l1_requested_sectors_at_least_the_compulsory_sectors():
    launch, accesses, _ = REQUESTED["stencil_f64_misaligned_guarded"]
    group = ThreadGroup.block(launch, 1, 1, 1)
    comp = sum(footprint(accesses, group, 32, method="intervals", direction="load")
               .values())
    req = l1_requested_sectors(accesses, launch, (1, 1, 1))
    assert req > comp > 0


def test_l1_requested_sectors_element_wider_than_two_sectors():
    launch = LaunchConfig((32,))
    acc = [Access.make("a", 8, "tx")]
    # 32 doubles = 256 bytes = 128 two-byte "sectors"
    assert l1_requested_sectors(acc, launch, sector=2) == \
        brute_requested_sectors(acc, launch, [(0, 0, 0)], sector=2) == 128

# }}}


def test_overlapping_runs_are_merged_before_they_are_shifted():
    """Each lane reads a window of 16 elements from its own first (a Lift rewrite's
    sliding window), on five rows: the runs of a grid of blocks overlap, and are
    merged before the five row shifts are applied; the units are the same as the
    enumeration's, in far fewer ranges than one per lane, window row and shift."""
    from workbench.models.roofline.intervals import MERGED_FROM

    launch = LaunchConfig((32, 4), (8, 16))
    rows = [Access.make("u", 4, f"(ty + 4*by + {r})*300 + tx + 32*bx + w",
                        loops={"w": (0, 16)}) for r in range(5)]
    grid = ThreadGroup.grid(launch)
    for g in GRANULARITIES:
        ranges = footprint_ranges(rows, grid, g, {})
        lanes = launch.threads_per_block * launch.blocks
        assert lanes >= MERGED_FROM
        assert sum(len(r) for r in ranges["u"]) < lanes // 16     # 5,120 unmerged
        assert union_size(ranges["u"]) == footprint(rows, grid, g, method="enumerate")["u"]
