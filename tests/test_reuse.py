"""L2 reuse distances across waves (workbench.models.roofline.reuse), the DRAM volume with
``reuse="l2"``, and the fitted miss functions of the device model / roofline."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from workbench.kernels.study import star_stencil_spec
from workbench.models.roofline import Access, LaunchConfig, dram_volume
from workbench.hardware.description import Figure, MissFunction, load_device_model
from workbench.models.roofline.metrics import capacity_miss_factor
from workbench.models.roofline.reuse import (
    LOOKBACK_CAPACITIES, ReuseProfile, flatten, merge_ranges, reuse_profile, size)
from workbench.models.roofline.limiters import apply_miss_functions, estimate_inputs


def ranges_of(units) -> np.ndarray:
    """Merged inclusive ranges of a set of integers (independent of merge_ranges)."""
    out = []
    for u in sorted(units):
        if out and out[-1][1] == u - 1:
            out[-1][1] = u
        else:
            out.append([u, u])
    return np.array(out, dtype=np.int64).reshape(-1, 2)


def units_of(ranges) -> set:
    return {u for lo, hi in np.asarray(ranges).tolist() for u in range(lo, hi + 1)}


# {{{ merge_ranges, size, flatten

@pytest.mark.parametrize("ranges,expected", [
    ([[1, 3], [2, 6]], [[1, 6]]),                    # overlapping
    ([[1, 3], [4, 5]], [[1, 5]]),                    # adjacent inclusive ranges merge
    ([[1, 3], [5, 5]], [[1, 3], [5, 5]]),            # a gap of one stays a gap
    ([[0, 10], [2, 3], [4, 9]], [[0, 10]]),          # nested
    ([[20, 25], [-4, -1], [0, 2], [10, 12], [11, 11]],
     [[-4, 2], [10, 12], [20, 25]]),                 # unsorted, negative, adjacent
    ([[7, 7]], [[7, 7]]),
    ([[5, 9], [1, 2], [3, 4]], [[1, 9]]),            # a chain of adjacencies
])
def test_merge_ranges(ranges, expected):
    merged = merge_ranges(np.array(ranges, dtype=np.int64))
    assert merged.tolist() == expected
    assert size(merged) == len(units_of(ranges))


def test_merge_ranges_empty_and_random():
    empty = merge_ranges(np.empty((0, 2), dtype=np.int64))
    assert empty.shape == (0, 2) and size(empty) == 0
    rng = random.Random(7)
    for _ in range(200):
        rs = []
        for _ in range(rng.randint(1, 12)):
            lo = rng.randint(-20, 60)
            rs.append([lo, lo + rng.randint(0, 8)])
        merged = merge_ranges(np.array(rs, dtype=np.int64))
        assert merged.tolist() == ranges_of(units_of(rs)).tolist()
        # disjoint, sorted, not even touching
        assert np.all(merged[1:, 0] > merged[:-1, 1] + 1)


def test_flatten_keeps_arrays_apart():
    per_array = {"b": [np.array([[0, 3]]), np.array([[2, 5]])],
                 "a": [np.array([[0, 3]])], "c": []}
    flat = flatten(per_array, ["a", "b", "c"])
    assert size(flat) == 4 + 6          # the same unit indices in two arrays count twice
    assert len(flat) == 2 and flat[1, 0] > flat[0, 1]
    assert flatten({}, ["a"]).shape == (0, 2)

# }}}


# {{{ reuse_profile on synthetic waves

def brute_profile(waves, wave, unit_bytes, l2_bytes, lookback=LOOKBACK_CAPACITIES):
    """first_hit / distance by sets: nearest earlier wave holding each unit, distance
    = union of the waves from there up to the current one (exclusive)."""
    curr = waves[wave]
    nearest = {}
    for u in curr:
        for j in range(wave - 1, -1, -1):
            if u in waves[j]:
                nearest[u] = wave - j
                break
    hits, dists = [], []
    for k in range(1, wave + 1):
        if sum(hits) >= len(curr) * unit_bytes:
            break
        hits.append(unit_bytes * sum(1 for d in nearest.values() if d == k))
        dists.append(unit_bytes * len(set().union(*waves[wave - k:wave])))
        if dists[-1] > lookback * l2_bytes:
            break
    return tuple(hits), tuple(dists)


def random_waves(rng, n, universe=300, per_wave=(20, 80)):
    waves = []
    for _ in range(n):
        s = set()
        for _ in range(rng.randint(1, 6)):                 # a few runs per wave
            lo = rng.randrange(universe)
            s |= set(range(lo, lo + rng.randint(*per_wave) // 4))
        waves.append(s)
    return waves


def test_reuse_profile_matches_brute_force():
    rng = random.Random(11)
    for trial in range(60):
        waves = random_waves(rng, rng.randint(1, 9))
        calls = []

        def wave_sets(k):
            calls.append(k)
            return ranges_of(waves[k])
        unit = rng.choice([1, 32])
        l2 = rng.choice([1e9, unit * 40.0, unit * 120.0, unit * 1.0])
        for wave in range(len(waves)):
            calls.clear()
            p = reuse_profile(wave_sets, wave, unit, l2)
            hits, dists = brute_profile(waves, wave, unit, l2)
            assert p.wave == wave and p.curr_bytes == unit * len(waves[wave])
            assert p.first_hit_bytes == hits, (trial, wave)
            assert p.distance_bytes == dists, (trial, wave)
            # only the current wave and the ones looked back at are asked for
            assert sorted(set(calls)) == sorted({wave, *range(wave - len(hits), wave)})
            assert sum(p.first_hit_bytes) <= p.curr_bytes
            assert list(p.distance_bytes) == sorted(p.distance_bytes)


def test_reuse_profile_hand_made():
    # wave 0: 0..9, wave 1: 20..29, wave 2: 5..24 (half of each), wave 3: 0..29
    waves = [set(range(0, 10)), set(range(20, 30)), set(range(5, 25)), set(range(0, 30))]

    def wave_sets(k):
        return ranges_of(waves[k])
    p = reuse_profile(wave_sets, 3, 2, l2_bytes=1e9)
    # one back: 5..24 (20 units); two back: 25..29 (5); three back: 0..4 (5)
    assert p.curr_bytes == 60
    assert p.first_hit_bytes == (40, 10, 10)
    assert p.distance_bytes == (40, 2 * 25, 2 * 30)
    # lookback: stop once the union passes lookback * L2 (that wave still counts)
    q = reuse_profile(wave_sets, 3, 2, l2_bytes=20.0, lookback=2.0)
    assert q.first_hit_bytes == (40, 10) and q.distance_bytes == (40, 50)
    q = reuse_profile(wave_sets, 3, 2, l2_bytes=10.0, lookback=2.0)
    assert q.first_hit_bytes == (40,) and q.distance_bytes == (40,)
    # wave 0 has nothing to look back at; wave 1 reuses nothing of wave 0
    assert reuse_profile(wave_sets, 0, 2, 1e9).first_hit_bytes == ()
    assert reuse_profile(wave_sets, 1, 2, 1e9).first_hit_bytes == (0,)
    # stop once every unit is found: wave 4 lies inside wave 3
    waves.append(set(range(22, 26)))
    p = reuse_profile(wave_sets, 4, 2, 1e9)
    assert p.first_hit_bytes == (8,) and p.distance_bytes == (60,)
    # an empty wave
    waves.append(set())
    p = reuse_profile(wave_sets, 5, 2, 1e9)
    assert p.curr_bytes == 0 and p.first_hit_bytes == () and p.miss_bytes(1e9) == 0


def test_miss_bytes_ideal_lru_and_miss_function():
    p = ReuseProfile(7, 1000, (300, 200, 100, 50), (400, 800, 1200, 1600))
    # ideal LRU: hits at distance <= capacity are free
    assert p.miss_bytes(2000) == 1000 - 650
    assert p.miss_bytes(1200) == 1000 - 600      # distance == capacity still hits
    assert p.miss_bytes(1199) == 1000 - 500
    assert p.miss_bytes(399) == 1000
    assert p.miss_bytes(1e12, lambda x: 0 * x) == 350
    assert p.miss_bytes(1e-3, lambda x: 1 + 0 * x) == 1000
    mf = MissFunction(0.6, 5.0, 2.0)
    for l2 in (300.0, 1000.0, 5000.0):
        d = np.array(p.distance_bytes) / l2
        want = 1000 - sum(h * (1 - r) for h, r in zip(p.first_hit_bytes, mf(d)))
        assert p.miss_bytes(l2, mf) == pytest.approx(want)
        assert mf(d) == pytest.approx(capacity_miss_factor(d, 0.6, 5.0, 2.0))
    # more capacity never means more misses
    vals = [p.miss_bytes(l2, mf) for l2 in (100.0, 400.0, 1600.0, 6400.0)]
    assert vals == sorted(vals, reverse=True) and vals[0] > vals[-1]
    # no hits at all: everything misses whatever R
    assert ReuseProfile(0, 512, (), ()).miss_bytes(1.0, mf) == 512


def test_reuse_profile_scaled():
    p = ReuseProfile(4, 1000, (300, 201, 0), (400, 800, 1200))
    s = p.scaled(9, 500)
    assert s.wave == 9 and s.curr_bytes == 500
    assert s.first_hit_bytes == (150, 100, 0)       # round(100.5) == 100 (banker's)
    assert s.distance_bytes == p.distance_bytes
    assert s.miss_bytes(1e9) == pytest.approx(p.miss_bytes(1e9) / 2, abs=1)
    assert p.scaled(1, 1000) == dataclasses.replace(p, wave=1)
    # rounded, not truncated: 333 * 0.3 = 99.9
    assert ReuseProfile(2, 1000, (333, 7), (1, 2)).scaled(5, 300).first_hit_bytes == \
        (100, 2)
    zero = ReuseProfile(0, 0, (), ()).scaled(3, 640)
    assert zero.curr_bytes == 640 and zero.first_hit_bytes == ()

# }}}


# {{{ dram_volume(reuse="l2")

# A 3-D 7-point stencil whose waves are half a z-plane of blocks: halo planes are
# reused one to four waves later.
BLOCK, GRID, BPW = (8, 4, 1), (2, 4, 4), 4
PX, PY = 16 + 2, 16 + 2
OFFSETS = ((0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
LAUNCH = LaunchConfig(BLOCK, GRID)
ACCESSES = [Access.make("u", 8, f"(tz + bz + 1 + {dz})*{PX * PY} + "
                        f"(ty + 4*by + 1 + {dy})*{PX} + tx + 8*bx + 1 + {dx}")
            for dx, dy, dz in OFFSETS]
ACCESSES.append(Access.make("out", 8, "(tz + bz)*256 + (ty + 4*by)*16 + tx + 8*bx",
                            direction="store"))


def brute_wave_sectors():
    waves = []
    n_blocks = GRID[0] * GRID[1] * GRID[2]
    for start in range(0, n_blocks, BPW):
        s = set()
        for b in range(start, min(start + BPW, n_blocks)):
            bx, by, bz = b % GRID[0], (b // GRID[0]) % GRID[1], b // (GRID[0] * GRID[1])
            for ty in range(BLOCK[1]):
                for tx in range(BLOCK[0]):
                    x, y, z = tx + 8 * bx + 1, ty + 4 * by + 1, bz + 1
                    for dx, dy, dz in OFFSETS:
                        s.add(8 * ((z + dz) * PX * PY + (y + dy) * PX + x + dx) // 32)
        waves.append(s)
    return waves


WAVES = brute_wave_sectors()


def brute_lru_bytes(l2_bytes):
    """Ideal LRU at wave granularity: a sector hits if the data touched since its
    nearest earlier use fits in L2."""
    total = 0
    for k, curr in enumerate(WAVES):
        for u in curr:
            j = next((j for j in range(k - 1, -1, -1) if u in WAVES[j]), None)
            if j is None or 32 * len(set().union(*WAVES[j:k])) > l2_bytes:
                total += 32
    return total


def test_dram_reuse_l2_extremes_and_brute_force():
    assert len(WAVES) == 8
    unique = 32 * len(set().union(*WAVES))
    per_wave = 32 * sum(len(w) for w in WAVES)
    huge = dram_volume(ACCESSES, LAUNCH, BPW, l2_bytes=1e12, reuse="l2")
    tiny = dram_volume(ACCESSES, LAUNCH, BPW, l2_bytes=1, reuse="l2")
    assert huge.exact and huge.waves == 8
    assert huge.load_bytes == unique == 15040           # every later use hits
    assert tiny.load_bytes == per_wave == 30464          # nothing hits
    for l2 in (3000, 6000, 8000, 10000):
        mid = dram_volume(ACCESSES, LAUNCH, BPW, l2_bytes=l2, reuse="l2")
        assert unique <= mid.load_bytes <= per_wave
        assert mid.load_bytes == brute_lru_bytes(l2), l2
    mid = dram_volume(ACCESSES, LAUNCH, BPW, l2_bytes=6000, reuse="l2")
    assert unique < mid.load_bytes < per_wave
    # the profiles are kept; miss ratios 0 and 1 give the two extremes
    assert len(huge.load_profiles) == 8 and huge.store_profiles == ()
    assert [p.curr_bytes for _, p in huge.load_profiles] == [32 * len(w) for w in WAVES]
    assert huge.with_miss_ratio(lambda x: 0 * x).load_bytes == unique
    assert huge.with_miss_ratio(lambda x: 1 + 0 * x).load_bytes == per_wave
    assert mid.with_miss_ratio(lambda x: 1 + 0 * x).load_bytes == per_wave
    # R = 0 but tiny L2: the lookback stops after one wave, the paper's
    # previous-wave reuse
    previous = dram_volume(ACCESSES, LAUNCH, BPW, reuse="previous")
    assert tiny.with_miss_ratio(lambda x: 0 * x).load_bytes == previous.load_bytes
    assert previous.load_bytes == 32 * sum(len(WAVES[0]) if k == 0 else
                                           len(WAVES[k] - WAVES[k - 1])
                                           for k in range(8))
    # a fitted-style miss function lies between the ideal-LRU bounds
    mf = MissFunction(0.7, 8.0, 3.0)
    fitted = mid.with_miss_ratio(mf)
    assert unique < fitted.load_bytes < per_wave
    direct = dram_volume(ACCESSES, LAUNCH, BPW, l2_bytes=6000, reuse="l2", miss_ratio=mf)
    assert direct.load_bytes == pytest.approx(fitted.load_bytes)
    # stores keep the previous-wave treatment, whatever the miss function
    for v in (huge, tiny, mid):
        assert v.store_bytes == previous.store_bytes == 8 * 16 * 16 * 4
        assert v.with_miss_ratio(lambda x: 1 + 0 * x).store_bytes == v.store_bytes
        assert v.with_miss_ratio(lambda x: 0 * x).store_bytes == v.store_bytes


def test_dram_reuse_l2_stores_stay_previous_wave():
    # stores that overlap between waves (each block writes its rows and the next)
    stores = [Access.make("out", 8, f"(tz + bz)*256 + (ty + 4*by + {dy})*16 + tx + 8*bx",
                          direction="store") for dy in (0, 1)]
    acc = ACCESSES[:-1] + stores
    previous = dram_volume(acc, LAUNCH, BPW)
    alone = dram_volume(stores, LAUNCH, BPW)
    assert previous.store_bytes == alone.store_bytes
    assert any(w.overlap_bytes for w in previous.store_waves)
    assert previous.store_bytes < sum(w.curr_bytes for w in previous.store_waves)
    mf = MissFunction(0.9, 1.0, 1.0)
    for l2 in (1.0, 6000.0, 1e12):
        for kw in ({}, {"miss_ratio": mf}):
            v = dram_volume(acc, LAUNCH, BPW, l2_bytes=l2, reuse="l2", **kw)
            assert v.store_bytes == previous.store_bytes
            assert v.store_waves == tuple(dataclasses.replace(w, coverage=v.store_waves[
                k].coverage) for k, w in enumerate(previous.store_waves))
            assert v.with_miss_ratio(mf).store_bytes == previous.store_bytes


def test_dram_reuse_l2_representative_waves():
    # more waves than max_exact_waves: first, middle (weighted) and last
    exact = dram_volume(ACCESSES, LAUNCH, 2, l2_bytes=1e12, reuse="l2")
    approx = dram_volume(ACCESSES, LAUNCH, 2, l2_bytes=1e12, reuse="l2",
                         max_exact_waves=4)
    assert exact.exact and not approx.exact and exact.waves == approx.waves == 16
    assert [w for w, _ in approx.load_profiles] == [1.0, 14.0, 1.0]
    assert [p.wave for _, p in approx.load_profiles] == [0, 8, 15]
    assert approx.load_profiles[0][1] == exact.load_profiles[0][1]
    assert approx.load_profiles[1][1] == exact.load_profiles[8][1]
    assert approx.load_bytes == pytest.approx(
        approx.load_profiles[0][1].miss_bytes(1e12)
        + 14 * approx.load_profiles[1][1].miss_bytes(1e12)
        + approx.load_profiles[2][1].miss_bytes(1e12))


def test_dram_reuse_errors():
    with pytest.raises(ValueError, match="l2_bytes"):
        dram_volume(ACCESSES, LAUNCH, BPW, reuse="l2")
    with pytest.raises(ValueError, match="reuse"):
        dram_volume(ACCESSES, LAUNCH, BPW, l2_bytes=1e6, reuse="lru")
    with pytest.raises(ValueError, match="intervals"):
        dram_volume(ACCESSES, LAUNCH, BPW, l2_bytes=1e6, reuse="l2", method="enumerate")
    # a guard coupling two coordinates by an equality: no runs, so no reuse profiles
    coupled = [Access.make("a", 8, "tx + 16*bx + 100*ty", guards=["tx == ty"])]
    with pytest.raises(ValueError):
        dram_volume(coupled, LaunchConfig((8, 8), (8,)), 2, l2_bytes=1e6, reuse="l2")
    previous = dram_volume(ACCESSES, LAUNCH, BPW, l2_bytes=1e6)
    with pytest.raises(ValueError, match="profiles"):
        previous.with_miss_ratio(lambda x: 0 * x)

# }}}


# {{{ device model and roofline: the fitted miss functions

H100 = load_device_model("h100")


def test_shipped_h100_miss_functions():
    assert set(H100.miss_functions) == {"l1_capacity", "l2_reuse"}
    for name in ("l1_capacity", "l2_reuse"):
        mf = H100.miss_function(name)
        assert isinstance(mf, MissFunction)
        assert 0 <= mf.a <= 1 and mf.b >= 0 and mf.c >= 0
        assert mf.source == "fitted" and mf.note
        r = mf(np.array([0.0, 0.5, 1.0, 4.0, 100.0]))
        assert np.all((r >= 0) & (r <= mf.a + 1e-12)) and np.all(np.diff(r) >= 0)
        assert mf.to_json()["a"] == mf.a
    assert H100.miss_function("nonexistent") is None


@pytest.fixture(scope="module")
def star_inputs():
    spec = star_stencil_spec()
    program = spec.build(spec.request("nofold", "float64", (32, 4, 2)))
    # few SMs: several waves, so that reuse profiles have hits
    model = dataclasses.replace(H100, compute_units=Figure(4, "spec"))
    return estimate_inputs(program, {"nx": 40, "ny": 24, "nz": 20}, model), model


def test_apply_miss_functions(star_inputs):
    inputs, model = star_inputs
    l2l1 = inputs.l2_l1
    assert l2l1.load_requested_bytes > l2l1.load_sectors_bytes > 0
    assert inputs.dram.load_profiles            # estimate_inputs defaults to reuse="l2"

    none = dataclasses.replace(model, miss_functions={})
    out, notes = apply_miss_functions(inputs, none)
    assert out.l2_l1 == l2l1 and out.dram == inputs.dram
    assert any("capacity misses left out" in n for n in notes)
    assert any("ideal LRU" in n for n in notes)

    always = dataclasses.replace(model, miss_functions={
        "l1_capacity": MissFunction(a=1.0, b=0.0, c=0.0)})
    out, notes = apply_miss_functions(inputs, always)
    assert out.l2_l1.load_sectors_bytes == pytest.approx(l2l1.load_requested_bytes)
    assert out.l2_l1.store_bytes == l2l1.store_bytes
    assert out.l2_l1.load_lines_bytes == l2l1.load_lines_bytes
    assert not any("left out" in n for n in notes)

    never = dataclasses.replace(model, miss_functions={
        "l1_capacity": MissFunction(a=0.0, b=0.0, c=0.0)})
    out, _ = apply_miss_functions(inputs, never)
    assert out.l2_l1.load_sectors_bytes == l2l1.load_sectors_bytes

    half = dataclasses.replace(model, miss_functions={
        "l1_capacity": MissFunction(a=0.5, b=0.0, c=0.0)})
    out, _ = apply_miss_functions(inputs, half)
    assert out.l2_l1.load_sectors_bytes == pytest.approx(
        (l2l1.load_sectors_bytes + l2l1.load_requested_bytes) / 2)


def test_apply_l2_reuse_miss_function(star_inputs):
    inputs, model = star_inputs
    dram = inputs.dram
    curr = sum(w * p.curr_bytes for w, p in dram.load_profiles)
    hits = sum(w * sum(p.first_hit_bytes) for w, p in dram.load_profiles)
    assert hits > 0
    # ideal LRU with 50 MB: this small grid fits, every earlier use hits
    assert dram.load_bytes == pytest.approx(curr - hits)
    miss_all = dataclasses.replace(model, miss_functions={
        "l2_reuse": MissFunction(a=1.0, b=0.0, c=0.0)})
    out, notes = apply_miss_functions(inputs, miss_all)
    assert out.dram.load_bytes == pytest.approx(curr)
    assert out.dram.store_bytes == dram.store_bytes
    assert any("L2 reuse misses: fitted" in n for n in notes)
    out, _ = apply_miss_functions(inputs, H100)
    assert curr - hits <= out.dram.load_bytes <= curr

# }}}
