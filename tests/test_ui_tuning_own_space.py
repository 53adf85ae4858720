"""The Tuning tab on a space of the user's own (``FILE.py:VARIABLE``, as ``workbench
tune`` takes it): replayed from a store as ``workbench tune FILE.py:VAR --replay STORE``
does, explored live on pocl at the sizes typed, and a wrong path, variable or store
said in the command's own words (newuser19: the tab offered the catalog's spaces only)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from workbench.cli.main import main  # noqa: E402
from workbench.measure.store import resolve_store_path  # noqa: E402
from workbench.models import load_model  # noqa: E402
from workbench.tuning.catalog import resolve_space  # noqa: E402
from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations  # noqa: E402
from workbench.tuning.runner import StopReason  # noqa: E402
from workbench.tuning.study import compare_strategies, summary  # noqa: E402
from workbench.ui import TuningPanel  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
USER_SPACES = H100 / "user-spaces.sqlite.xz"
LINEAR = H100 / "weights-linear.json"
ROWSUM = f"{ROOT}/examples/spaces/rowsum.py:space"

needs_store = pytest.mark.skipif(resolve_store_path(USER_SPACES) is None
                                 or not LINEAR.exists(),
                                 reason="no shipped H100 user-spaces store")


def _only(panel: TuningPanel, *keys: str) -> None:
    for key, box in panel.strategies.items():
        box.value = key in keys


@needs_store
def test_a_space_of_ones_own_replays_from_its_store_as_tune_replay_does():
    panel = TuningPanel(models={"linear": LINEAR})
    _only(panel, "exhaustive", "random", "model:linear")
    panel.own_space.value = ROWSUM
    # the catalog's list stands aside; the store is asked for, in words
    assert panel.space.disabled and panel.store.layout.display is None
    assert "give the store that holds the measurements of" in panel.note.value
    panel.run_button.click()
    assert "give the store" in panel.errors.text and panel._thread is None
    panel.store.value = str(USER_SPACES)
    assert "press run to replay" in panel.note.value and "user-spaces" in panel.note.value
    panel.run(wait=True)
    assert panel.errors.text == "" and panel.progress.bar_style == "success", \
        panel.errors.text

    space = resolve_space(ROWSUM)
    direct = compare_strategies(
        space, ReplayEvaluator(space, load_space_evaluations(USER_SPACES, space)),
        {"linear": load_model(LINEAR)}, tpe_seeds=0)
    want, got = summary([direct]), panel.table_frame
    assert list(got["strategy"]) == list(want["strategy"]) == [
        "exhaustive", "random (expected)", "model:linear"]
    for column in ("runs_to_90", "runs_to_95"):
        np.testing.assert_allclose(got[column], want[column])
    assert panel.comparison.points == len(space.points()) == 71
    assert "user_rowsum" in panel.note.value and "NVIDIA H100" in panel.note.value
    # the catalog's space again: its own replay, the own space's kept
    panel.own_space.value = ""
    assert not panel.space.disabled and panel.store.layout.display == "none"
    assert "press run" in panel.note.value and panel.figure is None
    panel.own_space.value = ROWSUM
    assert panel.figure is not None and list(panel.table_frame["strategy"]) == list(
        got["strategy"])


def test_a_space_of_ones_own_explores_live_on_pocl_at_the_sizes_typed(queue):
    from workbench.measure import find_device

    panel = TuningPanel(models={}, device=find_device().index, budget=2)
    panel.source.value = "live"
    _only(panel, "exhaustive")
    panel.own_space.value = ROWSUM
    panel.own_sizes.value = "m=256,n=1024"
    assert panel.size.disabled                  # the catalog's n is not this space's
    assert panel.store.layout.display == "none"      # a live run reads no store
    panel.run(wait=True)
    assert panel.errors.text == "", panel.errors.text
    [(label, result)] = panel.live_results
    assert result.stopped_by is StopReason.EVALUATIONS
    space = resolve_space(ROWSUM, m=256, n=1024)
    assert [e.point for e in result.evaluations] == list(space.points()[:2])
    assert all(e.ok for e in result.evaluations)   # checked against its reference()
    assert "(m=256, n=1024)" in panel.note.value
    assert panel.progress_label.value.startswith("finished: 2 evaluations")


@pytest.mark.parametrize("ref, store", [
    ("examples/spaces/nope.py:space", None),
    ("examples/spaces/rowsum.py:spaces", None),
    ("examples/spaces/rowsum.py", None),
    ("examples/kernels/my_kernels.py:saxpy", None),
    ("examples/spaces/rowsum.py:space", "sample_data/h100/tuning.sqlite.xz"),
    ("examples/spaces/rowsum.py:space", "nope.sqlite"),
])
def test_a_wrong_path_variable_or_store_is_said_as_tune_says_it(ref, store, capsys,
                                                                 monkeypatch):
    monkeypatch.chdir(ROOT)
    replay = ["--replay", store] if store else ["--replay", str(USER_SPACES)]
    assert main(["tune", ref, *replay, "--budget-evals", "1", "--no-progress"]) == 2
    said = capsys.readouterr().err.strip().removeprefix("workbench: error: ")
    panel = TuningPanel(models={})
    _only(panel, "exhaustive")
    panel.own_space.value = ref
    panel.store.value = store or str(USER_SPACES)
    panel.run_button.click()
    if store is None:   # the space itself is wrong: said before any run, too
        assert said in panel.note.value.replace("&#x27;", "'"), panel.note.value
    panel.wait(60)
    assert said in panel.errors.text, (said, panel.errors.text)
    assert panel.live_results == [] and panel.comparison is None


def test_the_examples_are_offered_as_paths_that_load_from_here(monkeypatch):
    monkeypatch.chdir(ROOT / "notebooks")     # where the dashboard notebook runs
    panel = TuningPanel(models={})
    offered = list(panel.own_space.options)
    assert "../examples/spaces/rowsum.py:space" in offered
    assert "../examples/kernels/my_space.py:space" in offered
    assert len(offered) == len(list((ROOT / "examples" / "spaces").glob("*.py"))) + 1
    assert any(s.endswith("user-spaces.sqlite.xz") for s in panel.store.options)
    for store in panel.store.options:
        assert os.path.exists(store), store
    panel.own_space.value = offered[0]     # it loads from here: the store is next
    assert "give the store that holds the measurements" in panel.note.value, \
        panel.note.value
    # a path typed from the docs, relative to the checkout, says where it was looked for
    panel.own_space.value = "examples/spaces/rowsum.py:space"
    assert f"read from {ROOT / 'notebooks'}" in panel.note.value


@needs_store
def test_a_replay_is_kept_under_the_store_it_read_whatever_the_field_says_after():
    panel = TuningPanel(models={})
    _only(panel, "exhaustive", "random")
    panel.own_space.value = ROWSUM
    panel.store.value = str(USER_SPACES)
    panel.run()
    panel.store.value = "elsewhere.sqlite"      # typed while the replay runs
    assert panel.wait(120)
    assert panel.figure is None and "press run" in panel.note.value   # nothing of that store
    panel.store.value = str(USER_SPACES)
    assert panel.figure is not None and panel.comparison.points == 71   # kept, shown


@needs_store
def test_a_choice_changed_after_the_runs_last_view_is_shown_when_it_ends():
    # the 2026-11-28 CI run: the store typed after the replay's thread had made its last
    # view but before it ended was ignored (the panel left the view to the running run)
    panel = TuningPanel(models={})
    _only(panel, "exhaustive", "random")
    panel.own_space.value = ROWSUM
    panel.store.value = str(USER_SPACES)
    show, typed = panel._show_view, []

    def show_then_type():
        show()
        if panel.running and not typed:      # the run's last view, then the user types
            typed.append(True)
            panel.store.value = "elsewhere.sqlite"

    panel._show_view = show_then_type
    panel.run()
    assert panel.wait(120) and typed
    assert panel.figure is None and "press run" in panel.note.value
