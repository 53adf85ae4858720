"""Ranking costs charged where they happen: recorded by a live exploration in the
store (schema version 2), read back by ``tuning-report --ranking-cost recorded``;
knn and xgb listed in the report, with a reason where they cannot rank."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import StoreError, TuningError
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store import MeasurementStore, RankingCost, Status, resolve_store_path
from workbench.measure.store.schema import SCHEMA_VERSION
from workbench.tuning.costs import charge, recorded_ranking_costs, timed
from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.replay import ReplayEvaluator
from workbench.tuning.runner import Explorer
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import Exhaustive, RandomSearch, _Ordered
from workbench.tuning.study import compare_strategies

DEVICE = DeviceIdentity("toy platform", "toy device", "0")
SHIPPED = Path(__file__).resolve().parents[1] / "sample_data" / "h100" / "tuning.sqlite"


def toy_space() -> TuningSpace:
    return TuningSpace(name="toy", description="toy",
                       tune_params={"a": (1, 2, 4, 8), "b": (1, 2, 4)},
                       group_size=lambda p: (p["a"],), kernel=lambda p: None)


def toy_time(point: Point) -> float:
    return 1e-3 * (1 + abs(point["a"] - 4) + abs(point["b"] - 2))


class Table:
    def __init__(self):
        self.calls = 0

    def evaluate(self, point: Point) -> Evaluation:
        self.calls += 1
        t = toy_time(point)
        return Evaluation(point, Status.OK, t, {Cost.RUN: 0.5}, raw_times_s=(t, t))


class Ranked(_Ordered):
    """The space's best first, after a ranking that spends some processor time."""

    name = "ranked"
    jobs = 1

    def order(self, space, points):
        np.linalg.svd(np.random.default_rng(0).random((120, 120)))   # a little work
        return sorted(points, key=toy_time), 0.25


def _v1_store(path: Path) -> None:
    """A store as schema version 1 left it: no ranking_costs table."""
    with MeasurementStore.open(path) as store:
        cid = store.start_campaign("c", DEVICE, {"space": "toy"})
        assert cid == 1
    raw = sqlite3.connect(path)
    raw.execute("DROP TABLE ranking_costs")
    raw.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    raw.execute("PRAGMA user_version = 1")
    raw.commit()
    raw.close()


def test_a_version_1_store_reads_and_upgrades_to_hold_ranking_costs(tmp_path):
    path = tmp_path / "old.sqlite"
    _v1_store(path)
    with MeasurementStore.open(path, readonly=True) as store:
        assert store.schema_version == 1
        assert store.ranking_costs() == {}         # no table, nothing recorded
        assert [c.name for c in store.campaigns()] == ["c"]
        with pytest.raises(StoreError):
            store.record_ranking_cost(1, RankingCost("x", 1, 1.0, 1.0))
    with MeasurementStore.open(path) as store:     # a writable open migrates
        assert store.schema_version == SCHEMA_VERSION == 2
        cost = RankingCost("model:linear", 120, 1.5, 2.75, jobs=4, cpu_count=16,
                           host="gpu-host", timestamp="2026-11-26T10:00:00+00:00")
        store.record_ranking_cost(1, cost)
        store.record_ranking_cost(1, RankingCost("model:linear", 120, 9.0, 9.0))  # kept
    with MeasurementStore.open(path, readonly=True) as store:
        ((campaign, back),) = store.ranking_costs().items()
    assert campaign.name == "c"
    assert back == RankingCost("model:linear", 120, 1.5, 2.75, jobs=4, cpu_count=16,
                               host="gpu-host", timestamp="2026-11-26T10:00:00+00:00",
                               campaign=1)
    assert back.cores_used == pytest.approx(2.75 / 1.5) and back.share_of_host == 0.25


def test_the_shipped_stores_are_older_and_still_read():
    if resolve_store_path(SHIPPED) is None:
        pytest.skip("no shipped H100 tuning store")
    with MeasurementStore.open(SHIPPED, readonly=True) as store:
        assert store.schema_version == 1
        assert store.ranking_costs() == {}
        assert store.measurements(status=None)


@pytest.mark.parametrize("bad", [dict(wall_s=-1.0), dict(cpu_s=math.nan),
                                 dict(jobs=0), dict(strategy="")])
def test_a_bad_ranking_cost_is_refused(bad):
    values = dict(strategy="s", points=3, wall_s=1.0, cpu_s=1.0) | bad
    with pytest.raises(StoreError):
        RankingCost(**values)


def test_a_live_exploration_records_its_ranking_cost_once(tmp_path):
    space, path = toy_space(), tmp_path / "s.sqlite"
    with MeasurementStore.open(path) as store:
        stop = iter(range(100))
        first = Explorer(space, Ranked(), Table(), store=store, device=DEVICE).run(
            should_stop=lambda: next(stop) >= 3)
        (campaign, cost), = store.ranking_costs().items()
    assert campaign.settings["space"] == "toy"
    assert cost.strategy == "ranked" and cost.points == len(space.points())
    assert cost.wall_s >= 0.0 and cost.cpu_s > 0.0 and cost.jobs == 1
    assert cost.cpu_count >= 1 and cost.host
    assert (first.ranking_cost.wall_s, first.ranking_cost.cpu_s) == (cost.wall_s,
                                                                      cost.cpu_s)
    with MeasurementStore.open(path) as store:   # resumed: the first cost stays
        again = Explorer(space, Ranked(), Table(), store=store, device=DEVICE).run()
        assert list(store.ranking_costs().values()) == [cost]
    assert again.ranking_cost == cost
    assert recorded_ranking_costs([path], space) == {"ranked": cost}
    other = TuningSpace(name="toy", description="toy", problem={"n": 2},
                        tune_params={"a": (1,)}, group_size=lambda p: (1,),
                        kernel=lambda p: None)
    assert recorded_ranking_costs([path], other) == {}   # another problem size


def test_timed_counts_the_processor_time_of_waited_for_children():
    import subprocess
    import sys

    _, spent = timed(lambda: subprocess.run(
        [sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True))
    assert spent.cpu_s >= 0.1 and spent.wall_s > 0


def _replayed():
    space = toy_space()
    evaluator = ReplayEvaluator(space, {p.label: Table().evaluate(p)
                                        for p in space.points()})
    return space, evaluator


def test_tuning_report_charges_the_ranking_measured_now_or_recorded():
    from workbench.reports.tuning import tuning_table

    space, evaluator = _replayed()
    n = len(space.points())
    now = compare_strategies(space, evaluator, tpe_seeds=0,
                             strategies={"ranked": Ranked}).frame()
    row = now.set_index("strategy").loc["ranked"]
    assert row.choosing_s == 0.25 and row.choosing_charged.startswith("measured now")
    assert row.seconds_to_95 == pytest.approx(0.25 + 0.5, abs=0.01)   # best first
    recorded = {"ranked": RankingCost("ranked", n, 3.0, 24.0, jobs=8, cpu_count=16,
                                      host="gpu-host")}
    rec = compare_strategies(space, evaluator, tpe_seeds=0, strategies={"ranked": Ranked},
                             recorded=recorded).frame().set_index("strategy").loc["ranked"]
    assert rec.choosing_s == 3.0 and rec.seconds_to_95 == pytest.approx(3.5, abs=0.01)
    assert rec.choosing_charged.startswith("recorded: 3 s on gpu-host")
    assert "8 of 16" in rec.choosing_charged
    # asked for, but nothing recorded for this strategy: measured now, and said so
    none = compare_strategies(space, evaluator, tpe_seeds=0, strategies={"ranked": Ranked},
                              recorded={}).frame()
    assert "no recorded cost" in none.set_index("strategy").loc["ranked", "choosing_charged"]
    assert list(tuning_table(none.assign(points=n))["charged"]) == ["", "", "now*"]


def test_a_recorded_cost_of_fewer_points_is_scaled():
    seconds, note = charge({"s": RankingCost("s", 10, 2.0, 2.0, host="h")}, ("s",), 30, 0.1)
    assert seconds == pytest.approx(6.0) and "scaled from 10 to 30 points" in note
    assert charge(None, ("s",), 30, 0.1)[0] == 0.1


def test_tuning_report_lists_knn_and_xgb_with_a_reason_where_they_cannot_rank():
    from workbench.cli.tune_cmds import _learned_strategies
    from workbench.reports.tuning import tuning_table
    from workbench.tuning.ir_strategies import IRBoostedRanker, IRFeatureKNN

    learned = _learned_strategies(None)
    assert set(learned) == {"knn", "xgb"}
    assert isinstance(learned["knn"](), IRFeatureKNN)
    assert isinstance(learned["xgb"](), IRBoostedRanker)
    assert {p.name for p in learned["knn"]().training} >= {"ir-samples.csv.xz"}
    space, evaluator = _replayed()
    # nothing to learn from: a row of n/a that says why, the other rows unharmed
    frame = compare_strategies(space, evaluator, tpe_seeds=0, strategies={
        "knn": lambda: IRFeatureKNN(training=[]), "ranked": Ranked}).frame()
    rows = frame.set_index("strategy")
    assert rows.loc["knn", "note"].startswith("n/a: the knn strategy needs measured")
    assert math.isnan(rows.loc["knn", "runs_to_95"]) and rows.loc["ranked", "runs_to_95"] == 1
    table = tuning_table(frame.assign(points=len(space.points()))).set_index("strategy")
    assert table.loc["knn", "runs_to_95"] == "n/a" and table.loc["ranked", "runs_to_95"] == "1"


def test_the_cli_offers_both_charging_modes():
    import argparse

    from workbench.cli.tune_cmds import add_parsers

    parser = argparse.ArgumentParser()
    add_parsers(parser.add_subparsers())
    args = parser.parse_args(["tuning-report", "--store", "x", "--ranking-cost",
                              "recorded"])
    assert args.ranking_cost == "recorded"
    with pytest.raises(SystemExit):
        parser.parse_args(["tuning-report", "--store", "x", "--ranking-cost", "guessed"])


def test_leave_one_out_leaves_out_every_space_of_the_program():
    from workbench.tuning.ir_training import program_of, training_frame

    assert program_of("lift_rewrites_jacobi5") == program_of("lift_jacobi5")
    assert program_of("stencil2d") != program_of("lift_stencil2d")
    samples = Path(__file__).resolve().parents[1] / "sample_data" / "h100" / \
        "ir-samples.csv.xz"
    if not samples.is_file():
        pytest.skip("no shipped samples")
    frame = training_frame([samples], exclude="lift_rewrites_jacobi5")
    assert "lift_jacobi5" not in set(frame["benchmark"])
    assert "lift_jacobi9" in set(frame["benchmark"])
    with pytest.raises(TuningError):
        training_frame([samples], exclude="lift_jacobi5", only=["lift_jacobi5"])


def test_exhaustive_and_random_record_a_near_zero_cost(tmp_path):
    with MeasurementStore.open(tmp_path / "s.sqlite") as store:
        for strategy in (Exhaustive(), RandomSearch(3)):
            Explorer(toy_space(), strategy, Table(), store=store, device=DEVICE).run()
        costs = {c.strategy: c for c in store.ranking_costs().values()}
    assert set(costs) == {"exhaustive", "random"}
    assert all(c.wall_s < 1.0 for c in costs.values())


# {{{ the speed-ups leave every ranking as it was

#: IR features of two points of lift_rewrites_jacobi5 at n=2048, as the workbench read
#: them before the cache and the parallel reading (commit 4340f14, read on 2026-11-26).
BEFORE = {
    "bx=8,by=4,cy=1,cx=4,assign=strided,tile=global,launch=2d,unroll=False,vw=1":
        [512, 2048, 1, 8, 4, 1, 0, 4, 20, 0, 0, 4, 0, 0, 4],
    "bx=32,by=16,cy=1,cx=8,assign=strided,tile=local,launch=2d,unroll=False,vw=1":
        [256, 2048, 1, 32, 16, 1, 18576, 8, 9.0625, 9.0625, 40, 1, 1, 2, 16.5],
}


def test_ir_features_read_in_parallel_or_from_the_cache_are_those_read_before(
        tmp_path, monkeypatch):
    from workbench.models.ir_features import space_ir_features
    from workbench.models.ir_features.space import cache_dir
    from workbench.tuning.catalog import get_space

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    space = get_space("lift_rewrites_jacobi5", n=2048)
    wanted = {space.structure_of(space.point(label)) for label in BEFORE}
    points = [p for p in space.points() if space.structure_of(p) in wanted][::3]
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")
    serial = space_ir_features(space, points)
    assert len(list(cache_dir().glob("*.npy"))) == len(wanted)
    for path in cache_dir().glob("*.npy"):
        path.unlink()
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    parallel = space_ir_features(get_space("lift_rewrites_jacobi5", n=2048), points)
    cached = space_ir_features(get_space("lift_rewrites_jacobi5", n=2048), points)
    assert serial.equals(parallel) and serial.equals(cached)
    for path in cache_dir().glob("*.npy"):
        path.unlink()
    monkeypatch.setenv("WORKBENCH_RANKING_CACHE", "0")     # nothing kept on disk
    assert space_ir_features(space, points).equals(serial)
    assert not list(cache_dir().glob("*.npy"))
    every = space_ir_features(space, [space.point(label) for label in BEFORE])
    for label, values in BEFORE.items():
        assert list(every.loc[label]) == values


def test_the_roofline_predicts_the_same_in_parallel(monkeypatch):
    from workbench.kernels.candidate import Candidate
    from workbench.models import get_family
    from workbench.tuning.catalog import get_space

    space = get_space("transpose", n=1024)
    points = space.points()[::30][:16]
    model = get_family("roofline").ready(device_model="h100")
    candidates = [Candidate.of_point(space, p) for p in points]
    # nothing read back from the disk cache: both runs work every point out
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")
    serial = model.predict_candidates(candidates)
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    parallel = model.predict_candidates(candidates)
    assert list(serial.seconds) == list(parallel.seconds)
    assert serial.breakdowns == parallel.breakdowns
    # the prediction the workbench made before (commit 4340f14, 2026-11-26)
    assert float(serial.seconds[0]).hex() == "0x1.d6d9f66c79fb3p-19"


def test_a_second_session_reads_the_roofline_from_disk(tmp_path, monkeypatch):
    """A space's roofline predictions are stored per point: a second session reads
    them back without working out any point, predicts the same (volumes too), and
    works out only the points it has not seen; another option or L2 size, or the
    cache turned off, works every point out again."""
    from dataclasses import replace

    from workbench.kernels.candidate import Candidate
    from workbench.models import get_family
    from workbench.models.roofline.family import FittedRoofline
    from workbench.tuning.catalog import get_space

    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", str(tmp_path / "counts.sqlite"))
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")
    space = get_space("transpose", n=1024)
    points = space.points()[::40][:8]
    candidates = [Candidate.of_point(space, p) for p in points]
    model = get_family("roofline").ready(device_model="h100")
    worked: list = []
    one = FittedRoofline._one
    monkeypatch.setattr(FittedRoofline, "_one",
                        lambda self, c: worked.append(c.point) or one(self, c))
    first = model.predict_candidates(candidates[:6])
    assert len(worked) == 6
    worked.clear()
    again = model.predict_candidates(candidates)
    assert worked == list(points[6:])                 # the two it had not seen
    assert list(again.seconds[:6]) == list(first.seconds)
    assert again.breakdowns[:6] == first.breakdowns
    worked.clear()
    stored_volumes = model.volumes(candidates)
    assert worked == []                               # the volumes read back too
    for changed in (replace(model, options={"blocks_per_sm": 2}),
                    replace(model, device_model=replace(      # another L2's size
                        model.device_model, l2_bytes=replace(
                            model.device_model.l2_bytes,
                            value=model.device_model.l2_bytes.value / 2)))):
        worked.clear()
        changed.predict_candidates(candidates)
        assert len(worked) == len(points)
    worked.clear()
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    assert list(model.predict_candidates(candidates).seconds) == list(again.seconds)
    assert len(worked) == len(points)
    assert [v.dram_bytes for v in model.volumes(candidates)] == [
        v.dram_bytes for v in stored_volumes]

# }}}


def test_a_fitted_ir_model_is_read_back_from_the_cache(tmp_path, monkeypatch):
    from workbench.models.ir_features import KNNConfig
    from workbench.tuning.ir_training import fitted_model, model_cache_dir, training_frame

    samples = Path(__file__).resolve().parents[1] / "sample_data" / "h100" / \
        "ir-samples.csv.xz"
    if not samples.is_file():
        pytest.skip("no shipped samples")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    only = ["lift_jacobi5", "lift_jacobi9", "lift_gradient"]
    query = training_frame([samples], exclude="lift_gradient",
                           only=["lift_gradient", "lift_jacobi5"]).head(40)
    monkeypatch.setenv("WORKBENCH_RANKING_CACHE", "0")
    fresh = fitted_model(KNNConfig(), [samples], exclude="lift_gradient", only=only)
    assert not model_cache_dir().exists()
    monkeypatch.delenv("WORKBENCH_RANKING_CACHE")
    first = fitted_model(KNNConfig(), [samples], exclude="lift_gradient", only=only)
    (entry,) = model_cache_dir().iterdir()
    again = fitted_model(KNNConfig(), [samples], exclude="lift_gradient", only=only)
    assert again is not first                        # read from the file
    assert list(fresh.predict(query)) == list(first.predict(query)) == list(
        again.predict(query))
    other = fitted_model(KNNConfig(neighbors=3), [samples], exclude="lift_gradient",
                         only=only)
    assert len(list(model_cache_dir().iterdir())) == 2 and other.config.neighbors == 3
    entry.write_bytes(b"not a pickle")               # damaged: fitted again
    assert list(fitted_model(KNNConfig(), [samples], exclude="lift_gradient",
                             only=only).predict(query)) == list(first.predict(query))
