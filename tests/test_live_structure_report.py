"""The live report's verdict: a run that never reaches 95 % is a lower bound."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.live_structure_report import verdict  # noqa: E402


def test_a_lower_bound_decides_only_one_way():
    reached = [(1.0, True), (2.0, True)]
    assert verdict(reached, [(3.0, True), (2.0, True)]) == "yes"
    assert verdict(reached, [(1.0, True), (1.0, True)]) == "no"
    # TPE censored: its mean is at least 2.5, above the model's 1.5
    assert verdict(reached, [(3.0, False), (2.0, True)]) == "yes"
    # ... or at least 1.0, below: either could be faster
    assert verdict(reached, [(1.0, False), (1.0, True)]) == "undecided"
    # the model censored at 2.0 already, TPE 1.0: slower whatever comes after
    assert verdict([(2.0, False)], [(1.0, True)]) == "no"
    assert verdict([(0.5, False)], [(1.0, True)]) == "undecided"
    assert verdict([(0.5, False)], [(1.0, False)]) == "undecided"


def _evaluation(label, time_s, ok=True):
    from types import SimpleNamespace

    return SimpleNamespace(point=label, time_s=time_s, ok=ok, cost_s=0.5)


def test_one_store_keeps_the_fastest_point():
    from benchmarks.live_structure_report import two_pass_reference

    first = {"a": _evaluation("a", 1.0), "b": _evaluation("b", 0.9),
             "c": _evaluation("c", 0.5, ok=False)}
    best, time_s = two_pass_reference(first, None)
    assert (best.point, time_s) == ("b", 0.9)


def test_two_passes_take_each_points_slower_time():
    from benchmarks.live_structure_report import two_pass_reference

    first = {"a": _evaluation("a", 1.0), "b": _evaluation("b", 0.9),
             "c": _evaluation("c", 1.2), "d": _evaluation("d", 0.8)}
    # b's 0.9 was a fast outlier (1.1 again); d failed in the second pass
    second = {"a": _evaluation("a", 0.95), "b": _evaluation("b", 1.1),
              "d": _evaluation("d", 0.1, ok=False)}
    best, time_s = two_pass_reference(first, second)
    assert (best.point, time_s) == ("a", 1.0)
    # a point the second pass lacks keeps its first pass's time
    first["e"] = _evaluation("e", 0.7)
    assert two_pass_reference(first, second)[0].point == "e"


def test_no_point_ok_in_every_pass_is_a_clear_message():
    import pytest

    from benchmarks.live_structure_report import two_pass_reference

    first = {"a": _evaluation("a", 1.0), "b": _evaluation("b", 0.9, ok=False)}
    second = {"a": _evaluation("a", 1.0, ok=False)}
    with pytest.raises(SystemExit, match="no 95 % bar"):
        two_pass_reference(first, second)


def test_an_empty_runs_folder_or_a_missing_store_is_a_one_line_message(tmp_path, monkeypatch):
    import pytest

    from benchmarks import live_structure_report as report

    monkeypatch.setattr(sys, "argv", ["live_structure_report.py", str(tmp_path)])
    with pytest.raises(SystemExit, match=f"no run stores .* under {tmp_path}$"):
        report.main()
    monkeypatch.setattr(sys, "argv", ["live_structure_report.py", str(tmp_path / "absent")])
    with pytest.raises(SystemExit, match="no run stores"):
        report.main()
    from workbench.tuning.catalog import resolve_space

    space = resolve_space("examples/spaces/triad.py:space")
    with pytest.raises(SystemExit, match="no measurement store at .*absent.sqlite"):
        report._reference([str(tmp_path / "absent.sqlite")], space)


def test_the_runs_set_the_best_unless_the_stores_alone_are_asked_for():
    from benchmarks.live_structure_report import reference_best

    traces = {"tpe-0": (0.0, [(1.2, 0.5), (0.97, 1.0)]),
              "model-hedge-stream-1": (0.6, [(0.95, 0.9)]),
              "random-0": (0.0, [(0.5, 0.2)])}          # not compared: left out
    assert reference_best(1.0, traces, "model-hedge-stream") == 0.95
    assert reference_best(1.0, traces, "model-hedge-stream", "stores") == 1.0
    assert reference_best(0.9, traces, "model-hedge-stream") == 0.9
