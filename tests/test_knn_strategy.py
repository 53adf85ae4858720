"""Lift's kNN as a tuning strategy: trained on the other shipped spaces, never on the
one explored, and a clear message when there is nothing to learn from."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.errors import TuningError
from workbench.measure.store import MeasurementStore
from workbench.tuning import get_space, make_strategy

TUNING = Path(__file__).resolve().parents[1] / "sample_data" / "h100" / "tuning.sqlite"


def test_knn_orders_every_point_having_learnt_from_the_other_spaces():
    space = get_space("transpose")
    points = space.points()
    strategy = make_strategy("knn", training=[TUNING])
    seconds = strategy.start(space, points)
    assert seconds > 0
    assert set(strategy.trained_on) == {"stencil2d", "matmul"}
    proposed = []
    while (p := strategy.ask()) is not None:
        proposed.append(p.label)
    assert sorted(proposed) == sorted(p.label for p in points)


def test_knn_without_other_measured_spaces_says_so(tmp_path):
    empty = tmp_path / "empty.sqlite"
    MeasurementStore.open(empty).close()
    strategy = make_strategy("knn", training=[empty])
    with pytest.raises(TuningError, match="--training"):
        strategy.start(get_space("transpose"), get_space("transpose").points())


def test_tune_cli_replays_the_knn_strategy(capsys):
    args = ["tune", "transpose", "--strategy", "knn", "--replay", str(TUNING),
            "--budget-evals", "3", "--no-progress"]
    assert main(args) == 0
    assert "3 evaluations (0 failed) with knn" in capsys.readouterr().out
