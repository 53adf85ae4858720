"""Leave-one-benchmark-out evaluation of the IR-feature predictors (the paper's kNN,
and the boosted-trees ranker it is compared with), and each feature's
normalized mutual information with performance (the paper's sections 6 to 8).

For every benchmark, the model is fitted on all the other benchmarks and predicts
the held-out one's variants.  Per input of the held-out benchmark this gives:

* the Pearson correlation of predicted and measured normalized throughput (7.3);
* the runs to 90 % and 95 % of the best when the variants are measured from the
  highest predicted throughput down (8.1, Figure 6), next to random search's.

kNN averages five neighbours, so many variants get the same prediction; the order
within a tie is arbitrary, so runs are the exact expectation over the orders of
each tied group.  Random search is the case where every variant ties, which gives
the expectation of :mod:`workbench.tuning.metrics`, ``(N + 1) / (m + 1)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.ir_features.boosted import BoostedConfig
from workbench.models.ir_features.knn import KNNConfig
from workbench.models.ir_features.samples import (
    BENCHMARK,
    FEATURES,
    INPUT,
    TARGET,
    check_samples,
)

TARGETS = (0.90, 0.95)
ModelConfig = KNNConfig | BoostedConfig


def expected_runs(predicted: np.ndarray, measured: np.ndarray, target: float
                  ) -> float | None:
    """Expected number of runs, measuring from the highest prediction down and
    each tied group in random order, until a variant at ``target`` (a fraction of
    the best measured) is found; None if none is."""
    predicted = np.asarray(predicted, dtype=float)
    hit = np.asarray(measured, dtype=float) >= target * np.max(measured) - 1e-12
    if not hit.any():
        return None
    # an unpredicted variant comes last, as make_ranking does
    keys = np.where(np.isfinite(predicted), predicted, -np.inf)
    before = 0
    for value in np.unique(keys)[::-1]:
        group = keys == value
        g, m = int(group.sum()), int((group & hit).sum())
        if m:
            # the first of m marked items among g in random order: (g + 1) / (m + 1)
            return before + (g + 1) / (m + 1)
        before += g
    raise AssertionError("unreachable: some group holds a hit")


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson's r; NaN when either side is constant (r is undefined)."""
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


@dataclass(frozen=True)
class HeldOut:
    """One input of one held-out benchmark, predicted by a model fitted on the others."""

    benchmark: str
    input: str
    points: int
    trained_on: tuple[str, ...]
    training_points: int
    components: int                          # principal components kept (0: trees)
    correlation: float                       # Pearson, predicted vs measured
    runs_to: Mapping[float, float | None]    # model order, per target (expected over ties)
    random_runs_to: Mapping[float, float]    # random search's expectation

    def speedup(self, target: float) -> float:
        """Random search's expected runs over the model's, to ``target``."""
        runs = self.runs_to.get(target)
        return float("nan") if runs is None else self.random_runs_to[target] / runs

    def row(self) -> dict:
        row = {"benchmark": self.benchmark, "input": self.input, "points": self.points,
               "training_points": self.training_points, "components": self.components,
               "correlation": self.correlation}
        for t in self.runs_to:
            key = round(100 * t)
            row[f"runs_to_{key}"] = self.runs_to[t]
            row[f"random_runs_to_{key}"] = self.random_runs_to[t]
            row[f"speedup_{key}"] = self.speedup(t)
        return row


def _benchmarks(samples: pd.DataFrame, what: str) -> list[str]:
    check_samples(samples, what)
    names = list(pd.unique(samples[BENCHMARK]))
    if len(names) < 2:
        raise ModelError(f"leave-one-benchmark-out needs at least two benchmarks; "
                         f"{what} has only {names[0]!r}")
    return names


def leave_one_benchmark_out(samples: pd.DataFrame, config: ModelConfig = KNNConfig(),
                            targets: Sequence[float] = TARGETS) -> tuple[HeldOut, ...]:
    """One record per (benchmark, input), in the order the frame first names them.
    ``config`` is the kNN's (default: the paper's) or the boosted ranker's."""
    records = []
    for name in _benchmarks(samples, "the sample frame"):
        held = samples[BENCHMARK] == name
        model = config.fit(samples[~held])
        test = samples[held]
        predicted = model.predict(test)
        for label in pd.unique(test[INPUT]):
            part = (test[INPUT] == label).to_numpy()
            p, y = predicted[part], test[TARGET].to_numpy(dtype=float)[part]
            records.append(HeldOut(
                name, label, int(part.sum()), model.benchmarks, model.samples,
                model.components, _correlation(p, y),
                MappingProxyType({t: expected_runs(p, y, t) for t in targets}),
                MappingProxyType({t: expected_runs(np.zeros_like(y), y, t)
                                  for t in targets})))
    return tuple(records)


def lobo_frame(records: Sequence[HeldOut]) -> pd.DataFrame:
    return pd.DataFrame([r.row() for r in records])


def quantile_bins(values: np.ndarray, bins: int) -> np.ndarray:
    """Bin numbers 0.. by the values' quantiles; repeated edges merge, so a feature
    with few distinct values keeps one bin per value and a constant one a single bin."""
    values = np.asarray(values, dtype=float)
    distinct = np.unique(values)
    if len(distinct) <= bins:
        # quantile edges would merge a rare value into its neighbour's bin (a feature
        # at 1 for 95 % of the variants and 2 for the rest would look constant)
        return np.searchsorted(distinct, values)
    edges = np.unique(np.quantile(values, np.linspace(0, 1, bins + 1)[1:-1]))
    return np.searchsorted(edges, values, side="right")


@dataclass(frozen=True)
class FeatureInformation:
    """Normalized mutual information of each feature with performance, one benchmark.

    sklearn's arithmetic normalization, ``2 I(X, Y) / (H(X) + H(Y))``: twice the
    paper's redundancy ``R`` (section 7.1), so the ordering of features is the same
    and 1.0 means the binned feature determines the binned performance and back.
    """

    benchmark: str
    points: int
    bins: int
    nmi: Mapping[str, float]                 # by feature, Table 1's order


def feature_information(samples: pd.DataFrame, bins: int = 10
                        ) -> tuple[FeatureInformation, ...]:
    """Per benchmark, every feature's NMI with normalized throughput, both binned by
    ``bins`` quantiles (the paper's Figure 4)."""
    from sklearn.metrics import normalized_mutual_info_score

    check_samples(samples, "the sample frame")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 2:
        raise ModelError(f"bins must be an integer of at least 2, not {bins!r}")
    out = []
    for name in pd.unique(samples[BENCHMARK]):
        part = samples[samples[BENCHMARK] == name]
        perf = quantile_bins(part[TARGET].to_numpy(), bins)
        nmi = {f: float(normalized_mutual_info_score(
            perf, quantile_bins(part[f].to_numpy(), bins))) for f in FEATURES}
        out.append(FeatureInformation(name, len(part), bins, MappingProxyType(nmi)))
    return tuple(out)


def information_frame(records: Sequence[FeatureInformation]) -> pd.DataFrame:
    """Features as rows, benchmarks as columns."""
    return pd.DataFrame({r.benchmark: pd.Series(dict(r.nmi)) for r in records})
