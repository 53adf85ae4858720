"""Lift's model-guided exploration as a tuning strategy: measure a space's points in
the order that the IR-feature kNN model (:mod:`workbench.models.ir_features`)
predicts, the model trained on *other* programs' measured spaces, never on this one.

The training data are tuning stores holding exhaustively measured catalog spaces (by
default the shipped ``sample_data/h100/tuning.sqlite``); every catalog space found
there at its stored size, except the one explored, becomes a training benchmark.
Ranking costs the features of the explored points and one kNN query each: it is
counted as the strategy's seconds, like every ranking.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from workbench.errors import TuningError
from workbench.tuning.strategies import STRATEGIES, _Ordered

SHIPPED_TRAINING = Path("h100") / "tuning.sqlite"


def shipped_training_store() -> Path | None:
    from workbench.measure.samples import sample_data_root

    root = sample_data_root()
    path = root / SHIPPED_TRAINING if root is not None else None
    return path if path is not None and path.is_file() else None


def training_samples(stores: Sequence[str | Path], exclude: str):
    """The measured catalog spaces of ``stores`` (at the sizes stored), less ``exclude``,
    as kNN samples; a clear error when none is left to learn from."""
    import pandas as pd

    from workbench.measure.store import MeasurementStore
    from workbench.models.ir_features import space_samples
    from workbench.tuning.catalog import SPACES, get_space
    from workbench.tuning.evaluation import space_kernel_name
    from workbench.tuning.replay import load_space_evaluations

    frames = []
    for name in SPACES:
        if name == exclude:
            continue
        sizes = set()
        for path in stores:
            with MeasurementStore.open(path, create=False, readonly=True) as store:
                sizes |= {tuple(sorted(m.key.params_dict.items()))
                          for m in store.measurements(kernel=space_kernel_name(name))}
        for size in sorted(sizes):
            space = get_space(name, **dict(size))
            evaluations = load_space_evaluations(list(stores), space)
            if len(evaluations) == len(space.points()):   # only exhaustive spaces teach
                frames.append(space_samples(space, evaluations))
    if not frames:
        raise TuningError(f"the kNN strategy learns from other spaces measured "
                          f"exhaustively, and {', '.join(map(str, stores))} holds none "
                          f"besides {exclude!r}: give --training STORE")
    return pd.concat(frames, ignore_index=True)


class IRFeatureKNN(_Ordered):
    """Measure in the order of the kNN model's predicted normalized throughput."""

    name = "knn"

    def __init__(self, seed: int = 0, training: Sequence[str | Path] | None = None):
        super().__init__(seed)
        if training is None:
            shipped = shipped_training_store()
            training = [shipped] if shipped is not None else []
        self.training = [Path(p) for p in training]
        self.trained_on: tuple[str, ...] = ()

    def order(self, space, points):
        from workbench.models.ir_features import fit_ir_knn, space_ir_features

        if not self.training:
            raise TuningError("the kNN strategy needs measured spaces to learn from: "
                              "give --training STORE (no shipped tuning store here)")
        began = time.perf_counter()
        model = fit_ir_knn(training_samples(self.training, exclude=space.name))
        self.trained_on = tuple(model.benchmarks)
        predicted = model.predict(space_ir_features(space, points))
        # best first; kNN averages give many exact ties, taken in a seeded random order
        rng = np.random.default_rng(self.seed)
        tiebreak = rng.permutation(len(points))
        order = np.lexsort((tiebreak, -np.asarray(predicted)))
        return [points[i] for i in order], time.perf_counter() - began


STRATEGIES[IRFeatureKNN.name] = IRFeatureKNN
