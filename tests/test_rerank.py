"""model-hedge-rerank: a cheap ranking's first points re-ranked by a second model
(workbench.tuning.rerank)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from workbench.measure.store import Status
from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.replay import ReplayEvaluator

from test_stream import flag_space

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_rerank_order_reorders_only_the_first_k():
    labels = ["a", "b", "c", "d", "e"]
    order = [3, 0, 4, 1, 2]                      # d a e b c
    better = {"d": 3.0, "a": 1.0, "e": 2.0, "b": 0.5}
    from workbench.tuning.rerank import rerank_order

    assert rerank_order(order, labels, better, 3).tolist() == [0, 4, 3, 1, 2]
    # a point the second model did not predict goes after those it did
    assert rerank_order(order, labels, {"e": 2.0, "d": float("nan")}, 3).tolist() \
        == [4, 3, 0, 1, 2]
    assert rerank_order(order, labels, better, 0).tolist() == order


def test_rerank_ranking_keeps_the_cheap_values_dealt_in_the_new_order():
    from workbench.models import load_model
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.rerank import rerank_ranking

    model = load_model(os.path.join(ROOT, "sample_data/h100/weights-linear-non-negative.json"))
    space = flag_space()
    ranking = rank_space(model, space)
    order = np.asarray(ranking.order)
    labels = [c.point.label for c in ranking.candidates]
    # the second model says the cheap model's first three are in reverse
    better = {labels[int(i)]: float(3 - r) for r, i in enumerate(order[:3])}
    new = rerank_ranking(ranking, better, 3, seconds=1.5)
    assert new.order.tolist()[:3] == order[:3][::-1].tolist()
    assert new.order.tolist()[3:] == order[3:].tolist()
    assert new.seconds == 1.5
    # the same values, now increasing along the new order; the rest untouched
    assert sorted(new.predicted_s[order[:3]]) == sorted(ranking.predicted_s[order[:3]])
    assert np.all(np.diff(new.predicted_s[new.order[:3]]) >= 0)
    assert np.array_equal(new.predicted_s[order[3:]], ranking.predicted_s[order[3:]])


def test_the_study_charges_the_rerank_after_the_shared_streamed_ranking(monkeypatch):
    from workbench.models import load_model
    from workbench.tuning.study import compare_strategies

    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    space = flag_space()
    times = {p.label: 1e-3 * (2 + abs(p["g"] - 128) / 128) for p in space.points()}
    evaluations = {p.label: Evaluation(p, Status.OK, times[p.label],
                                       {Cost.BUILD: 0.01, Cost.RUN: 0.01})
                   for p in space.points()}
    model = load_model(os.path.join(ROOT, "sample_data/h100/weights-linear-non-negative.json"))
    comparison = compare_strategies(space, ReplayEvaluator(space, evaluations), {"m": model},
                                    tpe_seeds=0,
                                    guided=["model-hedge-stream", "model-hedge-rerank"],
                                    guided_seeds=1, early=True, overlap_charge="beside")
    rows = {r["strategy"]: r for r in comparison.rows}
    stream, rerank = rows["model-hedge-stream:m+early"], rows["model-hedge-rerank:m+early"]
    # the same streamed ranking, then the re-ranking's own seconds on top
    assert rerank["choosing_charged"].startswith(stream["choosing_charged"])
    spent = float(rerank["choosing_charged"].split("re-ranked in ")[1].split(" s")[0])
    assert spent > 0
    assert rerank["choosing_s"] == pytest.approx(stream["choosing_s"] + spent, abs=0.01)


def test_registered():
    from workbench.tuning.guided import GUIDED
    from workbench.tuning.rerank import ModelHedgeRerank
    from workbench.tuning.strategies import STRATEGIES

    assert GUIDED["model-hedge-rerank"] is ModelHedgeRerank
    assert STRATEGIES["model-hedge-rerank"] is ModelHedgeRerank
    assert ModelHedgeRerank.STREAMS


def test_live_start_ranks_streamed_then_reranks_with_the_second_model():
    from workbench.models import load_model
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.rerank import ModelHedgeRerank

    cheap = load_model(os.path.join(ROOT, "sample_data/h100/weights-linear-non-negative.json"))
    second = load_model(os.path.join(ROOT, "sample_data/h100/weights-overlap.json"))
    space = flag_space()
    points = space.points()
    strategy = ModelHedgeRerank(cheap, "m", seed=0, second=second, k=3)
    seconds = strategy.start(space, points)
    whole = strategy.ranking
    assert seconds == whole.seconds >= strategy.streamed.arrivals[-1].done_s
    labels = [c.point.label for c in whole.candidates]
    alone = rank_space(cheap, space, points)
    head = [labels[int(i)] for i in whole.order[:3]]
    # the cheap model's first three, now in the second model's order
    assert set(head) == {c.point.label for c in
                         (alone.candidates[int(i)] for i in alone.order[:3])}
    again = rank_space(second, space, [p for p in points if p.label in head])
    by_second = {c.point.label: t for c, t in zip(again.candidates, again.predicted_s)}
    assert [by_second[h] for h in head] == sorted(by_second[h] for h in head)
    # the streamed structures were published as they arrived
    assert len(strategy.arrived) == len(strategy.streamed.arrivals) == 2
