"""The calibration panel on pocl: background run, progress, cancel, failures listed,
and the other panels following the new store and model."""

from __future__ import annotations

from dataclasses import replace

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from workbench.kernels import get_kernel  # noqa: E402
from workbench.measure import MeasurementStore  # noqa: E402
from workbench.ui import (  # noqa: E402
    CalibrationJob,
    CalibrationPanel,
    CalibrationRequest,
    Dashboard,
    JobState,
    Session,
)

TINY = ("empty", "global_access")   # 2 + 3 x 2 configurations in the quick settings


@pytest.fixture
def pocl(queue):
    """The pocl device (the ``queue`` fixture skips without one)."""
    from workbench.measure import find_device
    return find_device()


def _wait(panel, timeout=120):
    assert panel.wait(timeout), "the calibration did not end in time"


def test_a_calibration_runs_in_the_background_and_reaches_its_total(pocl):
    session = Session()
    panel = CalibrationPanel(session, kernels=TINY, bootstrap=5)
    assert "Portable Computing Language" in panel.device_label.value
    # no chart of nothing before a run: a line saying why, no axes
    assert [a.text for a in panel.scatter.layout.annotations] == [
        "no measurements yet: the chart fills as a calibration measures"]
    assert panel.scatter.layout.xaxis.visible is False
    job = panel.start()
    assert job.running                         # start() returned while it measures
    assert panel.calibrate_button.disabled and not panel.cancel_button.disabled
    _wait(panel)
    snapshot = job.snapshot
    assert snapshot.state is JobState.FINISHED and job.callback_errors == []
    assert snapshot.planned == 8
    assert panel.progress.value == panel.progress.max == 8
    assert panel.progress_label.value.startswith("finished: 8/8 configurations")
    assert panel.progress.bar_style == "success"
    assert not panel.calibrate_button.disabled and panel.cancel_button.disabled
    # the scatter holds every measurement-kernel row, predicted by the fitted model
    assert len(panel.scatter.data[0].x) == 8 and len(panel.scatter.data[0].y) == 8
    assert panel.scatter.layout.xaxis.visible and not panel.scatter.layout.annotations
    assert panel.failures.value == "" and panel.errors.value == ""
    # the session now explores the new store with the fitted model
    assert session.store_path == str(snapshot.store_path)
    assert session.model is snapshot.model and session.model.family == "unified-linear"
    assert session.device.opencl == pocl


def test_snapshots_count_up_with_an_eta_until_the_end(pocl, tmp_path):
    snapshots = []
    request = CalibrationRequest(pocl, tmp_path / "s.sqlite", kernels=TINY, bootstrap=0)
    job = CalibrationJob(request, snapshots.append, update_interval_s=0.0, live_fit=False)
    job.start()
    assert job.join(120)
    running = [s for s in snapshots if s.state is JobState.RUNNING]
    assert [s.done for s in running] == sorted(s.done for s in running)
    assert any("ETA" in s.label and s.eta_s is not None for s in running if s.done)
    assert snapshots[-1].state is JobState.FINISHED and snapshots[-1].done == 8
    assert snapshots[-1].eta_s == 0.0
    with MeasurementStore.open(request.store_path, readonly=True) as store:
        assert store.campaigns()[0].is_finished


def test_cancel_stops_early_and_a_second_run_resumes(pocl):
    panel = CalibrationPanel(kernels=("empty", "global_access", "vector_scale_add"),
                             bootstrap=0, update_interval_s=0.0)
    show = panel._apply

    def click_cancel_after_the_first_row(snapshot):
        # as a user would, once the first configuration shows up (every row is
        # reported: update_interval_s=0), so the test does not race the campaign
        show(snapshot)
        if snapshot.done >= 1 and not snapshot.state.final:
            panel.cancel_button.click()

    panel._apply = click_cancel_after_the_first_row
    job = panel.start()
    _wait(panel)
    snapshot = job.snapshot
    assert snapshot.state is JobState.CANCELLED
    assert snapshot.done == 1 and snapshot.planned == 14
    assert panel.progress.value < panel.progress.max
    assert panel.progress_label.value.startswith("cancelled after")
    assert "finished" not in panel.progress_label.value
    assert panel.session.model is None          # nothing fitted on a partial campaign
    with MeasurementStore.open(snapshot.store_path, readonly=True) as store:
        campaign = store.campaigns()[0]
        assert not campaign.is_finished
        stored = len(store.measurements(campaign=campaign.id, status=None))
    assert stored == snapshot.done
    # the same panel resumes in the same store and measures only what is missing
    panel._apply = show
    again = panel.start()
    _wait(panel)
    assert again.snapshot.state is JobState.FINISHED
    assert panel.progress.value == panel.progress.max == snapshot.planned
    assert again.snapshot.store_path == snapshot.store_path


def test_a_failing_configuration_is_listed_and_the_campaign_goes_on(pocl):
    def broken(request):
        raise RuntimeError("deliberately broken for the test")

    spec = replace(get_kernel("global_access"), name="broken_kernel", build=broken)
    panel = CalibrationPanel(specs=(spec,), bootstrap=0)
    panel.start()
    _wait(panel)
    snapshot = panel.job.snapshot
    assert snapshot.state is JobState.FINISHED
    assert [f.kernel for f in snapshot.failures] == ["broken_kernel"] * 3
    assert {f.variant for f in snapshot.failures} == {"copy", "sum4", "store_index"}
    assert snapshot.failures[0].status == "build_failed"
    assert "deliberately broken for the test" in snapshot.failures[0].reason
    assert "broken_kernel" in panel.failures.value
    assert "deliberately broken for the test" in panel.failures.value
    assert "3 failed" in panel.progress_label.value
    assert panel.progress_label.value.startswith("finished")
    # 2 empty-kernel rows and 3 failures (one per variant: the size search failed)
    assert panel.progress.value == panel.progress.max == 5


def test_bad_input_and_a_failed_run_are_messages_not_exceptions(pocl, tmp_path):
    panel = CalibrationPanel(kernels=("no_such_kernel",))
    panel.calibrate_button.click()
    assert "unknown kernel 'no_such_kernel'" in panel.errors.text
    assert panel.job is None
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    panel.kernels.value = "empty"
    panel.store.value = str(blocker / "store.sqlite")   # a folder that is a file
    panel.calibrate_button.click()
    _wait(panel)
    assert panel.job.snapshot.state is JobState.FAILED
    assert panel.progress_label.value.startswith("stopped by an error")
    assert "cannot open measurement store" in panel.errors.text
    assert panel.progress.bar_style == "danger"


def test_the_chosen_kernel_is_measured_at_six_shapes_in_a_quick_calibration(pocl):
    from workbench.ui.session import KernelSelection

    board = Dashboard(device=pocl.index, background=False)
    board.session.selection = KernelSelection.make(get_kernel("global_access"))
    board.calibration.kernels.value = ",".join(TINY)
    job = board.calibration.start()
    assert job.request.grid_kernels == ("global_access",)
    assert job.request.campaign_name == "ui-quick:empty,global_access;shapes:global_access"
    _wait(board.calibration)
    assert "finished" in board.calibration.progress_label.value
    board.heatmaps.source.value = "store"
    board.heatmaps.kernel.value = "global_access"
    grid = board.heatmaps.grid
    assert sum(v == v for row in grid.layer("measured").values for v in row) == 6
    note = board.heatmaps.note.value
    assert "one cell per work-group shape measured (6)" in note and "block-size study" in note
    # no weight below zero, no prediction below zero: the default fit
    model = board.session.model
    assert min(model.weights.values()) >= 0
    assert (board.session.data.predictions["predicted_s"] >= 0).all()


def test_the_dashboard_calibrates_then_shows_weights_and_a_heatmap_of_the_new_store(pocl):
    board = Dashboard(device=pocl.index, background=False)
    assert board.session.device.opencl == pocl
    explained = board.explain.heading.value          # the shipped default's explanation
    board.calibration.kernels.value = ",".join(TINY)
    board.calibration.calibrate_button.click()
    _wait(board.calibration)
    assert "finished" in board.calibration.progress_label.value
    assert board.errors.value == ""
    # the explanation being read stays; the calibration's model is offered beside it
    assert board.explain.heading.value == explained
    assert pocl.name in board.explain.offer.value
    weights = board.weights.table.value
    assert pocl.name in weights                      # the new model's column ...
    assert "f_sync_kernel_launch" in weights
    if board.weights.references:                     # ... beside the shipped H100 one
        assert "NVIDIA H100 80GB HBM3" in weights
    # the heatmaps stay on the shipped block study (the quick store's grid is one
    # cell) until the store is chosen; its grid is then the new store's
    study = board.heatmaps.figure
    if board.heatmaps.source.value != "store":
        assert len(board.heatmaps.grid.xs) * len(board.heatmaps.grid.ys) > 1
        board.heatmaps.source.value = "store"
        assert board.heatmaps.figure is not study
    grid = board.heatmaps.grid
    assert grid is not None and "wb-heatmap" in board.heatmaps.figure._dom_classes
    assert board.heatmaps.kernel.value in TINY
    assert set(board.explorer.filtered["kernel"]) == set(TINY)


def test_a_users_own_kernel_picked_is_said_not_to_be_calibrated():
    """A newcomer picked a kernel of their own, calibrated, and looked for it in every
    tab: the calibration times the catalog only.  The Calibration tab says so, and how
    to time the kernel; a catalog kernel picked gets no such note."""
    import loopy as lp

    from workbench.ui import KernelPicker

    knl = lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = 2*x[i] + y[i]",
                         [lp.GlobalArg("x,y", "float32", shape="n"), lp.ValueArg("n", "int32")],
                         name="axpy", lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 128, inner_tag="l.0", outer_tag="g.0")
    session = Session()
    panel = CalibrationPanel(session)
    picker = KernelPicker(session, namespace={"my_axpy": knl}, devices=())
    assert panel.chosen_note.value == ""          # the catalog's default kernel
    picker.user_kernel.value = "my_axpy"
    picker.params.value = "n=4096"
    note = panel.chosen_note.value
    assert "your kernel <b>my_axpy</b> is not measured by a calibration" in note, note
    assert "<code>workbench measure FILE.py:my_axpy --param n=4096</code>" in note, note
    picker.select("finite_diff")
    assert panel.chosen_note.value == ""
