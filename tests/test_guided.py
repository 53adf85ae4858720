"""Model-guided strategies that learn from what they measure (issue #23), replayed on
the shipped H100 measurements of a user-written space: no peeking, learning, the
report's rows.  A stand-in model (a formula of the point) keeps them fast; the CLI
test ranks with a real shipped model."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from workbench.tuning import ReplayEvaluator, load_space_evaluations, resolve_space
from workbench.tuning.guided import ModelBO, ModelEI, ModelTPE, PlainBO, point_features
from workbench.tuning.metrics import curve
from workbench.tuning.noise import compare_runs
from workbench.tuning.replay import replay
from workbench.tuning.runner import Budget
from workbench.tuning.strategies import ModelGuided, OptunaTPE, make_strategy

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "sample_data/h100/user-spaces.sqlite"
RUN2 = ROOT / "sample_data/h100/user-spaces-run2.sqlite"
SPACE = f"{ROOT}/examples/spaces/triad.py:space"


class FormulaModel:
    """A stand-in model: predicted time from the point's parameters only."""

    family = "formula"

    def __init__(self, formula):
        self.formula = formula

    def predict_candidates(self, candidates, **context):
        from workbench.models.prediction import make_predictions

        return make_predictions(candidates, [self.formula(c.point) for c in candidates])


@pytest.fixture(scope="module")
def triad():
    space = resolve_space(SPACE)
    return space, load_space_evaluations(STORE, space)


def _sequence(space, evaluations, strategy, runs):
    result = replay(space, ReplayEvaluator(space, evaluations), strategy,
                    budget=Budget(evaluations=runs))
    return [e.point.label for e in result.evaluations]


def _hide_the_rest(evaluations, seen):
    """Every record the strategy did not measure made 100x faster than the best."""
    best = min(e.time_s for e in evaluations.values() if e.ok)
    return {k: e if k in seen else dataclasses.replace(e, time_s=best / 100)
            for k, e in evaluations.items()}


class Peeking(ModelBO):
    """A strategy that cheats: it reads the stored records it did not pay for."""

    def __init__(self, evaluations, **kw):
        super().__init__(**kw)
        self.evaluations = evaluations

    def ask(self):
        if len(self.measured) == 3:
            return min((e for e in self.evaluations.values() if e.ok),
                       key=lambda e: e.time_s).point
        return super().ask()


def _strategies(model, evaluations=None):
    out = {"model-bo": lambda: ModelBO(model, "f", top=2),
           "model-ei": lambda: ModelEI(model, "f"),
           "model-tpe": lambda: ModelTPE(model, "f", seed=3),
           "bo": lambda: PlainBO(seed=3), "tpe": lambda: OptunaTPE(seed=3)}
    if evaluations is not None:
        out["peeking"] = lambda: Peeking(evaluations, model=model, label="f")
    return out


def test_no_strategy_learns_from_records_it_did_not_measure(triad):
    """Replayed with every unmeasured record changed, each strategy measures exactly
    the same points; the check catches a strategy that peeks."""
    space, evaluations = triad
    model = FormulaModel(lambda p: 1.0 / p["g"] + 0.1 * p["wpi"])
    runs = 8
    for name, make in _strategies(model).items():
        first = _sequence(space, evaluations, make(), runs)
        assert len(first) == runs
        again = _sequence(space, _hide_the_rest(evaluations, set(first)), make(), runs)
        assert again == first, name
    # the same check on a cheat fails, so it can
    cheat = _strategies(model, evaluations)["peeking"]
    first = _sequence(space, evaluations, cheat(), runs)
    changed = _hide_the_rest(evaluations, set(first))
    peeking = Peeking(changed, model=model, label="f")
    assert _sequence(space, changed, peeking, runs) != first


def test_model_bo_learns_past_a_misleading_model(triad):
    """A model that ranks the space backwards: measuring in its order needs most of the
    space; model-bo's correction turns round after its first picks."""
    space, evaluations = triad
    evaluator = ReplayEvaluator(space, evaluations)
    best = min(e.time_s for e in evaluations.values() if e.ok)
    times = {k: e.time_s for k, e in evaluations.items()}
    backwards = FormulaModel(lambda p: 1.0 / times[p.label])
    ordered = curve(replay(space, evaluator, ModelGuided(backwards), until=1.0), best)
    bo = curve(replay(space, evaluator, ModelBO(backwards, "b", top=2), until=1.0), best)
    assert ordered.reach(0.95)[0] > len(evaluations) / 2
    assert bo.reach(0.95)[0] < ordered.reach(0.95)[0] / 3
    ei = curve(replay(space, evaluator, ModelEI(backwards, "b"), until=1.0), best)
    assert ei.reach(0.95)[0] < ordered.reach(0.95)[0] / 3
    # and a right model: its best pick first, nothing wasted
    right = FormulaModel(lambda p: times[p.label])
    assert curve(replay(space, evaluator, ModelBO(right, "r"), until=1.0),
                 best).reach(1.0)[0] == 1


def test_guided_strategies_charge_the_ranking_and_their_steps(triad):
    space, evaluations = triad
    evaluator = ReplayEvaluator(space, evaluations)
    model = FormulaModel(lambda p: 1.0 / p["g"])
    ranking = ModelGuided(model)
    replay(space, evaluator, ranking, budget=Budget(evaluations=1))
    shared = dataclasses.replace(ranking.ranking, seconds=2.5)
    result = replay(space, evaluator, ModelBO(model, "f", ranking=shared),
                    budget=Budget(evaluations=6))
    assert result.choosing_s == 2.5
    assert result.cost_s > 2.5 + sum(e.cost_s for e in result.evaluations)
    assert make_strategy("model-bo", model=model, label="f").name == "model-bo:f"
    x = point_features(space, space.points())
    assert x.shape[0] == len(space.points()) and x.min() >= 0 and x.max() <= 1


def test_compare_strategies_lists_the_guided_ones_with_oracle_multiples(triad):
    from workbench.tuning.study import compare_strategies, strategy_means, summary

    space, evaluations = triad
    model = FormulaModel(lambda p: 1.0 / p["g"] + 0.1 * p["wpi"])
    c = compare_strategies(space, ReplayEvaluator(space, evaluations), {"f": model},
                           tpe_seeds=1, guided=("model-bo", "model-tpe"),
                           seeded={"bo": lambda s: PlainBO(seed=s)})
    table = summary([c])
    names = list(table["strategy"])
    for name in ("model:f", "model-bo:f", "model-tpe:f", "bo (mean of 1 seeds)",
                 "tpe (mean of 1 seeds)"):
        assert name in names
    best = min(evaluations.values(), key=lambda e: e.time_s if e.ok else math.inf)
    assert c.oracle_s == pytest.approx(best.cost_s)
    assert np.all(table["oracle_x_95"] >= 1.0 - 1e-9)
    tpe = table.loc[table["strategy"].str.startswith("tpe"), "speedup_vs_tpe_95"]
    assert tpe.iloc[0] == pytest.approx(1.0)
    means = strategy_means(table)
    assert {"oracle_x_95", "median_runs_to_95", "speedup_vs_tpe_95"} <= set(means)


def test_noise_between_the_two_h100_runs(triad):
    space, evaluations = triad
    other = load_space_evaluations(RUN2, space)
    same = compare_runs(space.name, evaluations, evaluations)
    assert same.same_best and same.best_change == 0 and same.best_1_in_run_2 == 1.0
    two = compare_runs(space.name, evaluations, other)
    assert two.points == len(space.points())
    assert not two.same_best                       # triad's best moved between the runs
    assert 0 < two.best_1_in_run_2 < 1 and two.within_95_both <= two.within_95_1


def test_tuning_report_lists_every_strategy_for_a_users_space(capsys):
    from workbench.cli.main import main

    rc = main(["tuning-report", "--store", str(STORE), "--space", SPACE,
               "--weights", f"linear={ROOT}/sample_data/h100/weights-linear.json",
               "--tpe-seeds", "1", "--learned", "none", "--format", "json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ranking_cost"] == "measured-now"
    rows = {r["strategy"]: r for r in out["spaces"]}
    for name in ("exhaustive", "random (expected)", "model:linear", "model-bo:linear",
                 "model-tpe:linear", "model-hedge:linear", "bo", "tpe (mean of 1 seeds)"):
        assert any(k.startswith(name) for k in rows), name
    for r in rows.values():
        assert r["oracle_x_95"] >= 1.0 - 1e-9 and r["choosing_s"] >= 0
    assert rows["model-bo:linear"]["choosing_s"] > 0


def _min_distance(space, labels):
    points = space.points()
    x = point_features(space, points)[[i for i, p in enumerate(points) if p.label in labels]]
    return min(np.linalg.norm(a - b) for i, a in enumerate(x) for b in x[i + 1:])


def test_model_ei_spreads_its_first_picks_over_the_models_ties(triad):
    """A model that predicts the same time for every point of a structure (as a DRAM
    floor does): model-bo takes its first picks in the space's order, neighbours of one
    another; model-ei spreads them over the tied points, and only over them."""
    space, evaluations = triad
    tied = FormulaModel(lambda p: 1.0 if p["order"] == "cyclic" else 2.0)
    bo = _sequence(space, evaluations, ModelBO(tied, "t", top=3), 3)
    ei = _sequence(space, evaluations, ModelEI(tied, "t"), 3)
    assert bo[0] == ei[0] and len(set(ei)) == 3
    assert all("order=cyclic" in label for label in ei)
    assert _min_distance(space, ei) > 2 * _min_distance(space, bo)
    # a clear best is still measured first, whatever the spread
    times = {k: e.time_s for k, e in evaluations.items()}
    right = FormulaModel(lambda p: times[p.label])
    best = min(times, key=times.get)
    assert _sequence(space, evaluations, ModelEI(right, "r"), 1) == [best]


def test_the_small_gaussian_process_fits_and_chooses_its_length_scale():
    from workbench.tuning.gp import GRID, farthest_first, fit_predict, matern52

    x = np.linspace(0, 1, 9)[:, None]
    smooth, rough = 0.3 * x[:, 0], 0.3 * np.sign(np.sin(12 * x[:, 0]))
    fit = fit_predict(x, smooth, np.array([[0.5], [3.0]]))
    assert fit.mean[0] == pytest.approx(0.15, abs=0.01)    # interpolates
    assert fit.std[0] < 0.1 < fit.std[1]                   # unsure far from the data
    assert fit.length > fit_predict(x, rough, x).length    # smooth data: longer length
    assert (fit.variance, fit.length) in GRID
    assert np.allclose(np.diag(matern52(x, x, 0.5)), 1.0)
    corners = np.array([[0, 0], [0.1, 0], [1, 1], [0, 1], [0.5, 0.5]], dtype=float)
    assert farthest_first(corners, 0, 3) == [0, 2, 3]


def test_expected_improvement_is_the_normal_closed_form_without_scipy_stats():
    from scipy.stats import norm

    from workbench.tuning.gp import expected_improvement

    rng = np.random.default_rng(0)
    mean, std = rng.normal(size=50), rng.uniform(0.01, 1.0, 50)
    z = (0.2 - mean) / std
    want = (0.2 - mean) * norm.cdf(z) + std * norm.pdf(z)
    assert expected_improvement(0.2, mean, std) == pytest.approx(want, abs=1e-12)
    assert (expected_improvement(0.2, mean, std) >= 0).all()


def test_a_known_point_teaches_the_correction_and_the_top_picks_are_still_measured(triad):
    """``know``: a point measured before the search (while the model ranked) enters the
    correction's data, is never asked for, and does not use up a model pick."""
    space, evaluations = triad
    times = {k: e.time_s for k, e in evaluations.items()}
    model = FormulaModel(lambda p: times[p.label])          # a right model
    order = sorted(times, key=times.get)
    plain = _sequence(space, evaluations, ModelEI(model, "r"), 5)
    knowing = ModelEI(model, "r")
    knowing.start(space, space.points())
    worst = max(times, key=times.get)
    knowing.know(evaluations[worst])
    asked = []
    for _ in range(5):
        point = knowing.ask()
        asked.append(point.label)
        knowing.tell(evaluations[point.label])
    assert worst not in asked
    assert asked[:3] == plain[:3] and set(asked[:3]) <= set(order[:10])   # 3 picks still
    assert knowing.index[worst] in knowing._targets()[0]                  # learnt from
