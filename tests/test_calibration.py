"""Calibration on the pocl CPU device, end to end: calibrate, fit, report, resume."""

import json
from pathlib import Path

import numpy as np
import pytest

from workbench.cli.main import main
from workbench.errors import DeviceError
from workbench.measure import (
    Campaign, CampaignSettings, MeasurementStore, Status, find_device, list_devices,
    open_device,
)
from workbench.measure.store import resolve_store_path
from workbench.models import UnifiedLinearModel, build_dataset, load_model
from workbench.kernels import KernelRole, all_kernels
from workbench.reports import table1

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"


def _have_pocl():
    try:
        return any("Portable" in d.platform for d in list_devices())
    except DeviceError:
        return False


pocl = pytest.mark.skipif(not _have_pocl(), reason="no pocl OpenCL device")


@pytest.fixture(scope="module")
def quick_store(tmp_path_factory):
    """One quick campaign over the whole catalog, shared by the tests below."""
    if not _have_pocl():
        pytest.skip("no pocl OpenCL device")
    path = tmp_path_factory.mktemp("cal") / "pocl.sqlite"
    assert main(["calibrate", "--quick", "--store", str(path), "--no-progress"]) == 0
    return path


@pocl
def test_quick_campaign_measures_every_catalog_kernel(quick_store):
    with MeasurementStore.open(quick_store, create=False, readonly=True) as store:
        ok = store.measurements()
        failed = store.measurements(status=Status.BUILD_FAILED) + \
            store.measurements(status=Status.LAUNCH_FAILED)
    assert not failed, [f.log[-500:] for f in failed]
    kernels = {m.key.kernel for m in ok}
    assert kernels == {s.name for s in all_kernels()}
    assert all(m.time_s > 0 and len(m.raw_times_s) == 8 for m in ok)
    # the size exponent is chosen on the device and kept with each row
    assert all("p" in m.extra for m in ok)
    # measurement kernels at one group size; test kernels at six shapes for their
    # first size case (a heatmap per shape) and at 256 work items for every case
    tests = {s.name for s in all_kernels(KernelRole.TEST)}
    for kernel in kernels:
        rows = [m for m in ok if m.key.kernel == kernel]
        shapes = {m.key.group_size for m in rows if m.extra["t"] == 0}
        if kernel in tests:
            assert len(shapes) == 6, (kernel, shapes)
            assert all(np.prod(m.key.group_size) == 256 for m in rows if m.extra["t"] > 0)
        else:
            assert len(shapes) == 1, (kernel, shapes)
    assert len(ok) == 52 + 4 * 5


@pocl
def test_the_quick_campaign_fits_no_negative_weight_or_prediction(quick_store):
    """A first run on a laptop: the default (non-negative) fit of the quick campaign
    predicts no configuration below zero, and each test kernel has a six-cell heatmap."""
    from workbench.reports import predictions
    from workbench.reports.heatmaps import group_size_grid

    with MeasurementStore.open(quick_store, create=False, readonly=True) as store:
        data = build_dataset(store.measurements())
    model = UnifiedLinearModel().fit(data, bootstrap=0)
    assert model.non_negative and min(model.weights.values()) >= 0
    pred = predictions(model, data)
    assert (pred["predicted_s"] >= 0).all()
    for kernel in {s.name for s in all_kernels(KernelRole.TEST)}:
        grid = group_size_grid(pred, kernel)
        cells = sum(v == v for row in grid.layer("measured").values for v in row)
        assert cells == 6, (kernel, grid.xs, grid.ys)


@pocl
def test_fit_and_report_from_the_quick_campaign(quick_store, tmp_path, capsys):
    weights = tmp_path / "w.json"
    assert main(["fit", "--store", str(quick_store), "-o", str(weights),
                 "--bootstrap", "20"]) == 0
    model = load_model(weights)
    assert "f_sync_kernel_launch" in model.weights
    assert model.device["device"] == find_device().name
    capsys.readouterr()
    assert main(["report", "--store", str(quick_store), "--weights", str(weights),
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    test_kernels = {s.name for s in all_kernels(KernelRole.TEST)}
    assert set(report["per_kernel_geomean_rel_error"]) == test_kernels
    assert np.isfinite(report["cross_kernel_geomean_rel_error"])
    assert all(c["actual_ms"] > 0 and np.isfinite(c["predicted_ms"])
               for c in report["cases"])
    for fmt, marker in (("md", "| kernel / case |"), ("csv", "kernel / case,")):
        assert main(["report", "--store", str(quick_store), "--weights", str(weights),
                     "--format", fmt]) == 0
        assert marker in capsys.readouterr().out


@pocl
def test_interrupted_campaign_resumes_where_it_stopped(tmp_path):
    device = find_device()
    _, queue = open_device(device)
    settings = CampaignSettings.quick(("empty", "global_access"))
    path = tmp_path / "resume.sqlite"
    seen = []

    def stop_after_three(ev):
        if ev.key is not None:
            seen.append(ev.key)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with MeasurementStore.open(path) as store:
        with pytest.raises(KeyboardInterrupt):
            Campaign(store, device, queue, settings, name="r").run(stop_after_three)
    with MeasurementStore.open(path) as store:
        campaign = Campaign(store, device, queue, settings, name="r")
        assert len(campaign._done) == 3
        timings = campaign.run()
        assert timings.skipped == 3
        keys = [m.key for m in store.measurements(campaign=campaign.campaign_id)]
    assert len(keys) == len(set(keys)) == 3 + timings.measured


@pytest.mark.skipif(resolve_store_path(H100 / "measurements.sqlite") is None,
                    reason="no shipped H100 data")
def test_refit_from_the_shipped_h100_store_reproduces_weights_and_table1():
    shipped = json.loads((H100 / "weights-linear.json").read_text())
    with MeasurementStore.open(H100 / "measurements.sqlite", create=False,
                               readonly=True) as store:
        data = build_dataset(store.measurements())
    fit = shipped["fit"]
    model = UnifiedLinearModel().fit(data, bootstrap=fit["bootstrap_samples"],
                                     confidence=fit["confidence"],
                                     non_negative=shipped.get("non_negative", False))
    assert list(model.weights) == shipped["properties"]
    for name, w in shipped["weights"].items():
        assert model.weights[name] == pytest.approx(w, rel=1e-6, abs=1e-30)
    t1 = table1(model, data)
    table = json.loads((H100 / "table1.json").read_text())
    assert t1.cross_kernel == pytest.approx(table["cross_kernel_geomean_rel_error"], rel=1e-6)
    for kernel, err in table["per_kernel_geomean_rel_error"].items():
        assert t1.per_kernel[kernel] == pytest.approx(err, rel=1e-6)


@pytest.mark.skipif(not (H100 / "weights-overlap.json").exists(), reason="no shipped overlap model")
def test_refit_of_the_shipped_overlap_model_and_selection(tmp_path, capsys):
    """The 2019-style overlap model refits to the shipped parameters and Table 1, and
    variant selection on the shipped families reproduces the shipped fractions."""
    out = tmp_path / "overlap.json"
    assert main(["fit", "--store", str(H100 / "measurements.sqlite"),
                 "--model", str(ROOT / "models" / "overlap.json"), "-o", str(out)]) == 0
    fitted = json.loads(out.read_text())
    shipped = json.loads((H100 / "weights-overlap.json").read_text())
    for name, value in shipped["parameters"].items():
        assert fitted["parameters"][name] == pytest.approx(value, rel=1e-4, abs=1e-18)
    capsys.readouterr()
    assert main(["report", "--store", str(H100 / "measurements.sqlite"),
                 "--weights", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    table = json.loads((H100 / "table1-overlap.json").read_text())
    assert report["cross_kernel_geomean_rel_error"] == pytest.approx(
        table["cross_kernel_geomean_rel_error"], rel=1e-3)
    for name, weights in (("linear", H100 / "weights-linear.json"), ("overlap", out)):
        assert main(["select", "--store", str(H100 / "families.sqlite"),
                     "--weights", str(weights), "--format", "json"]) == 0
        selection = json.loads(capsys.readouterr().out)
        shipped_sel = json.loads((H100 / f"selection-{name}.json").read_text())
        assert [s["pick"] for s in selection] == [s["pick"] for s in shipped_sel]
        assert [s["fraction_of_best"] for s in selection] == pytest.approx(
            [s["fraction_of_best"] for s in shipped_sel])
