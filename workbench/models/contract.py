"""The contract every model family follows, so the CLI, the UI and the tuner treat
them alike.

A *family* (one paper's model) says which paper it follows and what it needs
(:class:`Need`), *describes* itself, *fits* on data and returns a fitted model, or,
when it needs no fitting, is made *ready* from what it does need (a device
description).  A *fitted model* predicts run times for dataset rows
(:func:`workbench.models.dataset.build_dataset`) and for candidates
(:class:`~workbench.kernels.candidate.Candidate`), *ranks* candidates fastest first
(the tuner's hook), hands out its *report data* (parameters with intervals, fit
statistics) as plain tables, and saves itself as JSON.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate


class Need(enum.Enum):
    """What a model needs besides the kernel's loopy code."""

    COUNTS = "counts"                        # symbolic properties (loopy, no device)
    ADDRESSES = "addresses"                  # per-access addresses at fixed sizes (loopy)
    CALIBRATION = "calibration"              # parameters fitted to the device's measurements
    DEVICE_DESCRIPTION = "device description"  # caches, bandwidths, units (workbench.hardware)
    TWIN_MEASUREMENTS = "twin measurements"  # each kernel's work-removed twin, measured
    OTHER_PROGRAMS = "other programs' measured spaces"  # what a learned ranker learns from

    @property
    def from_kernel_alone(self) -> bool:
        """Whether the workbench derives it from the kernel without any measurement."""
        return self in (Need.COUNTS, Need.ADDRESSES)


@dataclass(frozen=True)
class Paper:
    """The publication a family follows (the PDFs' text is in ``../shared/papers/``)."""

    citation: str
    title: str
    text: str                                # file name under ../shared/papers/

    def to_json(self) -> dict:
        return {"citation": self.citation, "title": self.title, "text": self.text}


@dataclass(frozen=True, eq=False)
class Ranking:
    """Candidates ordered by predicted time, fastest first, and what ordering cost."""

    candidates: tuple[Candidate, ...]        # in the order given
    predicted_s: np.ndarray                  # one per candidate; NaN where not predicted
    order: np.ndarray                        # indices into candidates, fastest first
    seconds: float                           # wall time of the ranking itself
    errors: tuple[str | None, ...] = field(default=())

    @property
    def ranked(self) -> list[Candidate]:
        return [self.candidates[i] for i in self.order]

    @property
    def best(self) -> Candidate:
        return self.candidates[int(self.order[0])]

    def frame(self) -> pd.DataFrame:
        rows = []
        for rank, i in enumerate(self.order, start=1):
            c = self.candidates[int(i)]
            rows.append({"rank": rank, "candidate": c.label, "kernel": c.kernel_name,
                         "variant": c.variant, "group_size": "x".join(map(str, c.group_size)),
                         "params": ",".join(f"{k}={v}" for k, v in c.params),
                         "predicted_s": float(self.predicted_s[i]),
                         "error": self.errors[i] if self.errors else None})
        return pd.DataFrame(rows)


def make_ranking(candidates: Sequence[Candidate], predicted: np.ndarray, began: float,
                 errors: Sequence[str | None] = ()) -> Ranking:
    """Order by predicted time (stable; unpredicted candidates last)."""
    predicted = np.asarray(predicted, dtype=float)
    keys = np.where(np.isfinite(predicted), predicted, np.inf)
    order = np.argsort(keys, kind="stable")
    return Ranking(tuple(candidates), predicted, order, time.perf_counter() - began,
                   tuple(errors))


class RanksByPrediction:
    """``rank()`` for every model that predicts candidates: sort the predictions."""

    def rank(self, candidates: Sequence[Candidate], **context) -> Ranking:
        began = time.perf_counter()
        predicted = self.predict_candidates(candidates, **context)
        return make_ranking(candidates, predicted, began)


@runtime_checkable
class FittedModel(Protocol):
    family: str

    def predict(self, data: pd.DataFrame) -> np.ndarray:
        """Predicted run time in seconds, one per row of ``data``."""

    def predict_candidates(self, candidates: Sequence[Candidate], **context) -> np.ndarray:
        """Predicted run time in seconds, one per candidate."""

    def rank(self, candidates: Sequence[Candidate], **context) -> Ranking:
        """The candidates, fastest predicted first."""

    def report_data(self) -> dict[str, pd.DataFrame | dict]:
        """Tables and figures of merit for reports: at least ``parameters``, ``fit``."""

    def to_json(self) -> dict:
        """A JSON-able document that :meth:`ModelFamily.load` turns back into a model."""


@runtime_checkable
class ModelFamily(Protocol):
    name: str
    paper: Paper
    needs: frozenset[Need]
    home: str                                # the package the paper lives in

    def describe(self) -> str:
        """One paragraph: what the model assumes, and which paper it follows."""

    def fit(self, data: pd.DataFrame, **options) -> FittedModel:
        """Fit on data (measurements, or for the roofline measured volumes)."""

    def ready(self, **options) -> FittedModel:
        """A model that predicts without fitting, or a ModelError saying what it needs."""

    def load(self, document: dict) -> FittedModel:
        """Inverse of :meth:`FittedModel.to_json`."""


def needs_calibration(family: ModelFamily) -> ModelError:
    """The one-line error of a family that predicts only once fitted."""
    return ModelError(
        f"the {family.name} model needs a calibration of the device: fit one "
        f"('workbench fit --store STORE{' --model EXPR|FILE' if family.name == 'expression' else ''}"
        f" -o MODEL.json') and pass it with --weights MODEL.json")


def relative_errors(predicted: np.ndarray, measured: np.ndarray) -> np.ndarray:
    return np.abs(predicted - measured) / measured


def geometric_mean(values) -> float:
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return float("nan")
    # an exact prediction has zero error; clip so one such case cannot zero the mean
    return float(np.exp(np.mean(np.log(np.clip(values, 1e-12, None)))))
