"""The study kernels through the volumes/rank-blocks commands, and the shipped fits."""

import json

import pytest

from workbench.cli.main import main
from workbench.kernels import get_kernel
from workbench.hardware.description import load_device_model


def test_study_kernels_resolve_by_name_but_stay_out_of_the_catalog():
    from workbench.kernels import all_kernels
    assert get_kernel("star_stencil_3d").group_dims == 3
    assert get_kernel("lbm_like").name == "lbm_like"
    assert "star_stencil_3d" not in {s.name for s in all_kernels()}


def test_rank_blocks_json_for_the_star_stencil(capsys):
    rc = main(["rank-blocks", "star_stencil_3d", "--variant", "nofold",
               "--param", "nx=64,ny=64,nz=64", "--blocks", "32x4x8,8x8x16,1x16x64",
               "--device-model", "h100", "--points", str(64 ** 3), "--format", "json"])
    assert rc == 0
    rows = json.loads(capsys.readouterr().out)
    rows = rows["blocks"] if isinstance(rows, dict) else rows
    assert [r["block"] for r in rows][-1] == "1x16x64"     # narrow x: slowest
    assert all(r["limiter"] in ("L1", "L2", "DRAM") for r in rows)
    assert [r["rank"] for r in rows] == [1, 2, 3]


def test_rank_blocks_top_says_how_many_were_ranked(capsys):
    """``--top 2`` printed "(2 block sizes)", as if only two had been ranked."""
    args = ["rank-blocks", "star_stencil_3d", "--variant", "nofold", "--param",
            "nx=64,ny=64,nz=64", "--blocks", "32x4x8,8x8x16,1x16x64", "--device-model",
            "h100", "--points", str(64 ** 3)]
    assert main([*args, "--top", "2"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.endswith("(the best 2 of 3 block sizes ranked)"), head
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("(3 block sizes ranked)")


@pytest.mark.parametrize("reuse", ["l2", "previous"])
def test_volumes_reports_reuse_model_and_fitted_misses(capsys, reuse):
    rc = main(["volumes", "lbm_like", "--variant", "nofold", "--param",
               "nx=32,ny=32,nz=32", "--block", "32x4x4", "--device-model", "h100",
               "--reuse", reuse, "--format", "json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dram"]["reuse"] == reuse
    l2 = out["l2_l1_per_block"]
    assert l2["requested_bytes"] >= l2["load_sectors_bytes"] > 0
    assert any("L1 capacity misses: fitted" in n for n in out["notes"])


def test_shipped_h100_fits_describe_a_partitioned_l2():
    model = load_device_model("h100")
    l2 = model.miss_function("l2_reuse")
    assert l2 is not None and l2.source == "fitted"
    # data reused within ~0.3 L2 capacities hits, beyond ~0.6 it mostly misses
    assert l2(0.3) < 0.1 and l2(0.6) > 0.5 * l2.a and l2.a <= 1
    assert 0 <= model.miss_function("l1_capacity").a < 0.5
