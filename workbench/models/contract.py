"""The contract every model family follows, so the CLI and the UI treat them alike.

A family *describes* itself, *fits* on a dataset (:func:`build_dataset`) and returns a
fitted model, which *predicts* run times for dataset rows and hands out its *report
data* (parameters with confidence intervals, fit statistics) as plain tables.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd


@runtime_checkable
class FittedModel(Protocol):
    family: str

    def predict(self, data: pd.DataFrame) -> np.ndarray:
        """Predicted run time in seconds, one per row of ``data``."""

    def report_data(self) -> dict[str, pd.DataFrame | dict]:
        """Tables and figures of merit for reports: at least ``parameters``, ``fit``."""

    def to_json(self) -> dict:
        """A JSON-able document that :meth:`ModelFamily.load` turns back into a model."""


@runtime_checkable
class ModelFamily(Protocol):
    name: str

    def describe(self) -> str:
        """One paragraph: what the model assumes, and which paper it follows."""

    def fit(self, data: pd.DataFrame, **options) -> FittedModel:
        """Fit on the dataset's measurement-kernel rows."""

    def load(self, document: dict) -> FittedModel:
        """Inverse of :meth:`FittedModel.to_json`."""


def relative_errors(predicted: np.ndarray, measured: np.ndarray) -> np.ndarray:
    return np.abs(predicted - measured) / measured


def geometric_mean(values) -> float:
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return float("nan")
    # an exact prediction has zero error; clip so one such case cannot zero the mean
    return float(np.exp(np.mean(np.log(np.clip(values, 1e-12, None)))))
