"""The Lift models on the shipped H100 data: the sample file, the boosted-trees
ranker beside the kNN, the two learned strategies (never trained on the explored
program, a clear message when nothing else is there), and the ir-knn family."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.cli.main import main
from workbench.errors import ModelError, TuningError
from workbench.measure.store import resolve_store_path
from workbench.models import get_family, load_model, save_model
from workbench.models.ir_features import (
    BoostedConfig,
    KNNConfig,
    feature_information,
    leave_one_benchmark_out,
    load_samples,
    lobo_frame,
    save_samples,
)
from workbench.models.ir_features.lobo import quantile_bins
from workbench.models.ir_features.samples import BENCHMARK, INPUT, TARGET
from workbench.tuning import get_space, make_strategy
from workbench.tuning.ir_strategies import IRBoostedRanker
from workbench.tuning.ir_training import training_frame

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"
SAMPLES = H100 / "ir-samples.csv.xz"
LIFT = H100 / "lift.sqlite"
pytestmark = pytest.mark.skipif(not SAMPLES.exists() or resolve_store_path(LIFT) is None,
                                reason="no shipped Lift data")


@pytest.fixture(scope="module")
def samples() -> pd.DataFrame:
    return load_samples(SAMPLES)


def test_the_sample_file_is_the_shipped_stores_every_point(samples):
    lift = samples[samples[BENCHMARK].str.startswith("lift_")]
    assert len(lift) == 9762 and lift[BENCHMARK].nunique() == 8
    assert set(lift[INPUT]) == {"n=512", "n=2048", "n=8192"}
    # normalized per benchmark and input: each group's best is exactly 1
    best = lift.groupby([BENCHMARK, INPUT])[TARGET].max()
    assert np.allclose(best, 1.0) and (lift[TARGET] > 0).all()


def test_a_sample_file_round_trips_and_anything_else_is_refused(samples, tmp_path):
    part = samples.head(50)
    save_samples(part, tmp_path / "s.csv", {"test": True})
    back = load_samples(tmp_path / "s.csv")
    pd.testing.assert_frame_equal(back.reset_index(drop=True), part.reset_index(drop=True),
                                  check_dtype=False)
    (tmp_path / "plain.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ModelError, match="not a sample file"):
        load_samples(tmp_path / "plain.csv")


def test_boosted_ranker_and_knn_leave_one_benchmark_out(samples):
    three = samples[samples[BENCHMARK].isin(["lift_jacobi5", "lift_jacobi9",
                                            "lift_gradient"])]
    small = BoostedConfig(trees=30)
    for config in (KNNConfig(), small):
        frame = lobo_frame(leave_one_benchmark_out(three, config))
        assert len(frame) == 9 and frame["correlation"].notna().all()
        assert (frame["runs_to_90"] >= 1).all()
        if config is small:
            assert (frame["components"] == 0).all()      # trees split the features
        else:
            assert (frame["components"] >= 1).all()
    with pytest.raises(ModelError, match="objective"):
        BoostedConfig(objective="rank:magic")


def test_a_feature_with_a_rare_value_is_not_binned_as_constant():
    values = np.array([1.0] * 95 + [2.0] * 5)
    assert set(quantile_bins(values, 10)) == {0, 1}


def test_feature_information_sees_every_varying_feature(samples):
    info = feature_information(samples[samples[BENCHMARK] == "lift_jacobi5"])[0]
    assert info.nmi["cache_lines_per_warp_access"] > 0
    assert info.nmi["global_size_2"] == 0.0          # constant: no information


def test_learned_strategies_never_train_on_the_explored_program():
    space = get_space("lift_gradient", n=512)
    # a small forest: what is checked is the training set, not the ranking's quality
    for strategy in (make_strategy("knn", training=[SAMPLES]),
                     IRBoostedRanker(training=[SAMPLES], config=BoostedConfig(trees=20))):
        strategy.start(space, space.points())
        assert "lift_gradient" not in strategy.trained_on
        assert "lift_jacobi5" in strategy.trained_on
    frame = training_frame([SAMPLES], exclude="lift_gradient", only=["lift_jacobi5"])
    assert set(frame[BENCHMARK]) == {"lift_jacobi5"}


def test_a_training_set_with_nothing_but_the_explored_program_says_so(samples, tmp_path):
    only = tmp_path / "only.csv"
    save_samples(samples[samples[BENCHMARK] == "lift_srad1"], only, {"test": True})
    space = get_space("lift_srad1", n=512)
    for name in ("knn", "xgb"):
        with pytest.raises(TuningError, match="--training"):
            make_strategy(name, training=[only]).start(space, space.points())


def test_learned_strategies_refuse_a_time_tiled_space():
    space = get_space("tt_heat2d")
    with pytest.raises(TuningError, match="--model tiling"):
        make_strategy("knn", training=[SAMPLES]).start(space, space.points())


def test_tune_cli_replays_the_boosted_ranker(capsys):
    args = ["tune", "lift_jacobi9", "--param", "n=2048", "--strategy", "xgb",
            "--replay", str(LIFT), "--training", str(SAMPLES), "--budget-evals", "2",
            "--no-progress"]
    assert main(args) == 0
    assert "2 evaluations (0 failed) with xgb" in capsys.readouterr().out


def test_the_ir_knn_family_predicts_relative_times_and_round_trips(tmp_path):
    family = get_family("ir-knn")
    model = family.ready(samples=str(SAMPLES), exclude=["lift_jacobi5"])
    assert "lift_jacobi5" not in model.model.benchmarks
    from workbench.models.ir_features import space_ir_features

    space = get_space("lift_jacobi5", n=2048)
    relative = model.predict(space_ir_features(space))
    assert len(relative) == len(space.points()) and (relative >= 1.0).all()
    assert model.report_data()["fit"]["unit"].startswith("relative time")
    save_model(model, tmp_path / "m.json")
    again = load_model(tmp_path / "m.json")
    assert np.allclose(again.predict(space_ir_features(space)), relative)
    with pytest.raises(ModelError, match="unknown ir-knn option"):
        family.fit(load_samples(SAMPLES).head(20), neighbours=3)
