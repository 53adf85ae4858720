"""The time-tiled stencils wired into the workbench: the catalog, live tuning (a point
timed as its whole band sequence), the tiling model's ranking, ``calibrate --set
timetiling`` on pocl, and the dashboard's views (all at small sizes)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from workbench.cli.main import main
from workbench.errors import ModelError, TuningError
from workbench.kernels.timetiled.spaces import TIMETILED_SPACES
from workbench.kernels.timetiled.stencils import get_stencil
from workbench.measure.store import MeasurementStore
from workbench.models.tiling import TilingCalibration, save_calibration
from workbench.tuning.catalog import SPACES, get_space, space_at_size
from workbench.tuning.live import LiveEvaluator
from workbench.tuning.sequence import SequenceEvaluator, evaluator_for

STENCILS = ("jacobi1d", "jacobi2d", "heat2d", "laplacian2d", "gradient2d", "heat3d",
            "laplacian3d")


@pytest.fixture
def calibration_file(tmp_path):
    """A made-up calibration (the H100's lands in sample_data/h100/ later): the model's
    mechanism, not its numbers, is under test."""
    cal = TilingCalibration("test", 2e-9, 1e-8, 4e-6, {s: 1e-9 for s in STENCILS})
    path = tmp_path / "cal.json"
    save_calibration(cal, path)
    return path


def test_the_catalog_holds_the_time_tiled_spaces_and_sizes_them():
    assert set(TIMETILED_SPACES) <= set(SPACES)
    space = get_space("tt_heat2d", S1=64, S2=64)
    assert space.sequence is not None and space.problem == {"S1": 64, "S2": 64, "T": 48}
    assert space_at_size("tt_heat3d", 32).problem == {"S1": 32, "S2": 32, "S3": 32, "T": 24}
    assert space_at_size("matmul", 64).problem == {"n": 64}


def test_spaces_lists_each_kind_with_its_own_sizes(capsys):
    assert main(["spaces", "--format", "json", "--param", "S1=512,S2=512"]) == 0
    rows = json.loads(capsys.readouterr().out)
    # the 2-D and 3-D time-tiled spaces take these sizes (jacobi1d has no S2, the
    # catalog's 2-D spaces an n), and the 2-D hexagonal ones
    assert {r["space"] for r in rows} == {f"tt_{s}" for s in STENCILS[1:]} | {
        f"hx_{s}" for s in STENCILS[1:] if get_stencil(s).dims == 2}
    assert main(["spaces", "--param", "q=3"]) == 2
    assert "no catalog space takes the size(s) q" in capsys.readouterr().err


def test_a_sequence_space_gets_the_sequence_evaluator(queue):
    assert type(evaluator_for(get_space("matmul", n=64), queue)) is LiveEvaluator
    assert isinstance(evaluator_for(get_space("tt_jacobi1d", S1=4096, T=8), queue),
                      SequenceEvaluator)


def test_live_tuning_times_the_whole_band_sequence(queue, tmp_path, capsys):
    store = tmp_path / "t.sqlite"
    assert main(["tune", "tt_jacobi1d", "--param", "S1=4096,T=8", "--budget-evals", "2",
                 "--store", str(store), "--no-progress", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["evaluations"] == 2 and out["failed"] == 0
    with MeasurementStore.open(store, create=False, readonly=True) as s:
        rows = s.measurements(kernel="tune.tt_jacobi1d")
    assert len(rows) == 2
    # T / tT launches of the band kernel, recorded with each point
    assert {r.extra["launches"] for r in rows} == {8 // int(r.key.variant.split(",")[0]
                                                            .split("=")[1]) for r in rows}


def test_the_model_strategy_ranks_a_time_tiled_space_with_the_tiling_model(
        queue, tmp_path, calibration_file, capsys):
    from workbench.models import get_family
    from workbench.tuning.ranking import rank_space

    model = get_family("tiling").ready(device_model="h100", calibration=calibration_file)
    space = get_space("tt_heat2d", S1=64, S2=64)

    def no_build(*_):
        raise AssertionError("the tiling model built a kernel to rank a space")
    # vectorized over the points: ranked with a factory that cannot build (no timing
    # here: a loaded machine made a 1 s bound fail while the ranking was right)
    ranking = rank_space(model, dataclasses.replace(space, kernel=no_build))
    from workbench.kernels.candidate import Candidate
    assert list(ranking.order) == list(model.rank(
        [Candidate.of_point(space, p) for p in space.points()]).order)
    assert len(ranking.order) == len(space.points())
    best = ranking.candidates[ranking.order[0]].variant
    assert main(["tune", "tt_heat2d", "--param", "S1=64,S2=64", "--strategy", "model",
                 "--model", "tiling", "--device-model", "h100", "--calibration",
                 str(calibration_file), "--budget-evals", "1", "--store",
                 str(tmp_path / "m.sqlite"), "--no-progress", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["strategy"] == "model:tiling"
    assert ",".join(f"{k}={v}" for k, v in out["best"]["point"].items()) == best
    assert main(["tune", "tt_heat2d", "--strategy", "model", "--model", "tiling",
                 "--device-model", "h100", "--calibration", str(tmp_path / "none.json"),
                 "--budget-evals", "1"]) == 2
    err = capsys.readouterr().err
    assert "no tiling calibration at" in err and len(err.strip().splitlines()) == 1


def test_calibrate_timetiling_stores_the_timings_and_writes_or_says_why_not(
        queue, tmp_path, capsys, monkeypatch):
    store, out = tmp_path / "mb.sqlite", tmp_path / "cal.json"
    args = ["calibrate", "--set", "timetiling", "--quick", "--runs", "2", "--store",
            str(store), "--calibration-out", str(out), "--no-progress"]
    rc = main(args)
    captured = capsys.readouterr()
    with MeasurementStore.open(store, create=False, readonly=True) as s:
        kinds = {m.key.kernel for m in s.measurements(status=None)}
    assert kinds == {"ttmb.transfer", "ttmb.barrier", "ttmb.nobarrier", "ttmb.launches",
                     "ttmb.band", "ttmb.band_wr", "ttmb.band_compute"}
    if rc == 0:     # the barrier loop happened to be slower: a (CPU's) calibration
        assert json.loads(out.read_text())["L"] > 0
        assert f"calibration written to {out}" in captured.out
    else:           # the usual pocl outcome: tau_sync is not measurable there
        assert rc == 2 and not out.exists()
        assert "timings stored in" in captured.err
    # pocl's usual outcome, made certain: one line, the timings kept, no file
    import workbench.models.tiling as tiling

    def not_slower(*a, **k):
        raise ModelError("the barrier microbenchmark was not slower than its twin "
                         "without barriers: tau_sync cannot be measured this way here")
    monkeypatch.setattr(tiling, "calibration_from_measurements", not_slower)
    out.unlink(missing_ok=True)
    assert main(args[:-2] + [str(tmp_path / "other.json"), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("workbench: error: timings stored in")
    assert "tau_sync cannot be measured" in err[-1] and "Traceback" not in "".join(err)
    assert not (tmp_path / "other.json").exists()


def test_ir_samples_leave_out_sequence_spaces(tmp_path):
    from workbench.tuning.ir_training import stored_samples

    with MeasurementStore.open(tmp_path / "empty.sqlite"):
        pass
    assert not len(stored_samples([tmp_path / "empty.sqlite"]))
    with pytest.raises(TuningError, match="launch sequences"):
        stored_samples([tmp_path / "empty.sqlite"], ["tt_heat2d"])


def test_the_heatmap_panel_draws_t_alg_over_two_tile_sizes(calibration_file):
    pytest.importorskip("ipywidgets")
    from workbench.models import get_family
    from workbench.models.tiling import heatmap
    from workbench.ui import HeatmapPanel
    from workbench.ui.session import Session

    panel = HeatmapPanel(Session(), source="tiling", tiling_calibration=calibration_file)
    assert panel.errors.text == "" and panel.tiling_controls.layout.display is None
    assert panel.store_controls.layout.display == "none"
    z = np.array(panel.figure.data[0].z, dtype=float)
    model = get_family("tiling").ready(device_model="h100", calibration=calibration_file)
    want = heatmap(model, "heat2d", {"S1": 4096, "S2": 4096, "T": 48}, "tS2", "tT",
                   {"tS1": 8, "bx": 64, "by": 2}).to_numpy() * 1e3
    np.testing.assert_allclose(z, want, equal_nan=True)
    assert "calibration of test" in panel.note.value
    # another stencil: its own axes; another axis pair follows at once
    controls = panel.tiling_controls
    controls.stencil.value = "heat3d"
    assert list(panel.figure.data[0].x) == list(range(16, 257, 16))
    controls.x.value = "tS1"
    assert list(panel.figure.data[0].x) == list(range(1, 33))
    controls.fixed.value = "tS2=4,bx=nope"
    assert "fixed: expected NAME=INTEGER" in panel.errors.text


def test_the_heatmap_panel_says_when_there_is_no_calibration(tmp_path):
    pytest.importorskip("ipywidgets")
    from workbench.ui import HeatmapPanel
    from workbench.ui.session import Session

    panel = HeatmapPanel(Session(), source="tiling",
                         tiling_calibration=tmp_path / "missing.json")
    assert panel.figure is None and panel.errors.text == ""
    assert "no tiling calibration" in panel.note.value
    assert "calibrate --set timetiling" in panel.note.value


def test_the_tuning_panel_replays_nothing_for_a_space_without_shipped_data(queue):
    pytest.importorskip("ipywidgets")
    from workbench.measure import find_device
    from workbench.ui import TuningPanel
    from workbench.ui.tuning_parts import TIMETILING_STORE, shipped_path

    panel = TuningPanel(models={}, device=find_device().index, space="tt_jacobi1d",
                        live_size=4096, budget=1)
    if shipped_path(TIMETILING_STORE) is None:
        assert "no shipped measurements of tt_jacobi1d" in panel.note.value
        panel.run_button.click()
        assert "no shipped measurements of tt_jacobi1d" in panel.errors.text
        assert not panel.running
    panel.errors.clear("tuning")
    panel.source.value = "live"
    for key, box in panel.strategies.items():
        box.value = key == "exhaustive"
    panel.run(wait=True)
    assert panel.errors.text == "", panel.errors.text
    [(_, result)] = panel.live_results
    [evaluation] = result.evaluations
    assert evaluation.ok and evaluation.extra["launches"] >= 1


def test_a_dask_device_task_times_the_band_sequence_too(queue, monkeypatch):
    """The device worker's task, called in this process (its cluster is the other
    tests' business): a time-tiled point gets the sequence evaluator there as well."""
    pytest.importorskip("distributed")
    from workbench.distributed import tasks, worker

    binding = worker.Binding(None, tuple(sorted(worker.library_stack().items())))
    # this process as an already checked worker with no device state yet
    monkeypatch.setattr(worker, "STATE", {"checked": binding.versions})
    problem = {"S1": 4096, "T": 8}
    label = get_space("tt_jacobi1d", **problem).points()[0].label
    evaluation = tasks.evaluate_point(binding, "tt_jacobi1d", problem, label, True, (), 0)
    assert evaluation.ok and evaluation.extra["launches"] == 8 // evaluation.point["tT"]


def test_a_one_kernel_model_refuses_a_sequence_space():
    from workbench.models import load_model
    from workbench.tuning.ranking import rank_space

    for weights in ("weights-linear.json", "weights-overlap.json"):
        model = load_model(f"sample_data/h100/{weights}")
        with pytest.raises(ModelError, match="sequence of launches.*--model tiling"):
            rank_space(model, get_space("tt_jacobi1d"))


def test_a_calibration_shipped_as_xz_loads_by_its_plain_name(tmp_path):
    """Older rounds' calibrations ship as ``X.json.xz`` (the tracked tree's limit): the
    scripts and benchmarks that name ``X.json`` still read them, and a plain file wins."""
    import lzma

    from workbench.models.tiling import load_calibration, shipped_calibration

    shipped = shipped_calibration("h100")
    plain = tmp_path / "tiling-calibration-round7.json"
    save_calibration(shipped, plain)
    text = plain.read_text()
    with lzma.open(tmp_path / (plain.name + ".xz"), "wt") as handle:
        handle.write(text)
    plain.unlink()
    assert load_calibration(plain).to_json() == shipped.to_json()
    plain.write_text("{not json")
    with pytest.raises(ModelError, match="cannot read tiling calibration"):
        load_calibration(plain)
