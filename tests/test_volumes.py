"""Data-volume model: address model and unique footprints (enumeration == ISL)."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from workbench.kernels.catalog import get_kernel
from workbench.models.roofline import (
    Access, AddressExpression, AffineExpression, Constraint, Direction, LaunchConfig,
    ThreadGroup, accesses_from_loopy, footprint, unique_bytes, unique_lines,
    unique_sectors)

GRANULARITIES = (1, 32, 128)


def assert_methods_agree(accesses, group, granularities=GRANULARITIES, params=None):
    results = {}
    for g in granularities:
        enum = footprint(accesses, group, g, method="enumerate", params=params)
        isl_ = footprint(accesses, group, g, method="isl", params=params)
        assert enum == isl_, (g, enum, isl_)
        results[g] = enum
    return results


# {{{ address model

def test_affine_parsing_and_constraints():
    e = AffineExpression.parse("3*(tx + 2*by) - 4 + n*ty", {"n": 5})
    assert e.coeffs == {"tx": 3, "by": 6, "ty": 5} and e.const == -4
    assert e.evaluate({"tx": 1, "by": 1, "ty": 1}) == 10
    c = Constraint.parse("tx + 16*bx < n", {"n": 40})
    assert c.holds({"tx": 7, "bx": 2}) and not c.holds({"tx": 8, "bx": 2})
    with pytest.raises(ValueError):
        AffineExpression.parse("tx*bx")
    launch = LaunchConfig((32, 4))
    assert launch.block == (32, 4, 1) and launch.grid == (1, 1, 1)
    with pytest.raises(ValueError):
        ThreadGroup(launch, ((0, 2),))


def test_unbound_parameter_is_reported():
    acc = [Access.make("a", 8, "tx + n*ty")]
    group = ThreadGroup.block(LaunchConfig((4, 4)))
    with pytest.raises(ValueError, match="n"):
        footprint(acc, group, method="isl")
    assert footprint(acc, group, params={"n": 4}) == {"a": 16 * 8}

# }}}


# {{{ (a) 1-D stride 1, (b) strided

def test_1d_stride_one():
    launch = LaunchConfig((256,), (1000,))
    acc = [Access.make("a", 4, "tx + 256*bx"),
           Access.make("b", 4, "tx + 256*bx", direction="store")]
    block = ThreadGroup.block(launch, 3)
    res = assert_methods_agree(acc, block)
    assert res[1] == {"a": 1024, "b": 1024}
    assert res[128] == {"a": 8, "b": 8}
    assert unique_sectors(acc, block, direction="load") == 32
    # Misaligned base: one more line and sector per array.
    mis = [Access.make("a", 4, "tx + 256*bx", base_alignment=4)]
    res = assert_methods_agree(mis, block)
    assert res[128] == {"a": 9} and res[32] == {"a": 33}
    several = ThreadGroup(launch, ((10, 14),))
    assert unique_lines(acc, several, method="enumerate") == \
        unique_lines(acc, several, method="isl") == 2 * 4 * 8


@pytest.mark.parametrize("stride", [2, 3, 17, 33])
def test_strided(stride):
    launch = LaunchConfig((64, 2), (8, 4))
    acc = [Access.make("a", 8, f"{stride}*(tx + 64*bx) + 1000*ty", base_alignment=8),
           Access.make("c", 4, f"{stride}*tx + 7")]
    res = assert_methods_agree(acc, ThreadGroup.block(launch, 1, 2))
    assert res[1] == {"a": 64 * 2 * 8, "c": 64 * 4}  # bytes
    assert_methods_agree(acc, ThreadGroup(launch, ((0, 3), (1, 3))))


def test_loops_and_guards():
    # A grid-stride-like loop and an edge guard: rows k of length 10, only x < 70.
    launch = LaunchConfig((32,), (3,))
    acc = [Access.make("a", 8, "tx + 32*bx + 100*k", loops={"k": (0, 5)},
                       guards=["tx + 32*bx < 70", "k <= tx"])]
    res = assert_methods_agree(acc, ThreadGroup.grid(launch))
    expected = sum(min(5, x % 32 + 1) for x in range(70))
    assert res[1] == {"a": 8 * expected}

# }}}


# {{{ (c) 3-D 25-point star stencil, range 4

R = 4


def star_accesses(block, halo=R):
    """``a[z+dz][y+dy][x+dx]`` on an (nx, ny, nz) float64 grid, plus the store."""
    bx_, by_, bz_ = block
    x = f"(tx + {bx_}*bx + {halo})"
    y = f"(ty + {by_}*by + {halo})"
    z = f"(tz + {bz_}*bz + {halo})"
    offsets = [(0, 0, 0)] + [o for d in range(1, R + 1) for s in (d, -d)
                             for o in ((s, 0, 0), (0, s, 0), (0, 0, s))]
    assert len(offsets) == 25
    acc = [Access.make("a", 8, f"({z} + {dz})*nx*ny + ({y} + {dy})*nx + {x} + {dx}",
                       base_alignment=0)
           for dx, dy, dz in offsets]
    acc.append(Access.make("b", 8, f"{z}*nx*ny + {y}*nx + {x}", direction="store"))
    return acc


def star_unique_elements(x, y, z):
    return x * y * z + 2 * R * (y * z + x * z + x * y)


@pytest.mark.parametrize("block", [(32, 4, 2), (8, 8, 8), (64, 2, 1), (16, 1, 4),
                                   (4, 16, 4)])
def test_star_stencil(block):
    params = {"nx": 200, "ny": 120, "nz": 90}
    launch = LaunchConfig(block, (2, 2, 2))
    acc = star_accesses(block)
    res = assert_methods_agree(acc, ThreadGroup.block(launch, 1, 0, 1), params=params)
    assert res[1]["a"] == 8 * star_unique_elements(*block)
    assert res[1]["b"] == 8 * block[0] * block[1] * block[2]
    bx_, by_, bz_ = block
    res = assert_methods_agree(acc, ThreadGroup(launch, ((0, 2), (0, 2), (0, 1))),
                               params=params)
    assert res[1]["a"] == 8 * star_unique_elements(2 * bx_, 2 * by_, bz_)


def test_star_stencil_with_loop_variable():
    # The same address set written with one loop variable per axis.
    params = {"nx": 100, "ny": 60, "nz": 40}
    block = (16, 4, 2)
    launch = LaunchConfig(block, (2, 2, 2))
    base = {"x": "(tx + 16*bx + 4)", "y": "(ty + 4*by + 4)", "z": "(tz + 2*bz + 4)"}
    acc = []
    for axis in "xyz":
        c = dict(base)
        c[axis] = f"({base[axis]} + d)"
        acc.append(Access.make("a", 8, f"{c['z']}*nx*ny + {c['y']}*nx + {c['x']}",
                               loops={"d": (-R, R + 1)}))
    group = ThreadGroup.block(launch, 1, 1, 1)
    res = assert_methods_agree(acc, group, params=params)
    explicit = assert_methods_agree(star_accesses(block)[:-1], group, params=params)
    assert res == explicit

# }}}


# {{{ (d) a catalog kernel through loopy

def test_finite_diff_from_loopy():
    spec = get_kernel("finite_diff")
    program = spec.build(spec.request(None, "float64", (16, 16)))
    n = 64
    accesses, launch = accesses_from_loopy(program, {"n": n})
    assert launch == LaunchConfig((16, 16), (4, 4))
    loads = [a for a in accesses if a.direction is Direction.LOAD]
    stores = [a for a in accesses if a.direction is Direction.STORE]
    assert {a.array for a in loads} == {"u"} and {a.array for a in stores} == {"out"}
    assert all(a.element_size == 8 for a in accesses)

    interior = ThreadGroup.block(launch, 1, 2)
    res = assert_methods_agree(accesses, interior)
    assert res[1] == {"u": 8 * 18 * 18, "out": 8 * 16 * 16}  # tile plus halo, bytes
    whole = ThreadGroup.grid(launch)
    res = assert_methods_agree(accesses, whole)
    assert res[1] == {"u": 8 * (n + 2) ** 2, "out": 8 * n * n}
    assert unique_bytes(accesses, whole, direction="load") == (n + 2) ** 2 * 8
    # A launch whose block disagrees with the kernel is rejected.
    with pytest.raises(ValueError):
        accesses_from_loopy(program, {"n": n}, LaunchConfig((32, 8), (2, 8)))


def test_finite_diff_partial_blocks():
    # n not a multiple of the group size: loopy's guards cut the edge blocks.
    spec = get_kernel("finite_diff")
    program = spec.build(spec.request(None, "float32", (16, 16)))
    n = 40
    accesses, launch = accesses_from_loopy(program, {"n": n}, base_alignment={"u": 4})
    assert launch.grid == (3, 3, 1)
    edge = ThreadGroup.block(launch, 2, 2)
    res = assert_methods_agree(accesses, edge)
    assert res[1] == {"u": 4 * (n - 32 + 2) ** 2, "out": 4 * (n - 32) ** 2}
    res = assert_methods_agree(accesses, ThreadGroup.grid(launch))
    assert res[1] == {"u": 4 * (n + 2) ** 2, "out": 4 * n * n}

# }}}


# {{{ cost independence of the ISL method

def test_isl_never_materialises_threads():
    # 1024-thread blocks, 10^6 blocks: 10^9 threads, 25 accesses each. Enumeration
    # would need arrays of >10^9 entries; the ISL path stays far below 1 MB.
    params = {"nx": 1024 + 8 + 7, "ny": 1000, "nz": 1000}
    block = (64, 4, 4)
    launch = LaunchConfig(block, (16, 100, 250))
    assert launch.threads_per_block == 1024 and launch.blocks == 400_000
    acc = star_accesses(block)
    grid = ThreadGroup.grid(launch)
    tracemalloc.start()
    try:
        res = footprint(acc, grid, 8, method="isl", params=params)
        lines = footprint(acc, ThreadGroup.block(launch, 5, 7, 9), 128, method="isl",
                          params=params)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, peak
    assert res["a"] == star_unique_elements(64 * 16, 4 * 100, 4 * 250)
    assert res["b"] == grid.thread_count
    assert lines == footprint(acc, ThreadGroup.block(launch, 5, 7, 9), 128,
                              method="enumerate", params=params)

    big = LaunchConfig((1024,), (1000, 1000))
    acc1 = [Access.make("a", 4, "tx + 1024*bx + 1024*1000*by")]
    tracemalloc.start()
    try:
        lines = unique_lines(acc1, ThreadGroup.grid(big), method="isl")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lines == 1024 * 10**6 * 4 // 128
    assert peak < 1_000_000, peak


def test_isl_time_does_not_grow_with_threads():
    params = {"nx": 4000, "ny": 1000, "nz": 1000}

    def isl_time(block, grid_blocks):
        acc = star_accesses(block)
        group = ThreadGroup(LaunchConfig(block, grid_blocks),
                            tuple((0, g) for g in grid_blocks))
        # one timing each: the bound below leaves 5x and half a second of slack
        t = time.perf_counter()
        footprint(acc, group, 32, method="isl", params=params)
        return time.perf_counter() - t

    # Same set structure (every coordinate free), 8 vs 10^6 blocks; then 32 vs 1024
    # threads per block. Cost follows the number of free coordinates, not counts.
    one = isl_time((32, 8, 4), (2, 2, 2))
    many = isl_time((32, 8, 4), (100, 100, 100))
    assert many < 5 * one + 0.5, (one, many)
    small = isl_time((32, 1, 1), (2, 2, 2))
    wide = isl_time((1024, 1, 1), (2, 2, 2))
    assert wide < 5 * small + 0.5, (small, wide)

# }}}
