"""The Lift paper's eight stencil benchmarks: every structure (global or local tiles,
2D or 1D launch, unrolled or not) computes what the numpy reference does on pocl;
each benchmark's space has the paper's 1,000 points over its three inputs; the
shipped H100 store holds every one of them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.kernels.tunable import lift_stencils
from workbench.measure.store import resolve_store_path
from workbench.tuning.catalog import LIFT_SIZES, LIFT_SPACES, get_space

LIFT_STORE = Path(__file__).resolve().parents[1] / "sample_data" / "h100" / "lift.sqlite"

#: Every structure once, with the two-grid, corner-needing and radius-2 cases in
#: local tiles (a pocl build costs seconds: the other benchmarks differ only in the
#: expression, which the reference shares with the kernel).
CASES = [
    ("stencil2d", "bx=32,by=2,cy=2,cx=1,tile=local,launch=2d,unroll=False"),
    ("srad1", "bx=64,by=1,cy=1,cx=2,tile=global,launch=1d,unroll=True"),
    ("srad2", "bx=16,by=4,cy=1,cx=2,tile=local,launch=2d,unroll=True"),
    ("gaussian", "bx=16,by=4,cy=2,cx=2,tile=local,launch=2d,unroll=True"),
]


@pytest.mark.parametrize(("benchmark", "label"), CASES)
def test_every_structure_computes_the_reference(queue, benchmark, label):
    n = 128
    space = get_space(f"lift_{benchmark}", n=n)
    point = space.point(label)
    inputs = space.make_inputs(np.random.default_rng(1))
    _, (out,) = space.build(point).executor(queue)(queue, **inputs)
    out = out.get() if hasattr(out, "get") else out
    expected = space.reference(inputs)["out"]
    assert out.shape == expected.shape == (n, n)
    np.testing.assert_allclose(out, expected, rtol=space.rtol, atol=1e-6)


def test_the_reference_is_the_stencil_written_out():
    bench = lift_stencils.BENCHMARKS["jacobi5"]
    u = np.arange(36, dtype=np.float32).reshape(6, 6) ** 1.5
    out = lift_stencils.reference(bench, {"u": u})["out"]
    i, j = 2, 3   # output (i, j) is grid point (i + 1, j + 1)
    by_hand = 0.2 * (u[3, 4] + u[2, 4] + u[4, 4] + u[3, 3] + u[3, 5])
    assert out.shape == (4, 4) and out[i, j] == pytest.approx(by_hand, rel=1e-6)


def test_table_2_of_the_paper():
    used = {b.name: (b.points_used, len(b.grids), b.radius)
            for b in lift_stencils.BENCHMARKS.values()}
    assert used == {"stencil2d": (9, 1, 1), "srad1": (5, 1, 1), "srad2": (5, 2, 1),
                    "hotspot2d": (5, 2, 1), "gradient": (5, 1, 1), "jacobi5": (5, 1, 1),
                    "jacobi9": (9, 1, 1), "gaussian": (25, 1, 2)}


def test_each_benchmark_has_a_thousand_points_over_its_inputs():
    for name in LIFT_SPACES:
        counts = [len(get_space(name, n=n).points()) for n in LIFT_SIZES]
        assert sum(counts) >= 1000, (name, counts)
        launches = {p["launch"] for p in get_space(name).points()}
        assert launches == {"1d", "2d"}


@pytest.mark.skipif(resolve_store_path(LIFT_STORE) is None, reason="no shipped Lift measurements")
def test_the_shipped_store_measured_every_point_without_failure():
    from workbench.tuning.replay import load_space_evaluations

    for name in LIFT_SPACES:
        for n in LIFT_SIZES:
            space = get_space(name, n=n)
            evaluations = load_space_evaluations(LIFT_STORE, space)
            assert set(evaluations) == {p.label for p in space.points()}
            assert all(e.ok and e.time_s > 0 for e in evaluations.values())
