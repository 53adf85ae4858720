"""Time-tiled stencils on pocl: band kernels and the driver against a plain time loop."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.errors import ParameterError
from workbench.kernels.timetiled import (
    STENCILS,
    TIMETILED_SPACES,
    BandConfig,
    band_kernel,
    get_stencil,
    timetiled_space,
)
from workbench.measure.runner import TimingProtocol
from workbench.measure.store import Status
from workbench.tuning.sequence import SequenceEvaluator

ONCE = TimingProtocol(runs=1, discard_first=0)

#: One small problem and one point per stencil: tiles that do not divide the grid,
#: lanes that do not divide the box, several bands.
CASES = {
    "jacobi1d": ({"S1": 300, "T": 8}, "tT=4,tS1=256,bx=64"),
    "jacobi2d": ({"S1": 21, "S2": 70, "T": 8}, "tT=4,tS1=8,tS2=32,bx=32,by=2"),
    "heat2d": ({"S1": 17, "S2": 40, "T": 6}, "tT=2,tS1=12,tS2=32,bx=32,by=4"),
    "laplacian2d": ({"S1": 30, "S2": 33, "T": 12}, "tT=6,tS1=8,tS2=64,bx=64,by=1"),
    "gradient2d": ({"S1": 9, "S2": 64, "T": 4}, "tT=2,tS1=4,tS2=32,bx=32,by=1"),
    "heat3d": ({"S1": 6, "S2": 7, "S3": 20, "T": 4},
               "tT=2,tS1=4,tS2=4,tS3=16,bx=16,by=2,bz=1"),
    "laplacian3d": ({"S1": 5, "S2": 9, "S3": 17, "T": 3},
                    "tT=1,tS1=2,tS2=4,tS3=16,bx=16,by=2,bz=1"),
}


@pytest.fixture(scope="module")
def profiling(queue):
    import pyopencl as cl
    return cl.CommandQueue(queue.context,
                           properties=cl.command_queue_properties.PROFILING_ENABLE)


def test_every_paper_stencil_is_described_and_steps_like_its_formula():
    assert set(STENCILS) == {"jacobi1d", "jacobi2d", "heat2d", "laplacian2d",
                             "gradient2d", "heat3d", "laplacian3d"}
    grid = np.arange(25, dtype=np.float64).reshape(5, 5) ** 1.5
    out = get_stencil("jacobi2d").step(grid)
    assert out[2, 3] == pytest.approx(0.2 * (grid[2, 3] + grid[1, 3] + grid[3, 3]
                                             + grid[2, 2] + grid[2, 4]))
    assert (out[0] == grid[0]).all() and (out[:, -1] == grid[:, -1]).all()  # boundary
    assert get_stencil("heat3d").offsets["b"] == (-1, 0, 0)
    assert all(s.flops > 0 for s in STENCILS.values())


@pytest.mark.parametrize("stencil", sorted(CASES))
def test_the_driver_matches_the_plain_time_loop(profiling, stencil):
    sizes, label = CASES[stencil]
    space = timetiled_space(stencil, **sizes)
    point = space.point(label)
    evaluation = SequenceEvaluator(space, profiling, protocol=ONCE).evaluate(point)
    assert evaluation.status is Status.OK, evaluation.log
    assert evaluation.extra["launches"] == sizes["T"] // point["tT"]
    assert evaluation.time_s > 0


def test_one_band_is_not_the_whole_computation(profiling):
    """The check is real: stopping after the first band gives a wrong result."""
    from dataclasses import replace

    from workbench.tuning.space import LaunchSequence

    sizes, label = CASES["heat2d"]
    space = timetiled_space("heat2d", **sizes)
    short = replace(space, sequence=LaunchSequence(lambda p: 1, "u", "out"))
    evaluation = SequenceEvaluator(short, profiling, protocol=ONCE).evaluate(
        short.point(label))
    assert evaluation.status is Status.WRONG_RESULT


def test_a_band_of_every_tile_matches_numpy_directly(queue):
    import pyopencl.array as cla

    cfg = BandConfig("gradient2d", (13, 40), 3, (5, 32), (4, 32))
    u = np.random.default_rng(1).random((15, 42)).astype(np.float32)
    out = cla.to_device(queue, u)
    band_kernel(cfg).executor(queue.context)(queue, u=cla.to_device(queue, u), out=out)
    ref = get_stencil("gradient2d").reference(u, 3)
    np.testing.assert_allclose(out.get(), ref, rtol=2e-5)


def test_padded_arrays_compute_the_same_interior(queue):
    import pyopencl.array as cla

    cfg = BandConfig("heat2d", (20, 40), 3, (8, 32), (2, 32), padded=True)
    assert cfg.array_shape == (26, 46)
    u = np.random.default_rng(2).random(cfg.array_shape).astype(np.float32)
    out = cla.to_device(queue, u)
    band_kernel(cfg).executor(queue.context)(queue, u=cla.to_device(queue, u), out=out)
    ref = get_stencil("heat2d").reference(u[2:-2, 2:-2], 3)
    np.testing.assert_allclose(out.get()[2:-2, 2:-2], ref, rtol=2e-5)


def test_configurations_are_validated():
    with pytest.raises(ParameterError, match="2-D: tiles needs 2"):
        BandConfig("heat2d", (8, 8), 2, (4,), (4, 4))
    with pytest.raises(ParameterError, match="t_T"):
        BandConfig("heat2d", (8, 8), 0, (4, 4), (4, 4))
    cfg = BandConfig("heat3d", (10, 10, 10), 2, (4, 4, 16), (1, 2, 32))
    assert cfg.extent == (8, 8, 20) and cfg.local_bytes == 2 * 8 * 8 * 20 * 4
    assert cfg.group_size == (32, 2, 1) and cfg.groups == (3, 3, 1)


def test_spaces_have_a_baseline_of_over_300_points_per_2d_and_3d_stencil():
    assert set(TIMETILED_SPACES) == {f"tt_{s}" for s in STENCILS}
    for name in ("tt_heat2d", "tt_laplacian3d"):   # the others share these grids
        space = TIMETILED_SPACES[name](baseline=1)
        assert len(space.points()) >= 300, name
        if name == "tt_heat2d":
            assert set(space.points()) <= set(TIMETILED_SPACES[name]().points())
        assert all(space.problem["T"] % p["tT"] == 0 for p in space.points())
        assert all(space.local_bytes(p) <= 48 * 1024 for p in space.points())
    big = TIMETILED_SPACES["tt_heat2d"](baseline=1, S1=8192, S2=8192)
    assert big.problem == {"S1": 8192, "S2": 8192, "T": 48}


def test_a_space_of_chosen_points_takes_values_outside_the_grid():
    space = timetiled_space("heat2d", only=["tT=3,tS1=7,tS2=160,bx=64,by=2",
                                            "tT=4,tS1=9,tS2=96,bx=32,by=4"], T=12)
    assert [p.label for p in space.points()] == ["tT=3,tS1=7,tS2=160,bx=64,by=2",
                                                 "tT=4,tS1=9,tS2=96,bx=32,by=4"]
    with pytest.raises(ParameterError):
        timetiled_space("heat2d", only=["tT=3,tS1=7"])
    with pytest.raises(ParameterError, match="no size parameter"):
        timetiled_space("heat2d", S3=4)


def test_an_exploration_records_whole_sequences(profiling, tmp_path):
    from workbench.measure.provenance import DeviceIdentity
    from workbench.measure.store import MeasurementStore
    from workbench.tuning import Explorer, make_strategy

    space = timetiled_space("jacobi2d", S1=16, S2=40, T=8,
                            only=["tT=2,tS1=8,tS2=32,bx=32,by=2",
                                  "tT=8,tS1=8,tS2=32,bx=32,by=2"])
    device = DeviceIdentity("pocl", "cpu", "test")
    with MeasurementStore.open(tmp_path / "s.sqlite") as store:
        result = Explorer(space, make_strategy("exhaustive"),
                          SequenceEvaluator(space, profiling, protocol=ONCE),
                          store=store, device=device, discard_first=0).run()
        rows = store.measurements(kernel="tune.tt_jacobi2d")
    assert [e.status for e in result.evaluations] == [Status.OK, Status.OK]
    assert sorted(m.extra["launches"] for m in rows) == [1, 4]


def test_float32_kernels_compute_in_single_precision():
    """An untyped literal would make loopy compute a conditional update in double."""
    import loopy as lp

    for stencil, shape, tiles, threads in (("gradient2d", (40, 64), (8, 32), (2, 32)),
                                           ("heat3d", (8, 8, 32), (4, 4, 16), (1, 2, 16))):
        for io in (True, False):
            code = lp.generate_code_v2(band_kernel(BandConfig(
                stencil, shape, 2, tiles, threads, io=io))).device_code()
            assert "double" not in code
            assert ("sqrt" in code) == (stencil == "gradient2d")


def test_the_compute_only_band_stores_nothing(queue):
    import pyopencl.array as cla

    cfg = BandConfig("heat2d", (20, 40), 2, (8, 32), (2, 32), io=False)
    out = cla.zeros(queue, cfg.array_shape, np.float32)
    band_kernel(cfg).executor(queue.context)(queue, u=out.copy(), out=out)
    assert not out.get().any()
