"""Hexagonal (1-D) and hybrid hexagonal/classic (2-D) tiles: the loopy kernels
against numpy on the CPU device, their counts against the hexagon's geometry, and the
model's section-4 quantities against the generated configuration."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.errors import ParameterError
from workbench.kernels.timetiled.hexagonal import HexConfig, hexagonal_reference, run_hexagonal
from workbench.kernels.timetiled.hexspaces import HEXAGONAL_SPACES, hex_config, hexagonal_space
from workbench.models.tiling import H100, Problem, Scheme, TilingCalibration, quantities

CAL = TilingCalibration("test", L=1e-10, tau_sync=5e-8, T_sync=3e-6,
                        C_iter={"heat2d": 2e-9, "jacobi1d": 2e-9})


@pytest.fixture(scope="module")
def queue():
    cl = pytest.importorskip("pyopencl")
    try:
        ctx = cl.create_some_context(interactive=False)
    except cl.Error:
        pytest.skip("no OpenCL device")
    return cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)


@pytest.mark.parametrize("cfg", [
    HexConfig("jacobi1d", (37,), 12, 2, (3,), (32,)),
    HexConfig("jacobi1d", (100,), 16, 8, (5,), (8,)),
    HexConfig("heat2d", (20, 30), 8, 4, (5, 8), (2, 8)),
    HexConfig("gradient2d", (17, 23), 12, 6, (4, 7), (4, 4)),
], ids=lambda c: c.label)
def test_hexagonal_tiles_match_numpy(queue, cfg):
    u = np.random.default_rng(1).random(tuple(n + 2 for n in cfg.shape))
    got = run_hexagonal(cfg, queue, u)
    want = hexagonal_reference(cfg, u.astype(np.float32).astype(np.float64))
    assert np.abs(got - want).max() < 1e-5
    # both levels moved: the reference is not the initial grid
    assert np.abs(want[0] - u).max() > 1e-3


def _geometry(tS1, tT):
    """Loads and stores of one hexagon counted from its cells (rows of
    ``[-g, tS1 + g)``): reads of cells outside the row below, and cells whose readers
    of the row above are not all in the tile."""
    rows = [range(-min(r, tT - 1 - r), tS1 + min(r, tT - 1 - r)) for r in range(tT)]
    loads = sum(1 for x in range(rows[0].start - 1, rows[0].stop + 1))
    for r in range(1, tT):
        need = set(range(rows[r].start - 1, rows[r].stop + 1))
        loads += len(need - set(rows[r - 1]))
    stores = 0
    for r in range(tT):
        above = set(rows[r + 1]) if r + 1 < tT else set()
        stores += sum(1 for x in rows[r] if not {x - 1, x, x + 1} <= above)
    return loads, stores, sum(len(r) for r in rows)


@pytest.mark.parametrize("tS1,tT", [(3, 2), (20, 4), (7, 8), (64, 16)])
def test_counts_follow_the_hexagon(tS1, tT):
    cfg = HexConfig("heat2d", (500, 300), 48, tT, (tS1, 32), (2, 32))
    one = cfg.per_tile()
    loads, stores, points = _geometry(tS1, tT)
    assert one["loads"] == loads * (32 + 2) and one["stores"] == stores * 32
    assert one["points"] == points * 32
    assert points == tT * (2 * tS1 + tT - 2) // 2               # eq. 26's V_tile


@pytest.mark.parametrize("dims,tT,tiles,threads", [(1, 4, (20,), (128,)),
                                                  (2, 8, (12, 64), (4, 64)),
                                                  (2, 2, (32, 128), (2, 128))])
def test_model_counts_what_the_generator_makes(dims, tT, tiles, threads):
    shape = (4096,) if dims == 1 else (4096, 4096)
    cfg = HexConfig("jacobi1d" if dims == 1 else "heat2d", shape, 48, tT, tiles, threads)
    q = quantities(Scheme.paper(dims), Problem(shape, 48), [tT], [[t] for t in tiles],
                   [math.prod(threads)], H100, CAL, cfg.stencil)
    one = cfg.per_tile()
    assert q.N_w[0] == cfg.launches
    assert q.w[0] == (cfg.tiles_in("A") + cfg.tiles_in("B")) / 2
    assert cfg.groups == cfg.tiles_in("A")
    assert q.M_tile_bytes[0] == cfg.local_bytes
    assert (q.m_i[0], q.m_o[0]) == (one["loads"], one["stores"])
    assert q.c[0] == pytest.approx(2 * CAL.tau_sync * tT + CAL.c_iter(cfg.stencil) * sum(
        math.ceil(w * (tiles[1] if dims == 2 else 1) / H100.n_V)
        for w in [tiles[0] + 2 * min(r, tT - 1 - r) for r in range(tT)]))


def test_spaces_and_their_limits():
    assert set(HEXAGONAL_SPACES) == {"hx_jacobi1d", "hx_jacobi2d", "hx_heat2d",
                                     "hx_laplacian2d", "hx_gradient2d"}
    space = hexagonal_space("heat2d", baseline=1)
    points = space.points()
    assert 100 < len(points) < 300
    assert all(int(p["tT"]) % 2 == 0 and 48 % int(p["tT"]) == 0 for p in points)
    cfgs = [hex_config("heat2d", p, space.problem) for p in points]
    assert all(0.35 * 48 * 1024 <= c.local_bytes <= 48 * 1024 for c in cfgs)
    assert space.sequence.count(points[0]) == cfgs[0].launches
    with pytest.raises(ParameterError, match="1-D and 2-D"):
        hexagonal_space("heat3d")
    with pytest.raises(ParameterError, match="even"):
        HexConfig("heat2d", (8, 8), 6, 3, (2, 32), (1, 32))


def test_space_through_the_sequence_evaluator(queue):
    from workbench.measure.store import Status
    from workbench.tuning.sequence import SequenceEvaluator
    from workbench.measure.runner import TimingProtocol

    space = hexagonal_space("jacobi2d", S1=40, S2=70, T=8)
    point = next(p for p in space.points() if p["tT"] == 4)
    ev = SequenceEvaluator(space, queue, protocol=TimingProtocol(runs=1, discard_first=0))
    result = ev.evaluate(point)
    assert result.status is Status.OK, result.log
    assert result.extra["launches"] == 5


def test_the_family_predicts_hexagonal_spaces_with_the_paper_scheme():
    from workbench.kernels.candidate import Candidate
    from workbench.models.tiling import TilingTimeModel

    model = TilingTimeModel(H100, CAL)            # overlapped by default
    sizes = (("S1", 4096), ("S2", 4096), ("T", 48))
    label = "tT=4,tS1=12,tS2=64,bx=64,by=4"
    hx, tt = model.predict_candidates([Candidate("tune.hx_heat2d", label, (1,), sizes),
                                       Candidate("tune.tt_heat2d", label, (1,), sizes)]
                                      ).seconds
    want = quantities(Scheme.HYBRID, Problem((4096, 4096), 48), [4], [[12], [64]], [256],
                      H100, CAL, "heat2d").T_alg[0]
    assert hx == pytest.approx(want) and tt != pytest.approx(want)
