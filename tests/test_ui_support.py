"""The data functions below the UI: filters, worst predictions, weight comparison,
heatmap grids, store datasets, shipped data, and the campaign's stop hook."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.errors import DeviceError, ParameterError, UnknownNameError
from workbench.kernels import parse_parameters
from workbench.measure import MeasurementStore
from workbench.measure.store import resolve_store_path
from workbench.measure.samples import shipped_data
from workbench.models import load_model, load_store_dataset, store_device
from workbench.reports import (
    compare_weights,
    filter_predictions,
    parse_size_conditions,
    worst_predictions,
)
from workbench.reports.heatmaps import block_study_grid, grid_cases, group_size_grid

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
needs_h100 = pytest.mark.skipif(resolve_store_path(H100 / "measurements.sqlite") is None,
                                reason="no shipped H100 data")


def _pred(rows):
    """A predictions frame (reports.predictions layout) from (kernel, variant, params,
    group, role, measured_s, predicted_s) tuples."""
    frame = pd.DataFrame(rows, columns=["kernel", "variant", "params", "group_size", "role",
                                        "time_s", "predicted_s"])
    frame["dtype"] = "float32"
    frame["rel_error"] = (frame["predicted_s"] - frame["time_s"]).abs() / frame["time_s"]
    return frame


PRED = _pred([
    ("finite_diff", "default", "n=1024", "16x16", "test", 1.0e-3, 1.1e-3),
    ("finite_diff", "default", "n=1024", "32x16", "test", 1.0e-3, 0.5e-3),
    ("finite_diff", "default", "n=1024", "24x16", "test", 2.0e-3, 2.0e-3),
    ("finite_diff", "default", "n=2048", "16x16", "test", 4.0e-3, 3.0e-3),
    ("nbody", "default", "n=4096", "256", "test", 1.0e-3, 1.9e-3),
    ("nbody", "default", "n=4096", "512", "test", 1.0e-3, 1.2e-3),
    ("matmul_tiled", "square", "l=64,m=64,n=64", "16x16", "measurement", 1e-4, 1.05e-4),
])


def test_parse_parameters_reads_the_picker_text_and_refuses_malformed_parts():
    assert parse_parameters("n=1024, m = 512,") == {"n": 1024, "m": 512}
    assert parse_parameters("  ") == {}
    with pytest.raises(ParameterError, match="malformed parameter 'n=big'"):
        parse_parameters("n=big")


def test_size_conditions_filter_rows_and_bad_ones_say_why():
    assert [str(c) for c in parse_size_conditions("n>=2048, m=3")] == ["n>=2048", "m=3"]
    with pytest.raises(ParameterError, match="malformed size filter 'n~3'"):
        parse_size_conditions("n~3")
    big = filter_predictions(PRED, sizes="n>=2048")
    assert set(big["params"]) == {"n=2048", "n=4096"}
    # a condition on a parameter a kernel lacks leaves that kernel out
    assert set(filter_predictions(PRED, sizes="l=64")["kernel"]) == {"matmul_tiled"}


def test_filters_combine_and_an_empty_filter_keeps_everything():
    assert len(filter_predictions(PRED)) == len(PRED)
    fd = filter_predictions(PRED, kernels=["finite_diff"])
    assert len(fd) == 4
    narrowed = filter_predictions(PRED, kernels=["finite_diff"], group_sizes=["16x16"],
                                  sizes="n<2048")
    assert narrowed["params"].tolist() == ["n=1024"] and len(narrowed) == 1
    assert set(filter_predictions(PRED, roles=["measurement"])["kernel"]) == {"matmul_tiled"}


def test_worst_predictions_are_sorted_worst_first_with_signed_errors():
    worst = worst_predictions(PRED, 3)
    assert list(worst.columns[:5]) == ["kernel", "variant", "dtype", "params", "group_size"]
    assert worst["rel_error"].tolist() == sorted(worst["rel_error"], reverse=True)
    assert worst.loc[0, "kernel"] == "nbody" and worst.loc[0, "group_size"] == "256"
    assert worst.loc[0, "rel_error"] == pytest.approx(0.9)
    assert worst.loc[1, "signed_error"] == pytest.approx(-0.5)   # under-predicted
    assert worst.loc[0, "measured_ms"] == pytest.approx(1.0)
    assert len(worst_predictions(PRED, 100)) == len(PRED)
    with pytest.raises(ParameterError):
        worst_predictions(PRED, -1)


def test_group_size_grid_lays_out_shapes_with_predicted_measured_and_error():
    grid = group_size_grid(PRED, "finite_diff")
    assert grid_cases(PRED, "finite_diff", "default") == ["n=1024", "n=2048"]
    assert grid.xs == (16, 24, 32) and grid.ys == (16,)
    assert grid.layer("measured").values == ((1.0, 2.0, 1.0),)
    assert grid.layer("predicted").values[0][2] == pytest.approx(0.5)
    assert grid.layer("relative error").values[0] == pytest.approx((0.1, 0.0, -0.5))
    assert grid.layer("relative error").scale == "diverging"
    one_d = group_size_grid(PRED, "nbody")
    assert one_d.xs == (256, 512) and one_d.ys == (1,)
    with pytest.raises(UnknownNameError, match="kernel in these predictions"):
        group_size_grid(PRED, "transpose")
    with pytest.raises(UnknownNameError, match="size case"):
        group_size_grid(PRED, "finite_diff", params="n=7")


def test_block_study_grid_has_measured_error_and_limiter_layers():
    study = pd.DataFrame({
        "X": [32, 16, 8, 16], "Y": [1, 2, 4, 1], "Z": [1, 1, 1, 2],
        "time": [1e-3, 2e-3, 4e-3, 3e-3], "limiter": ["DRAM", "L2", "L1", "DRAM"],
        "measured_time_s": [2e-3, 2e-3, 2e-3, 6e-3]})
    grid = block_study_grid(study)
    assert [la.name for la in grid.layers] == ["predicted", "measured", "relative error",
                                              "limiter"]
    assert grid.xs == (8, 16, 32) and grid.ys == (1, 2)
    assert grid.layer("predicted").values[0] == (4.0, 2.0, 1.0)
    assert math.isnan(grid.layer("predicted").values[1][0])
    assert grid.layer("relative error").values[1][1] == pytest.approx(-0.5)
    limiter = grid.layer("limiter")
    assert limiter.categories == ("L1", "L2", "DRAM")
    assert limiter.values[0] == (0.0, 1.0, 2.0)
    assert limiter.text[0][2] == "32x1x1 (DRAM)"


def test_a_two_dimensional_block_study_has_y_rows():
    study = pd.DataFrame({"X": [16, 8, 4], "Y": [1, 2, 4], "Z": [1, 1, 1],
                          "time": [1e-3, 2e-3, 3e-3], "limiter": ["DRAM", "DRAM", "L2"]})
    grid = block_study_grid(study)
    assert grid.y_label == "Y (threads)" and grid.ys == (1, 2, 4)
    assert grid.layer("predicted").values[2][0] == pytest.approx(3.0)
    assert [la.name for la in grid.layers] == ["predicted", "limiter"]


def test_candidate_blocks_fit_the_kernels_dimensions():
    from workbench.models.roofline.blocks import candidate_blocks
    assert candidate_blocks(16, 2) == [(1, 16), (2, 8), (4, 4), (8, 2), (16, 1)]
    assert candidate_blocks(256, 1) == [(256,)]
    assert all(x * y * z == 1024 for x, y, z in candidate_blocks(1024, 3))
    with pytest.raises(ParameterError):
        candidate_blocks(16, 4)


def test_grid_figure_draws_one_heatmap_per_layer():
    go = pytest.importorskip("plotly.graph_objects")
    from workbench.reports.heatmaps import grid_figure
    fig = grid_figure(group_size_grid(PRED, "finite_diff"))
    assert isinstance(fig, go.Figure)
    assert [t.type for t in fig.data] == ["heatmap"] * 3
    # predicted and measured share one colour scale; the error is centred on zero
    assert fig.data[0].zmin == fig.data[1].zmin and fig.data[0].zmax == fig.data[1].zmax
    assert fig.data[2].zmid == 0


def test_hover_text_lists_the_non_zero_properties_largest_first():
    from workbench.reports.plots import property_hover_text
    data = pd.DataFrame({"kernel": ["a", "b"], "f_op_float32_add": [5.0, 0.0],
                         "f_thread_groups": [7.0, 2.0], "f_sync_kernel_launch": [1.0, 1.0]},
                        index=[10, 11])
    text = property_hover_text(data)
    assert text[10] == "f_thread_groups: 7<br>f_op_float32_add: 5<br>f_sync_kernel_launch: 1"
    assert "f_op_float32_add" not in text[11]
    assert property_hover_text(data, limit=1)[10].endswith("... 2 more")


def test_compare_weights_puts_models_side_by_side():
    from workbench.models.unified.linear import FittedLinearModel
    a = FittedLinearModel({"f_op_float32_add": 1e-12}, {"f_op_float32_add": (0.9e-12, 1.1e-12)},
                          [], {}, {"device": "A"})
    b = FittedLinearModel({"f_op_float32_add": 2e-12, "f_thread_groups": 1e-9},
                          {"f_op_float32_add": (1.5e-12, 2.5e-12),
                           "f_thread_groups": (-1e-9, 3e-9)}, [], {}, {"device": "B"})
    table = compare_weights({"A": a, "B": b})
    assert table["model"].tolist() == ["A", "B", "B"]
    row = table[(table["model"] == "B") & (table["property"] == "f_thread_groups")].iloc[0]
    assert (row["value"], row["ci_low"], row["ci_high"]) == (1e-9, -1e-9, 3e-9)
    assert compare_weights({}).empty


@needs_h100
def test_shipped_data_finds_the_h100_store_weights_and_block_study():
    found = {d.name: d for d in shipped_data()}
    h100 = found["h100"]
    assert h100.device == "NVIDIA H100 80GB HBM3"
    assert h100.linear_weights == H100 / "weights-linear.json"
    assert any(p.name.startswith("block-study-predicted") for p in h100.block_studies)
    assert shipped_data(ROOT / "no-such-folder") == ()


@needs_h100
def test_store_device_and_a_store_dataset_of_one_kernel(tmp_path):
    with MeasurementStore.open(H100 / "measurements.sqlite", create=False,
                               readonly=True) as store:
        assert store_device(store).device == "NVIDIA H100 80GB HBM3"
        assert store_device(store, "h100").device == "NVIDIA H100 80GB HBM3"
        with pytest.raises(DeviceError, match="no device in the store matches 'V100'"):
            store_device(store, "V100")
    with MeasurementStore.open(tmp_path / "empty.sqlite") as store:
        with pytest.raises(DeviceError, match="holds no measurements"):
            store_device(store)
    data = load_store_dataset(H100 / "measurements.sqlite", "H100", campaign="h100-full")
    assert len(data) == 438 and (data["time_s"] > 0).all()
    model = load_model(H100 / "weights-linear.json")
    assert np.isfinite(model.predict(data)).all()


def test_a_campaign_stops_between_configurations_and_resumes(tmp_path, queue):
    from workbench.measure import Campaign, CampaignSettings, find_device
    from workbench.measure.devices import open_device

    device = find_device()
    _, profiling_queue = open_device(device)
    settings = CampaignSettings.quick(("empty", "global_access"))
    seen = []
    with MeasurementStore.open(tmp_path / "stop.sqlite") as store:
        campaign = Campaign(store, device, profiling_queue, settings, name="s")
        timings = campaign.run(lambda ev: seen.append(ev.key),
                               should_stop=lambda: len(seen) >= 3)
        assert timings.stopped and timings.measured == 3
        assert not store.campaign(campaign.campaign_id).is_finished
        resumed = Campaign(store, device, profiling_queue, settings, name="s")
        assert resumed.campaign_id == campaign.campaign_id
        rest = resumed.run()
        assert not rest.stopped and rest.skipped == 3
        assert store.campaign(campaign.campaign_id).is_finished
        assert len(store.measurements(campaign=campaign.campaign_id)) == \
            resumed.planned_count()


def test_short_device_names_fit_a_table_header():
    from workbench.measure import short_device_name

    assert short_device_name("NVIDIA H100 80GB HBM3") == "H100"
    assert short_device_name("NVIDIA H200") == "H200"
    assert short_device_name("Tesla V100-SXM2-16GB") == "V100"
    assert short_device_name("pthread-haswell-AMD EPYC 7B13 64-Core Processor") == "pocl CPU"
    assert short_device_name("cpu", "Portable Computing Language") == "pocl CPU"
    long = short_device_name("Some Accelerator With A Very Long Name")
    assert len(long) <= 14 and long.endswith("\u2026")


def test_the_error_colour_bar_says_low_and_high_not_minus():
    from workbench.reports.heatmaps import grid_figure

    frame = pd.DataFrame({"kernel": "k", "variant": "v", "dtype": "float32",
                          "params": "n=1", "role": "test",
                          "group_size": ["8x8", "16x8", "32x8", "8x16", "16x16", "32x16"],
                          "time_s": 1.0, "predicted_s": [0.7, 0.9, 1.0, 1.1, 1.3, 0.8]})
    grid = group_size_grid(frame, "k")
    figure = grid_figure(grid)
    bar = figure.data[2].colorbar
    assert "exact" in bar.ticktext and "30% low" in bar.ticktext
    assert "30% high" in bar.ticktext
    assert not any(t.startswith("-") for t in bar.ticktext)


@needs_h100
def test_shipped_data_lists_a_block_study_once_where_it_lies_plain_and_packed(tmp_path):
    folder = tmp_path / "h100"
    folder.mkdir()
    store = resolve_store_path(H100 / "measurements.sqlite")
    (folder / store.name).symlink_to(store)
    for name in ("block-study-predicted.csv", "block-study-predicted.csv.xz",
                 "block-study-predicted-fp64.csv.xz"):
        (folder / name).write_bytes(b"")
    (h100,) = shipped_data(tmp_path)
    assert [p.name for p in h100.block_studies] == [
        "block-study-predicted-fp64.csv.xz", "block-study-predicted.csv"]


def test_a_block_studys_cells_say_what_the_axes_do_not_in_legible_type():
    """The shipped star-stencil study's four layers side by side, 1320 px wide, cut its
    cells to 20 px and each cell's 16x64x1 to 2-4 px type at a laptop's width
    (newuser19): two layers a row within 800 px, the implied Y in each cell at 11 px,
    the whole block on hover."""
    from workbench.reports.heatmaps import (
        GRID_WIDTH,
        LABEL_CHAR,
        LABEL_FONT,
        grid_figure,
        label_fits,
    )
    from workbench.ui.heatmap_panel import expand_studies

    study = H100 / "block-study-predicted.csv.xz"
    if not study.exists():
        pytest.skip("no shipped block study")
    grid = block_study_grid(expand_studies([study])["star_stencil_3d-nofold"],
                            about="H100, star_stencil_3d-nofold")
    assert grid.title.endswith("(rows Z, columns X, Y in each cell)")
    predicted = grid.layer("predicted")
    cell = next((i, j) for i, row in enumerate(predicted.text) for j, t in enumerate(row)
                if t)
    x, y, z = map(int, predicted.text[cell[0]][cell[1]].split("x"))
    assert predicted.cell_labels[cell[0]][cell[1]] == str(y)     # Y: the axes give X, Z
    assert (grid.xs[cell[1]], grid.ys[cell[0]]) == (x, z)
    figure = grid_figure(grid)
    assert figure.layout.width <= GRID_WIDTH <= 820        # a 1280 px laptop's dashboard
    # two layers a row: the third starts the second row
    assert figure.layout.yaxis3.domain[1] < figure.layout.yaxis.domain[0]
    by_name = dict(zip([la.name for la in grid.layers], figure.data))
    for name in ("predicted", "measured", "relative error"):
        trace = by_name[name]
        assert trace.textfont.size == LABEL_FONT >= 10 and trace.texttemplate == "%{text}"
        longest = max(len(t) for row in trace.text for t in row)
        # a cell is the layer's width over its columns, the label's width within it
        layer_px = figure.layout.width * (figure.layout.xaxis.domain[1]
                                          - figure.layout.xaxis.domain[0])
        assert longest * LABEL_CHAR <= layer_px / len(grid.xs), (name, longest, layer_px)
        assert trace.customdata[cell[0]][cell[1]] == f"{x}x{y}x{z}"   # hover: the block
        assert "%{customdata}" in trace.hovertemplate
    # the limiter's names do not fit a 30 px cell at 11 px: the colour bar names them
    assert by_name["limiter"].texttemplate is None
    assert not label_fits([["DRAM"]], len(grid.xs), 300)
    assert label_fits([["16x16"]], 3, 300)


def test_the_notebooks_block_heatmaps_label_cells_legibly_and_title_each_layer_right():
    """block_size_study.ipynb's heatmaps (performance_heatmap, limiter_heatmaps) wrote
    each cell's shape and value in 2-7 px type at a laptop's width: two layers a row
    within 800 px, Y in each cell at 11 px, shape and value on hover."""
    from workbench.reports.heatmaps import (
        GRID_WIDTH,
        LABEL_FONT,
        limiter_heatmaps,
        performance_heatmap,
    )
    from workbench.ui.heatmap_panel import expand_studies

    study = H100 / "block-study-predicted.csv.xz"
    if not study.exists():
        pytest.skip("no shipped block study")
    pred = expand_studies([study])["star_stencil_3d-nofold"]
    perf = performance_heatmap(pred, pred[["X", "Y", "Z", "measured_GLups"]],
                               value="predicted_GLups", measured_value="measured_GLups")
    limits = limiter_heatmaps(pred)
    for figure in (perf, limits):
        assert figure.layout.width == GRID_WIDTH
        for trace in figure.data:
            assert trace.textfont.size == LABEL_FONT and trace.texttemplate == "%{text}"
            for labels, names in zip(trace.text, trace.customdata):
                for label, name in zip(labels, names):
                    assert label == (name.split("x")[1] if name else "")
    # each layer under its own title (the facets' order is not the titles' order)
    row = pred[(pred["X"] == 2) & (pred["Z"] == 1)].iloc[0]
    titles = {a.text: (a.x, a.y) for a in limits.layout.annotations}
    for trace in limits.data:
        x_dom = limits.layout[trace.xaxis.replace("x", "xaxis")].domain
        y_dom = limits.layout[trace.yaxis.replace("y", "yaxis")].domain
        (title,) = [t for t, (x, y) in titles.items()
                    if x_dom[0] <= x <= x_dom[1] and abs(y - y_dom[1]) < 0.05]
        level = title.removesuffix(" time")
        j, i = list(trace.x).index("2"), list(trace.y).index("1")
        assert trace.z[i][j] == pytest.approx(row[f"t_{level}"] * 1e3), title
