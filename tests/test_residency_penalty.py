"""The residency penalty on a model's predictions (issue #33,
``workbench.models.residency_penalty``): its factor from a point's group and declared
local memory, and a wrapped model's ranking.  A stand-in model keeps it fast."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate
from workbench.models.residency_penalty import ResidencyPenalty, residency_factors
from workbench.tuning import resolve_space
from workbench.tuning.ranking import rank_space

ROOT = Path(__file__).resolve().parents[1]
H100 = "NVIDIA H100 80GB HBM3"


class FlatModel:
    """Every point predicted at 1 ms: any order comes from the penalty alone."""

    family = "flat"

    def predict_candidates(self, candidates, **context):
        from workbench.models.prediction import Breakdown, Term, TermKind, make_predictions

        return make_predictions(candidates, [1e-3] * len(candidates), breakdowns=[
            Breakdown((Term("flat", TermKind.SECONDS, 1e-3),)) for _ in candidates])


@pytest.fixture(scope="module")
def triad():
    return resolve_space(f"{ROOT}/examples/spaces/triad.py:space")


def _candidates(space, labels):
    return [Candidate.of_point(space, space.point(label)) for label in labels]


def test_factor_follows_the_groups_a_multiprocessor_holds(triad):
    # H100: 2048 threads and 32 groups a multiprocessor
    factors, resident = residency_factors(
        _candidates(triad, ["g=32,wpi=1,order=cyclic", "g=256,wpi=1,order=cyclic",
                            "g=1024,wpi=1,order=cyclic"]), H100)
    assert resident.tolist() == [32, 8, 2]
    assert factors.tolist() == [1 + 1 / 32, 1 + 1 / 8, 1.5]


def test_declared_local_memory_binds(triad):
    # 233472 bytes a multiprocessor, 1024 reserved per group, 232448 at most a group
    for declared, expected in ((100_000, 2), (150_000, 1), (240_000, 0)):
        space = dataclasses.replace(triad, local_bytes=lambda p, b=declared: b)
        factors, resident = residency_factors(
            _candidates(space, ["g=64,wpi=1,order=cyclic"]), H100, strength=0.5)
        assert resident.tolist() == [expected]
        assert factors[0] == (1 + 0.5 / expected if expected else np.inf)


def test_wrapped_model_ranks_the_most_resident_groups_first(triad):
    penalised = ResidencyPenalty(FlatModel(), on_device=H100)
    assert penalised.family == "flat+residency"
    ranking = rank_space(penalised, triad)
    groups = [c.point["g"] for c in ranking.ranked]
    assert groups == sorted(groups)     # fewer items a group: more groups resident
    first, last = ranking.ranked[0], ranking.ranked[-1]
    assert first.point["g"] == 32 and last.point["g"] == 1024
    assert ranking.predicted_s[int(ranking.order[-1])] == pytest.approx(1.5e-3)
    plain = rank_space(FlatModel(), triad)
    assert np.all(ranking.predicted_s >= plain.predicted_s)


def test_breakdown_carries_the_factor(triad):
    from workbench.models.prediction import predict

    result = predict(ResidencyPenalty(FlatModel(), strength=2.0, on_device=H100),
                     _candidates(triad, ["g=512,wpi=1,order=cyclic"]))
    assert result.seconds[0] == pytest.approx(1e-3 * (1 + 2 / 4))
    terms = {t.name: t.value for t in result.breakdowns[0].terms}
    assert terms == {"flat": 1e-3, "residency_factor": 1.5}


def test_refuses_what_it_cannot_price(triad):
    with pytest.raises(ModelError, match="needs a device"):
        ResidencyPenalty(FlatModel())
    with pytest.raises(ModelError, match="strength"):
        ResidencyPenalty(FlatModel(), strength=-1.0, on_device=H100)
    with pytest.raises(ModelError, match="residency limits"):
        rank_space(ResidencyPenalty(FlatModel(), on_device="no such device"), triad)


def test_tune_cli_ranks_with_the_penalty(triad, capsys):
    import json

    from workbench.cli.main import main
    from workbench.models import load_model

    weights = ROOT / "sample_data/h100/weights-linear-non-negative.json"
    first = rank_space(ResidencyPenalty(load_model(weights)), triad).best.point
    assert main(["tune", f"{ROOT}/examples/spaces/triad.py:space", "--strategy", "model",
                 "--weights", str(weights), "--residency-penalty", "--replay",
                 str(ROOT / "sample_data/h100/user-spaces.sqlite"), "--budget-evals", "1",
                 "--no-progress", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["strategy"] == "model:unified-linear+residency"
    assert out["best"]["point"] == first.as_dict()
    assert first["g"] == 32    # the floor's ties broken towards the most resident groups
