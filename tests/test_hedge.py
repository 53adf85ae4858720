"""``model-hedge`` (workbench.tuning.hedge): model-ei hedged with an explorer, a bandit
choosing between them; on small synthetic spaces with stand-in models, so it is fast."""

from __future__ import annotations

import dataclasses

import pytest

from tests.test_guided import FormulaModel
from tests.test_tuning import TableEvaluator, toy_space, toy_time
from workbench.tuning.early import EarlyStart, random_early_points
from workbench.tuning.hedge import EXPLORER, MODEL, ModelHedge
from workbench.tuning.metrics import curve
from workbench.tuning.ranking import rank_space
from workbench.tuning.replay import replay
from workbench.tuning.runner import Budget, Explorer
from workbench.tuning.space import TuningSpace
from workbench.tuning.strategies import STRATEGIES, ModelGuided, make_strategy


def grid_space() -> TuningSpace:
    """128 points, never built."""
    return TuningSpace(name="grid", description="grid",
                       tune_params={"a": tuple(range(1, 9)), "b": tuple(range(1, 9)),
                                    "mode": ("x", "y")},
                       restrictions=(), group_size=lambda p: (p["a"],),
                       kernel=lambda p: None)


def grid_time(point) -> float:
    return 1e-3 * (1 + (point["a"] - 6) ** 2 + (point["b"] - 3) ** 2
                   + (3 if point["mode"] == "y" else 0))


class Table:
    """A replay evaluator answering from a function (replay's ``measured`` is what
    :func:`curve` and ``until`` read)."""

    def __init__(self, space, time_of, cost=0.2):
        self.inner = TableEvaluator(time_of, cost=cost)
        self.measured = [self.inner.evaluate(p) for p in space.points()]
        self.inner.calls.clear()

    def evaluate(self, point):
        return self.inner.evaluate(point)


def replay_early(ranking_s: float, evaluations: int, early: int | None = None):
    """model-hedge (a perfect model, seed 3) with the early start on the replay clock,
    its ranking charged ``ranking_s``, every point costing 0.2 s: (the evaluator, the
    exploration's result)."""
    space = grid_space()
    model = FormulaModel(grid_time)
    ranking = dataclasses.replace(rank_space(model, space), seconds=ranking_s)
    evaluator = TableEvaluator(grid_time, cost=0.2)
    strategy = EarlyStart(ModelHedge(model, "m", seed=3, ranking=ranking), clock="replay",
                          early=early)
    assert strategy.order == "bo" and strategy.stochastic
    return evaluator, Explorer(space, strategy, evaluator,
                               budget=Budget(evaluations=evaluations)).run()


def test_registered_with_random_draws_while_it_ranks():
    model = FormulaModel(toy_time)
    strategy = make_strategy("model-hedge", seed=2, model=model, label="f")
    assert isinstance(strategy, ModelHedge) and STRATEGIES["model-hedge"] is ModelHedge
    assert strategy.name == "model-hedge:f" and strategy.stochastic
    early = EarlyStart(strategy, clock="replay")
    assert early.order == "bo" and early.name == "model-hedge:f+early"
    assert EarlyStart(strategy, order="probes").name.endswith("+early-probes")
    with pytest.raises(Exception, match="explore must be one of"):
        ModelHedge(model, "f", explore="grid")
    with pytest.raises(Exception, match="model_prior"):
        ModelHedge(model, "f", model_prior=-1)


@pytest.mark.parametrize("explore", ["bo", "tpe", "random"])
def test_every_point_once_and_the_same_run_for_the_same_seed(explore):
    space = toy_space()
    runs = []
    for _ in range(2):
        evaluator = TableEvaluator(toy_time)
        strategy = ModelHedge(FormulaModel(lambda p: 1.0 / toy_time(p)), "f", seed=4,
                              explore=explore)
        Explorer(space, strategy, evaluator).run()
        assert sorted(evaluator.calls) == sorted(p.label for p in space.points())
        assert strategy.sources[:3] == [MODEL] * 3     # the model's spread first picks
        runs.append(evaluator.calls)
    assert runs[0] == runs[1]


def test_a_right_model_wins_at_once_and_a_backwards_one_costs_little():
    space = grid_space()
    evaluator = Table(space, grid_time)
    best = min(grid_time(p) for p in space.points())
    right = ModelHedge(FormulaModel(grid_time), "r", seed=1)
    assert curve(replay(space, evaluator, right, until=1.0), best).reach(1.0)[0] == 1

    backwards = FormulaModel(lambda p: 1.0 / grid_time(p))
    ordered = curve(replay(space, evaluator, ModelGuided(backwards), until=0.95), best)
    reached = []
    for seed in range(3):
        hedge = ModelHedge(backwards, "b", seed=seed)
        c = curve(replay(space, evaluator, hedge, budget=Budget(evaluations=30)), best)
        reached.append(c.reach(0.95)[0])
    assert ordered.reach(0.95)[0] > 100
    assert max(reached) < 30


def test_turns_go_to_the_source_that_improves_the_incumbent():
    space = toy_space()
    hedge = ModelHedge(FormulaModel(toy_time), "f", seed=0)
    hedge.start(space, space.points())

    def share(model_wins, explorer_wins, tries=10):
        hedge.wins = {MODEL: model_wins, EXPLORER: explorer_wins}
        hedge.tries = {MODEL: tries, EXPLORER: tries}
        return sum(hedge._choose_source() == MODEL for _ in range(400)) / 400

    assert share(0, 5) < 0.1           # the model's picks stopped improving it
    assert share(5, 0) > 0.95
    assert 0.5 < share(1, 1) < 0.9     # even: the model's prior win tips it


def test_the_early_draws_are_the_explorers_and_the_correction_learns_them():
    space = grid_space()
    model = FormulaModel(grid_time)
    ranking = dataclasses.replace(rank_space(model, space), seconds=100.0)
    inner = ModelHedge(model, "m", seed=3, ranking=ranking, explore="random")
    evaluator = TableEvaluator(grid_time, cost=0.2)
    early = EarlyStart(inner, clock="replay", early=4, order="random")
    result = Explorer(space, early, evaluator, budget=Budget(evaluations=8)).run()
    drawn = [p.label for p in random_early_points(space.points(), 3)[:4]]
    assert evaluator.calls[:4] == drawn and result.overlapped == 4
    assert {inner.index[label] for label in drawn} == inner.known
    # the first early point beats nothing; the other three are the explorer's tries
    assert inner.tries[EXPLORER] == 3
    # then the model's three picks, a perfect model's best first
    assert evaluator.calls[4] == min(space.points(), key=grid_time).label
    assert inner.sources[:3] == [MODEL] * 3


def test_it_learns_nothing_from_records_it_did_not_measure():
    """As tests/test_guided.py checks every strategy: with every unmeasured record made
    faster than the best, the same points are measured, the explorer's turns included."""
    space = grid_space()
    model = FormulaModel(lambda p: 1.0 / grid_time(p))     # backwards: both sources play
    for explore in ("bo", "tpe", "random"):
        first = TableEvaluator(grid_time)
        Explorer(space, ModelHedge(model, "b", seed=5, explore=explore), first,
                 budget=Budget(evaluations=14)).run()
        seen = set(first.calls)
        hidden = TableEvaluator(lambda p: grid_time(p) if p.label in seen else 1e-9)
        strategy = ModelHedge(model, "b", seed=5, explore=explore)
        Explorer(space, strategy, hidden, budget=Budget(evaluations=14)).run()
        assert hidden.calls == first.calls, explore
        assert EXPLORER in strategy.sources


def test_the_early_order_bo_draws_then_follows_expected_improvement():
    import math

    from workbench.tuning.early import BO_START
    from workbench.tuning.gp import model_free_pick
    from workbench.tuning.guided import point_features

    evaluator, _ = replay_early(100.0, 6, early=6)
    space = grid_space()
    points = space.points()
    drawn = [p.label for p in random_early_points(points, 3)]
    assert evaluator.calls[:BO_START] == drawn[:BO_START]
    row = {p.label: i for i, p in enumerate(points)}
    measured = {row[label]: math.log(grid_time(points[row[label]]))
                for label in evaluator.calls[:BO_START]}
    pick = points[model_free_pick(point_features(space, points), measured)].label
    assert evaluator.calls[BO_START] == pick
    assert len(set(evaluator.calls)) == 6


def test_live_clock_measures_bo_points_while_the_model_ranks_in_its_thread():
    import time

    class SlowModel(FormulaModel):
        def predict_candidates(self, candidates, **context):
            time.sleep(0.5)
            return super().predict_candidates(candidates, **context)

    class SlowDevice(TableEvaluator):
        def evaluate(self, point):
            time.sleep(0.03)
            return super().evaluate(point)

    space = grid_space()
    evaluator = SlowDevice(grid_time)
    early = EarlyStart(ModelHedge(SlowModel(grid_time), "s", seed=2))
    result = Explorer(space, early, evaluator, budget=Budget(evaluations=60)).run()
    from workbench.tuning.early import BO_START

    # random draws, then bo's picks, while ranking
    assert result.overlapped > BO_START
    assert evaluator.calls[:3] == [p.label for p in random_early_points(space.points(), 2)[:3]]
    assert len(set(evaluator.calls)) == 60
    # the ranking was done before the run ended: the model's picks came after it
    assert result.choosing_s >= 0.5 and result.overlapped < 60


def test_the_early_order_bo_keeps_the_cap_on_early_points():
    """``early=N`` caps what is measured while the model ranks, whatever the order: bo's
    picks outside the seeded draw's first N must not lift it."""
    evaluator, result = replay_early(100.0, 12, early=5)
    assert result.overlapped == 5
    assert len(set(evaluator.calls)) == 12
    # after the early points, the model's spread picks: a perfect model's best first
    assert evaluator.calls[5] == min(grid_space().points(), key=grid_time).label


def test_the_replay_clock_charges_bos_steps_while_the_model_ranks(monkeypatch):
    """Live, bo's early steps (a GP fit each) run beside the ranking as the device's
    points do; the replay clock must count their time too, or it takes early points a
    live run would not have had time for."""
    import time

    from workbench.tuning import gp

    pick = gp.model_free_pick

    def slow_pick(x, measured):
        time.sleep(0.25)
        return pick(x, measured)

    monkeypatch.setattr(gp, "model_free_pick", slow_pick)
    # three draws at 0.2 s each, then bo's steps: 0.6 + (0.25 + 0.2) > 1.0 s
    _, result = replay_early(1.0, 6)
    assert result.overlapped == 4


def test_hedge_base_measures_the_first_structures_base_then_bos_draws():
    from workbench.tuning.early import BO_START, bases_then_draws, early_points
    from workbench.tuning.hedge import ModelHedgeBase

    space = toy_space()
    points = space.points()
    model = FormulaModel(toy_time)
    strategy = make_strategy("model-hedge-base", seed=4, model=model, label="f")
    assert isinstance(strategy, ModelHedgeBase) and strategy.stochastic
    ranking = dataclasses.replace(rank_space(model, space), seconds=100.0)
    runs = []
    for _ in range(2):
        early = EarlyStart(ModelHedgeBase(model, "f", seed=4, ranking=ranking),
                           clock="replay", early=BO_START + 1)
        assert early.order == "bases" and early.bases == 1 and early.name.endswith("+early")
        evaluator = TableEvaluator(toy_time, cost=0.2)
        result = Explorer(space, early, evaluator, budget=Budget(evaluations=8)).run()
        assert result.overlapped == BO_START + 1
        runs.append(list(evaluator.calls))
    assert runs[0] == runs[1] and len(set(runs[0])) == 8
    base = early_points(space, points)[0]
    draws = [p.label for p in random_early_points(points, 4) if p != base]
    assert runs[0][0] == base.label and runs[0][1:BO_START] == draws[:BO_START - 1]
    # two bases: both structures' base points first (toy_space: one per mode), then
    # the seeded draw, every point once
    order = bases_then_draws(space, points, 2, seed=4)
    assert order[:2] == early_points(space, points)[:2]
    assert sorted(p.label for p in order) == sorted(p.label for p in points)
    with pytest.raises(Exception, match="bases must not be negative"):
        EarlyStart(strategy, bases=-1)


def _checked(formula, ranking_s: float):
    """model-hedge-check on the toy space, early start on the replay clock, points
    costing 0.2 s: (the wrapped strategy, the points measured, in order)."""
    from workbench.tuning.hedge import ModelHedgeCheck

    space = toy_space()
    model = FormulaModel(formula)
    ranking = dataclasses.replace(rank_space(model, space), seconds=ranking_s)
    early = EarlyStart(ModelHedgeCheck(model, "f", seed=1, ranking=ranking), clock="replay")
    evaluator = TableEvaluator(toy_time, cost=0.2)
    result = Explorer(space, early, evaluator, budget=Budget(evaluations=10)).run()
    assert result.overlapped == 4 and early.order == "bases"
    return early.inner, list(evaluator.calls)


def test_hedge_check_measures_the_first_picks_only_if_the_model_orders_the_early_points():
    from workbench.tuning.hedge import ModelHedgeBase, ModelHedgeCheck

    strategy = make_strategy("model-hedge-check", seed=1, model=FormulaModel(toy_time),
                             label="f")
    assert isinstance(strategy, ModelHedgeCheck) and isinstance(strategy, ModelHedgeBase)
    assert STRATEGIES["model-hedge-check"] is ModelHedgeCheck
    # a model that orders the space as measured: the test passes, the picks follow
    right, calls = _checked(toy_time, ranking_s=0.7)
    assert right.checked == 1.0 and right.top == ModelHedgeCheck.TOP
    order = [right.points[int(i)].label for i in right.order]
    assert calls[4:4 + right.top] == [p for p in order if p not in calls[:4]][:right.top]
    assert right.sources[:right.top] == [MODEL] * right.top
    # the same early points, a model ordering them backwards: no first picks, the
    # bandit (and the explorer with it) from the first step after the ranking
    wrong, wrong_calls = _checked(lambda p: 1.0 / toy_time(p), ranking_s=0.7)
    assert wrong_calls[:4] == calls[:4]
    assert wrong.checked == 0.0 and wrong.top == 0
    assert EXPLORER in wrong.sources
    # nothing measured early: nothing to test, the picks as model-hedge-base's
    alone = ModelHedgeCheck(FormulaModel(lambda p: 1.0 / toy_time(p)), "f", seed=1)
    evaluator = TableEvaluator(toy_time, cost=0.2)
    Explorer(toy_space(), alone, evaluator, budget=Budget(evaluations=3)).run()
    assert alone.checked is None and alone.top == ModelHedgeCheck.TOP


def test_early_start_measures_at_least_least_points():
    space = toy_space()
    model = FormulaModel(toy_time)
    ranking = dataclasses.replace(rank_space(model, space), seconds=0.0)
    early = EarlyStart(ModelHedge(model, "f", seed=2, ranking=ranking), clock="replay",
                       least=3)
    result = Explorer(space, early, TableEvaluator(toy_time, cost=0.2),
                      budget=Budget(evaluations=5)).run()
    assert early.least == 3 and result.overlapped == 3
    # without it, a ranking this short (its own wall time only) leaves room for one
    plain = EarlyStart(ModelHedge(model, "f", seed=2, ranking=ranking), clock="replay")
    assert Explorer(space, plain, TableEvaluator(toy_time, cost=0.2),
                    budget=Budget(evaluations=5)).run().overlapped <= 1
    with pytest.raises(Exception, match="least must not be negative"):
        EarlyStart(ModelHedge(model, "f", ranking=ranking), least=-1)


def test_the_diagnosis_notes_which_source_chose_each_point():
    from benchmarks.strategy_diagnosis import _logged
    from workbench.tuning.hedge import ModelHedgeBase

    space = toy_space()
    model = FormulaModel(toy_time)
    ranking = dataclasses.replace(rank_space(model, space), seconds=0.7)
    logged = _logged(EarlyStart(ModelHedgeBase(model, "f", seed=1, ranking=ranking),
                                clock="replay"))
    result = Explorer(space, logged, TableEvaluator(toy_time, cost=0.2),
                      budget=Budget(evaluations=9)).run()
    top = ModelHedgeBase.TOP
    assert len(logged.log) == len(result.evaluations) == 9
    assert logged.log[:result.overlapped + top] == ["early"] * result.overlapped + ["top"] * top
    assert set(logged.log[result.overlapped + top:]) <= {"model", "explorer"}
