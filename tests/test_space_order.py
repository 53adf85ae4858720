"""The space-order trees (issue #33, structure-ranking.md section 77): the numpy evaluation
agrees with xgboost's, the features are relative to the points ranked together, the
model file round-trips, and a streamed ranking reorders the whole space at its end."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ModelError
from workbench.models import load_model, save_model
from workbench.models.space_order import (
    GROUP,
    PREDICTION,
    RELATIVE_TERM,
    SpaceOrderModel,
    feature_names,
    fit_space_order,
    space_features,
    training_frame,
)
from workbench.models.tree_ensemble import TreeEnsemble

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "sample_data" / "h100" / "weights-linear-non-negative.json"
SPACES = ROOT / "examples" / "spaces"

xgboost = pytest.importorskip("xgboost")


def test_the_numpy_trees_predict_what_xgboost_predicts_missing_values_included():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(400, 5))
    y = np.sin(2 * x[:, 0]) + x[:, 1] * x[:, 2] + (x[:, 3] > 0.3)
    x[rng.random(x.shape) < 0.1] = np.nan          # missing values take the default side
    regressor = xgboost.XGBRegressor(n_estimators=40, max_depth=4, learning_rate=0.2,
                                     random_state=0, n_jobs=1).fit(x, y)
    trees = TreeEnsemble.of_xgboost(regressor.get_booster(), list("abcde"))
    test = rng.normal(size=(300, 5))
    test[rng.random(test.shape) < 0.1] = np.nan
    expected = regressor.predict(test)
    assert np.allclose(trees.predict(test), expected, rtol=0, atol=1e-5)
    again = TreeEnsemble.from_json(json.loads(json.dumps(trees.to_json())))
    assert np.array_equal(again.predict(test), trees.predict(test))


def test_trees_refuse_rows_of_the_wrong_width_and_malformed_documents():
    x = np.random.default_rng(0).normal(size=(50, 2))
    regressor = xgboost.XGBRegressor(n_estimators=2, max_depth=2).fit(x, x[:, 0])
    trees = TreeEnsemble.of_xgboost(regressor.get_booster(), ["a", "b"])
    with pytest.raises(ModelError, match="2 features"):
        trees.predict(np.zeros((3, 3)))
    document = trees.to_json()
    document["trees"][0]["feature"][0] = 7
    with pytest.raises(ModelError, match="out of range"):
        TreeEnsemble.from_json(document)
    with pytest.raises(ModelError, match="schema"):
        TreeEnsemble.from_json({**trees.to_json(), "schema": 99})


def _space(name):
    from workbench.tuning import resolve_space

    return resolve_space(f"{SPACES / name}.py:space")


def _model_on(frames):
    return fit_space_order(frames, json.loads(BASE.read_text()),
                           settings={"n_estimators": 30})


@pytest.fixture(scope="module")
def fitted():
    """Trees fitted on two spaces' rows, their times made up from their counts (a
    known order to learn: the slower, the more global loads relative to the space)."""
    from workbench.models.residency_penalty import ResidencyPenalty

    base = ResidencyPenalty(load_model(BASE))
    document = json.loads(BASE.read_text())
    frames = []
    for name in ("triad", "transpose"):
        space = _space(name)
        every = training_frame(base, document, space,
                               {p.label: 1.0 for p in space.points()})
        measured = np.exp(every[PREDICTION] + 0.5 * every[GROUP])
        frames.append(training_frame(base, document, space,
                                     dict(zip(every["label"], measured))))
    return _model_on(frames), frames


def test_features_are_relative_to_the_points_predicted_together(fitted):
    from workbench.kernels.candidate import Candidate
    from workbench.models.prediction import predict

    model, _ = fitted
    space = _space("triad")
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    inner = predict(model.base, candidates)
    whole = space_features(inner, model.properties)
    assert whole.shape == (len(candidates), len(feature_names(model.properties)))
    # every count column and the prediction are centred on their median
    centred = whole[:, :len(model.properties) + 1]
    assert np.allclose(np.nanmedian(centred, axis=0), 0.0)
    # one point alone: nothing to be relative to, the cheap model's time
    alone = predict(model, candidates[:1])
    assert alone.seconds[0] == pytest.approx(inner.seconds[0])


def test_the_trees_order_replaces_the_cheap_order_and_keep_its_level(fitted):
    from workbench.tuning.ranking import predict_space

    model, frames = fitted
    space = _space("transpose")
    cheap = predict_space(model.base, space)
    learned = predict_space(model, space)
    ok = np.isfinite(cheap.seconds)
    assert np.mean(np.log(learned.seconds[ok])) == pytest.approx(
        np.mean(np.log(cheap.seconds[ok])))
    # the made-up times favour small groups, which the cheap model does not know
    groups = np.array([np.prod(c.group_size) for c in learned.candidates])
    assert np.corrcoef(np.log(learned.seconds[ok]), np.log2(groups[ok]))[0, 1] > \
        np.corrcoef(np.log(cheap.seconds[ok]), np.log2(groups[ok]))[0, 1]
    term = dict((t.name, t.value) for t in learned.breakdowns[0].terms)
    assert RELATIVE_TERM in term and "residency_factor" in term


def test_a_streamed_ranking_reorders_the_whole_space_once_it_is_counted(fitted):
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.stream import rank_streamed

    model, _ = fitted
    space = _space("transpose")
    points = list(space.points())
    streamed = rank_streamed(model, space, points, jobs=1)
    whole = rank_space(model, space, points)
    assert np.allclose(streamed.whole.predicted_s, whole.predicted_s, equal_nan=True)
    # the structures' arrivals carry the cheap model's predictions
    base = rank_space(model.base, space, points)
    cheap = {c.point.label: t for c, t in zip(base.candidates, base.predicted_s)}
    for arrival in streamed.arrivals:
        assert np.allclose(arrival.predicted_s, [cheap[lab] for lab in arrival.labels])
    assert streamed.whole.seconds >= streamed.arrivals[-1].done_s


def test_the_model_file_round_trips_compressed(fitted, tmp_path):
    model, _ = fitted
    path = tmp_path / "order.json.xz"
    save_model(model, path)
    assert json.loads(lzma.decompress(path.read_bytes()))["family"] == "space-order"
    loaded = load_model(path)
    assert isinstance(loaded, SpaceOrderModel)
    x = np.random.default_rng(1).normal(size=(20, len(model.trees.features)))
    assert np.array_equal(loaded.trees.predict(x), model.trees.predict(x))
    (tmp_path / "bad.json.xz").write_bytes(b"not xz")
    with pytest.raises(ModelError, match="xz-compressed"):
        load_model(tmp_path / "bad.json.xz")


def test_a_fit_needs_two_spaces_and_a_document_names_its_base(fitted):
    _, frames = fitted
    with pytest.raises(ModelError, match="two measured spaces"):
        _model_on(frames[:1])
    model, _ = fitted
    document = model.to_json()
    document["properties"] = document["properties"][:-1]
    from workbench.models.space_order import SpaceOrderFamily

    with pytest.raises(ModelError, match="properties"):
        SpaceOrderFamily().load(document)
    with pytest.raises(ModelError, match="dataset rows"):
        model.predict(pd.DataFrame())


def test_interleaving_takes_the_two_orders_in_turn_with_the_cheap_times_spread():
    from workbench.models.space_order import interleaved_times

    learned = np.array([3.0, 1.0, 2.0, 0.0])      # trees: point 3 best, then 1, 2, 0
    cheap = np.array([1.0, 2.0, 3.0, 4.0])        # cheap: point 0 best, then 1, 2, 3
    # trees' 3, cheap's 0, trees' 1, then cheap's best not taken: 2
    assert interleaved_times(learned, cheap).tolist() == [2.0, 3.0, 4.0, 1.0]
    # one order alone is kept where the other agrees
    assert interleaved_times(cheap, cheap).tolist() == cheap.tolist()


def test_an_interleaved_model_ranks_both_orders_and_keeps_the_flag_in_its_file(fitted, tmp_path):
    import dataclasses

    from workbench.tuning.ranking import predict_space

    model, _ = fitted
    both = dataclasses.replace(model, interleave=True)
    space = _space("transpose")
    cheap = predict_space(model.base, space).seconds
    trees = predict_space(model, space).seconds
    mixed = predict_space(both, space).seconds
    # the cheap model's times, reassigned
    assert np.allclose(np.sort(mixed), np.sort(cheap))
    first, second = np.argsort(mixed)[:2]
    assert first == np.argmin(trees)
    assert second == (np.argsort(cheap)[0] if np.argsort(cheap)[0] != first
                      else np.argsort(cheap)[1])
    save_model(both, tmp_path / "both.json.xz")
    assert load_model(tmp_path / "both.json.xz").interleave


def test_interleaving_survives_equal_cheap_times():
    from workbench.models.space_order import interleaved_times

    learned = np.array([2.0, 1.0, 0.0])           # trees: point 2, then 1, then 0
    cheap = np.array([1.0, 1.0, 1.0])             # one floor: all tied
    out = interleaved_times(learned, cheap)
    assert np.argsort(out, kind="stable").tolist() == [2, 0, 1]
    assert np.allclose(out, 1.0)


def test_the_numpy_trees_score_as_an_xgboost_ranker_does():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 4))
    query = np.repeat(np.arange(6), 50)
    grade = np.clip((x[:, 0] + 0.5 * x[:, 1] > 0.5).astype(int) + (x[:, 0] > 1.2), 0, 2)
    ranker = xgboost.XGBRanker(n_estimators=20, max_depth=3, objective="rank:ndcg",
                               lambdarank_pair_method="topk", n_jobs=1,
                               random_state=0).fit(x, grade, qid=query)
    trees = TreeEnsemble.of_xgboost(ranker.get_booster(), list("abcd"))
    test = rng.normal(size=(100, 4))
    assert np.allclose(trees.predict(test), ranker.predict(test), rtol=0, atol=1e-5)


def test_relevance_grades_the_share_of_the_best():
    from workbench.models.space_order import relevance

    seconds = np.array([1.0, 1.04, 1.1, 1.2, 1.5, 3.0])
    # 100 and 96 % of the best: 4; 91 %: 3; 83 %: 2; 67 %: 1; 33 %: 0
    assert relevance(seconds).tolist() == [4, 4, 3, 2, 1, 0]


def test_a_ranking_fit_orders_by_its_scores_with_the_cheap_times_handed_out(fitted, tmp_path):
    from workbench.tuning.ranking import predict_space

    _, frames = fitted
    model = fit_space_order(frames, json.loads(BASE.read_text()),
                            settings={"n_estimators": 30}, objective="ranking")
    space = _space("transpose")
    cheap = predict_space(model.base, space).seconds
    learned = predict_space(model, space)
    ok = np.isfinite(cheap)
    # the cheap model's times, reassigned in the order of the scores (highest first)
    assert np.allclose(np.sort(learned.seconds[ok]), np.sort(cheap[ok]))
    scores = np.array([dict((t.name, t.value) for t in b.terms)[RELATIVE_TERM]
                       for b in learned.breakdowns])
    first = int(np.argmin(learned.seconds))
    assert scores[first] == pytest.approx(scores[ok].min())
    # the made-up times favour small groups: the first pick is among the smallest
    groups = np.array([np.prod(c.group_size) for c in learned.candidates])
    assert groups[first] == groups[ok].min()
    save_model(model, tmp_path / "ranked.json.xz")
    again = load_model(tmp_path / "ranked.json.xz")
    assert again.objective == "ranking"
    assert np.array_equal(predict_space(again, space).seconds, learned.seconds)
    with pytest.raises(ModelError, match="objective"):
        fit_space_order(frames, json.loads(BASE.read_text()), objective="pairs")


def test_a_tie_gap_keeps_the_handed_times_apart_so_near_ties_follow_the_learned_order():
    from workbench.models.space_order import handed_times
    from workbench.tuning.guided import ModelEI

    cheap = np.array([1.0, 1.0, 1.001, 1.01, 2.0])    # four cheap times within 2 %
    order = [4, 3, 2, 1, 0]
    plain = handed_times(order, cheap)
    assert np.sum(np.log(plain) <= np.log(plain.min()) + ModelEI.TIE) == 4
    apart = handed_times(order, cheap, ModelEI.TIE + 1e-3)
    assert np.argsort(apart).tolist() == order
    # no two within the tie: a strategy's first pick is the learned order's first
    assert np.sum(np.log(apart) <= np.log(apart.min()) + ModelEI.TIE) == 1
    assert apart[0] == pytest.approx(2.0)             # the cheap spread kept past the gap
