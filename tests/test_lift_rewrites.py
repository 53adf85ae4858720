"""The Lift benchmarks' rewrite spaces: blocked work assignment and vector widths
compute what the numpy reference does on pocl, and they show in the coalescing and
access-count features; the space is a fixed sample, the same at every input, whose
scalar points are those stored before vector widths; the GPU features' residency and
waves follow the H100's limits; the shipped H100 store measured every point."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.measure.store import resolve_store_path
from workbench.models.ir_features import KNNConfig, space_ir_features
from workbench.models.ir_features.gpu import GPU_FEATURES, gpu_feature_frame
from workbench.models.ir_features.samples import FEATURES
from workbench.tuning.catalog import (
    LIFT_REWRITE_SAMPLING,
    LIFT_REWRITE_SIZES,
    LIFT_REWRITE_SPACES,
    get_space,
)
from workbench.tuning.space import Point

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"
STORE = H100 / "lift-rewrites.sqlite"


def _point(space, values: dict) -> Point:
    """A point of the space's product, in the sample or not (vw 1 unless given)."""
    values = {**space.added_params, **values}
    return Point(tuple((name, values[name]) for name in space.tune_params))


@pytest.mark.parametrize(("benchmark", "values"), [
    # radius 2 with corners, blocked reads of a local tile, unrolled
    ("gaussian", dict(bx=16, by=4, cy=2, cx=4, assign="blocked", tile="local",
                      launch="2d", unroll=True)),
    # one row of lanes sweeping the rows, four contiguous columns each
    ("jacobi9", dict(bx=32, by=1, cy=1, cx=4, assign="blocked", tile="global",
                     launch="1d", unroll=False)),
    # float2 windows, radius 2 (a halo of one vector), two rows per item unrolled
    ("gaussian", dict(bx=8, by=4, cy=2, cx=4, assign="blocked", tile="global",
                      launch="2d", unroll=True, vw=2)),
    # float4 windows of two grids of different reach, the 1D sweep
    ("srad2", dict(bx=8, by=1, cy=1, cx=8, assign="blocked", tile="global",
                   launch="1d", unroll=False, vw=4)),
])
def test_blocked_assignment_and_vectors_compute_the_reference(queue, benchmark, values):
    from workbench.tuning.live import kernel_inputs

    n = 128
    space = get_space(f"lift_rewrites_{benchmark}", n=n)
    inputs = space.make_inputs(np.random.default_rng(3))
    kernel = space.build(_point(space, values))
    _, (out,) = kernel.executor(queue)(queue, **kernel_inputs(kernel, inputs))
    out = out.get() if hasattr(out, "get") else out
    np.testing.assert_allclose(out.reshape(n, n), space.reference(inputs)["out"],
                               rtol=space.rtol, atol=1e-6)


def test_a_vector_load_or_store_counts_once():
    space = get_space("lift_rewrites_jacobi5", n=2048)
    common = dict(bx=8, by=4, cy=1, cx=8, assign="blocked", tile="global",
                  launch="2d", unroll=False)
    points = [_point(space, {**common, "vw": w}) for w in (1, 2, 4)]
    f = space_ir_features(space, points)
    # scalar: five reads per output (each read once), 8 outputs; float2: 3 rows of
    # windows of 4 + 2 vectors, 4 stores; float4: 3 rows of 2 + 2 vectors, 2 stores
    assert f["global_loads"].tolist() == [40.0, 18.0, 12.0]
    assert f["global_stores"].tolist() == [8.0, 4.0, 2.0]


def test_blocked_columns_touch_more_cache_lines_per_warp():
    space = get_space("lift_rewrites_jacobi5", n=2048)
    common = dict(bx=64, by=4, cy=1, cx=4, tile="global", launch="2d", unroll=False)
    points = [_point(space, {**common, "assign": a}) for a in ("strided", "blocked")]
    lines = space_ir_features(space, points)["cache_lines_per_warp_access"].to_numpy()
    # strided: 32 lanes read 32 consecutive floats (one or two lines with the halo);
    # blocked: lanes 4 floats apart span four times the bytes
    assert lines[1] >= 3.5 * lines[0] and lines[0] <= 2.0


def test_the_space_is_a_fixed_sample_the_same_at_every_input():
    for name in LIFT_REWRITE_SPACES:
        points = [get_space(name, n=n).points() for n in LIFT_REWRITE_SIZES]
        assert {p.label for p in points[0]} == {p.label for p in points[1]}
        widths = pd.Series([p["vw"] for p in points[0]]).value_counts()
        # the scalar points are the sample taken before vector widths came
        assert 380 <= widths[1] <= 500, (name, widths[1])
        assert widths[2] >= 60 and widths[4] >= 40, (name, widths)
    points = get_space("lift_rewrites_stencil2d").points()
    kinds = {(p["assign"], p["tile"], p["launch"]) for p in points}
    assert len(kinds) == 6      # every combination the restrictions allow
    assert all(p["assign"] == "blocked" and p["tile"] == "global"
               and p["cx"] % p["vw"] == 0 for p in points if p["vw"] > 1)
    # one point in LIFT_REWRITE_SAMPLING of the valid product: the sample is not
    # biased toward any value of the group width
    widths = pd.Series([p["bx"] for p in points]).value_counts()
    assert set(widths.index) == {8, 16, 32, 64, 128, 256, 512}
    assert LIFT_REWRITE_SAMPLING == 6


def test_gpu_features_follow_the_h100_limits():
    frame = pd.DataFrame(0.0, index=range(3), columns=list(FEATURES))
    # 256-item groups: 8 per SM fill its 2048 threads; 32-item groups are capped at
    # 32 groups (1024 threads) per SM; 48 KiB of local memory allows 4 groups of 256
    frame["local_size_0"] = [256, 32, 256]
    frame["local_size_1"] = 1
    frame["local_memory_bytes"] = [0, 0, 48 * 1024]
    frame["global_size_0"] = [8192 * 8192 // 16] * 3
    frame["global_size_1"] = 1
    frame["global_stores"] = 16
    gpu = gpu_feature_frame(frame, "h100")
    assert list(gpu.columns) == list(GPU_FEATURES)
    np.testing.assert_allclose(gpu["occupancy"], [1.0, 0.5, 0.5])
    groups = np.array([8192 * 8192 // 16 / 256, 8192 * 8192 // 16 / 32,
                       8192 * 8192 // 16 / 256])
    np.testing.assert_allclose(gpu["waves"], np.ceil(groups / (132 * np.array([8, 32, 4]))))
    # the launch writes n^2 floats: 256 MiB over a 50 MiB L2
    np.testing.assert_allclose(gpu["output_over_l2"], 8192 * 8192 * 4 / 52428800)


def test_the_knn_with_gpu_features_reads_them():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.integers(1, 64, size=(40, len(FEATURES))).astype(float),
                         columns=list(FEATURES))
    frame["benchmark"], frame["input"] = "a", "n=1"
    frame["normalized_throughput"] = rng.random(40)
    plain = KNNConfig().fit(frame)
    with_gpu = KNNConfig(device="h100").fit(frame)
    assert plain.pipeline.named_steps["scale"].n_features_in_ == len(FEATURES)
    assert with_gpu.pipeline.named_steps["scale"].n_features_in_ == \
        len(FEATURES) + len(GPU_FEATURES)


@pytest.mark.skipif(resolve_store_path(STORE) is None, reason="no shipped rewrite store")
def test_the_shipped_store_measured_every_point_without_failure():
    from workbench.hardware.build_info import registers_of
    from workbench.tuning.replay import load_space_evaluations

    for name in LIFT_REWRITE_SPACES:
        for n in LIFT_REWRITE_SIZES:
            space = get_space(name, n=n)
            evaluations = load_space_evaluations(STORE, space)
            assert set(evaluations) == {p.label for p in space.points()}
            assert all(e.ok and e.time_s > 0 for e in evaluations.values())
            # the compiler's report is kept with (nearly) every point: -cl-nv-verbose,
            # and no driver cache (a cached build leaves an empty log); a handful of
            # builds per space came back without one (most likely from pyopencl's binary
            # cache, which fills during the run)
            reported = sum(registers_of(e.extra.get("build_log", "")) is not None
                           for e in evaluations.values())
            assert reported >= len(evaluations) - 5, (name, n, reported)


@pytest.mark.skipif(resolve_store_path(STORE) is None, reason="no shipped rewrite store")
def test_only_the_vector_points_replay_from_the_shipped_store(capsys):
    import json

    from workbench.cli.main import main

    assert main(["tune", "lift_rewrites_jacobi5", "--param", "n=2048", "--only",
                 "vw > 1 and bx == 64", "--replay", str(STORE), "--strategy", "random",
                 "--no-progress", "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    space = get_space("lift_rewrites_jacobi5", n=2048)
    vector = [p for p in space.points() if p["vw"] > 1 and p["bx"] == 64]
    # every such point replayed, and no other
    assert result["evaluations"] == len(vector) and result["stopped_by"] == "exhausted"
    assert result["best"]["point"]["vw"] > 1 and result["best"]["point"]["bx"] == 64


def test_the_register_table_ranks_an_informative_column_first():
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "lift_registers.py"
    spec = importlib.util.spec_from_file_location("lift_registers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.integers(1, 5, size=(200, len(FEATURES))).astype(float),
                         columns=list(FEATURES))
    frame["benchmark"] = np.repeat(["a", "b"], 100)
    frame["normalized_throughput"] = rng.random(200)
    # registers that follow performance closely; a row without a report is left out
    frame["registers"] = np.round(64 * (1 - frame["normalized_throughput"])) + 16
    frame.loc[0, "registers"] = np.nan
    table = module.information(frame)
    assert table.index[0] == "registers" and table.loc["registers", "mean"] > 0.5
    assert table.loc[list(FEATURES), "mean"].max() < 0.2
