"""Model-guided variant selection: rank a family's candidates by predicted time.

The figure of merit (2019 paper) is the measured performance of the predicted pick
as a fraction of the best measured candidate: best_time / time_of_pick, 1.0 when the
model picks the true winner.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.kernels.families import Candidate, VariantFamily
from workbench.models.contract import FittedModel
from workbench.models.expressions.insitu import TwinKey
from workbench.models.prediction import predict


def rank_candidates(model: FittedModel, family: VariantFamily,
                    measured: Mapping[Candidate, float] | None = None, *,
                    twins: Mapping[TwinKey, float] | None = None,
                    device: str | None = None) -> pd.DataFrame:
    """One row per candidate: predicted (and measured) time and both ranks.

    ``device`` (default: the model's) names the device the candidates run on, for
    device features; ``twins`` are measured work-removed twins (see
    :func:`workbench.models.expressions.insitu.twin_times`) for models that use their times.
    """
    measured = measured or {}
    context = {}
    if twins is not None:
        context["twins"] = twins
    if device is not None:
        context["device"] = device
    result = predict(model, family.candidates, **context)
    out = pd.DataFrame({
        "candidate": [c.label for c in family.candidates],
        "kernel": [c.kernel_name for c in family.candidates],
        "variant": [c.variant for c in family.candidates],
        "group_size": ["x".join(map(str, c.group_size)) for c in family.candidates],
        "params": [",".join(f"{a}={b}" for a, b in c.params) for c in family.candidates],
        "predicted_s": result.seconds,
        "measured_s": [measured.get(c, np.nan) for c in family.candidates]})
    out["predicted_rank"] = out["predicted_s"].rank(method="min")
    out["measured_rank"] = out["measured_s"].rank(method="min")
    return out.sort_values("predicted_rank").reset_index(drop=True)


@dataclass(frozen=True)
class FamilySelection:
    family: str
    ranking: pd.DataFrame
    pick: str
    best: str
    fraction_of_best: float   # best measured time / measured time of the pick

    def to_json(self) -> dict:
        return {"family": self.family, "pick": self.pick, "best": self.best,
                "fraction_of_best": self.fraction_of_best,
                "ranking": self.ranking.to_dict(orient="records")}


def select(model: FittedModel, family: VariantFamily,
           measured: Mapping[Candidate, float], *,
           twins: Mapping[TwinKey, float] | None = None,
           device: str | None = None) -> FamilySelection:
    """The predicted pick and how it measures against the best measured candidate.

    Candidates without a prediction (a missing twin measurement) cannot be picked.
    """
    ranking = rank_candidates(model, family, measured, twins=twins, device=device)
    known = ranking.dropna(subset=["measured_s", "predicted_s"])
    if known.empty:
        return FamilySelection(family.name, ranking, ranking.iloc[0]["candidate"], "",
                               float("nan"))
    pick = known.sort_values("predicted_s").iloc[0]
    best = known.sort_values("measured_s").iloc[0]
    return FamilySelection(family.name, ranking, pick["candidate"], best["candidate"],
                           float(best["measured_s"] / pick["measured_s"]))


def measured_times(measurements, family: VariantFamily) -> dict[Candidate, float]:
    """Match stored measurements (the latest per configuration) to a family's candidates."""
    by_key = {}
    for m in measurements:
        if m.time_s is not None:
            by_key[m.key.kernel, m.key.variant, m.key.dtype, m.key.group_size,
                   m.key.params] = m.time_s
    out = {}
    for c in family.candidates:
        t = by_key.get((c.kernel, c.variant, c.dtype, tuple(c.group_size), c.params))
        if t is not None and np.isfinite(t):
            out[c] = t
    return out
