"""The contract every model family follows, so the CLI, the UI and the tuner treat
them alike.

A *family* (one paper's model) says which paper it follows and what it needs
(:class:`Need`), *describes* itself, *fits* on data and returns a fitted model, or,
when it needs no fitting, is made *ready* from what it does need (a device
description).  A *fitted model* predicts run times for dataset rows
(:func:`workbench.models.dataset.build_dataset`) and for candidates
(:class:`~workbench.kernels.candidate.Candidate`, through the one entry
:func:`workbench.models.prediction.predict`), *ranks* candidates fastest first
(the tuner's hook), hands out its *report data* (parameters with intervals, fit
statistics) as plain tables, and saves itself as JSON.  A fitted model that can say
where its time goes also *explains* a prediction (:class:`Explains`): its terms in
seconds, which :func:`workbench.models.explanation.explain` wraps with the floor, the
limiter and the roofline point.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate
from workbench.models.terms import Account
from workbench.models.prediction import (  # noqa: F401 - part of the contract
    Breakdown,
    Predictions,
    Ranking,
    Term,
    TermKind,
    make_predictions,
    make_ranking,
    predict,
    rank,
)


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


#: Where every paper is cited in full (authors, title, venue, year, DOI or URL).
PAPERS_PAGE = "docs/papers.md"


@dataclass(frozen=True)
class Paper:
    """The publication a family follows, cited in full in ``docs/papers.md``."""

    citation: str
    title: str
    key: str                                 # the paper's heading in docs/papers.md
    link: str                                # its DOI (https://doi.org/...) or URL

    def to_json(self) -> dict:
        return {"citation": self.citation, "title": self.title, "key": self.key,
                "link": self.link, "reference": f"{PAPERS_PAGE}#{self.key}"}


class RanksByPrediction:
    """``rank()`` for every model that predicts candidates: sort the predictions."""

    def rank(self, candidates: Sequence[Candidate], **context) -> Ranking:
        return rank(self, candidates, **context)


@runtime_checkable
class FittedModel(Protocol):
    family: str

    def predict(self, data: pd.DataFrame) -> np.ndarray:
        """Predicted run time in seconds, one per row of ``data``."""

    def predict_candidates(self, candidates: Sequence[Candidate], **context) -> Predictions:
        """Predicted run times (seconds, or the model's ``unit``) and each candidate's
        breakdown; callers use :func:`workbench.models.prediction.predict`, which
        checks the candidates first."""

    def rank(self, candidates: Sequence[Candidate], **context) -> Ranking:
        """The candidates, fastest predicted first."""

    def report_data(self) -> dict[str, pd.DataFrame | dict]:
        """Tables and figures of merit for reports: at least ``parameters``, ``fit``."""

    def to_json(self) -> dict:
        """A JSON-able document that :meth:`ModelFamily.load` turns back into a model."""


@runtime_checkable
class Explains(Protocol):
    """The optional capability of a fitted model to explain its predictions."""

    def explain_terms(self, breakdown: Breakdown) -> Account:
        """One candidate's prediction in seconds per term (:mod:`workbench.models.
        terms`), from the breakdown :func:`predict` gave; the terms add up to the
        model's own time."""


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
