"""The paper's predictor (section 5): standardize the IR features, keep the principal
components that explain 95 % of their variance, and average the normalized
throughput of the k = 5 nearest training variants (Euclidean distance).

kNN needs no training beyond remembering the samples; "fitting" here is computing
the scaling and the components from the training benchmarks, which held-out
variants are then projected on (section 5.4, step 1a).

Ties: variants of different inputs share their IR features, so most queries have
several training variants at exactly the k-th distance (on the shipped H100 samples,
7,488 of 9,762 in leave-one-benchmark-out), with different throughputs.  Which of
them a k-d tree returns depends on its build and on the last bits of the projected
features, so the same data gave other predictions on another machine.
:class:`TieAveragedKNN` averages over every way of choosing among them: the variants
strictly nearer than the k-th distance count fully, and those at it (within a relative
1e-9) share what is left of the k weights.  That is the expectation over random tie
breaks, the same on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.ir_features.samples import (
    BENCHMARK,
    TARGET,
    check_features,
    check_samples,
    feature_matrix,
)

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline


def __getattr__(name: str):
    # the estimator lives in its own module (scikit-learn is imported on first use)
    if name in ("TieAveragedKNN", "TIE_TOLERANCE"):
        from workbench.models.ir_features import knn_estimator
        return getattr(knn_estimator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class KNNConfig:
    """The pipeline's settings; the defaults are the paper's."""

    neighbors: int = 5
    variance: float = 0.95                   # fraction of the variance PCA keeps
    # log(1 + x) of every feature before standardizing: sizes and counts span four
    # orders of magnitude, and a neighbour should be near in ratio, not difference
    # (not in the paper; compared with it in benchmarks/lift_exploration.py)
    log_features: bool = False
    # the GPU features on this device (a shipped description's name, "h100") after
    # Table 1's (not in the paper; :mod:`workbench.models.ir_features.gpu`)
    device: str | None = None

    def __post_init__(self):
        if isinstance(self.neighbors, bool) or not isinstance(self.neighbors, int) \
                or self.neighbors < 1:
            raise ModelError(f"kNN neighbors must be a positive integer, not "
                             f"{self.neighbors!r}")
        if not 0.0 < float(self.variance) < 1.0:
            raise ModelError(f"PCA variance to keep must lie strictly between 0 and 1, "
                             f"not {self.variance!r}")

    def fit(self, samples: pd.DataFrame) -> IRKNNModel:
        return fit_ir_knn(samples, self)

    def pipeline(self) -> Pipeline:
        from sklearn.decomposition import PCA
        from sklearn.pipeline import Pipeline
        from sklearn.preprocessing import FunctionTransformer, StandardScaler

        from workbench.models.ir_features.knn_estimator import TieAveragedKNN

        log = [("log", FunctionTransformer(np.log1p))] if self.log_features else []
        return Pipeline([
            *log,
            ("scale", StandardScaler()),
            # "full": the exact SVD, so that the components kept do not depend on a seed
            ("pca", PCA(n_components=self.variance, svd_solver="full")),
            ("knn", TieAveragedKNN(n_neighbors=self.neighbors)),
        ])


@dataclass(frozen=True, eq=False)
class IRKNNModel:
    """A fitted pipeline and what it was fitted on."""

    config: KNNConfig
    pipeline: Pipeline
    benchmarks: tuple[str, ...]
    samples: int

    @property
    def components(self) -> int:
        """Principal components kept."""
        return int(self.pipeline.named_steps["pca"].n_components_)

    def predict(self, features: pd.DataFrame) -> np.ndarray:
        """Predicted normalized throughput (1.0: as fast as the best variant of its
        input), one per row of ``features``."""
        check_features(features, "the variants to predict")
        if len(features) == 0:
            return np.empty(0)
        return self.pipeline.predict(feature_matrix(features, self.config.device))


def fit_ir_knn(samples: pd.DataFrame, config: KNNConfig = KNNConfig()) -> IRKNNModel:
    """Fit on a sample frame (:mod:`workbench.models.ir_features.samples`) of one or
    more benchmarks."""
    check_samples(samples, "the training set")
    if len(samples) < config.neighbors:
        raise ModelError(f"the training set has {len(samples)} variant(s), fewer than "
                         f"the {config.neighbors} neighbours kNN averages")
    pipeline = config.pipeline()
    pipeline.fit(feature_matrix(samples, config.device),
                 samples[TARGET].to_numpy(dtype=float))
    return IRKNNModel(config, pipeline, tuple(pd.unique(samples[BENCHMARK])), len(samples))
