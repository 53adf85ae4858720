"""``workbench fit-ranking``: the ranking model's weights fitted on spaces a user measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.models import load_model

ROOT = Path(__file__).resolve().parents[1]
STORE = str(ROOT / "sample_data/h100/user-spaces.sqlite")
SHIPPED = ROOT / "sample_data/h100/weights-linear-non-negative.json"
SPACES = [f"{ROOT}/examples/spaces/{name}.py:space" for name in ("triad", "rowsum")]


@pytest.mark.parametrize("objective", ["relative", "log-within"])
def test_fit_ranking_writes_a_model_tune_can_rank_with(tmp_path, capsys, objective):
    out = tmp_path / "ranking.json"
    assert main(["fit-ranking", *SPACES, "--store", STORE, "--base", str(SHIPPED),
                 "-o", str(out), "--format", "json", "--objective", objective]) == 0
    report = json.loads(capsys.readouterr().out)
    fitted, base = load_model(out), load_model(SHIPPED)
    assert set(fitted.weights) == set(base.weights)
    # what the base weighs at zero a ranking does not count: it stays zero
    assert all(fitted.weights[n] == 0.0 for n, w in base.weights.items() if not w)
    assert fitted.weights != base.weights
    assert report["points"] == fitted.fit_stats["n_measurements"] == 66 + 71
    assert fitted.fit_stats["spaces"] == ["user_rowsum", "user_triad"]
    assert fitted.provenance["fitted_by"] == "workbench fit-ranking"
    assert fitted.fit_stats["objective"] == fitted.provenance["objective"] == objective
    assert [row["space"] for row in report["leave_one_out"]] == ["user_triad", "user_rowsum"]
    assert all(row["runs to 95 % (base)"] >= 1 for row in report["leave_one_out"])


def test_fit_ranking_says_when_a_space_was_not_measured(tmp_path, capsys):
    other = f"{ROOT}/examples/spaces/blind_colsum.py:space"
    assert main(["fit-ranking", other, "--store", STORE, "-o", str(tmp_path / "x.json")]) != 0
    err = capsys.readouterr().err
    assert "no measurement of space" in err and "Traceback" not in err


def test_fit_ranking_refuses_a_model_that_is_not_linear(tmp_path, capsys):
    overlap = ROOT / "sample_data/h100/weights-overlap-fp64.json"
    assert main(["fit-ranking", *SPACES, "--store", STORE, "--base", str(overlap),
                 "-o", str(tmp_path / "x.json")]) != 0
    assert "refits a unified-linear weights file" in capsys.readouterr().err


def test_fit_ranking_refuses_spaces_measured_on_another_device(tmp_path, capsys):
    h200 = ROOT / "sample_data/h200/weights-linear-fp64.json"
    assert main(["fit-ranking", *SPACES, "--store", STORE, "--base", str(h200),
                 "-o", str(tmp_path / "x.json")]) != 0
    err = capsys.readouterr().err
    assert "measured on NVIDIA H100 80GB HBM3" in err and "H200" in err, err
