"""Tuning spaces, strategies, the exploration runner, replay and its metrics."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from workbench.errors import TuningError, UnknownNameError
from workbench.measure import MeasurementStore
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store import Status
from workbench.tuning.catalog import get_space
from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.metrics import curve, random_curve, random_reach
from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations, replay
from workbench.tuning.runner import Budget, Explorer, StopReason
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import Exhaustive, OptunaTPE, RandomSearch, make_strategy

SHIPPED = "sample_data/h100/tuning.sqlite"


def toy_space(**kw) -> TuningSpace:
    """Three parameters, one text restriction and one callable; never built."""
    return TuningSpace(
        name="toy", description="toy",
        tune_params={"a": (1, 2, 4, 8), "b": (1, 2, 4), "mode": ("x", "y")},
        restrictions=kw.pop("restrictions", ("a*b <= 16",
                                             lambda p: p["mode"] == "x" or p["a"] > 1)),
        group_size=lambda p: (p["a"], p["b"]), kernel=lambda p: None, **kw)


class TableEvaluator:
    """Answers from a function of the point, counting the calls (a device stand-in)."""

    def __init__(self, time_of, cost=0.5):
        self.time_of = time_of
        self.cost = cost
        self.calls: list[str] = []

    def evaluate(self, point: Point) -> Evaluation:
        self.calls.append(point.label)
        t = self.time_of(point)
        status = Status.OK if t is not None else Status.BUILD_FAILED
        return Evaluation(point, status, t, {Cost.BUILD: self.cost, Cost.RUN: 0.01,
                                             Cost.VERIFY: 3.0},
                          raw_times_s=(t, t) if t else ())


def toy_time(point: Point) -> float:
    return 1e-3 * (1 + abs(point["a"] - 4) + abs(point["b"] - 2)
                   + (0.5 if point["mode"] == "y" else 0))


# {{{ spaces

def test_restrictions_filter_the_cartesian_product():
    space = toy_space()
    expected = [p for p in itertools.product((1, 2, 4, 8), (1, 2, 4), ("x", "y"))
                if p[0] * p[1] <= 16 and (p[2] == "x" or p[0] > 1)]
    assert [tuple(p.as_dict().values()) for p in space.points()] == expected
    assert space.size == 24


def test_point_labels_round_trip_with_types():
    space = toy_space()
    for p in space.points():
        assert space.point(p.label) == p
        assert isinstance(space.point(p.label)["a"], int)


@pytest.mark.parametrize("restriction, message", [
    ("a*c <= 4", "no parameter"),
    ("a.real > 1", "not allowed"),
    ("f(a) > 1", "not allowed"),
    ("a <= (", "cannot read"),
])
def test_bad_restrictions_are_refused_clearly(restriction, message):
    with pytest.raises(TuningError, match=message):
        toy_space(restrictions=(restriction,))


def test_empty_space_and_bad_points_are_refused():
    with pytest.raises(TuningError, match="empty"):
        toy_space(restrictions=("a > 100",)).points()
    space = toy_space()
    with pytest.raises(TuningError, match="restriction"):
        space.point({"a": 8, "b": 4, "mode": "x"})
    with pytest.raises(TuningError, match="not a value"):
        space.point("a=3,b=1,mode=x")


def test_catalog_spaces_have_at_least_500_points():
    """The catalog's three original spaces; the time-tiled ``tt_*`` spaces are in the
    catalog too but smaller by design (tt_jacobi1d: 162 points): the tiling model, not
    measurement, searches their wide range of tile sizes (``workbench tile-sizes``)."""
    sizes = {name: len(get_space(name).points()) for name in ("stencil2d", "matmul",
                                                              "transpose")}
    assert all(n >= 500 for n in sizes.values()), sizes
    assert 100 <= len(get_space("tt_jacobi1d").points()) < 500
    with pytest.raises(UnknownNameError):
        get_space("nope")


def test_template_counts_equal_the_points_own_counts():
    """The cheap ranking's premise: one symbolic count per structure, evaluated at a
    point's numbers, equals the count of that point's own kernel."""
    from workbench.properties import extract_properties

    for name in ("stencil2d", "matmul", "transpose"):
        space = get_space(name, n=256)
        points = space.points()
        for point in (points[0], points[len(points) // 2], points[-1]):
            template = space.template_for(space.structure_of(point))
            symbolic = extract_properties(template.kernel)
            own = extract_properties(space.build(point))
            values = {s: np.array([v]) for s, v in space.bindings(point).items()}
            got = _by_kind(symbolic.evaluate({k: values[k] for k in symbolic.parameters}))
            want = _by_kind(own.evaluate({}))
            assert got == pytest.approx(want), (name, point.label)


def _by_kind(counts) -> dict[str, float]:
    """Non-zero counts by name (the template's stride classes are symbolic, so its
    keys are names, which carry the class, not records)."""
    out: dict[str, float] = {}
    for feature, value in counts.items():
        if not float(np.asarray(value).ravel()[0]):
            continue
        out[feature.name] = out.get(feature.name, 0.0) + float(np.asarray(value).ravel()[0])
    return out

# }}}


# {{{ strategies and the runner

@pytest.mark.parametrize("name", ["exhaustive", "random", "tpe"])
def test_every_strategy_visits_each_point_once(name):
    space = toy_space()
    evaluator = TableEvaluator(toy_time)
    result = Explorer(space, make_strategy(name, seed=3), evaluator).run()
    assert sorted(evaluator.calls) == sorted(p.label for p in space.points())
    assert result.best.time_s == min(toy_time(p) for p in space.points())
    assert result.stopped_by is StopReason.EXHAUSTED


def test_random_order_depends_on_the_seed_only():
    space = toy_space()

    def order(seed):
        ev = TableEvaluator(toy_time)
        Explorer(space, RandomSearch(seed), ev).run()
        return ev.calls
    assert order(1) == order(1) != order(2)


def test_tpe_beats_random_expectation_on_a_smooth_space():
    space = TuningSpace(name="smooth", description="", tune_params={
        "x": tuple(range(12)), "y": tuple(range(12))}, group_size=lambda p: (1,),
        kernel=lambda p: None)
    time_of = lambda p: 1e-3 * (1 + (p["x"] - 9) ** 2 + (p["y"] - 2) ** 2)  # noqa: E731
    runs = []
    for seed in range(3):
        ev = TableEvaluator(time_of)
        result = Explorer(space, OptunaTPE(seed=seed), ev).run()
        runs.append(next(i for i, e in enumerate(result.evaluations)
                         if e.time_s == 1e-3) + 1)
    # random search needs (N + 1) / 2 = 72.5 runs on average to the single best
    assert np.mean(runs) < 40, runs


def test_budget_stops_the_exploration():
    space = toy_space()
    result = Explorer(space, Exhaustive(), TableEvaluator(toy_time),
                      budget=Budget(evaluations=5)).run()
    assert len(result.evaluations) == 5 and result.stopped_by is StopReason.EVALUATIONS
    result = Explorer(space, Exhaustive(), TableEvaluator(toy_time, cost=1.0),
                      budget=Budget(seconds=3.5)).run()
    # each point costs 1.01 s counted (verification is not a tuning cost)
    assert len(result.evaluations) == 4 and result.stopped_by is StopReason.SECONDS
    with pytest.raises(TuningError):
        Budget(evaluations=0)


def test_failed_points_are_recorded_and_search_goes_on(tmp_path):
    space = toy_space()
    time_of = lambda p: None if p["b"] == 4 else toy_time(p)  # noqa: E731
    device = DeviceIdentity("toy platform", "toy device", "0")
    with MeasurementStore.open(tmp_path / "s.sqlite") as store:
        result = Explorer(space, Exhaustive(), TableEvaluator(time_of), store=store,
                          device=device).run()
        rows = store.measurements(status=None, kernel="tune.toy")
    assert len(rows) == len(space.points())
    failed = [m for m in rows if m.status is not Status.OK]
    assert len(failed) == sum(1 for p in space.points() if p["b"] == 4) > 0
    assert result.best.point["b"] != 4


def test_a_killed_exploration_resumes_without_measuring_again(tmp_path):
    space = toy_space()
    device = DeviceIdentity("toy platform", "toy device", "0")
    path = tmp_path / "s.sqlite"
    first = TableEvaluator(toy_time)
    with MeasurementStore.open(path) as store:
        stop_after = iter(range(100))
        result = Explorer(space, RandomSearch(7), first, store=store, device=device,
                          seed=7).run(should_stop=lambda: next(stop_after) >= 6)
    assert result.stopped_by is StopReason.STOPPED and len(first.calls) == 6
    second = TableEvaluator(toy_time)
    with MeasurementStore.open(path) as store:
        resumed = []
        result = Explorer(space, RandomSearch(7), second, store=store, device=device,
                          seed=7).run(lambda p: resumed.append(p.resumed))
        rows = store.measurements(status=None, kernel="tune.toy")
    assert not set(first.calls) & set(second.calls)
    assert len(first.calls) + len(second.calls) == len(space.points())
    assert resumed[:6] == [True] * 6 and not any(resumed[6:])
    assert len(rows) == len(space.points())
    # the resumed exploration sees the same evaluations in the same order
    full = TableEvaluator(toy_time)
    Explorer(space, RandomSearch(7), full, seed=7).run()
    assert [e.point.label for e in result.evaluations] == full.calls


def test_a_space_grows_a_parameter_without_measuring_its_old_points_again(tmp_path):
    """A parameter added to a measured space (``added_params``): the stored points read
    as its old value, ``where()`` measures only the new values, and the replay of the
    grown space finds every point; an empty selection is refused at once."""
    from workbench.tuning.replay import load_space_evaluations

    device = DeviceIdentity("toy platform", "toy device", "0")
    path = tmp_path / "s.sqlite"
    old = toy_space()
    with MeasurementStore.open(path) as store:
        Explorer(old, Exhaustive(), TableEvaluator(toy_time), store=store,
                 device=device).run()
    grown = TuningSpace(
        name="toy", description="toy, with a new parameter w",
        tune_params={**old.tune_params, "w": (1, 3)}, restrictions=old.restrictions,
        group_size=old.group_size, kernel=old.kernel, added_params={"w": 1})
    assert grown.point("a=2,b=1,mode=x") == grown.point({"a": 2, "b": 1, "mode": "x", "w": 1})
    new_only = grown.where("w > 1")
    assert new_only.name == grown.name and {p["w"] for p in new_only.points()} == {3}
    evaluator = TableEvaluator(lambda p: toy_time(p) * p["w"])
    with MeasurementStore.open(path) as store:
        Explorer(new_only, Exhaustive(), evaluator, store=store, device=device).run()
    assert len(evaluator.calls) == len(old.points()) and all("w=3" in c
                                                            for c in evaluator.calls)
    evaluations = load_space_evaluations(path, grown)
    assert set(evaluations) == {p.label for p in grown.points()}
    assert evaluations["a=4,b=2,mode=x,w=1"].time_s == toy_time(grown.point(
        "a=4,b=2,mode=x,w=1"))
    # a narrowed space's replay leaves out the records outside it
    assert set(load_space_evaluations(path, new_only)) == {p.label
                                                          for p in new_only.points()}
    # a narrowed run that resumes an unfinished campaign of the whole space reads only
    # its own points from it
    unfinished = tmp_path / "u.sqlite"
    with MeasurementStore.open(unfinished) as store:
        stop_after = iter(range(100))
        first = TableEvaluator(toy_time)
        Explorer(grown, Exhaustive(), first, store=store,
                 device=device).run(should_stop=lambda: next(stop_after) >= 3)
        rest = TableEvaluator(toy_time)
        Explorer(new_only, Exhaustive(), rest, store=store, device=device).run()
    assert not set(first.calls) & set(rest.calls)
    assert {p.label for p in new_only.points()} <= set(first.calls) | set(rest.calls)
    assert all("w=3" in c for c in rest.calls)
    with pytest.raises(TuningError, match="empty"):
        grown.where("w > 3")
    with pytest.raises(TuningError, match="unknown"):
        TuningSpace(name="t", description="", tune_params={"a": (1,)},
                    group_size=lambda p: (1,), kernel=lambda p: None,
                    added_params={"z": 0})


def test_recording_needs_a_device(tmp_path):
    with MeasurementStore.open(tmp_path / "s.sqlite") as store, \
            pytest.raises(TuningError, match="device"):
        Explorer(toy_space(), Exhaustive(), TableEvaluator(toy_time), store=store)


def test_model_strategy_needs_a_model():
    with pytest.raises(TuningError, match="model"):
        make_strategy("model")
    with pytest.raises(UnknownNameError):
        make_strategy("annealing")

# }}}


# {{{ metrics

def _evaluations(times, cost=1.0):
    space = TuningSpace(name="t", description="", tune_params={"i": tuple(range(len(times)))},
                        group_size=lambda p: (1,), kernel=lambda p: None)
    return [Evaluation(p, Status.OK, t, {Cost.RUN: cost * (1 + p["i"])})
            for p, t in zip(space.points(), times)]


def test_random_expectation_equals_enumeration_of_every_order():
    times = [5.0, 1.0, 1.04, 3.0, 2.0, 1.5]
    evaluations = _evaluations(times)
    for target in (0.9, 0.95, 0.5):
        runs, seconds = [], []
        for order in itertools.permutations(evaluations):
            best = min(times)
            spent = 0.0
            for k, e in enumerate(order, 1):
                spent += e.cost_s
                if best / e.time_s >= target:
                    runs.append(k)
                    seconds.append(spent)
                    break
        exp_runs, exp_seconds = random_reach(evaluations, target)
        assert exp_runs == pytest.approx(np.mean(runs))
        assert exp_seconds == pytest.approx(np.mean(seconds))
    # the expected best-so-far curve, likewise
    curve_ = random_curve(evaluations, len(times))
    for k in range(1, len(times) + 1):
        fractions = [min(times) / min(c) for c in itertools.combinations(times, k)]
        assert curve_[k - 1] == pytest.approx(np.mean(fractions))


def test_curve_counts_choosing_and_every_cost():
    space = toy_space()
    result = Explorer(space, Exhaustive(), TableEvaluator(toy_time)).run()
    c = curve(result, min(toy_time(p) for p in space.points()))
    assert c.cost_s[-1] == pytest.approx(result.cost_s)
    assert c.fraction[-1] == 1.0 and np.all(np.diff(c.fraction) >= 0)
    runs, seconds = c.reach(1.0)
    assert seconds == pytest.approx(c.cost_s[runs - 1])

# }}}


# {{{ replay of the shipped H100 spaces

@pytest.fixture(scope="module")
def shipped_matmul():
    space = get_space("matmul")
    return space, ReplayEvaluator(space, load_space_evaluations(SHIPPED, space))


def test_shipped_spaces_are_complete_and_verified():
    for name in ("stencil2d", "matmul", "transpose"):
        space = get_space(name)
        evaluations = load_space_evaluations(SHIPPED, space)
        assert set(evaluations) == {p.label for p in space.points()}
        assert all(e.ok for e in evaluations.values())
        for e in evaluations.values():
            assert {Cost.TRANSFORM, Cost.CODEGEN, Cost.BUILD, Cost.RUN} <= set(e.costs)
            assert "registers" in e.extra.get("build_log", "")


def test_replay_needs_every_point_and_one_device(shipped_matmul):
    space, evaluator = shipped_matmul
    partial = dict(list(evaluator.evaluations.items())[:10])
    with pytest.raises(TuningError, match="exhaustively"):
        ReplayEvaluator(space, partial)
    with pytest.raises(TuningError, match="no measurement"):
        load_space_evaluations(SHIPPED, get_space("matmul", n=1024))


def test_a_replay_that_reaches_its_target_says_so(shipped_matmul):
    space, evaluator = shipped_matmul
    result = replay(space, evaluator, Exhaustive(), until=1.0)
    assert result.stopped_by is StopReason.REACHED
    best = min(e.time_s for e in evaluator.measured if e.ok)
    assert result.best.time_s == best and len(result.evaluations) < len(space.points())


def test_model_guided_replay_on_shipped_matmul(shipped_matmul):
    from workbench.models import load_model
    from workbench.tuning.ranking import point_candidate, rank_space

    space, evaluator = shipped_matmul
    model = load_model("sample_data/h100/weights-linear.json")
    strategy = make_strategy("model", model=model, label="linear")
    result = replay(space, evaluator, strategy)
    ranking = strategy.ranking
    assert [e.point.label for e in result.evaluations] == \
        [space.points()[i].label for i in ranking.order]
    assert result.choosing_s == pytest.approx(ranking.seconds)
    # the symbolic ranking is the model's own prediction of each point's kernel
    fresh = rank_space(model, space, space.points()[:40:13])
    generic = model.rank([point_candidate(space, p) for p in space.points()[:40:13]])
    assert np.allclose(fresh.predicted_s, generic.predicted_s, rtol=1e-9)

# }}}


def test_tune_cli_replays_and_reports(capsys):
    from workbench.cli.main import main

    assert main(["tune", "transpose", "--replay", SHIPPED, "--strategy", "random",
                 "--budget-evals", "7", "--no-progress", "--format", "json"]) == 0
    out = capsys.readouterr().out
    import json
    data = json.loads(out)
    assert data["evaluations"] == 7 and data["stopped_by"] == "evaluations"
    assert math.isfinite(data["tuning_cost_s"]) and data["best"]["time_s"] > 0
    assert main(["tune", "transpose", "--replay", SHIPPED, "--strategy", "random",
                 "--budget-evals", "3", "--no-progress"]) == 0
    assert "3 evaluations (0 failed) with random, stopped: --budget-evals reached;" \
        in capsys.readouterr().out
    assert main(["tune", "transpose", "--replay", SHIPPED, "--store", "x.sqlite"]) == 2
    assert "record" in capsys.readouterr().err


def test_the_tune_summary_says_every_stop_reason():
    from workbench.cli.tune_cmds import _STOPPED_BY

    assert set(_STOPPED_BY) == set(StopReason)
    assert [r for r in StopReason if r.finished] == [StopReason.EXHAUSTED]


def test_a_second_session_says_its_counts_came_from_the_disk_cache(
        tmp_path, monkeypatch, capsys):
    """A model's ranking of a kernel(point) space: the first session counts a few
    points and says so; the next (the process's memory of counts dropped) reads every
    point's counts from the disk cache, and the summary line says that."""
    from types import SimpleNamespace

    from workbench.cli.tune_cmds import _print_result
    from workbench.models import load_model
    from workbench.models.candidate_features import forget_counts
    from workbench.tuning.catalog import resolve_space

    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", str(tmp_path / "counts.sqlite"))
    model = load_model("sample_data/h100/weights-linear.json")
    ref = "examples/kernels/my_space.py:space"
    sessions = []
    for _ in range(2):
        space = resolve_space(ref)
        forget_counts(space)
        strategy = make_strategy("model", model=model, label="linear")
        sessions.append(Explorer(space, strategy, TableEvaluator(lambda p: 1e-3),
                                 budget=Budget(evaluations=1)).run())
    first, second = (r.counts for r in sessions)
    n = len(resolve_space(ref).points())
    assert first.points == second.points == n
    assert first.cached == 0 and 0 < first.built < n
    assert second.cached == n and second.built == 0
    assert _print_result(SimpleNamespace(format="table"), space, sessions[1]) == 0
    assert f"counts: {n} of {n} points from the count cache\n" in capsys.readouterr().out
    assert _print_result(SimpleNamespace(format="json"), space, sessions[0]) == 0
    import json
    assert json.loads(capsys.readouterr().out)["counts"] == {
        "points": n, "from_cache": 0, "built": first.built, "cache_on": True}
    # a strategy that does not rank has nothing to say about counts
    assert Explorer(space, Exhaustive(), TableEvaluator(lambda p: 1e-3),
                    budget=Budget(evaluations=1)).run().counts is None


def test_counts_with_the_cache_off_say_so(monkeypatch):
    from types import SimpleNamespace

    from workbench.models.structure_counts import CountMethod, StructureCount
    from workbench.tuning.ranking import CountSources

    ranking = SimpleNamespace()
    ranking.counting = (StructureCount("s", (("u", 0),), 12, 4, CountMethod.SYMBOLIC),
                        StructureCount("s", (("u", 1),), 8, 0, CountMethod.CACHED))
    sources = CountSources.of(ranking)
    assert (sources.points, sources.cached, sources.built) == (20, 8, 4)
    assert sources.describe() == ("8 of 20 points from the count cache, "
                                  "4 built and counted now")
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    assert "the count cache is off" in CountSources.of(ranking).describe()
    ranking.counting = ()          # a templated space: counted symbolically, no cache
    assert CountSources.of(ranking) is None


def test_counts_of_a_structure_split_at_another_granularity_count_once():
    """A model that counts work items and sub-groups records transpose's ``local=0``
    whole (48 points) and split by ``bx`` (9 + 39): 96 points, not 144."""
    from types import SimpleNamespace

    from workbench.models.structure_counts import CountMethod, StructureCount
    from workbench.tuning.ranking import CountSources

    symbolic, cached = CountMethod.SYMBOLIC, CountMethod.CACHED
    ranking = SimpleNamespace(counting=(
        StructureCount("t", (("local", 0), ("bx", 8)), 9, 6, symbolic),
        StructureCount("t", (("local", 0), ("bx", 16)), 39, 4, cached),
        StructureCount("t", (("local", 1),), 48, 5, cached),
        StructureCount("t", (("local", 0),), 48, 5, cached)))
    sources = CountSources.of(ranking)
    # local=0 is cached whole but one of its split parts was counted now
    assert (sources.points, sources.cached, sources.built) == (96, 48, 20)


USER_SPACE = '''
import loopy as lp
import numpy as np
from workbench.tuning.space import TuningSpace

def kernel(point):
    if point["unroll"] == 3:
        raise ValueError("this point does not build")
    knl = lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = 2*x[i]",
                         [lp.GlobalArg("x", np.float32, shape="n"),
                          lp.GlobalArg("y", np.float32, shape="n"), ...],
                         lang_version=(2018, 2))
    knl = lp.fix_parameters(knl, n=1024)
    knl = lp.split_iname(knl, "i", point["group"], outer_tag="g.0", inner_tag="l.0")
    return knl

def make_inputs(rng):
    return {"x": rng.random(1024).astype(np.float32)}

space = TuningSpace(
    name="double", description="y = 2x", tune_params={"group": (32, 64, 128),
                                                      "unroll": (1, 3)},
    restrictions=["group >= 64 or unroll == 1"],
    group_size=lambda p: (p["group"],), kernel=kernel, make_inputs=make_inputs,
    reference=lambda inputs: {"y": 2 * inputs["x"]})
'''


def test_a_users_space_from_a_file_runs_live_and_records_failures(tmp_path, capsys):
    from workbench.cli.main import main
    from workbench.measure import list_devices

    try:
        if not list_devices():
            pytest.skip("no OpenCL device")
    except Exception:  # noqa: BLE001
        pytest.skip("no OpenCL device")
    path = tmp_path / "myspace.py"
    path.write_text(USER_SPACE)
    store = tmp_path / "s.sqlite"
    assert main(["tune", f"{path}:space", "--store", str(store), "--no-progress",
                 "--format", "json"]) == 0
    import json
    data = json.loads(capsys.readouterr().out)
    assert data["evaluations"] == 5 and data["failed"] == 2
    assert data["best"]["point"]["unroll"] == 1
    with MeasurementStore.open(store, create=False, readonly=True) as s:
        rows = s.measurements(status=None, kernel="tune.double")
    statuses = {m.key.variant: m.status for m in rows}
    assert statuses["group=64,unroll=3"] is Status.BUILD_FAILED
    assert statuses["group=32,unroll=1"] is Status.OK
    assert "does not build" in next(m.log for m in rows if m.key.variant ==
                                    "group=128,unroll=3")
    # an empty space and a missing variable are one-line errors
    path.write_text(USER_SPACE.replace('"group >= 64 or unroll == 1"', '"group > 512"'))
    assert main(["tune", f"{path}:space", "--store", str(store), "--no-progress"]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["tune", f"{path}:nope", "--no-progress"]) == 2


def test_a_live_tune_says_where_it_measured_and_whose_costs_the_model_ranks_by(
        queue, tmp_path, capsys):
    """On pocl, a model fitted on the H100 ranks the points: the output says so, since
    its order reflects the H100, not the CPU the points are timed on."""
    from pathlib import Path

    from workbench.cli.main import main

    root = Path(__file__).resolve().parents[1]
    assert main(["tune", f"{root}/examples/kernels/my_space.py:space", "--strategy",
                 "model", "--weights", f"{root}/sample_data/h100/weights-linear.json",
                 "--budget-evals", "1", "--store", str(tmp_path / "s.sqlite"),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    device = queue.device.name
    assert f"measured on {device}" in out
    assert "note: the ranking model (from --weights) describes NVIDIA H100 80GB HBM3, " \
           "not this device" in out


def test_a_model_strategy_without_weights_ranks_with_the_studies_configuration():
    """tune's model-guided strategies, with no --weights or --model, rank with the
    shipped non-negative linear fit under the residency penalty (what every tuning
    study measured), not with the prediction default; --residency-penalty adds no
    second penalty."""
    import argparse

    from workbench.cli.tune_cmds import _strategy_model
    from workbench.models.defaults import RANKING_WEIGHTS, default_model
    from workbench.models.residency_penalty import ResidencyPenalty

    for penalty in (False, True):
        args = argparse.Namespace(weights=None, model=None, residency_penalty=penalty)
        model, label = _strategy_model(args)
        assert isinstance(model, ResidencyPenalty)
        assert not isinstance(model.model, ResidencyPenalty)
        assert label == f"ranking-default:{RANKING_WEIGHTS[:-5]}+residency"
        assert type(model.model) is not type(default_model().model)


def test_the_progress_line_counts_towards_the_evaluation_budget(capsys):
    from pathlib import Path

    from workbench.cli.main import main

    root = Path(__file__).resolve().parents[1]
    assert main(["tune", f"{root}/examples/spaces/triad.py:space", "--replay",
                 f"{root}/sample_data/h100/user-spaces.sqlite.xz", "--strategy", "random",
                 "--budget-evals", "3"]) == 0
    shown = [line.split("]")[0] for line in capsys.readouterr().err.split("\r")
             if line.startswith("[")]
    assert shown == ["[1/3", "[2/3", "[3/3"]     # not out of the space's 66 points


@pytest.mark.parametrize("strategy, line", [("tpe", "strategy set-up: "),
                                            ("model-hedge:default:x", "ranking: ")])
def test_only_a_strategy_that_ranks_reports_a_ranking(capsys, strategy, line):
    from types import SimpleNamespace

    from workbench.cli.tune_cmds import _print_result
    from workbench.tuning.costs import RankingCost

    cost = RankingCost(strategy=strategy, points=15, wall_s=0.5, cpu_s=0.4, jobs=2,
                       cpu_count=2)
    result = SimpleNamespace(best=None, evaluations=[], strategy=strategy, seed=0,
                             stopped_by=StopReason.EVALUATIONS, choosing_s=0.5, cost_s=1.0,
                             overlapped=0, ranking_cost=cost, counts=None)
    assert _print_result(SimpleNamespace(format="table"), SimpleNamespace(name="s"),
                         result) == 0
    shown = [x for x in capsys.readouterr().out.splitlines() if x.startswith(line)]
    assert len(shown) == 1
