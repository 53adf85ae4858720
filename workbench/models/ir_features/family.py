"""The Lift paper's model as a model family, ``ir-knn``, behind the shared contract.

What it learns from differs from the other families: not this device's
measurements of the kernel at hand, but *other programs'* explored spaces (sample
frames, :mod:`.samples`), and what it predicts is not seconds but a *relative
time*: how many times slower than the best variant of the same computation and
input, 1.0 being the best (the inverse of the kNN's normalized throughput).  Such
predictions order variants of one computation, which is all exploration needs; they
cannot be compared across computations or turned into seconds, and
:attr:`IRKNNFitted.unit` says so to every caller.

``fit(samples, neighbors=5, variance=0.95, log_features=False, device=None)`` fits on a
sample frame (``device="h100"``: with the GPU features on that device); ``ready()``
fits on the shipped H100 samples (``sample_data/h100/ir-samples.csv.xz``).  A saved model
keeps its settings and the sample file it was fitted on, and refits when loaded (a kNN
fit is a few milliseconds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from workbench.errors import BarvinokMissingError, ModelError, WorkbenchError
from workbench.kernels.candidate import Candidate
from workbench.models.contract import Need, Paper, RanksByPrediction
from workbench.models.prediction import Breakdown, Predictions, Term, TermKind, make_predictions
from workbench.models.ir_features.knn import IRKNNModel, KNNConfig
from workbench.models.ir_features.samples import (
    BENCHMARK,
    FEATURES,
    load_samples,
    shipped_samples,
)

SCHEMA = "workbench.model"
SCHEMA_VERSION = 1
FAMILY = "ir-knn"
PAPER = Paper("Remmelg et al., 2020 (Lift)", "High-level hardware feature extraction "
              "for GPU performance prediction of stencils", "lift-ir-features",
              "https://doi.org/10.1145/3366428.3380769")
UNIT = "relative time (1.0 = the best variant of the same computation and input)"
#: kNN's predicted throughput is an average of positives, but a variant whose
#: neighbours all failed gets 0: its relative time is capped here, not infinite.
SLOWEST = 1e3


def _config(options: Mapping[str, object]) -> KNNConfig:
    known = {"neighbors", "variance", "log_features", "device"}
    unknown = set(options) - known
    if unknown:
        raise ModelError(f"unknown ir-knn option(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(sorted(known))}")
    return KNNConfig(**{k: v for k, v in options.items() if v is not None})


@dataclass(frozen=True, eq=False)
class IRKNNFitted(RanksByPrediction):
    """A fitted kNN over IR features; predictions are relative times (:data:`UNIT`)."""

    model: IRKNNModel
    source: str | None                       # the sample file, if fitted on one
    family: str = FAMILY
    unit: str = UNIT

    def predict(self, data: pd.DataFrame) -> np.ndarray:
        """Relative time per row of a frame holding the feature columns."""
        throughput = self.model.predict(data)
        return np.minimum(1.0 / np.maximum(throughput, 1.0 / SLOWEST), SLOWEST)

    def predict_candidates(self, candidates: Sequence[Candidate], **context) -> Predictions:
        """Relative times (:data:`UNIT`), each breakdown the IR features read.  Points
        of templated tuning spaces are read from their structure's template
        (:func:`~workbench.models.ir_features.space.space_ir_features`); other
        candidates from their kernel."""
        from workbench.models.ir_features.extract import ir_features
        from workbench.models.ir_features.space import space_ir_features

        rows = np.full((len(candidates), len(FEATURES)), np.nan)
        errors: list[str | None] = [None] * len(candidates)
        by_space: dict[object, list[int]] = {}
        for i, c in enumerate(candidates):
            if c.space is not None and getattr(c.space, "template", None) is not None:
                by_space.setdefault(c.space, []).append(i)
                continue
            try:
                rows[i] = ir_features(c.build(), c.params_dict, fixed=True).as_array()
            except BarvinokMissingError:
                raise             # no candidate can be counted here: say so once
            except WorkbenchError as err:
                errors[i] = f"{type(err).__name__}: {err}"   # unpredicted: ranked last
        for space, idx in by_space.items():
            frame = space_ir_features(space, [candidates[i].point for i in idx])
            rows[idx] = frame[list(FEATURES)].to_numpy(dtype=float)
        out = np.full(len(candidates), np.nan)
        ok = np.isfinite(rows).all(axis=1)
        if ok.any():
            out[ok] = self.predict(pd.DataFrame(rows[ok], columns=list(FEATURES)))
        breakdowns = [Breakdown(tuple(Term(f, TermKind.COUNT, float(v))
                                      for f, v in zip(FEATURES, rows[i])),
                                notes=(f"unit: {self.unit}",))
                      for i in range(len(candidates))]
        return make_predictions(candidates, out, breakdowns,
                                [e or (None if ok[i] else "not predicted")
                                 for i, e in enumerate(errors)], unit="relative")

    def report_data(self) -> dict:
        pca = self.model.pipeline.named_steps["pca"]
        parameters = pd.DataFrame({
            "component": np.arange(1, self.model.components + 1),
            "explained_variance_ratio": pca.explained_variance_ratio_})
        return {"parameters": parameters,
                "fit": {"unit": self.unit, "neighbors": self.model.config.neighbors,
                        "variance_kept": self.model.config.variance,
                        "components": self.model.components,
                        "training_benchmarks": list(self.model.benchmarks),
                        "training_samples": self.model.samples,
                        "source": self.source}}

    def to_json(self) -> dict:
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "family": FAMILY,
                "config": asdict(self.model.config), "source": self.source,
                "benchmarks": list(self.model.benchmarks), "unit": self.unit}


class IRKNNFamily:
    """Model family 'ir-knn' (Lift: IR features, PCA and kNN)."""

    name = FAMILY
    paper = PAPER
    needs = frozenset({Need.COUNTS, Need.OTHER_PROGRAMS})
    home = "workbench.models.ir_features"

    def describe(self) -> str:
        return ("Lift's model: a kernel's low-level features read from the loopy IR "
                "before code generation (sizes, local memory, loads and stores per work "
                "item, cache lines per warp access, barriers, branches, loops), "
                "standardized and projected on the principal components that keep 95% "
                "of their variance; a variant's throughput relative to the best of its "
                "input is the mean of its 5 nearest neighbours among other programs' "
                "measured variants.  It predicts relative times that order the variants "
                "of one computation, not seconds.")

    def fit(self, data: pd.DataFrame, *, source: str | None = None, **options
            ) -> IRKNNFitted:
        return IRKNNFitted(_config(options).fit(data), source)

    def ready(self, *, samples: str | None = None, exclude: Sequence[str] = (),
              **options) -> IRKNNFitted:
        """Fitted on a sample file (default: the shipped H100 one), less the
        benchmarks in ``exclude`` (the program about to be explored)."""
        if samples is None:
            shipped = shipped_samples()
            if shipped is None:
                raise ModelError("the ir-knn model learns from other programs' measured "
                                 "spaces and no sample file is shipped here: make one "
                                 "with 'workbench ir-samples' and pass samples=FILE")
            samples = str(shipped)
        frame = load_samples(samples)
        frame = frame[~frame[BENCHMARK].isin(list(exclude))]
        return self.fit(frame, source=str(samples), **options)

    def load(self, document: Mapping) -> IRKNNFitted:
        if document.get("schema") != SCHEMA or document.get("family") != FAMILY:
            raise ModelError("not an ir-knn model document")
        if document.get("source") is None:
            raise ModelError("this ir-knn model was fitted on an in-memory frame and "
                             "cannot be loaded: fit it on a sample file")
        frame = load_samples(document["source"])
        frame = frame[frame[BENCHMARK].isin(document.get("benchmarks") or [])]
        return self.fit(frame, source=document["source"], **document.get("config", {}))
