"""The extended roofline (Ernst et al. II-A), block ranking, CLI and heatmaps."""

from __future__ import annotations

import json
import math

import loopy as lp
import numpy as np
import pytest

from workbench.kernels import resolve_kernel
from workbench.models.roofline import (
    Limiter, block_sizes, predict_block, rank_blocks, study_block_sizes)
from workbench.hardware.description import load_device_model
from workbench.models.roofline.limiters import default_blocks_per_sm, representative_blocks

H100 = load_device_model("h100")


def reuse_kernel(block, n=(64, 8, 8), taps=64):
    """3-D kernel: every thread reads a[16*tx + k], k < taps -- a tiny footprint,
    heavy reuse and 16-way bank conflicts (16 words x 8 B apart = one bank)."""
    X, Y, Z = block
    gx, gy, gz = n[0] // X, n[1] // Y, n[2] // Z
    knl = lp.make_kernel(
        f"{{[bx, by, bz, tx, ty, tz, k]: 0 <= bx < {gx} and 0 <= by < {gy} and "
        f"0 <= bz < {gz} and 0 <= tx < {X} and 0 <= ty < {Y} and 0 <= tz < {Z} and "
        f"0 <= k < {taps}}}",
        f"out[bz*{Z} + tz, by*{Y} + ty, bx*{X} + tx] = sum(k, a[16*tx + k])",
        [lp.GlobalArg("a", np.float64, shape=(16 * X + taps,)),
         lp.GlobalArg("out", np.float64, shape=(n[2], n[1], n[0])), "..."],
        name="reuse", lang_version=(2018, 2))
    return lp.tag_inames(knl, {"bx": "g.0", "by": "g.1", "bz": "g.2",
                               "tx": "l.0", "ty": "l.1", "tz": "l.2"})


def test_stream_is_dram_bound():
    spec = resolve_kernel("vector_scale_add")
    n = 1 << 20
    prog = spec.build(spec.request(None, "float64", (256,)))
    pred = predict_block(prog, {"n": n}, (256,), H100, points=n)
    assert pred.limiter is Limiter.DRAM
    assert pred.inputs.dram.total_bytes == 3 * 8 * n
    bw = H100.bandwidth_GBps["dram"].value * 1e9
    assert pred.time == pytest.approx(3 * 8 * n / bw)
    assert pred.time_of("DRAM") == pred.time
    assert pred.lups == pytest.approx(n / pred.time)
    assert pred.times[Limiter.FLOP] is None
    assert any("FLOP limiter left out" in s for s in pred.notes)
    assert any("not a peak" in s for s in pred.notes)
    assert pred.inputs.blocks_per_sm == 8 and pred.inputs.blocks_per_wave == 132 * 8


def test_flop_limiter_when_peak_given():
    spec = resolve_kernel("vector_scale_add")
    prog = spec.build(spec.request(None, "float64", (256,)))
    pred = predict_block(prog, {"n": 4096}, (256,), H100, flop_rate=1e9)
    assert pred.inputs.flops == 3 * 4096          # 2 mul + 1 add per point
    assert pred.limiter is Limiter.FLOP
    assert pred.time == pytest.approx(3 * 4096 / 1e9)


def test_heavy_reuse_is_l1_bound():
    block = (32, 4, 2)
    pred = predict_block(reuse_kernel(block), {}, block, H100)
    # 64 loads per thread, each 16 cycles per half warp; 256 threads = 16 half warps.
    assert pred.inputs.l1_cycles_per_block == 64 * 16 * 16
    assert pred.limiter is Limiter.L1
    clock = 1.98e9
    assert pred.time == pytest.approx(64 * 16 * 16 * pred.inputs.blocks / (132 * clock))
    assert pred.times[Limiter.DRAM] < pred.time and pred.times[Limiter.L2] < pred.time


def test_rank_blocks_sorted_and_complete():
    blocks = study_block_sizes(64)
    assert all(x * y * z == 64 for x, y, z in blocks)
    assert (64, 1, 1) in blocks and (1, 1, 64) in blocks and len(blocks) == 28
    chosen = [b for b in blocks if b[0] >= 8 and b[1] <= 8 and b[2] <= 8]
    df = rank_blocks(reuse_kernel, {}, chosen, H100)
    assert len(df) == len(chosen)
    assert sorted(map(tuple, df[["X", "Y", "Z"]].values.tolist())) == sorted(chosen)
    assert list(df["rank"]) == list(range(1, len(chosen) + 1))
    assert df["time"].is_monotonic_increasing
    assert set(df["limiter"]) <= {"L1", "L2", "DRAM"}
    assert df["error"].isna().all()
    t = df[["t_L1", "t_L2", "t_DRAM"]].max(axis=1)
    assert np.allclose(t, df["time"])


def test_rank_blocks_records_errors():
    def build(block):
        if block == (3, 1, 1):
            raise ValueError("no such block")
        return reuse_kernel(block)
    df = rank_blocks(build, {}, [(3, 1, 1), (16, 4, 1)], H100)
    assert df.iloc[0]["block"] == "16x4x1" and not isinstance(df.iloc[0]["error"], str)
    assert "no such block" in df.iloc[1]["error"] and math.isnan(df.iloc[1]["time"])
    with pytest.raises(ValueError):
        rank_blocks(build, {}, [(3, 1, 1)], H100, skip_errors=False)


def test_helpers():
    assert default_blocks_per_sm(1024) == 2
    assert default_blocks_per_sm(32) == 32 and default_blocks_per_sm(1) == 32
    from workbench.models.roofline import LaunchConfig
    reps = representative_blocks(LaunchConfig((8, 8, 8), (10, 4, 2)))
    assert reps == ((5, 2, 1), (6, 2, 1))
    assert len(block_sizes(1024)) > 0


def _cli(capsys, argv):
    from workbench.cli.main import main
    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_cli_volumes_json(capsys):
    rc, out, _ = _cli(capsys, ["volumes", "finite_diff", "--param", "n=512",
                               "--block", "32x8", "--format", "json"])
    assert rc == 0
    doc = json.loads(out)
    for key in ("kernel", "block", "l1_cycles_per_block", "l2_l1_per_block", "dram",
                "times_s", "limiter", "time_s", "notes"):
        assert key in doc
    assert set(doc["l2_l1_per_block"]) >= {"load_sectors_bytes", "load_lines_bytes",
                                           "store_bytes"}
    assert set(doc["times_s"]) == {"L1", "L2", "DRAM", "FLOP"}
    assert doc["limiter"] in ("L1", "L2", "DRAM")
    assert doc["time_s"] == max(t for t in doc["times_s"].values() if t is not None)
    rc, out, _ = _cli(capsys, ["volumes", "vector_scale_add", "--param", "n=65536",
                               "--block", "256"])
    assert rc == 0 and "limiter" in out and "DRAM" in out


def test_cli_errors_are_one_line(capsys):
    rc, _, err = _cli(capsys, ["volumes", "finite_diff", "--param", "n=512",
                               "--block", "32x8x2"])
    assert rc == 2 and err.count("\n") == 1 and "2-D" in err
    rc, _, err = _cli(capsys, ["volumes", "finite_diff", "--block", "32x8"])
    assert rc == 2 and "n" in err


def test_cli_rank_blocks_json(capsys):
    rc, out, _ = _cli(capsys, ["rank-blocks", "finite_diff", "--param", "n=256",
                               "--total", "64", "--format", "json"])
    assert rc == 0
    doc = json.loads(out)
    rows = doc["blocks"]
    # 2-D kernel: the eq. (9) blocks with Z = 1 -> X*Y = 64, X, Y powers of 2.
    assert len(rows) == 7
    assert [r["rank"] for r in rows] == list(range(1, 8))
    times = [r["time"] for r in rows]
    assert times == sorted(times)
    for r in rows:
        assert {"block", "X", "Y", "Z", "limiter", "time", "t_L1", "t_L2", "t_DRAM",
                "t_FLOP", "lups"} <= set(r)
    rc, out, _ = _cli(capsys, ["rank-blocks", "finite_diff", "--param", "n=256",
                               "--blocks", "32x8,8x32", "--top", "1"])
    assert rc == 0 and ("32x8" in out or "8x32" in out)


def test_heatmaps_return_figures():
    go = pytest.importorskip("plotly.graph_objects")
    from workbench.reports.heatmaps import (
        limiter_heatmaps, performance_heatmap, volume_scatter)
    blocks = [(16, 4, 1), (16, 2, 2), (8, 4, 2), (32, 2, 1), (8, 8, 1), (16, 1, 4)]
    df = rank_blocks(reuse_kernel, {}, blocks, H100, points=64 * 8 * 8)
    fig = performance_heatmap(df)
    assert isinstance(fig, go.Figure) and len(fig.data) == 1
    measured = {b: float(v) * 0.8 for b, v in
                zip(map(tuple, df[["X", "Y", "Z"]].values.tolist()), df["lups"])}
    fig2 = performance_heatmap(df, measured)
    assert isinstance(fig2, go.Figure) and len(fig2.data) == 2
    fig3 = limiter_heatmaps(df)
    assert isinstance(fig3, go.Figure) and len(fig3.data) == 3   # L1, L2, DRAM
    mvol = {b: v * 1.1 for b, v in zip(map(tuple, df[["X", "Y", "Z"]].values.tolist()),
                                       df["dram_bytes"])}
    fig4 = volume_scatter(df, mvol)
    assert isinstance(fig4, go.Figure) and len(fig4.data[0].x) == len(blocks)
    assert fig4.data[0].marker.color[0].startswith("rgb(")
