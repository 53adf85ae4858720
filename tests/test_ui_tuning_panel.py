"""The tuning panel: replay of the shipped H100 tuning measurements against
compare_strategies called directly, instant switching back to a kept replay, a live
exploration on pocl with its progress and best value, cancelling, and input errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from workbench.measure.store import resolve_store_path  # noqa: E402
from workbench.models import load_model  # noqa: E402
from workbench.reports.tuning import exploration_figure  # noqa: E402
from workbench.tuning.catalog import get_space  # noqa: E402
from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations  # noqa: E402
from workbench.tuning.runner import StopReason  # noqa: E402
from workbench.tuning.study import compare_strategies, summary  # noqa: E402
from workbench.ui import Dashboard, TuningPanel  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
TUNING = H100 / "tuning.sqlite"
LINEAR = H100 / "weights-linear.json"

needs_h100 = pytest.mark.skipif(resolve_store_path(TUNING) is None or not LINEAR.exists(),
                                reason="no shipped H100 tuning data")


@pytest.fixture
def pocl(queue):
    """The pocl device (the ``queue`` fixture skips without one)."""
    from workbench.measure import find_device
    return find_device()


def _only(panel: TuningPanel, *keys: str) -> None:
    for key, box in panel.strategies.items():
        box.value = key in keys


def _wait(panel: TuningPanel, timeout: float = 120) -> None:
    assert panel.wait(timeout), "the tuning run did not end in time"


@needs_h100
def test_a_replay_shows_what_compare_strategies_gives_and_is_kept():
    panel = TuningPanel(models={"linear": LINEAR}, tpe_seeds=1)
    assert list(panel.strategies) == ["exhaustive", "random", "model:linear", "knn", "xgb",
                                      "tpe"]
    panel.space.value = "matmul"
    _only(panel, "exhaustive", "random", "model:linear", "tpe")
    assert panel.figure is None and "press run" in panel.note.value
    panel.run_button.click()
    assert panel.running and panel.run_button.disabled   # computed in the background
    _wait(panel)
    assert panel.errors.text == "" and panel.progress.bar_style == "success"
    assert panel.progress_label.value.startswith("matmul: replayed in")

    space = get_space("matmul")
    evaluator = ReplayEvaluator(space, load_space_evaluations(TUNING, space))
    direct = compare_strategies(space, evaluator, {"linear": load_model(LINEAR)},
                                tpe_seeds=1)
    want, got = summary([direct]), panel.table_frame
    assert list(got["strategy"]) == list(want["strategy"]) == [
        "exhaustive", "random (expected)", "model:linear", "tpe (mean of 1 seeds)"]
    for column in ("runs_to_90", "runs_to_95"):
        np.testing.assert_allclose(got[column], want[column])
    for column in ("seconds_to_90", "seconds_to_95"):
        # the same replayed costs; the ranking's and the strategies' own time are
        # measured again on this machine
        np.testing.assert_allclose(got[column] - got["choosing_s"],
                                   want[column] - want["choosing_s"], rtol=0.02, atol=0.05)
    assert panel.table.value.count("<tr>") == 1 + 4 and "model:linear" in panel.table.value
    assert str(direct.points) in panel.note.value and "NVIDIA H100" in panel.note.value

    expected = exploration_figure(direct)
    assert "wb-tuning-figure" in panel.figure._dom_classes
    assert [t.name for t in panel.figure.data] == [t.name for t in expected.data]
    for have, ref in zip(panel.figure.data, expected.data):
        np.testing.assert_allclose(have.y, ref.y)
    runs_axis = [(h, r) for h, r in zip(panel.figure.data, expected.data) if h.xaxis == "x"]
    assert len(runs_axis) == 4
    for have, ref in runs_axis:
        np.testing.assert_array_equal(have.x, ref.x)

    # another space has not been replayed: nothing is shown until run ...
    panel.space.value = "transpose"
    assert panel.figure is None and "press run" in panel.note.value
    # ... and back to the kept replay at once, without a thread
    panel.space.value = "matmul"
    assert panel.figure is not None and not panel.running
    assert list(panel.table_frame["strategy"]) == list(want["strategy"])
    # hiding a strategy needs no computing either
    panel.strategies["random"].value = False
    assert not panel.running
    assert "random (expected)" not in list(panel.table_frame["strategy"])
    assert "random (expected)" not in {t.name for t in panel.figure.data}
    assert panel.table.value.count("<tr>") == 1 + 3


@needs_h100
def test_cancelling_a_replay_keeps_the_parts_already_replayed():
    panel = TuningPanel(models={}, tpe_seeds=50)
    panel.space.value = "stencil2d"
    _only(panel, "exhaustive", "tpe")

    def cancel_after_the_first_part(change):
        if change["new"] >= 1:
            panel.cancel_button.click()

    panel.progress.observe(cancel_after_the_first_part, names="value")
    panel.run()
    _wait(panel)
    assert panel.progress_label.value.startswith("cancelled")
    assert panel.progress.bar_style == "warning" and panel.errors.text == ""
    assert not panel.run_button.disabled and panel.cancel_button.disabled
    kept = [key[2] for key in panel._parts]
    assert kept == ["base"]          # TPE over 50 seeds was stopped, not kept
    assert panel.figure is None


def test_a_live_run_measures_up_to_its_budget_and_shows_the_best(pocl):
    panel = TuningPanel(models={}, device=pocl.index, space="stencil2d", live_size=256,
                        budget=3)
    panel.source.value = "live"
    _only(panel, "exhaustive")
    assert panel.live_controls.layout.display is None
    panel.run_button.click()
    assert panel.running and panel.cancel_button.disabled is False
    _wait(panel)
    assert panel.errors.text == "", panel.errors.text
    assert panel.progress.value == panel.progress.max == 3
    assert panel.progress.bar_style == "success"
    [(label, result)] = panel.live_results
    assert label == "exhaustive" and result.stopped_by is StopReason.EVALUATIONS
    space = get_space("stencil2d", n=256)
    assert [e.point for e in result.evaluations] == list(space.points()[:3])
    assert all(e.ok for e in result.evaluations)
    best = min(e.time_s for e in result.evaluations)
    assert result.best.time_s == best
    assert panel.progress_label.value.startswith("finished: 3 evaluations")
    assert f"{best * 1e3:.4g} ms" in panel.progress_label.value
    # the live curve: best so far against runs, and against the tuning cost
    runs, cost = panel.figure.data[0], panel.figure.data[1]
    assert list(runs.x) == [1, 2, 3] and runs.y[-1] == pytest.approx(best * 1e3)
    assert list(runs.y) == sorted(runs.y, reverse=True)
    assert cost.x[-1] == pytest.approx(result.cost_s) and cost.x[0] > 0
    assert panel.table_frame.loc[0, "best (ms)"] == pytest.approx(best * 1e3)
    assert panel.table_frame.loc[0, "evaluations"] == 3
    assert panel.table_frame.loc[0, "stopped"] == "evaluations"   # the value, not the enum
    # the replay view in between, then the live run's view again
    live_figure = panel.figure
    panel.source.value = "replay"
    assert panel.figure is not live_figure and panel.table_frame.empty
    panel.source.value = "live"
    assert panel.figure is live_figure and list(panel.table_frame["evaluations"]) == [3]


def test_cancel_stops_a_live_run_after_the_current_point(pocl):
    panel = TuningPanel(models={}, device=pocl.index, space="stencil2d", live_size=256,
                        budget=40)
    panel.source.value = "live"
    _only(panel, "exhaustive", "random")

    def cancel_once_a_point_is_measured(change):
        if change["new"] >= 1:        # as a user would, seeing the first point
            panel.cancel_button.click()

    panel.progress.observe(cancel_once_a_point_is_measured, names="value")
    panel.run()
    _wait(panel)
    assert panel.errors.text == ""
    [(label, result)] = panel.live_results          # random never started
    assert result.stopped_by is StopReason.STOPPED and len(result.evaluations) == 1
    assert panel.progress.value == 1 and panel.progress.max == 80
    assert panel.progress.bar_style == "warning"
    assert panel.progress_label.value.startswith("cancelled after 1 evaluations")
    assert not panel.run_button.disabled and panel.cancel_button.disabled


def test_bad_input_is_shown_and_nothing_runs(pocl):
    panel = TuningPanel(models={}, device=pocl.index, space="stencil2d")
    panel.source.value = "live"
    panel.budget.value = 0
    panel.run_button.click()
    assert "an evaluation budget must be at least 1" in panel.errors.text
    assert panel.errors.value.count("wb-error-message") == 1
    assert not panel.running and panel._thread is None and not panel.run_button.disabled
    panel.budget.value = 2
    panel.size.value = 100             # no work group divides a 100x100 grid
    panel.run_button.click()
    assert "is empty" in panel.errors.text and panel._thread is None
    panel.size.value = 256
    _only(panel)
    panel.run_button.click()
    assert panel.errors.text == "tuning: choose at least one strategy"


def test_the_dashboard_has_the_tuning_panel_on_its_session(pocl):
    board = Dashboard(device=pocl.index, background=False)
    assert board.tuning.session is board.session and board.tuning.errors is board.errors
    assert board.tabs.children[-1].children[0] is board.tuning
    assert board.tabs.titles[-1] == "Tuning"
    assert board.tuning.device.value == pocl.index
    assert board.tuning.figure is None and not board.tuning.running   # nothing computed


@needs_h100
def test_a_lift_space_replays_the_learned_rankers_from_its_own_store():
    if resolve_store_path(H100 / "lift.sqlite") is None:
        pytest.skip("no shipped Lift measurements")
    panel = TuningPanel(models={})
    panel.space.value = "lift_jacobi5"
    _only(panel, "random", "knn")
    panel.run_button.click()
    _wait(panel)
    assert panel.errors.text == "" and panel.progress.bar_style == "success"
    assert list(panel.table_frame["strategy"]) == ["random (expected)", "knn"]
    assert panel.comparison.points == len(get_space("lift_jacobi5").points())
    knn = panel.table_frame.set_index("strategy").loc["knn"]
    # the ranking is paid for, and it beats random search's expectation to 90 %
    assert knn["choosing_s"] > 0
    assert knn["runs_to_90"] < panel.table_frame.set_index("strategy").loc[
        "random (expected)", "runs_to_90"]


@needs_h100
def test_a_run_that_fails_in_its_thread_keeps_its_message_after_the_button_returns(
        monkeypatch):
    """The run button's success clears its own messages; a replay whose thread failed
    before the button's handler returned lost its error that way (newuser20's note)."""
    import workbench.tuning.study as study

    def broken(*args, **kwargs):
        raise RuntimeError("the replay broke")

    monkeypatch.setattr(study, "compare_strategies", broken)
    panel = TuningPanel(models={}, tpe_seeds=1)
    panel.space.value = "transpose"
    _only(panel, "exhaustive")
    # the button's handler, had the thread failed before it returned
    with panel.errors.catching("tuning"):
        panel.run(wait=True)
    assert "the replay broke" in panel.errors.text, panel.errors.text
    assert panel.progress.bar_style == "danger"
    monkeypatch.undo()
    panel.run(wait=True)      # a new run clears the last one's failure
    assert panel.errors.text == "" and panel.progress.bar_style == "success"
