"""``workbench tile-sizes``: the model over the feasible space from the command line."""

from __future__ import annotations

import json

from workbench.cli.main import main
from workbench.models.tiling import TilingCalibration, save_calibration


def _calibration(tmp_path):
    path = tmp_path / "cal.json"
    # parameters for the arithmetic only: a device's are measured
    save_calibration(TilingCalibration("test", 1e-10, 5e-8, 3e-6, {"heat2d": 2e-9}), path)
    return str(path)


def test_tile_sizes_ranks_the_feasible_space(tmp_path, capsys):
    cal = _calibration(tmp_path)
    assert main(["tile-sizes", "heat2d", "--param", "S1=8192,S2=8192,T=96",
                 "--calibration", cal, "--top", "3", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sizes"] == {"S1": 8192, "S2": 8192, "T": 96}
    assert len(data["top"]) == 3 and data["feasible"] > 1000
    times = [r["T_alg_s"] for r in data["top"]]
    assert times == sorted(times) and 1 <= data["near_minimum"] <= data["feasible"]
    assert all(96 % r["tT"] == 0 for r in data["top"])
    assert main(["tile-sizes", "heat2d", "--calibration", cal, "--scheme", "hybrid",
                 "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "hybrid tiles" in out and "GFlop/s" in out


def test_tile_sizes_errors_are_one_line(tmp_path, capsys):
    cal = _calibration(tmp_path)
    for argv, words in ((["heat5d"], "unknown time-tiled stencil"),
                        (["heat2d", "--param", "S3=4", "--calibration", cal], "no size 'S3'"),
                        (["heat3d", "--calibration", cal], "no C_iter for 'heat3d'"),
                        (["heat2d", "--calibration", str(tmp_path / "no.json")],
                         "no tiling calibration")):
        assert main(["tile-sizes", *argv]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


def test_the_paper_tiles_default_to_the_lane_rows_form_where_it_is_calibrated(tmp_path,
                                                                              capsys):
    """Round 5 of issue 34: with the shipped calibration (which has the lane-rows
    constants) the hybrid tiles are priced by that form unless --form says otherwise;
    a calibration without them keeps the paper's form."""
    args = ["tile-sizes", "heat2d", "--param", "S1=4096,S2=4096,T=48", "--scheme",
            "hybrid", "--top", "1", "--format", "json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["form"] == "resident-lane-rows"
    assert main(args + ["--form", "paper"]) == 0
    assert json.loads(capsys.readouterr().out)["form"] == "paper"
    assert main(args + ["--calibration", _calibration(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["form"] == "paper"
    assert main(args[:4] + ["--top", "1", "--format", "json"]) == 0     # overlapped
    assert json.loads(capsys.readouterr().out)["form"] == "paper"
