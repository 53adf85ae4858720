"""benchmarks/tiling_validation.py on the shipped H100 store: the latest record of each
point counts, baseline and chosen records stay apart, and the figures it shipped are
what the store gives."""

import importlib.util
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from workbench.measure.store import readable_file, resolve_store_path

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location(
        "tiling_validation", ROOT / "benchmarks" / "tiling_validation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def jacobi(bench, monkeypatch_module):
    # one problem measured twice (the 4096^2 baseline): the rule that matters
    monkeypatch_module.setattr(bench, "PROBLEMS",
                               [("jacobi2d", {"S1": 4096, "S2": 4096, "T": 48})])
    return bench.evaluate(H100 / "timetiling.sqlite", H100 / "tiling-calibration.json",
                          True)


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _latest_baseline_best() -> float:
    # straight from SQL: the second campaign of the same name holds the latest records
    name = "tune/tt_jacobi2d/baseline/S1=4096,S2=4096,T=48"
    # (the shipped store is compressed: readable_file is its decompressed copy)
    store_file = readable_file(H100 / "timetiling.sqlite")
    with sqlite3.connect(f"file:{store_file}?mode=ro", uri=True) as c:
        ids = [r[0] for r in c.execute("SELECT id FROM campaigns WHERE name = ? "
                                       "ORDER BY id", (name,))]
        assert len(ids) == 2
        return c.execute("SELECT min(time_s) FROM measurements WHERE campaign_id = ?",
                         (ids[-1],)).fetchone()[0]


def test_latest_records_and_shipped_figures(jacobi):
    _, validation, selection, replayed, points = jacobi
    row = selection.iloc[0]
    assert row.baseline_points == 326 and row.chosen_points == 40
    assert row.best_baseline_s == pytest.approx(_latest_baseline_best())
    assert row.selected_faster_pct == pytest.approx(
        100 * (1 - row.best_chosen_s / row.best_baseline_s))
    assert set(points["set"]) == {"baseline", "chosen"}
    assert len(points) == 366
    shipped = pd.read_csv(H100 / "tiling-selection.csv").iloc[0]
    assert shipped.best_baseline_s == pytest.approx(row.best_baseline_s)
    assert shipped.selected_faster_pct == pytest.approx(row.selected_faster_pct)
    shipped_v = pd.read_csv(H100 / "tiling-validation.csv").iloc[0]
    assert shipped_v.rmse_near_best == pytest.approx(validation.iloc[0].rmse_near_best)


def test_strategies_reach_the_chosen_quality(bench, jacobi):
    replayed = jacobi[3]
    reach = bench.reach_table(replayed).set_index("strategy")
    target = replayed[0][2]
    assert 0 < target <= 1
    assert set(reach.index) == {"exhaustive", "model:tiling", "random (expected)"}
    # random search's expectation is at least one run and at most the whole space
    assert 1 <= reach.loc["random (expected)", "runs"] <= 326
    assert reach["seconds"].gt(0).all()


def test_a_carried_store_says_which_explorations_are_finished():
    from types import SimpleNamespace

    from workbench.tuning.timetiled_campaign import finished_before
    from workbench.measure.store import MeasurementStore

    store_path = Path(__file__).resolve().parents[1] / "sample_data" / "h100" / "timetiling.sqlite"
    if resolve_store_path(store_path) is None:
        pytest.skip("no shipped time-tiling store")
    with MeasurementStore.open(store_path, create=False, readonly=True) as store:
        (identity,) = store.devices()
        h100 = SimpleNamespace(identity=identity)
        big = {"S1": 4096, "S2": 4096, "T": 48}
        assert finished_before(store, h100, "jacobi2d", big)
        assert not finished_before(store, h100, "jacobi2d", {"S1": 512, "S2": 512, "T": 48})
