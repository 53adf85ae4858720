"""A gradient-boosted-trees ranker on the same IR features: the kind of learned cost
model TVM's AutoTVM uses (XGBoost trained to order the variants of one program),
here as the comparison point the Lift paper's kNN is measured against.

It learns *orders*, not times: the variants of one benchmark at one input form a
query group, and each variant's relevance is its normalized throughput in grades of
``1 / grades`` (1.0, the best of its group, has the highest grade).  Its scores order
the variants of a new program; their scale means nothing.  Training is
deterministic (one seed, a fixed thread count).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.ir_features.samples import (
    BENCHMARK,
    INPUT,
    TARGET,
    check_features,
    check_samples,
    feature_matrix,
)

OBJECTIVES = ("rank:ndcg", "rank:pairwise", "reg:squarederror")


@dataclass(frozen=True)
class BoostedConfig:
    """XGBoost's settings.  ``rank:pairwise`` is AutoTVM's loss; ``rank:ndcg``
    weighs the top of each group most, which is what exploration needs (it reached
    90 % of the best in fewer runs on the shipped spaces); ``reg:squarederror``
    regresses the normalized throughput instead of ranking."""

    objective: str = "rank:ndcg"
    trees: int = 300
    depth: int = 6
    learning_rate: float = 0.1
    grades: int = 10
    seed: int = 0
    threads: int = 2
    device: str | None = None     # add the GPU features on it, as KNNConfig does

    def __post_init__(self):
        if self.objective not in OBJECTIVES:
            raise ModelError(f"unknown boosted-trees objective {self.objective!r} "
                             f"(known: {', '.join(OBJECTIVES)})")
        for name in ("trees", "depth", "grades", "threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ModelError(f"boosted trees: {name} must be a positive integer, "
                                 f"not {value!r}")
        if not 0.0 < float(self.learning_rate) <= 1.0:
            raise ModelError(f"boosted trees: learning rate must lie in (0, 1], not "
                             f"{self.learning_rate!r}")

    @property
    def ranks(self) -> bool:
        return self.objective.startswith("rank:")

    def fit(self, samples: pd.DataFrame) -> IRBoostedModel:
        return fit_ir_boosted(samples, self)


@dataclass(frozen=True, eq=False)
class IRBoostedModel:
    config: BoostedConfig
    booster: object
    benchmarks: tuple[str, ...]
    samples: int
    components: int = 0                      # no projection: trees split features

    def predict(self, features: pd.DataFrame) -> np.ndarray:
        """A score per row of ``features``: higher is predicted faster."""
        check_features(features, "the variants to predict")
        if len(features) == 0:
            return np.empty(0)
        return np.asarray(self.booster.predict(
            feature_matrix(features, self.config.device)), dtype=float)


def fit_ir_boosted(samples: pd.DataFrame, config: BoostedConfig = BoostedConfig()
                   ) -> IRBoostedModel:
    """Fit on a sample frame (:mod:`workbench.models.ir_features.samples`)."""
    import xgboost

    check_samples(samples, "the training set")
    common = dict(n_estimators=config.trees, max_depth=config.depth,
                  learning_rate=config.learning_rate, random_state=config.seed,
                  n_jobs=config.threads, tree_method="hist")
    if config.ranks:
        # a query group is one benchmark at one input; XGBoost wants them contiguous
        ordered = samples.sort_values([BENCHMARK, INPUT], kind="stable")
        sizes = ordered.groupby([BENCHMARK, INPUT], sort=False).size().to_numpy()
        grades = np.floor(ordered[TARGET].to_numpy(dtype=float) * config.grades)
        booster = xgboost.XGBRanker(objective=config.objective, **common)
        booster.fit(feature_matrix(ordered, config.device),
                    grades.astype(int), group=sizes)
    else:
        booster = xgboost.XGBRegressor(objective=config.objective, **common)
        booster.fit(feature_matrix(samples, config.device),
                    samples[TARGET].to_numpy(dtype=float))
    return IRBoostedModel(config, booster, tuple(pd.unique(samples[BENCHMARK])),
                          len(samples))
