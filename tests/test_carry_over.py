"""Carry-over of tuned variants between stores (workbench/reports/carry_over.py), on
the H100's two shipped exhaustive runs of the same spaces (run to run, one device)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import ParameterError
from workbench.reports.carry_over import (
    SpaceTimes,
    carry_over,
    carry_over_table,
    expected_random_runs,
    runs_to_reach,
    source_order,
    space_times,
    tuned_spaces,
)

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"


def test_seeded_order_and_runs():
    source = {"a": 3.0, "b": 1.0, "c": None, "d": 2.0}
    target = {"a": 1.0, "b": 2.0, "c": 0.5, "d": None}
    order = source_order(source, list(target))
    assert order == ["b", "d", "a", "c"]      # fastest on the source, its failures last
    assert runs_to_reach(order, target, 1.0) == 3   # d failed on the target: a run spent
    assert runs_to_reach(order, target, 0.5) == 4
    assert expected_random_runs(4, 1) == 2.5 and expected_random_runs(4, 4) == 1.0


def test_run_to_run_on_the_h100():
    spaces = tuned_spaces(H100 / "tuning.sqlite")
    assert spaces == ["matmul", "stencil2d", "transpose"]
    table = carry_over_table(H100 / "tuning-run1.sqlite", H100 / "tuning.sqlite")
    assert list(table["space"]) == spaces
    assert (table["slowdown"] >= 1).all() and (table["spearman"] > 0.9).all()
    # a seeded tuner beats blind search where few points are near the best
    assert (table["seeded runs to 95%"] <= table["random runs to 95% (expected)"]).all()
    matmul = carry_over(space_times(H100 / "tuning-run1.sqlite", "matmul"),
                        space_times(H100 / "tuning.sqlite", "matmul"))
    assert matmul.points == matmul.common == 506
    assert matmul.target_best_s == pytest.approx(
        min(t for t in space_times(H100 / "tuning.sqlite", "matmul").times.values() if t))


def test_different_spaces_are_refused():
    a = SpaceTimes("matmul", (("n", 2048),), "x", {"p": 1.0})
    b = SpaceTimes("matmul", (("n", 1024),), "y", {"p": 1.0})
    with pytest.raises(ParameterError, match="not the same space"):
        carry_over(a, b)
