"""Issue #15 item 6: a mistake in the input is reported once, as the mistake it is.

Each case fails before any kernel is built, so these run in well under a second.
"""

import pytest

from workbench.cli.main import main
from workbench.errors import ModelError
from workbench.hardware.description import load_device_model
from workbench.models.roofline.blocks import rank_blocks


def one_line_error(capsys, args) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("workbench: error: ")
    return err.strip()


STENCIL = ["star_stencil_3d", "--device-model", "h100"]


@pytest.mark.parametrize("command", [
    ["rank-blocks", *STENCIL, "--points", "134217728", "--top", "5"],
    ["volumes", *STENCIL, "--block", "32x4x8"],
])
@pytest.mark.parametrize("value", ["0", "-5"])
def test_a_size_of_zero_or_less_is_one_error_not_a_table_of_them(capsys, command, value):
    err = one_line_error(capsys, [*command, "--param", f"nx={value},ny=512,nz=512"])
    assert f"kernel 'star_stencil_3d': the size nx must be at least 1, got {value}" in err
    assert ("a size of 0 leaves the kernel no work to do" in err) == (value == "0")


def test_points_must_be_positive(capsys):
    err = one_line_error(capsys, ["rank-blocks", *STENCIL, "--param",
                                  "nx=64,ny=64,nz=64", "--points", "0"])
    assert "--points must be positive" in err


# the sizes are those of another kernel (or missing), as one would type them with a
# misspelt variant: the variant is still what must be reported
@pytest.mark.parametrize("args, kernel, known", [
    (["properties", "matmul_tiled", "--param", "n=1024"], "matmul_tiled", "square"),
    (["measure", "matmul_tiled", "--param", "n=1024"], "matmul_tiled", "square"),
    (["predict", "matmul_tiled", "--param", "n=1024", "--model", "roofline",
      "--device-model", "h100"], "matmul_tiled", "square"),
    (["volumes", "star_stencil_3d", "--param", "n=1024", "--block", "32x4x8"],
     "star_stencil_3d", "nofold"),
    (["rank-blocks", "star_stencil_3d"], "star_stencil_3d", "nofold"),
])
def test_an_unknown_variant_is_reported_before_the_parameters(capsys, args, kernel, known):
    err = one_line_error(capsys, [*args, "--variant", "nope"])
    assert f"unknown variant of {kernel!r} 'nope'" in err
    assert known in err.split("Known:")[1]
    assert "parameter" not in err


def test_rank_blocks_raises_one_error_when_every_block_fails():
    def build(block):
        raise ValueError(f"cannot build {block}\nsecond line of the reason")

    with pytest.raises(ModelError) as caught:
        rank_blocks(build, {}, [(32, 4, 8), (16, 8, 8)], load_device_model("h100"))
    assert str(caught.value) == ("no block size could be predicted (2 tried); the first, "
                                 "32x4x8, failed: ValueError: cannot build (32, 4, 8)")
    assert isinstance(caught.value.__cause__, ValueError)


def test_tuning_report_refuses_a_plot_folder_that_does_not_exist_before_replaying(
        tmp_path, capsys, monkeypatch):
    """It used to replay every strategy (minutes on the shipped spaces) and then stop
    with a FileNotFoundError traceback from plotly."""
    from pathlib import Path

    import workbench.tuning.study as study
    from workbench.cli.main import main

    def replayed(*args, **kwargs):
        raise AssertionError("replayed before saying the folder is missing")

    monkeypatch.setattr(study, "compare_strategies", replayed)
    store = Path(__file__).resolve().parents[1] / "sample_data/h100/tuning.sqlite"
    code = main(["tuning-report", "--store", str(store),
                 "--plot", str(tmp_path / "missing" / "tuning")])
    err = capsys.readouterr().err
    assert code != 0 and "does not exist" in err and "Traceback" not in err
