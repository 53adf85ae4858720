"""Measuring while the model ranks (workbench.tuning.early) and counting in one round."""

from __future__ import annotations

import math
import os
import threading
import time
import warnings

import numpy as np
import pytest

from tests.test_tuning import TableEvaluator, toy_space, toy_time
from workbench.measure import MeasurementStore
from workbench.measure.provenance import DeviceIdentity
from workbench.tuning.early import EarlyStart, early_points
from workbench.tuning.metrics import curve
from workbench.tuning.runner import Budget, Explorer
from workbench.tuning.strategies import _Ordered

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SlowRanking(_Ordered):
    """Ranks by the true time (a perfect model) and says the ranking took ``seconds``
    (replay clock), or sleeps that long in its thread (live clock)."""

    name = "model:perfect"

    def __init__(self, seconds: float, sleep: bool = False):
        super().__init__()
        self.seconds, self.sleep = seconds, sleep
        self.thread = None

    def order(self, space, points):
        self.thread = threading.current_thread()
        if self.sleep:
            time.sleep(self.seconds)
        return sorted(points, key=toy_time), self.seconds


def test_early_points_are_each_structures_base_then_its_probes():
    space = toy_space()
    order = early_points(space, space.points())
    assert len(order) == len({p.label for p in order})
    # one structure per mode: both bases first
    assert [p["mode"] for p in order[:2]] == ["x", "y"]
    assert set(order) <= set(space.points())


def test_replay_clock_measures_while_ranking_and_never_twice():
    space = toy_space()
    evaluator = TableEvaluator(toy_time, cost=0.2)     # 0.21 s counted per point
    strategy = EarlyStart(SlowRanking(0.5), clock="replay")
    result = Explorer(space, strategy, evaluator).run()
    # early points while their costs stay below the ranking's 0.5 s: 0, 0.21, 0.42
    assert result.overlapped == 3
    assert evaluator.calls[:3] == [p.label for p in early_points(space, space.points())[:3]]
    assert len(evaluator.calls) == len(set(evaluator.calls)) == len(space.points())
    # then the model's order, the early points skipped
    rest = [p.label for p in sorted(space.points(), key=toy_time)
            if p.label not in evaluator.calls[:3]]
    assert evaluator.calls[3:] == rest
    assert result.choosing_s == pytest.approx(0.5, abs=2e-3)
    overlap = result.cumulative_cost_s("overlap")
    serial = result.cumulative_cost_s("serial")
    assert overlap[:3] == pytest.approx([0.21, 0.42, 0.63], abs=2e-3)
    assert overlap[3] == pytest.approx(max(0.5, 0.63) + 0.21, abs=2e-3)
    assert serial[3] == pytest.approx(0.5 + 4 * 0.21, abs=2e-3)
    assert result.cost_s == pytest.approx(overlap[-1], abs=2e-3)
    assert result.serial_cost_s == pytest.approx(serial[-1], abs=2e-3)
    assert result.serial_cost_s - result.cost_s == pytest.approx(0.5, abs=2e-3)   # all hidden
    best = min(toy_time(p) for p in space.points())
    assert curve(result, best).cost_s[3] == pytest.approx(overlap[3], abs=2e-3)
    assert curve(result, best, "serial").cost_s[3] == pytest.approx(serial[3], abs=2e-3)


def test_a_ranking_slower_than_every_early_point_charges_its_own_time():
    space = toy_space()
    result = Explorer(space, EarlyStart(SlowRanking(100.0), clock="replay", early=2),
                      TableEvaluator(toy_time, cost=0.2), budget=Budget(evaluations=3)).run()
    assert result.overlapped == 2
    assert result.cumulative_cost_s() == pytest.approx([0.21, 0.42, 100.21], abs=2e-3)


def test_live_clock_ranks_in_a_thread_and_records_what_ran_before(tmp_path):
    space = toy_space()

    class SlowDevice(TableEvaluator):
        def evaluate(self, point):
            time.sleep(0.05)
            return super().evaluate(point)

    evaluator = SlowDevice(toy_time)
    inner = SlowRanking(0.4, sleep=True)
    device = DeviceIdentity("toy platform", "toy device", "0")
    with MeasurementStore.open(tmp_path / "s.sqlite") as store:
        result = Explorer(space, EarlyStart(inner), evaluator, store=store,
                          device=device).run()
        rows = store.measurements(status=None, kernel="tune.toy")
        costs = list(store.ranking_costs().values())
    # recorded once the ranking was done, at its own wall time, not at start's
    assert len(costs) == 1 and costs[0].wall_s >= 0.4 and costs[0].strategy == inner.name + "+early"
    assert inner.thread is not threading.main_thread()
    # each early point takes at least 0.05 s, and the last starts before the ranking
    # ends: no more of them than its wall time allows (a loaded host ranks slower)
    assert 1 <= result.overlapped <= costs[0].wall_s / 0.05 + 1
    assert result.overlapped < len(space.points())
    assert len(evaluator.calls) == len(set(evaluator.calls)) == len(space.points())
    before = sorted(int(m.extra.get("sequence", -1)) for m in rows
                    if m.extra.get("before_ranking"))
    assert before == list(range(result.overlapped))
    after = [m for m in rows if "ranking_s" in m.extra]
    assert len(after) == 1 and after[0].extra["measured_before_ranking"] == result.overlapped
    assert after[0].extra["ranking_s"] >= 0.4
    assert all(m.extra["wall_s"] > 0 for m in rows)


def test_study_rows_charge_the_overlap_and_the_old_way():
    from workbench.models import load_model
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations
    from workbench.tuning.study import compare_strategies

    warnings.filterwarnings("ignore")
    space = resolve_space(f"{ROOT}/examples/spaces/stencil3d_7pt.py:space")
    evaluator = ReplayEvaluator(space, load_space_evaluations(
        f"{ROOT}/sample_data/h100/user-spaces.sqlite", space))
    model = load_model(f"{ROOT}/sample_data/h100/weights-linear.json")
    table = compare_strategies(space, evaluator, {"linear": model}, tpe_seeds=0, guided=("model-bo",),
                               early=True).frame().set_index("strategy")
    overlap = table.loc["model:linear+early"]
    serial = table.loc["model:linear+early (serial charge)"]
    assert overlap["measured_before_ranking"] >= 1
    assert overlap["runs_to_95"] == serial["runs_to_95"]
    assert overlap["seconds_to_95"] < serial["seconds_to_95"]
    assert "model-bo:linear+early" in table.index


def test_speculative_round_counts_equal_per_point_counts(monkeypatch):
    """With many counting processes a structure's likely next points are counted at
    once, on a pool forked for the ranking, as results come (rowsum: a joint fit);
    the fitted values still equal every point's own counts."""
    import workbench.models.candidate_features as cf
    import workbench.models.counting_pool as counting_pool
    from workbench.models import load_model
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.ranking import rank_space

    warnings.filterwarnings("ignore")
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "12")
    sent, rounds = [], []
    submit = counting_pool.CountingPool.submit
    monkeypatch.setattr(counting_pool.CountingPool, "submit", lambda self, key, space, p,
                        *a: sent.append(p) or submit(self, key, space, p, *a))
    count_all = cf._count_all
    monkeypatch.setattr(cf, "_count_all", lambda *a: rounds.append(a) or count_all(*a))
    model = load_model(f"{ROOT}/sample_data/h100/weights-linear.json")
    space = resolve_space(f"{ROOT}/examples/spaces/rowsum.py:space")
    cf.forget_counts(space)
    ranking = rank_space(model, space)
    # no rounds: the plan's probes and speculative points, 11 at once (a core left to
    # the ranking process), then more as results come
    assert not rounds and len(sent) == len(set(sent)) >= 11 and len(space.points()) > 12
    assert [r.method.value for r in ranking.counting] == ["symbolic"]
    counting_pool.wait_closed()
    fitted = cf.remembered_counts(space)
    monkeypatch.setenv("WORKBENCH_STRUCTURE_COUNTS", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")
    fresh = resolve_space(f"{ROOT}/examples/spaces/rowsum.py:space")
    cf.forget_counts(fresh)
    rng = np.random.default_rng(1)
    sample = [fresh.points()[i] for i in rng.choice(len(fresh.points()), 2, replace=False)]
    rank_space(model, fresh, sample)
    compared = 0
    for (label, grain), values in cf.remembered_counts(fresh).items():
        for name, v in values.items():
            if name in fitted[label, grain]:
                w = fitted[label, grain][name]
                assert (math.isnan(v) and math.isnan(w)) or math.isclose(
                    w, v, rel_tol=1e-9, abs_tol=1e-9), (label, name, w, v)
                compared += 1
    assert compared > 20


def test_live_ranking_counts_in_processes_forked_before_measuring(monkeypatch):
    """The live clock with a real model: the counting pool is forked in ``start`` (not
    from the ranking's thread while the device is measuring), the ranking finishes, and
    the model's order follows the early points without repeating one."""
    import workbench.models.candidate_features as cf
    from workbench.models import load_model
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations
    from workbench.tuning.strategies import ModelGuided

    warnings.filterwarnings("ignore")
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    space = resolve_space(f"{ROOT}/examples/spaces/stencil3d_7pt.py:space")
    recorded = load_space_evaluations(f"{ROOT}/sample_data/h100/user-spaces.sqlite", space)

    class Device(ReplayEvaluator):
        calls: list = []

        def evaluate(self, point):
            self.calls.append(point.label)
            time.sleep(0.02)
            return super().evaluate(point)

    import workbench.models.counting_pool as counting_pool

    forked = []
    real_pool = counting_pool.CountingPool
    monkeypatch.setattr(counting_pool, "CountingPool", lambda *a: forked.append(
        threading.current_thread()) or real_pool(*a))
    model = load_model(f"{ROOT}/sample_data/h100/weights-linear.json")
    strategy = EarlyStart(ModelGuided(model, "linear"))
    device = Device(space, recorded)
    result = Explorer(space, strategy, device, budget=Budget(evaluations=30)).run()
    assert forked == [threading.main_thread()] and counting_pool._POOL is None
    assert len(device.calls) == len(set(device.calls)) == 30
    assert 0 < result.overlapped < 30 and result.choosing_s > 0
    order = [c.point.label for c in (strategy.ranking.candidates[i]
                                     for i in strategy.ranking.order)]
    rest = [label for label in order if label not in device.calls[:result.overlapped]]
    assert device.calls[result.overlapped:] == rest[:30 - result.overlapped]


def test_a_replay_that_stops_among_the_early_points_knows_the_ranking_cost():
    space = toy_space()
    result = Explorer(space, EarlyStart(SlowRanking(0.5), clock="replay"),
                      TableEvaluator(toy_time, cost=0.2), budget=Budget(evaluations=1)).run()
    assert result.overlapped == 1 and result.choosing_s == pytest.approx(0.5, abs=2e-3)
    assert result.cumulative_cost_s("overlap") == pytest.approx([0.21], abs=2e-3)
    assert result.cumulative_cost_s("serial") == pytest.approx([0.71], abs=2e-3)


def test_a_knowing_strategy_learns_the_early_points_and_keeps_its_picks():
    from tests.test_guided import FormulaModel
    from workbench.tuning.guided import ModelEI

    import dataclasses

    from workbench.tuning.ranking import rank_space

    space = toy_space()
    model = FormulaModel(toy_time)
    # a ready-made ranking that says it took 100 s: two early points fit beside it
    ranking = dataclasses.replace(rank_space(model, space), seconds=100.0)
    inner = ModelEI(model, "toy", ranking=ranking)
    evaluator = TableEvaluator(toy_time, cost=0.2)
    early = EarlyStart(inner, clock="replay", early=2)
    result = Explorer(space, early, evaluator, budget=Budget(evaluations=5)).run()
    first_two = [p.label for p in early_points(space, space.points())[:2]]
    assert evaluator.calls[:2] == first_two and result.overlapped == 2
    # both told to the correction once the ranking was done, neither a model pick
    assert {inner.index[label] for label in first_two} == inner.known
    assert len(inner.measured) == 5
    picks = [p.label for p in sorted(space.points(), key=toy_time) if p.label not in first_two]
    assert evaluator.calls[2:5] == picks[:3]


def test_random_early_points_are_a_seeded_draw():
    from workbench.tuning.early import random_early_points

    space = toy_space()
    points = space.points()
    a, b = random_early_points(points, 0), random_early_points(points, 1)
    assert a == random_early_points(points, 0) and a != b
    assert sorted(p.label for p in a) == sorted(p.label for p in points)
    strategy = EarlyStart(SlowRanking(0.5), clock="replay", order="random", seed=1)
    evaluator = TableEvaluator(toy_time, cost=0.2)
    Explorer(space, strategy, evaluator).run()
    assert evaluator.calls[:3] == [p.label for p in b[:3]]
    assert strategy.stochastic and strategy.name.endswith("+early-random")
    with pytest.raises(Exception, match="order must be one of"):
        EarlyStart(SlowRanking(0.5), order="central")
