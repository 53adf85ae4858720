"""Building a search's next points ahead (``workbench tune --jobs``): what a strategy
says it will ask for next, what the pool does with those guesses, and a live run whose
model picks a worker built."""

from __future__ import annotations

import concurrent.futures as cf
import json
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from workbench.measure.store import Status
from workbench.tuning import parallel
from workbench.tuning.early import EarlyStart
from workbench.tuning.evaluation import Evaluation
from workbench.tuning.guided import ModelEI
from workbench.tuning.runner import Budget, Explorer
from workbench.tuning.space import TuningSpace
from workbench.tuning.strategies import (
    Exhaustive,
    OptunaTPE,
    RandomSearch,
    upcoming_points,
)

ROOT = Path(__file__).resolve().parents[1]


def _space() -> TuningSpace:
    return TuningSpace(name="grid", description="", tune_params={
        "a": (1, 2, 3, 4), "b": (1, 2, 3)}, group_size=lambda p: (1,),
        kernel=lambda p: None)


def _ok(point, seconds: float = 1.0) -> Evaluation:
    return Evaluation(point, Status.OK, seconds)


class _Ranked:
    """A ranking as :func:`~workbench.tuning.ranking.rank_space` returns it."""

    def __init__(self, points, predicted):
        import types

        import numpy as np

        self.predicted_s = np.asarray(predicted, float)
        self.order = np.argsort(self.predicted_s, kind="stable")
        self.seconds = 0.0
        self.candidates = [types.SimpleNamespace(point=p) for p in points]


def test_an_ordered_strategy_tells_its_next_points_without_taking_them():
    space = _space()
    strategy = RandomSearch(seed=3)
    strategy.start(space, space.points())
    ahead = upcoming_points(strategy, 4)
    assert len(ahead) == 4
    assert [strategy.ask() for _ in range(4)] == ahead
    assert upcoming_points(strategy, 0) == []
    exhaustive = Exhaustive()
    exhaustive.start(space, space.points())
    assert upcoming_points(exhaustive, 100) == list(space.points())


def test_tpe_tells_its_first_draw_and_nothing_after_it():
    space = _space()
    plain = OptunaTPE(seed=0)
    plain.start(space, space.points())
    tpe = OptunaTPE(seed=0)
    tpe.start(space, space.points())
    ahead = upcoming_points(tpe, 4)
    assert len(ahead) == 1 and upcoming_points(tpe, 1) == ahead   # drawn once
    # drawn early, the same point the sampler draws when asked, and the same search after
    asked, plain_asked = [], []
    for strategy, out in ((tpe, asked), (plain, plain_asked)):
        for i in range(6):
            point = strategy.ask()
            out.append(point.label)
            strategy.tell(_ok(point, 1.0 + (i * 7919 % 13) / 13))
            assert upcoming_points(strategy, 4) == []     # each draw hangs on the last
    assert asked[0] == ahead[0].label and asked == plain_asked


def test_tpe_s_first_draw_told_before_it_is_asked_is_not_measured_again():
    space = _space()
    tpe = OptunaTPE(seed=0)
    tpe.start(space, space.points())
    first = upcoming_points(tpe, 1)[0]
    tpe.tell(_ok(first))           # measured elsewhere (a resumed or shared point)
    assert tpe.ask().label != first.label


def test_a_model_strategy_tells_its_order_less_what_it_measured():
    space = _space()
    points = list(space.points())
    predicted = [float(i % 5 + 1) + i * 1e-3 for i in range(len(points))]
    strategy = ModelEI(model=None, seed=0, top=1, ranking=_Ranked(points, predicted))
    strategy.start(space, points)
    by_model = sorted(points, key=lambda p: predicted[points.index(p)])
    assert upcoming_points(strategy, 3) == by_model[:3]
    first = strategy.ask()
    assert first == by_model[0]
    strategy.tell(_ok(first))
    assert upcoming_points(strategy, 3) == by_model[1:4]


def test_early_start_guesses_nothing_while_it_ranks_then_its_model_order():
    space = _space()
    points = list(space.points())
    predicted = [float(len(points) - i) for i in range(len(points))]
    inner = ModelEI(model=None, seed=0, top=1, ranking=_Ranked(points, predicted))
    wrapped = EarlyStart(inner, clock="replay", order="random")
    wrapped._ranking_s = None
    wrapped.start(space, points)        # replay: the ranking is done at start...
    assert wrapped._ranking_s is None   # ...but not yet handed over
    assert upcoming_points(wrapped, 3) == []
    wrapped._finish()
    assert upcoming_points(wrapped, 3) == points[::-1][:3]


def _started(strategy, space):
    strategy.start(space, space.points())
    return strategy


class _Recorder:
    """An evaluator that builds ahead: it records what it is told to anticipate."""

    depth = 2

    def __init__(self):
        self.told: list[tuple[str, list[str]]] = []
        self.asked: list[str] = []

    def anticipate(self, points):
        self.told.append((self.asked[-1] if self.asked else "", [p.label for p in points]))

    def evaluate(self, point):
        self.asked.append(point.label)
        return _ok(point)


def test_the_explorer_tells_the_evaluator_the_points_after_the_one_asked():
    space = _space()
    evaluator = _Recorder()
    Explorer(space, Exhaustive(), evaluator, budget=Budget(evaluations=4)).run()
    labels = [p.label for p in space.points()]
    # told before each point is measured: the two after it, never the point itself
    assert [told for _, told in evaluator.told] == [labels[1:3], labels[2:4],
                                                    labels[3:5], labels[4:6]]
    assert evaluator.asked == labels[:4]


def test_an_evaluator_without_anticipate_is_left_alone():
    space = _space()
    result = Explorer(space, Exhaustive(), type("Plain", (), {
        "evaluate": staticmethod(_ok)})(), budget=Budget(evaluations=2)).run()
    assert len(result.evaluations) == 2


def _pool_of(executor, depth: int, claims):
    pool = parallel.PrebuildPool.__new__(parallel.PrebuildPool)
    pool.pool, pool.depth, pool.futures = executor, depth, {}
    pool._claims = str(claims)
    pool._guessed, pool._evaluated, pool._in_place = set(), set(), set()
    pool.evaluator = type("E", (), {"evaluate": staticmethod(
        lambda point, costs=None, log="": Evaluation(point, Status.OK, 1.0, costs or {}))})()
    return pool


def test_the_pool_builds_guesses_cancels_stale_ones_and_builds_none_twice(monkeypatch, tmp_path):
    gate = threading.Event()
    built: list[str] = []

    began = threading.Event()

    def fake_prebuild(label):
        began.set()
        gate.wait(5)
        built.append(label)
        return {"build": 0.5}, "log"

    monkeypatch.setattr(parallel, "_prebuild", fake_prebuild)
    points = list(_space().points())
    with cf.ThreadPoolExecutor(max_workers=1) as executor:
        pool = _pool_of(executor, depth=2, claims=tmp_path)
        pool.anticipate(points[:3])          # depth 2: the third is not submitted
        assert began.wait(5)                 # the worker began points[0]
        assert set(pool.futures) == {points[0].label, points[1].label}
        pool.anticipate([points[2], points[0]])   # points[1] is no longer guessed
        assert set(pool.futures) == {points[0].label, points[2].label}
        gate.set()
        evaluation = pool.evaluate(points[0])
        assert evaluation.extra == {"built_ahead": True}
        assert evaluation.costs[parallel.Cost.BUILD] == 0.5
        pool.anticipate(points[:2])          # measured: never guessed again
        assert points[0].label not in pool.futures
        pool.futures[points[1].label].result(5)
        pool.futures[points[2].label].result(5)
    assert sorted(built) == sorted([points[0].label, points[2].label, points[1].label])
    # a point nobody guessed is measured in place, without the mark
    assert pool.evaluate(points[5]).extra == {}


def test_a_live_model_search_with_workers_stores_every_point_with_its_costs(tmp_path):
    from workbench.measure import list_devices

    try:
        if not list_devices():
            pytest.skip("no OpenCL device")
    except Exception:  # noqa: BLE001
        pytest.skip("no OpenCL device")
    store = tmp_path / "s.sqlite"
    # in a process of its own: the pool's resource tracker then ends with it
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "tune",
         f"{ROOT}/examples/kernels/my_space.py:space", "--strategy", "model",
         "--weights", f"{ROOT}/sample_data/h100/weights-linear.json", "--jobs", "2",
         "--budget-evals", "4", "--store", str(store), "--no-progress",
         "--format", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["evaluations"] == 4
    with sqlite3.connect(store) as db:
        extras = [json.loads(e) for (e,) in db.execute("SELECT extra FROM measurements")]
    # every point stored with its costs, whoever built it (here, when a point is asked
    # for before a worker began it, as the spawned workers still start up on 2 cores;
    # that a point is built once is the claims' tests' (the queued pool's), and that a
    # worker's build is measured here the spawned worker's)
    assert sorted(e["sequence"] for e in extras) == [0, 1, 2, 3]
    assert all({"codegen", "build", "run"} <= set(e["costs_s"]) for e in extras), extras
    # the wall the inputs took before any point, on the first row only
    inputs = {e["sequence"]: e.get("inputs_s") for e in extras}
    assert inputs[0] > 0 and all(inputs[s] is None for s in (1, 2, 3)), inputs


def test_while_a_streamed_ranking_runs_its_best_points_so_far_are_guessed():
    from workbench.tuning.stream import ModelHedgeStream, StructureArrival

    space = _space()
    points = list(space.points())
    inner = ModelHedgeStream(model=object(), seed=0)
    inner.arrived.extend([
        StructureArrival((("a", 1),), tuple(p.label for p in points[:3]),
                         (3e-3, 1e-3, float("nan")), 0.1),
        StructureArrival((("a", 2),), tuple(p.label for p in points[3:6]),
                         (2e-3, 5e-3, 0.0), 0.2)])
    wrapped = EarlyStart(inner, clock="live")
    wrapped.points, wrapped._ranking_s = points, None
    wrapped._done, wrapped._error = threading.Event(), None
    wrapped._early_done = {points[1].label: _ok(points[1])}
    # fastest first, the measured one, the unpredicted and the zero left out
    assert upcoming_points(wrapped, 2) == [points[3], points[0]]
    assert upcoming_points(wrapped, 10) == [points[3], points[0], points[4]]
    replayed = EarlyStart(inner, clock="replay")
    replayed.points, replayed._ranking_s, replayed._early_done = points, None, {}
    assert upcoming_points(replayed, 2) == []


def test_the_explorer_makes_the_inputs_after_start_and_before_the_first_ask():
    space = _space()
    calls: list[str] = []

    class Logged(Exhaustive):
        def start(self, space, points):
            calls.append("start")
            return super().start(space, points)

        def ask(self):
            calls.append("ask")
            return super().ask()

    class Evaluator:
        def prepare_inputs(self):
            calls.append("inputs")

        def evaluate(self, point):
            calls.append("evaluate")
            return _ok(point)

    Explorer(space, Logged(), Evaluator(), budget=Budget(evaluations=2)).run()
    assert calls[:5] == ["start", "inputs", "ask", "evaluate", "ask"]
    assert calls.count("inputs") == 1


_SPAWNED_WORKER = """
import json, sys
import pyopencl as cl
from workbench.measure import list_devices, open_device
from workbench.tuning import parallel
from workbench.tuning.catalog import resolve_space
from workbench.tuning.live import LiveEvaluator

ref = sys.argv[1]
space = resolve_space(ref, n=2 ** 12)
device = next(d for d in list_devices() if "Portable" in d.platform)
context, _ = open_device(device)
queue = cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)
point = space.points()[3]
with parallel.PrebuildPool(LiveEvaluator(space, queue), ref, (), device.index, 1) as pool:
    pool.anticipate([point])
    built = pool.futures[point.label].result(timeout=240)
    evaluation = pool.evaluate(point)
print(json.dumps({"built": built is not None, "status": evaluation.status.value,
                  "extra": {k: v for k, v in evaluation.extra.items() if k != "build_log"},
                  "costs": sorted(c.value for c in evaluation.costs)}))
"""


def test_a_spawned_worker_builds_a_guess_and_the_main_process_measures_it(queue):
    # in a process of its own: the pool's resource tracker then ends with it
    done = subprocess.run([sys.executable, "-c", _SPAWNED_WORKER,
                           f"{ROOT}/examples/spaces/triad.py:space"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # the worker claimed and built it; this process measured it from the caches
    assert result["built"] and result["status"] == "ok", result
    assert result["extra"] == {"built_ahead": True}
    assert {"build", "codegen", "run", "verify"} <= set(result["costs"])


def test_a_space_without_inputs_is_said_where_the_first_point_needs_them():
    from workbench.errors import TuningError

    space = _space()

    class Evaluator:
        def prepare_inputs(self):
            raise TuningError("space 'grid' has no make_inputs")

        def evaluate(self, point):
            raise TuningError("space 'grid' has no make_inputs: measuring needs it")

    with pytest.raises(TuningError, match="measuring needs it"):
        Explorer(space, Exhaustive(), Evaluator(), budget=Budget(evaluations=1)).run()


def test_once_the_ranking_thread_is_done_its_picks_are_guessed_before_the_search_asks():
    space = _space()
    points = list(space.points())

    class Inner:
        name = "inner"

        def upcoming(self, n):
            return points[-n:]

        def upcoming_while_ranking(self, n, measured):
            return [points[0].label]

    wrapped = EarlyStart(Inner(), clock="live")
    wrapped.points, wrapped._ranking_s, wrapped._early_done = points, None, {}
    wrapped._done, wrapped._error = threading.Event(), None
    assert upcoming_points(wrapped, 2) == [points[0]]          # still ranking
    wrapped._done.set()
    assert upcoming_points(wrapped, 2) == points[-2:]          # done, not yet asked
    wrapped._error = RuntimeError("the ranking failed")
    assert upcoming_points(wrapped, 2) == [points[0]]


def test_while_the_inputs_are_made_the_strategy_s_first_points_are_built_ahead():
    space = _space()
    release = threading.Event()

    class Evaluator(_Recorder):
        def prepare_inputs(self):
            release.wait(5)

    evaluator = Evaluator()
    strategy = Exhaustive()
    explorer = Explorer(space, strategy, evaluator, budget=Budget(evaluations=1))
    explorer.INPUT_POLL_S = 0.005
    runner = threading.Thread(target=explorer.run)
    runner.start()
    deadline = time.monotonic() + 5
    while not evaluator.told and time.monotonic() < deadline:
        time.sleep(0.005)
    release.set()
    runner.join(5)
    labels = [p.label for p in space.points()]
    # told once while the inputs were made (the order's first two, the first
    # included: nothing was asked yet), then before the first point was measured
    assert evaluator.told[0] == ("", labels[:2])
    assert evaluator.told[1] == ("", labels[1:3]) and evaluator.asked == labels[:1]


class _Beside(_Recorder):
    """A live evaluator as the explorer sees it: its inputs take until the first point
    was prepared here (or ``wait`` seconds), and it records when each call came."""

    def __init__(self, wait: float = 5.0):
        super().__init__()
        self.wait = wait
        self.calls: list[tuple[str, str]] = []
        self.prepared = threading.Event()

    def prepare_inputs(self):
        self.prepared.wait(self.wait)
        self.calls.append(("inputs made", ""))

    def anticipate(self, points):
        self.calls.append(("told", ",".join(p.label for p in points)))
        super().anticipate(points)

    def prepare_ahead(self, point):
        self.calls.append(("prepared", point.label))
        self.prepared.set()

    def evaluate(self, point):
        self.calls.append(("evaluated", point.label))
        return super().evaluate(point)


def test_the_strategy_s_known_first_point_is_prepared_here_while_the_inputs_are_made():
    space = _space()
    evaluator = _Beside()
    explorer = Explorer(space, Exhaustive(), evaluator, budget=Budget(evaluations=2))
    result = explorer.run()
    labels = [p.label for p in space.points()]
    # the pool hears the points after it first (its workers start while this
    # thread builds), then the first point is prepared, all before the inputs exist
    assert [c for c in evaluator.calls if c[0] != "told"] == [
        ("prepared", labels[0]), ("inputs made", ""),
        ("evaluated", labels[0]), ("evaluated", labels[1])]
    assert evaluator.calls[:2] == [("told", ",".join(labels[1:3])), ("prepared", labels[0])]
    # the pool is told the points after it, never the one built here
    assert all(labels[0] not in told for _, told in evaluator.told)
    assert len(result.evaluations) == 2


def test_a_resumed_exploration_prepares_nothing_it_has_stored():
    space = _space()
    labels = [p.label for p in space.points()]
    evaluator = _Beside(wait=0.3)
    explorer = Explorer(space, Exhaustive(), evaluator, budget=Budget(evaluations=1))
    explorer.strategy.start(space, space.points())
    inputs_s = explorer._prepare_inputs({labels[0]})
    assert [c for c in evaluator.calls if c[0] == "prepared"] == []
    # the seconds the inputs themselves took (here their wait), not the loop's
    assert 0.25 < inputs_s < 2.0


def test_tpe_s_first_draw_is_prepared_beside_the_inputs_and_a_ranking_going_gets_nothing():
    space = _space()
    evaluator = _Beside(wait=0.3)
    first = upcoming_points(_started(OptunaTPE(seed=0), space), 1)[0].label
    Explorer(space, OptunaTPE(seed=0), evaluator, budget=Budget(evaluations=1)).run()
    # the head start an order's first point gets: TPE's first draw is known up front
    assert [c for c in evaluator.calls if c[0] != "told"] == [
        ("prepared", first), ("inputs made", ""), ("evaluated", first)]
    assert all(told == [] for _, told in evaluator.told)

    class Unsettled(Exhaustive):
        upcoming_settled = False     # a ranking beside: its guesses are partial

    evaluator = _Beside(wait=0.3)
    Explorer(space, Unsettled(), evaluator, budget=Budget(evaluations=1)).run()
    assert [c for c, _ in evaluator.calls if c != "told"] == ["inputs made", "evaluated"]
    # partial guesses still go to the pool, which may throw them away
    assert evaluator.told and evaluator.told[0][0] == ""


def test_a_point_a_worker_has_started_is_left_to_the_worker(monkeypatch, tmp_path):
    started, gate = threading.Event(), threading.Event()

    def fake_prebuild(label):
        started.set()
        gate.wait(5)
        return {"build": 0.5}, ""

    monkeypatch.setattr(parallel, "_prebuild", fake_prebuild)
    points = list(_space().points())
    prepared: list[str] = []
    with cf.ThreadPoolExecutor(max_workers=1) as executor:
        pool = _pool_of(executor, depth=2, claims=tmp_path)
        pool.evaluator.prepare_ahead = lambda point: prepared.append(point.label)
        pool.anticipate(points[:1])
        assert started.wait(5)
        pool.prepare_ahead(points[0])     # running: not built here again
        assert prepared == [] and points[0].label not in pool._in_place
        gate.set()
        evaluation = pool.evaluate(points[0])
    # the worker's costs, as a point built ahead
    assert evaluation.extra == {"built_ahead": True}
    assert evaluation.costs[parallel.Cost.BUILD] == 0.5


def test_the_pool_leaves_a_point_built_here_to_the_evaluator(monkeypatch, tmp_path):
    gate, began = threading.Event(), threading.Event()
    monkeypatch.setattr(parallel, "_prebuild",
                        lambda label: (began.set(), gate.wait(5), ({"build": 0.5}, ""))[2])
    points = list(_space().points())
    prepared: list[str] = []
    with cf.ThreadPoolExecutor(max_workers=1) as executor:
        pool = _pool_of(executor, depth=2, claims=tmp_path)
        pool.evaluator.prepare_ahead = lambda point: prepared.append(point.label)
        pool.anticipate(points[:2])               # points[1] waits behind points[0]
        assert began.wait(5)                      # the worker began points[0]
        pool.prepare_ahead(points[1])             # not started: cancelled
        assert prepared == [points[1].label] and points[1].label not in pool.futures
        pool.anticipate(points[:3])               # never submitted again
        assert set(pool.futures) == {points[0].label, points[2].label}
        gate.set()
        assert pool.evaluate(points[1]).extra == {}     # the evaluator's own
        assert pool.evaluate(points[0]).extra == {"built_ahead": True}


def test_a_point_prepared_beside_the_inputs_is_measured_as_one_built_in_place(queue):
    import pyopencl as cl

    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.evaluation import Cost
    from workbench.tuning.live import LiveEvaluator

    space = resolve_space(f"{ROOT}/examples/spaces/triad.py:space", n=2 ** 16)
    timed = cl.CommandQueue(queue.context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    evaluator = LiveEvaluator(space, timed)
    first, second = space.points()[:2]
    evaluator.prepare_ahead(first)
    import numpy as np

    # the check's device kernels were compiled for the output's dtype against a
    # reference in its own dtype or in float64 (not made yet)
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    assert evaluator._warmed == {(f32, f32), (f32, f64)}
    evaluator.prepare_inputs()
    ahead, in_place = evaluator.evaluate(first), evaluator.evaluate(second)
    assert ahead.status is Status.OK and in_place.status is Status.OK, ahead.log
    assert ahead.extra.get("built_beside_inputs") is True
    assert "built_beside_inputs" not in in_place.extra
    for e in (ahead, in_place):
        assert {Cost.TRANSFORM, Cost.CODEGEN, Cost.BUILD, Cost.RUN, Cost.VERIFY} <= set(e.costs)
    # taken once: asked for again, it is built anew
    assert "built_beside_inputs" not in evaluator.evaluate(first).extra
    # with the reference made (triad's is float32), only its pair
    later = LiveEvaluator(space, timed)
    later._inputs()                   # (without prepare_inputs' own warm-up thread)
    later.prepare_ahead(second)
    assert later._warmed == {(f32, f32)}
    # nothing to check, nothing warmed
    unchecked = LiveEvaluator(space, timed, verify=False)
    unchecked.prepare_inputs()
    assert unchecked._warming is None
    unchecked.prepare_ahead(second)
    assert unchecked._warmed == set()
    assert unchecked.evaluate(second).extra.get("built_beside_inputs") is True


def test_while_the_inputs_are_made_a_thread_compiles_the_check_for_any_first_point(queue):
    import numpy as np
    import pyopencl as cl

    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.live import LiveEvaluator

    space = resolve_space(f"{ROOT}/examples/spaces/triad.py:space", n=2 ** 16)
    timed = cl.CommandQueue(queue.context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    evaluator = LiveEvaluator(space, timed)
    evaluator.prepare_inputs()        # no point prepared: a model's pick comes later
    evaluator._warming.join(30)
    f32 = np.dtype(np.float32)
    # the space's first point's output against the reference (float32 here), or a
    # float64 guess made before the reference existed
    assert (f32, f32) in evaluator._warmed
    assert evaluator._warmed <= {(f32, f32), (f32, np.dtype(np.float64))}
    last = space.points()[-1]
    assert evaluator.evaluate(last).status is Status.OK


class _QueuedExecutor:
    """A process pool as seen at a run's start: a job is marked running once it is
    queued, but no worker begins it until :meth:`start_workers`."""

    def __init__(self):
        self.jobs: list = []

    def submit(self, fn, *args):
        future = cf.Future()
        future.set_running_or_notify_cancel()
        self.jobs.append((future, fn, args))
        return future

    def start_workers(self):
        for future, fn, args in self.jobs:
            future.set_result(fn(*args))


def test_a_point_no_worker_has_begun_is_built_here_and_the_worker_skips_it(monkeypatch, tmp_path):
    built: list[str] = []
    monkeypatch.setattr(parallel, "_prebuild",
                        lambda label: (built.append(label), ({"build": 0.5}, ""))[1])
    points = list(_space().points())
    executor = _QueuedExecutor()
    pool = _pool_of(executor, depth=3, claims=tmp_path)
    prepared: list[str] = []
    pool.evaluator.prepare_ahead = lambda point: prepared.append(point.label)
    pool.anticipate(points[:3])
    assert all(not f.cancel() for f in pool.futures.values())   # "running", queued
    pool.prepare_ahead(points[0])       # the first pick beside the inputs: built here
    assert prepared == [points[0].label] and points[0].label not in pool.futures
    assert pool.evaluate(points[1]).extra == {}    # asked for before a worker began it
    executor.start_workers()
    # the workers skip what this process claimed and build the rest
    assert built == [points[2].label]
    assert pool.evaluate(points[2]).extra == {"built_ahead": True}
    assert pool.evaluate(points[0]).extra == {}


def test_a_second_warm_up_waits_for_the_first_and_the_first_check_waits_for_it(queue,
                                                                                 monkeypatch):
    import pyopencl as cl

    from workbench.tuning import live
    from workbench.tuning.catalog import resolve_space

    space = resolve_space(f"{ROOT}/examples/spaces/triad.py:space", n=2 ** 12)
    timed = cl.CommandQueue(queue.context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    evaluator = live.LiveEvaluator(space, timed)
    release, inside, events = threading.Event(), [], []
    original_outputs, original_check = live.LiveEvaluator._warm_outputs, live.LiveEvaluator._check

    def held(self, args, cla):
        inside.append(threading.current_thread().name)
        if len(inside) == 1:
            release.wait(60)         # the space's warm-up, held
        original_outputs(self, args, cla)

    def check(self, kernel, outputs):
        events.append("checked")
        return original_check(self, kernel, outputs)

    class Lock:                      # the warm-up lock, its waits seen
        def __init__(self, lock):
            self.lock = lock

        def __enter__(self):
            events.append("lock wanted")
            return self.lock.__enter__()

        def __exit__(self, *exc):
            return self.lock.__exit__(*exc)

    monkeypatch.setattr(live.LiveEvaluator, "_warm_outputs", held)
    monkeypatch.setattr(live.LiveEvaluator, "_check", check)
    evaluator._warm_lock = Lock(evaluator._warm_lock)
    evaluator.prepare_inputs()
    warming = evaluator._warming

    class Thread:                    # the warm-up thread, its joins seen
        def join(self, timeout=None):
            events.append("joined")
            warming.join(timeout)

    evaluator._warming = Thread()

    def until(what, times=1):
        deadline = time.monotonic() + 120
        while events.count(what) < times and time.monotonic() < deadline:
            time.sleep(0.01)
        return events.count(what) >= times

    ahead = threading.Thread(target=evaluator.prepare_ahead, args=(space.points()[1],))
    ahead.start()
    assert until("lock wanted", 2)         # the warm-up thread's, then the first pick's
    measured: list = []
    first = threading.Thread(target=lambda: measured.append(evaluator.evaluate(space.points()[2])))
    first.start()
    assert until("joined")
    time.sleep(0.2)
    # held: the first pick's warm-up has not entered, the first check has not run
    assert inside == ["workbench-check-warm-up"] and "checked" not in events
    release.set()
    ahead.join(60)
    first.join(60)
    assert len(inside) == 2 and events[-1] == "checked" and measured[0].status is Status.OK
