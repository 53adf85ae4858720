"""The time model's microbenchmarks on pocl (small sizes): they build, run, and land
in the store with the counts the calibration needs, resumably."""

from __future__ import annotations

import pytest

from workbench.kernels.timetiled.microbench import (
    HEXAGONAL_KINDS,
    Micro,
    band_pair,
    barrier,
    hex_microbenchmarks,
    launches,
    quick_hex_microbenchmarks,
    microbenchmarks,
    transfer,
)
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store import MeasurementStore, Status
from workbench.models.tiling import rows_from_measurements
from workbench.tuning.timetiled_microbench import measure_microbenchmarks


@pytest.fixture(scope="module")
def profiling(queue):
    import pyopencl as cl
    return cl.CommandQueue(queue.context,
                           properties=cl.command_queue_properties.PROFILING_ENABLE)


def test_the_full_set_covers_every_parameter_and_stencil():
    benches = microbenchmarks(132)
    kinds = {b.what for b in benches}
    assert kinds == set(Micro) - HEXAGONAL_KINDS
    bands = {b.variant.split(":")[0] for b in benches if b.what is Micro.BAND}
    assert bands == {"jacobi1d", "jacobi2d", "heat2d", "laplacian2d", "gradient2d",
                     "heat3d", "laplacian3d"}
    assert next(b for b in benches if b.what is Micro.TRANSFER).facts["groups"] == 132 * 64


def test_measured_and_stored_resumably(profiling, tmp_path):
    n = int(profiling.device.max_compute_units)
    benches = [transfer(n, words=256, lanes=64, per_sm=4),
               barrier(n, True, rounds=64, lanes=64), barrier(n, False, rounds=64, lanes=64),
               launches(count=10, words=4096, lanes=64),
               *band_pair("jacobi2d", 2, (8, 32), (2, 32), (16, 64))]
    device = DeviceIdentity("pocl", "cpu", "test")
    with MeasurementStore.open(tmp_path / "mb.sqlite") as store:
        measure_microbenchmarks(profiling, device, store, runs=2, benches=benches)
        rows = store.measurements(status=None)
        assert len(rows) == len(benches)
        assert all(m.status is Status.OK for m in rows), [m.log for m in rows]
        assert all(len(m.raw_times_s) == 2 and m.time_s > 0 for m in rows)
        # a finished campaign of that name: a second call is a new one, measured anew
        measure_microbenchmarks(profiling, device, store, runs=1, benches=benches[:1],
                                name="again")
        assert len(store.measurements(status=None)) == len(benches) + 1
    parsed = rows_from_measurements(rows)
    kinds = {r.what for r in parsed}
    assert kinds == {"transfer", "barrier", "nobarrier", "launches", "band", "band_wr",
                     "band_compute"}
    gap = next(r for r in parsed if r.what == "launches")
    assert 0 <= gap.time_s < 0.1          # a gap between launches, not their span
    band = next(r for r in parsed if r.what == "band")
    assert band.facts["groups"] == 2 * 2 and band.facts["t_T"] == 2 and band.n_SM == n


def test_the_hexagonal_set_has_a_pair_per_configuration_and_stencil():
    benches = hex_microbenchmarks()
    stencils = {b.variant.split(":")[0] for b in benches}
    assert stencils == {"jacobi1d", "jacobi2d", "heat2d", "laplacian2d", "gradient2d"}
    bands = [b for b in benches if b.what is Micro.HEX_BAND]
    twins = {b.variant for b in benches if b.what is Micro.HEX_BAND_WR}
    assert len(bands) == 3 + 4 * 4 and twins == {b.variant for b in bands}
    wide = next(b for b in bands if b.variant == "jacobi2d:hex tT=8,tS=2x256,thr=2x128")
    # an A row at 6144^2: pitch 2*2 + 8 - 2 = 10, hexagons over 6144 + 3 cells
    assert wide.facts["groups"] == 615 and wide.facts["launch"] % 2 == 1
    assert wide.facts["sub_tiles"] == 25 and wide.output == "a"


def test_the_hexagonal_pair_runs_and_its_twin_keeps_the_traffic(profiling, tmp_path):
    benches = quick_hex_microbenchmarks(["jacobi1d"])
    device = DeviceIdentity("pocl", "cpu", "test")
    with MeasurementStore.open(tmp_path / "hx.sqlite") as store:
        measure_microbenchmarks(profiling, device, store, runs=2, benches=benches)
        rows = store.measurements(status=None)
    assert [m.status for m in rows] == [Status.OK] * 2, [m.log for m in rows]
    parsed = {r.what: r for r in rows_from_measurements(rows)}
    assert set(parsed) == {"hex_band", "hex_band_wr"}
    assert parsed["hex_band"].facts == parsed["hex_band_wr"].facts
    assert parsed["hex_band"].facts["loads"] > 0 and parsed["hex_band"].time_s > 0
