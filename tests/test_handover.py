"""model-hedge-handover: the cheap stream first, a better model's order once ranked
(workbench.tuning.handover)."""

from __future__ import annotations

import dataclasses
import json
import os
import threading

import numpy as np
import pytest

from workbench.measure.store import Status
from workbench.tuning.early import EarlyStart
from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.handover import (
    HandoverRanking,
    HostRecord,
    ModelHedgeHandover,
    handed_beside,
    recorded_handover,
    recorded_stream,
)
from workbench.tuning.hedge import MODEL
from workbench.tuning.replay import ReplayEvaluator, replay
from workbench.tuning.stream import ModelHedgeStream, StreamedCharge

from test_stream import _synthetic, flag_space

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _times(space):
    return {p.label: 1e-3 * (2 + abs(p["g"] - 128) / 128) * (0.5 if p["pre"] else 1)
            for p in space.points()}


def _better(space, predicted, seconds=0.0):
    from workbench.kernels.candidate import Candidate
    from workbench.models.prediction import make_ranking

    points = space.points()
    ranking = make_ranking([Candidate.of_point(space, p) for p in points],
                           np.array([predicted[p.label] for p in points]), 0.0)
    return dataclasses.replace(ranking, seconds=seconds)


def _labels(result):
    return [e.point.label for e in result.evaluations]


def test_without_a_better_ranking_it_is_the_stream_exactly():
    space = flag_space()
    streamed, evaluations = _synthetic(space, _times(space))
    for seed in range(3):
        runs = []
        for cls, ranking in ((ModelHedgeStream, streamed),
                             (ModelHedgeHandover, HandoverRanking(streamed.arrivals,
                                                                  streamed.whole))):
            inner = cls(ranking=ranking, label="m", seed=seed)
            runs.append(_labels(replay(space, ReplayEvaluator(space, evaluations),
                                       EarlyStart(inner, clock="replay"), seed=seed)))
        assert runs[0] == runs[1]


def _fast(streamed):
    """``streamed`` with its structures ready at 0.2 and 0.3 s and its end at 0.5 s."""
    arrivals = tuple(dataclasses.replace(a, done_s=d)
                     for a, d in zip(streamed.arrivals, (0.2, 0.3)))
    return type(streamed)(arrivals, dataclasses.replace(streamed.whole, seconds=0.5))


def test_the_better_order_takes_over_once_ready_on_the_replay_clock():
    space = flag_space()
    times = _times(space)
    streamed, evaluations = _synthetic(space, times)     # every point costs 0.4 s
    streamed = _fast(streamed)
    # the better model says the slowest point is fastest: its pick is recognisable
    slowest = max(times, key=times.get)
    predicted = {label: (1e-6 if label == slowest else t) for label, t in times.items()}
    better = _better(space, predicted, seconds=1.0)
    for ready in (1.5, 2.3):
        inner = ModelHedgeHandover(ranking=HandoverRanking(streamed.arrivals, streamed.whole,
                                                           better, ready), label="m", seed=0)
        result = replay(space, ReplayEvaluator(space, evaluations),
                        EarlyStart(inner, clock="replay"), seed=0)
        labels = _labels(result)
        assert inner.handed_at is not None and inner.handed_at >= ready
        spent = np.concatenate([[0.0], np.cumsum([e.cost_s for e in result.evaluations])])
        first = result.overlapped
        i = labels.index(slowest)
        clock = max(0.5, spent[first]) + spent[i] - spent[first]   # when it was asked for
        # asked for at the first model turn once the clock (the costs) passed ready
        assert ready - 0.05 <= clock < ready + 0.4 + 0.05
        assert inner.sources[i - first] == MODEL
    # never ready within the search: the stream's points exactly
    late = ModelHedgeHandover(ranking=HandoverRanking(streamed.arrivals, streamed.whole,
                                                      better, 1e9), label="m", seed=0)
    plain = ModelHedgeStream(ranking=streamed, label="m", seed=0)
    assert _labels(replay(space, ReplayEvaluator(space, evaluations),
                          EarlyStart(late, clock="replay"), seed=0)) == \
        _labels(replay(space, ReplayEvaluator(space, evaluations),
                       EarlyStart(plain, clock="replay"), seed=0))
    assert late.handed_at is None


def test_few_counting_processes_fall_back_to_the_headline():
    space = flag_space()
    streamed, evaluations = _synthetic(space, _times(space))
    charge = handed_beside(StreamedCharge(streamed, "; streamed"), space, evaluations,
                           jobs=ModelHedgeHandover.MIN_JOBS - 1)
    assert isinstance(charge.ranking, HandoverRanking) and charge.ranking.better is None
    assert "no handover" in charge.note


def _record(tmp_path, space, times, jobs, ready=3.0):
    points = space.points()
    record = {"host": "gpu", "cores": 16, "jobs": jobs, "spaces": {space.name: {
        "arrivals": [{"labels": [p.label for p in points if p["pre"] == flag],
                      "done_s": done} for flag, done in ((0, 0.2), (1, 0.3))],
        "cheap": times, "better": {label: 2 * t for label, t in times.items()},
        "cheap_s": 0.3, "ready_s": ready}}}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return HostRecord.load(path)


def test_a_host_record_gives_the_recorded_arrivals_and_ready_time(tmp_path):
    space = flag_space()
    times = _times(space)
    record = _record(tmp_path, space, times, jobs=16)
    computed = _better(space, {label: t * (1 + 1e-12) for label, t in times.items()})
    charge = recorded_stream(record, space, computed)
    assert [a.done_s for a in charge.ranking.arrivals] == [0.2, 0.3]
    assert charge.ranking.seconds == 0.3
    assert "0 of 10 recorded predictions differ" in charge.note
    off = _better(space, {label: 3 * t for label, t in times.items()})
    assert "10 of 10 recorded predictions differ" in recorded_stream(record, space, off).note
    handed = recorded_handover(charge, record, space).ranking
    assert handed.ready_s == 3.0 and handed.better.seconds == pytest.approx(2.7)
    assert dict(zip((c.point.label for c in handed.better.candidates),
                    handed.better.predicted_s)) == pytest.approx(
        {label: 2 * t for label, t in times.items()})
    # a host of few counting processes hands nothing over
    few = _record(tmp_path, space, times, jobs=2)
    assert recorded_handover(recorded_stream(few, space), few, space).ranking.better is None
    with pytest.raises(Exception):
        record.space("elsewhere")


def test_the_study_charges_both_families_from_a_host_record(tmp_path, monkeypatch):
    from workbench.models import load_model
    from workbench.tuning.study import compare_strategies

    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    space = flag_space()
    model = load_model(os.path.join(ROOT, "sample_data/h100/weights-linear-non-negative.json"))
    from workbench.tuning.ranking import rank_space

    ranking = rank_space(model, space)
    cheap = {c.point.label: float(t) for c, t in zip(ranking.candidates, ranking.predicted_s)}
    record = _record(tmp_path, space, cheap, jobs=16)
    times = _times(space)
    evaluations = {p.label: Evaluation(p, Status.OK, times[p.label],
                                       {Cost.BUILD: 0.01, Cost.RUN: 0.01})
                   for p in space.points()}
    comparison = compare_strategies(space, ReplayEvaluator(space, evaluations), {"m": model},
                                    tpe_seeds=0,
                                    guided=["model-hedge-stream", "model-hedge-handover"],
                                    guided_seeds=1, early=True, overlap_charge="beside",
                                    host_record=record)
    rows = {r["strategy"]: r for r in comparison.rows}
    stream, handover = rows["model-hedge-stream:m+early"], rows["model-hedge-handover:m+early"]
    assert stream["choosing_s"] == handover["choosing_s"] == 0.3
    assert "as recorded on gpu" in stream["choosing_charged"]
    assert "0 of 10 recorded predictions differ" in stream["choosing_charged"]
    assert handover["choosing_charged"].endswith("better order ready at 3.00 s (recorded)")


def test_live_the_search_goes_on_while_the_better_model_ranks(monkeypatch):
    """EarlyStart's live clock: the ranking is done for the search once ``start``
    returns; ``rank_after`` runs on in the ranking's thread, and its order is taken at
    the first model turn after it is ready."""
    from workbench.models import load_model

    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    monkeypatch.setattr(ModelHedgeHandover, "MIN_JOBS", 1)
    space = flag_space()
    times = _times(space)
    evaluations = {p.label: Evaluation(p, Status.OK, times[p.label],
                                       {Cost.BUILD: 0.01, Cost.RUN: 0.01})
                   for p in space.points()}
    model = load_model(os.path.join(ROOT, "sample_data/h100/weights-linear-non-negative.json"))
    release, asked_meanwhile = threading.Event(), []

    class Slow(ModelHedgeHandover):
        def rank_after(self):
            release.wait(30)          # the search must go on while this waits
            super().rank_after()

    inner = Slow(model, "m", seed=0, second=model)
    early = EarlyStart(inner, clock="live")
    early.start(space, space.points())
    # the cheap ranking done (its thread now waits in rank_after)
    assert early._done.wait(60)
    labels = []
    for _ in range(3):
        point = early.ask()
        labels.append(point.label)
        early.tell(evaluations[point.label])
        if not early.asked_early:
            asked_meanwhile.append(point.label)
    assert asked_meanwhile, "the search waited for rank_after"
    assert inner.handed_at is None
    # the better model (its ranking replaced here) says an unmeasured point is fastest
    target = next(p.label for p in space.points() if p.label not in labels)
    monkeypatch.setattr(inner, "hand_over", lambda better, f=inner.hand_over: f(
        _better(space, {label: (1e-6 if label == target else t)
                        for label, t in times.items()})))
    release.set()
    for _ in range(200):
        if inner.pending is not None:
            break
        threading.Event().wait(0.05)
    point = early.ask()
    assert inner.handed_at is not None
    assert point.label == target


def test_no_peeking_at_records_not_measured():
    """Replayed with every record it did not measure made 100x faster than the best,
    the candidate measures exactly the same points, the handover included (its clock
    reads only the costs of what it measured)."""
    from workbench.tuning.runner import Budget

    space = flag_space()
    times = _times(space)
    streamed, evaluations = _synthetic(space, times)
    streamed = _fast(streamed)
    better = _better(space, {label: t * (3 if "pre=1" in label else 1)
                             for label, t in times.items()}, seconds=1.0)

    def sequence(records):
        inner = ModelHedgeHandover(ranking=HandoverRanking(streamed.arrivals, streamed.whole,
                                                           better, 1.5), label="m", seed=1)
        result = replay(space, ReplayEvaluator(space, records),
                        EarlyStart(inner, clock="replay"), budget=Budget(evaluations=7))
        assert inner.handed_at is not None
        return [e.point.label for e in result.evaluations]

    first = sequence(evaluations)
    best = min(times.values())
    hidden = {k: e if k in first else dataclasses.replace(e, time_s=best / 100)
              for k, e in evaluations.items()}
    assert len(first) == 7 and sequence(hidden) == first
