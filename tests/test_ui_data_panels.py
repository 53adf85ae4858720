"""The weights, explorer and heatmap panels and the dashboard on the shipped H100
data, driven without a browser."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
go = pytest.importorskip("plotly.graph_objects")

from plotly.utils import PlotlyJSONEncoder  # noqa: E402

from workbench.measure.store import resolve_store_path  # noqa: E402
from workbench.models import load_model  # noqa: E402
from workbench.ui import (  # noqa: E402
    Dashboard,
    ExplorerPanel,
    HeatmapPanel,
    Session,
    WeightsPanel,
)

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
STORE = H100 / "measurements.sqlite"
LINEAR = H100 / "weights-linear.json"
STUDY = H100 / "block-study-predicted.csv.xz"

pytestmark = pytest.mark.skipif(resolve_store_path(STORE) is None or not LINEAR.exists(),
                                reason="no shipped H100 data")


@pytest.fixture(scope="module")
def h100_session():
    """The shipped H100 store and linear model, loaded once for the module."""
    session = Session()
    session.use_data(STORE, LINEAR)
    session.want_data()
    assert session.data_error == ""
    return session


def test_the_explorer_shows_every_configuration_and_filters_narrow_them(h100_session):
    panel = ExplorerPanel(h100_session)
    everything = len(h100_session.data.predictions)
    assert everything == 438 and len(panel.filtered) == everything
    assert "438 of 438 configurations" in panel.summary.value
    # all rows: mostly the fit's own; the test kernels' error is said apart (a newcomer
    # read the 3.7% of every row as the model's error on kernels it had not seen)
    test = h100_session.data.predictions
    test = test[test["role"] == "test"]
    from workbench.models.contract import geometric_mean
    said = f"(the test kernels', which the fit never saw: {geometric_mean(test['rel_error']):.1%})"
    assert said in panel.summary.value, panel.summary.value
    assert "wb-worst-table" in panel.worst_table._dom_classes
    kernels = {t.name for t in panel.scatter.data} - {"exact"}
    assert "finite_diff" in kernels and "nbody" in kernels

    panel.kernel_filter.value = ("finite_diff",)
    assert set(panel.filtered["kernel"]) == {"finite_diff"}
    assert [t.name for t in panel.scatter.data] == ["finite_diff", "exact"]
    n_kernel = len(panel.filtered)
    panel.group_filter.value = ("16x16",)
    assert set(panel.filtered["group_size"]) == {"16x16"} and len(panel.filtered) < n_kernel
    n_group = len(panel.filtered)
    panel.size_filter.value = "n>=16384"
    assert 0 < len(panel.filtered) < n_group
    assert all(int(p.split("=")[1]) >= 16384 for p in panel.filtered["params"])
    assert f"{len(panel.filtered)} of 438" in panel.summary.value
    panel.size_filter.value = ""
    panel.group_filter.value = ()
    panel.kernel_filter.value = ()
    panel.role_filter.value = "test"
    assert set(panel.filtered["role"]) == {"test"}
    assert "which the fit never saw" not in panel.summary.value   # the mean is theirs


def test_hovering_a_point_shows_its_properties(h100_session):
    panel = ExplorerPanel(h100_session)
    panel.kernel_filter.value = ("matmul_tiled",)
    trace = panel.scatter.data[0]
    label, error, properties = trace.customdata[0]
    assert label.startswith("matmul_tiled [")
    assert "f_op_float32_mul" in properties and "f_thread_groups" in properties
    assert "%{customdata[2]}" in trace.hovertemplate


def test_the_worst_predictions_table_is_sorted_and_follows_the_filters(h100_session):
    panel = ExplorerPanel(h100_session, worst=5)
    worst = panel.worst
    assert len(worst) == 5
    assert worst["rel_error"].tolist() == sorted(worst["rel_error"], reverse=True)
    assert worst["rel_error"].iloc[0] == pytest.approx(h100_session.data.predictions[
        "rel_error"].max())
    assert worst.loc[0, "kernel"] in panel.worst_table.value
    # headers in words, and the error once ("61.9% high"), not twice as before
    table = panel.worst_table.value
    assert "<th>measured (ms)</th>" in table and "<th>group</th>" in table
    assert "rel_error" not in table and "_ms" not in table
    assert table.count(f"{worst['rel_error'].iloc[0]:.1%}") == 1
    panel.kernel_filter.value = ("skinny_matmul",)
    assert set(panel.worst["kernel"]) == {"skinny_matmul"}
    panel.worst_count.value = 2
    assert len(panel.worst) == 2


def test_a_bad_size_filter_is_a_message_and_the_panel_recovers(h100_session):
    panel = ExplorerPanel(h100_session)
    panel.size_filter.value = "n>>3"
    assert "malformed size filter" in panel.errors.text
    panel.size_filter.value = "n=4096"
    assert panel.errors.value == "" and set(panel.filtered["params"]) >= {"n=4096"}


def test_the_weights_panel_shows_intervals_for_two_devices(h100_session, tmp_path):
    shipped = json.loads(LINEAR.read_text())
    # a second device: the same document under another name, weights doubled
    other = dict(shipped, device=dict(shipped["device"], device="Other GPU"),
                 weights={k: 2 * v for k, v in shipped["weights"].items()})
    other_file = tmp_path / "other.json"
    other_file.write_text(json.dumps(other))
    panel = WeightsPanel(h100_session, models=[other_file])
    table = panel.table.value
    assert "wb-weights-table" in panel.table._dom_classes
    assert "NVIDIA H100 80GB HBM3, unified-linear" in table
    assert "Other GPU, unified-linear" in table
    assert table.count("95% interval") == 2
    lo, hi = shipped["confidence_intervals"]["f_op_float32_add"]
    assert f"[{lo:.2e}, {hi:.2e}]" in table
    # short headers a laptop's screen holds, the full names on hover
    assert '<th title="NVIDIA H100 80GB HBM3, unified-linear"' in table and ">H100</th>" in table
    assert '<th title="Other GPU, unified-linear"' in table and ">Other GPU</th>" in table
    # the ratio column, H100 / Other GPU, is one half for every weight
    assert ">H100 / Other GPU</th>" in table
    assert table.count('<td class="num">0.5</td>') == len(shipped["weights"])
    assert list(panel.shown) == ["NVIDIA H100 80GB HBM3, unified-linear",
                                 "Other GPU, unified-linear"]
    # an interval that spans zero is marked as undetermined
    assert "spans zero" in table
    assert "in orange: a weight the data do not determine" in table
    # the names may break after an underscore: whole, they pushed the second model's
    # interval past the right edge of JupyterLab on a 1366 px laptop
    assert '<code style="white-space:normal;overflow-wrap:anywhere">f_op_float32_add</code>' \
        in table


def test_adding_a_missing_model_file_is_a_message(h100_session):
    panel = WeightsPanel(h100_session)
    panel.file.value = "no/such/weights.json"
    assert "does not exist" in panel.errors.text
    assert len(panel.shown) == 1


def test_the_heatmap_panel_builds_a_group_shape_grid_from_the_h100_store(h100_session):
    panel = HeatmapPanel(h100_session)
    panel.kernel.value = "finite_diff"
    grid = panel.grid
    assert grid.xs == (16, 24, 32) and grid.ys == (16,)
    measured = grid.layer("measured").values[0]
    pred = h100_session.data.predictions
    rows = pred[(pred["kernel"] == "finite_diff") & (pred["params"] == panel.size.value)]
    by_group = dict(zip(rows["group_size"], rows["time_s"] * 1e3))
    assert measured == pytest.approx((by_group["16x16"], by_group["24x16"], by_group["32x16"]))
    assert isinstance(panel.figure, go.FigureWidget)
    assert "wb-heatmap" in panel.figure._dom_classes
    assert [t.type for t in panel.figure.data] == ["heatmap"] * 3
    assert np.array(panel.figure.data[1].z, dtype=float).shape == (1, 3)
    panel.size.value = panel.size.options[-1]
    assert panel.grid.title.endswith(f"{panel.size.value}: per work-group shape")
    panel.kernel.value = "nbody"
    assert panel.grid.xs == (256, 384, 512) and panel.grid.ys == (1,)


def test_the_heatmap_panel_shows_a_block_study_with_its_limiters(h100_session):
    if not STUDY.exists():
        pytest.skip("no shipped block study")
    panel = HeatmapPanel(h100_session, block_studies=[STUDY])
    panel.source.value = "star_stencil_3d-nofold"
    names = [layer.name for layer in panel.grid.layers]
    assert names == ["predicted", "measured", "relative error", "limiter"]
    assert set(panel.grid.layer("limiter").categories) <= {"L1", "L2", "DRAM", "FLOP"}
    assert len(panel.figure.data) == 4
    assert panel.store_controls.layout.display == "none"


def test_a_block_study_reads_the_same_from_csv_and_csv_xz(tmp_path):
    """sample_data ships its study as .csv.xz (issue #25): a user's own study file, plain
    or compressed, gets the same label and the same rows."""
    import lzma

    from workbench.ui.heatmap_panel import expand_studies, study_label

    if not STUDY.exists():
        pytest.skip("no shipped block study")
    text = lzma.decompress(STUDY.read_bytes())
    plain = tmp_path / "block-study-predicted-mine.csv"
    plain.write_bytes(text)
    packed = tmp_path / "block-study-predicted-mine.csv.xz"
    packed.write_bytes(lzma.compress(text))
    assert study_label(plain) == study_label(packed) == "mine"
    assert study_label(tmp_path / "block-study-predicted.csv") == "block-study-predicted"
    shipped = expand_studies([STUDY])
    assert "star_stencil_3d-nofold" in shipped
    assert shipped.keys() == expand_studies([plain]).keys() == expand_studies([packed]).keys()
    for label, frame in expand_studies([packed]).items():
        assert frame.equals(shipped[label])


def test_a_heatmap_panel_opens_on_the_source_asked_for_in_strict_json(h100_session):
    if not STUDY.exists():
        pytest.skip("no shipped block study")
    panel = HeatmapPanel(h100_session, block_studies=[STUDY], source="star_stencil_3d-nofold")
    assert panel.source.value == "star_stencil_3d-nofold"
    assert (len(panel.grid.xs), len(panel.grid.ys)) == (10, 7)
    # the study lacks some block shapes: blank cells, sent as null, never as NaN
    # (the browser drops a widget message that is not strict JSON)
    z = panel.figure.data[0].z
    assert any(v is None for row in z for v in row)
    assert sum(v is not None for row in z for v in row) == 54
    json.dumps(panel.figure.to_plotly_json(), cls=PlotlyJSONEncoder, allow_nan=False)
    assert HeatmapPanel(h100_session, block_studies=[STUDY]).source.value == "store"


def test_panels_without_data_say_so_instead_of_failing():
    session = Session()
    explorer, heatmaps = ExplorerPanel(session), HeatmapPanel(session)
    assert "no store chosen" in explorer.summary.value
    assert heatmaps.figure is None and "no store chosen" in heatmaps.note.value
    session.use_data("no/such/store.sqlite")
    assert "no measurement store at" in explorer.errors.text
    assert "no measurement store at" in heatmaps.errors.text


def test_the_dashboard_composes_every_panel_on_one_session(h100_session):
    board = Dashboard(device="h100", background=False)
    assert "wb-dashboard" in board._dom_classes
    assert board.session.device.shipped.name == "h100"
    for panel in (board.properties, board.calibration, board.weights, board.heatmaps,
                  board.explorer):
        assert panel.session is board.session and panel.errors is board.errors
    assert len(board.explorer.filtered) == 438
    assert board.heatmaps.grid is not None and "NVIDIA H100" in board.weights.table.value
    # the picker drives the properties and the store heatmap's kernel
    board.heatmaps.source.value = "store"
    board.picker.kernel_select.value = "finite_diff"
    assert board.properties.counts["f_thread_groups"] > 0
    assert board.heatmaps.kernel.value == "finite_diff"
    # ... also while a study is shown, without redrawing it: the store's grid follows
    board.heatmaps.source.value = board.heatmaps.source.options[-1][1]
    study = board.heatmaps.figure
    board.picker.kernel_select.value = "nbody"
    assert board.heatmaps.figure is study
    board.heatmaps.source.value = "store"
    assert board.heatmaps.kernel.value == "nbody" and board.heatmaps.grid.ys == (1,)
    board.picker.params.value = "n=oops"
    assert "malformed parameter" in board.errors.text
    assert board.errors.value.count("wb-error-message") == 1


def test_the_dashboard_has_a_tab_per_panel_and_opens_the_heatmaps_on_a_study(h100_session):
    board = Dashboard(device="h100", background=False)
    panels = [board.properties, board.explain, board.calibration, board.weights,
              board.heatmaps, board.explorer, board.tuning]
    assert board.tabs in board.children and board.picker in board.children
    assert [page.children[0] for page in board.tabs.children] == panels
    assert board.tabs.titles == ("Properties", "Explain", "Calibration", "Fitted weights",
                                 "Heatmaps", "Predicted vs measured", "Tuning")
    # a tab that grows scrolls in its own page, under a laptop screen's height (the
    # window's, less what is above and below it: tests/test_browser_laptop.py)
    assert all(page.layout.max_height == "clamp(300px, calc(100vh - 410px), 600px)"
               and page.layout.overflow == "auto" for page in board.tabs.children)
    assert board.shown == "properties"
    assert board.show("heatmaps") is board.heatmaps and board.tabs.selected_index == 4
    assert board.shown == "heatmaps"
    # a tab's click from another kernel thread waits for whoever holds the session
    # (the dashboard's own widgets too: tests/test_ui_messages.py)
    click = {"content": {"data": {"method": "update", "state": {"selected_index": 1},
                                  "buffer_paths": []}}, "buffers": []}
    with board.session.lock:
        sender = threading.Thread(target=board.tabs.comm.handle_msg, args=(click,))
        sender.start()
        sender.join(0.2)
        assert sender.is_alive() and board.shown == "heatmaps"
    sender.join(10)
    assert board.shown == "explain"
    with pytest.raises(ValueError, match="no panel 'heatmap'"):
        board.show("heatmap")
    # the heatmaps open on the shipped star stencil study, one study per kernel and
    # variant, with the store's heatmap (one cell after a quick calibration) a choice
    heatmaps = board.heatmaps
    assert heatmaps.source.value == "NVIDIA H100 80GB HBM3, star_stencil_3d-nofold"
    assert (len(heatmaps.grid.xs), len(heatmaps.grid.ys)) == (10, 7)
    studies = [v for _, v in heatmaps.source.options
               if v not in ("store", "roofline", "tiling")]
    assert len(studies) == 6 and "store" in dict(heatmaps.source.options).values()
    assert "tiling" in dict(heatmaps.source.options).values()   # the time-tiling view
    assert heatmaps.store_controls.layout.display == "none"
    heatmaps.source.value = "store"
    assert heatmaps.grid.title.endswith("per work-group shape")


def test_the_dashboard_loads_in_the_background_without_blocking(h100_session):
    board = Dashboard(device="h100")
    assert board.session.wait_for_data(timeout=120)
    assert board.session.data is not None and len(board.explorer.filtered) == 438
    assert board.heatmaps.figure is not None


def test_a_store_without_a_model_can_be_fitted_from_the_weights_panel(tmp_path):
    session = Session()
    panel = WeightsPanel(session, bootstrap=5)
    panel.fit_button.click()
    assert "no store to fit on" in panel.errors.text
    session.use_data(STORE)
    model = panel.fit()
    assert session.model is model and model.device["device"] == "NVIDIA H100 80GB HBM3"
    shipped = load_model(LINEAR)
    assert model.weights["f_op_float32_add"] == pytest.approx(
        shipped.weights["f_op_float32_add"], rel=1e-6)
    assert "wb-weights-table" in panel.table._dom_classes and "F32 Addition" in panel.table.value


def test_an_expression_model_shows_its_parameters(h100_session):
    overlap = H100 / "weights-overlap.json"
    if not overlap.exists():
        pytest.skip("no shipped overlap model")
    panel = WeightsPanel(h100_session, models={"overlap": overlap})
    assert "p_launch" in panel.table.value and "overlap" in panel.table.value
