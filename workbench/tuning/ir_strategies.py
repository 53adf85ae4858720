"""Model-guided exploration on IR features as tuning strategies: measure a space's
points in the order a model predicts, the model trained on *other* programs'
measured spaces, never on the one explored (the Lift paper's protocol).

* ``knn``: the paper's model (standardized features, PCA to 95 % of the variance,
  the k = 5 nearest neighbours' normalized throughput);
* ``xgb``: a gradient-boosted-trees ranker on the same features (the kind of
  learned cost model TVM uses), :mod:`workbench.models.ir_features.boosted`.

Training data come from :mod:`workbench.tuning.ir_training` (default: the shipped
H100 samples).  Ranking costs reading them, fitting the model (or reading it from
the on-disk cache, :func:`~workbench.tuning.ir_training.fitted_model`, when the same
samples trained it before), the explored points' features (read by worker processes
while the model is fitted) and one prediction each: all of it is counted as the
strategy's seconds, like every ranking.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from workbench.errors import TuningError
from workbench.tuning.strategies import STRATEGIES, _Ordered


class _IRModelGuided(_Ordered):
    """Measure in the order of an IR-feature model's predictions, best first."""

    def __init__(self, seed: int = 0, training: Sequence[str | Path] | None = None,
                 config=None, only: Sequence[str] | None = None):
        from workbench.tuning.ir_training import shipped_training

        super().__init__(seed)
        self.training = [Path(p) for p in (shipped_training() if training is None
                                           else training)]
        self.config = config if config is not None else self.default_config()
        self.only = None if only is None else tuple(only)
        self.trained_on: tuple[str, ...] = ()

    @staticmethod
    def default_config():
        raise NotImplementedError

    def order(self, space, points):
        from workbench.models.ir_features import space_ir_features_started
        from workbench.tuning.ir_training import fitted_model

        if getattr(space, "sequence", None) is not None:
            raise TuningError(f"{space.name} runs as a sequence of launches, which the IR "
                              f"features of one kernel do not describe: rank it with "
                              f"--strategy model --model tiling")
        if not self.training:
            raise TuningError(f"the {self.name} strategy needs measured spaces to learn "
                              "from: give --training STORE or SAMPLES.csv (no shipped "
                              "sample data here)")
        began = time.perf_counter()
        # the explored points' features are read by worker processes while this one
        # fits the model (boosted trees: seconds) or reads it from the cache
        features = space_ir_features_started(space, points)
        try:
            model = fitted_model(self.config, self.training, exclude=space.name,
                                 only=self.only)
        except BaseException:
            features.cancel()
            raise
        self.trained_on = tuple(model.benchmarks)
        predicted = model.predict(features.frame())
        # best first; kNN averages give many exact ties, taken in a seeded random order
        rng = np.random.default_rng(self.seed)
        tiebreak = rng.permutation(len(points))
        order = np.lexsort((tiebreak, -np.asarray(predicted)))
        return [points[i] for i in order], time.perf_counter() - began


class IRFeatureKNN(_IRModelGuided):
    """Lift's PCA + kNN (the paper's settings unless ``config`` says otherwise)."""

    name = "knn"

    @staticmethod
    def default_config():
        from workbench.models.ir_features import KNNConfig

        return KNNConfig()


class IRBoostedRanker(_IRModelGuided):
    """A gradient-boosted-trees ranker on the IR features."""

    name = "xgb"

    @staticmethod
    def default_config():
        from workbench.models.ir_features import BoostedConfig

        return BoostedConfig()


STRATEGIES[IRFeatureKNN.name] = IRFeatureKNN
STRATEGIES[IRBoostedRanker.name] = IRBoostedRanker
