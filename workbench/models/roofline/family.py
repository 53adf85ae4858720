"""The extended roofline as a model family: predictions from a kernel and a device
description alone, behind the same contract as the fitted models.

``RooflineModel().ready(device_model="h100")`` needs no measurement: it reads the
device description (bandwidths, caches, compute units and fitted miss functions,
:mod:`workbench.hardware`).  ``fit`` fits the description's capacity-miss functions
to measured data volumes (:mod:`workbench.models.roofline.miss_fit`): its data are
one row per configuration with ``kernel``, ``variant``, ``dtype``, ``group_size``
(``"32x4x8"``), ``params`` (``"nx=512,ny=512,nz=512"``), ``l2_load_bytes`` and
``dram_read_bytes``, as profiled (``sample_data/h100/ncu-volumes.csv`` is such data).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from workbench.errors import BarvinokMissingError, ModelError, WorkbenchError
from workbench.hardware.description import DeviceModel, load_device_model
from workbench.kernels.candidate import Candidate
from workbench.models.prediction import (
    Breakdown,
    Predictions,
    Term,
    TermKind,
    make_predictions,
)
from workbench.models.contract import Need, Paper, RanksByPrediction
from workbench.models.roofline.limiters import (
    RooflinePrediction,
    estimate_inputs,
    predict_block,
)
from workbench.models.roofline.miss_fit import VolumeObservation, fit_miss_functions
from workbench.models.roofline.result_cache import Outcome, cached_outcomes, model_digest
from workbench.models.terms import Account, Category, Overlap, OverlapSide, TermShare

#: what each limiter's time pays for
LIMITER_CATEGORY = {"L1": Category.ON_CHIP, "L2": Category.GLOBAL, "DRAM": Category.GLOBAL,
                    "FLOP": Category.ARITHMETIC}

SCHEMA = "workbench.model"
SCHEMA_VERSION = 1
FAMILY = "roofline"
PAPER = Paper("Ernst et al., 2021", "Opening the black box: performance estimation "
              "during code generation for GPUs", "ernst-data-volumes",
              "https://doi.org/10.48550/arXiv.2107.01143")

#: Options of :func:`~workbench.models.roofline.limiters.predict_block` a model keeps.
OPTIONS = ("blocks_per_sm", "clock_hz", "flop_rate", "reuse", "method")


def _options(options: Mapping[str, object]) -> dict:
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise ModelError(f"unknown roofline option(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(OPTIONS)}")
    return {k: v for k, v in options.items() if v is not None}


def _device(device_model: DeviceModel | str | None) -> DeviceModel:
    if device_model is None:
        raise ModelError("the roofline model needs a device description: "
                         "--device-model h100 (or v100, or a JSON file)")
    return device_model if isinstance(device_model, DeviceModel) \
        else load_device_model(device_model)


def _params_text(text: str) -> dict[str, int]:
    return {k.strip(): int(v) for k, v in (p.split("=") for p in str(text).split(",") if p)}


def _candidates(data: pd.DataFrame) -> list[Candidate]:
    lacking = [c for c in ("kernel", "variant", "dtype", "group_size", "params")
               if c not in data.columns]
    if lacking:
        raise ModelError(f"roofline predictions need the column(s) {', '.join(lacking)}")
    return [Candidate(k, v, tuple(int(s) for s in str(g).split("x")),
                      tuple(sorted(_params_text(p).items())), d)
            for k, v, d, g, p in zip(data["kernel"], data["variant"], data["dtype"],
                                     data["group_size"], data["params"])]


@functools.lru_cache(maxsize=128)
def _template_accesses(space, structure: tuple):
    """The access model of a space's template: read once per structure."""
    from workbench.properties.accesses import kernel_accesses
    from workbench.properties.counting import prepare

    return kernel_accesses(prepare(space.template_for(structure).kernel))


@dataclass(frozen=True)
class LaunchVolumes:
    """Bytes one launch moves per memory level: DRAM <-> L2 (loads and stores, with
    L2 reuse between waves) and L2 <-> L1 (sectors, every block)."""

    dram_bytes: float
    l2_bytes: float


@dataclass(frozen=True)
class FittedRoofline(RanksByPrediction):
    """The roofline for one device description (and prediction options)."""

    device_model: DeviceModel
    options: Mapping[str, object] = field(default_factory=dict)
    fit_stats: Mapping[str, object] = field(default_factory=dict)
    provenance: Mapping[str, object] = field(default_factory=dict)
    family: str = FAMILY

    @property
    def device(self) -> dict:
        return {"device": self.device_model.name}

    def prediction(self, candidate: Candidate) -> RooflinePrediction:
        """Limiter times, volumes and notes of one candidate (its sizes fixed)."""
        return predict_block(candidate.build(), candidate.params_dict, None,
                             self.device_model, **self.options)

    def _one(self, candidate: Candidate) -> RooflinePrediction:
        """A space point of a templated space is read from its structure's template
        (the access model bound to the point's numbers); others from their kernel."""
        space = candidate.space
        if space is not None and getattr(space, "template", None) is not None:
            accesses = _template_accesses(space, space.structure_of(candidate.point))
            return predict_block(accesses, space.bindings(candidate.point), None,
                                 self.device_model, **self.options)
        return self.prediction(candidate)

    def _outcome(self, candidate: Candidate) -> Outcome:
        """One candidate's prediction, or the error that stopped it."""
        try:
            return Outcome(self._one(candidate))
        except BarvinokMissingError:
            raise             # no candidate can be counted here: say so once
        except (WorkbenchError, ValueError) as err:
            return Outcome(None, f"{type(err).__name__}: {err}")

    def _outcomes(self, candidates: Sequence[Candidate]) -> list[Outcome]:
        """Every candidate's outcome: a space's points from the disk cache where a
        session stored them (:mod:`~workbench.models.roofline.result_cache`), the rest
        worked out, on every core where they are many."""
        digest = model_digest(self.device_model.to_json(), dict(self.options))
        return cached_outcomes(candidates, digest, lambda todo: _in_parallel(
            self, todo, self._outcome))

    def _entry(self, outcome: Outcome) -> tuple[float, Breakdown | None, str | None]:
        """(time, breakdown, error) of one candidate's outcome."""
        if outcome.prediction is None:
            return math.nan, None, outcome.error
        pred = outcome.prediction
        out = pred.to_dict()
        return pred.time, Breakdown(
            tuple(Term(lim.value, TermKind.LIMIT_S, t, limits=lim is pred.limiter)
                  for lim, t in pred.times.items() if t is not None),
            notes=tuple(pred.notes),
            details=(("device_model", self.device_model.name),
                     ("limiter", pred.limiter.value), ("dram", out["dram"]),
                     ("l2_l1_per_block", out["l2_l1_per_block"]))), None

    def predict_candidates(self, candidates: Sequence[Candidate], **context) -> Predictions:
        """Limiter times per candidate; the largest is the prediction.  One candidate
        the address model cannot read does not stop the others.

        Each candidate's data volumes are its own work (its waves' footprints at its
        numbers), so many candidates are shared out to worker processes
        (:func:`~workbench.models.candidate_features.rank_jobs`), in order of their
        structure so that a worker reads few templates; the results are those of one
        process, in the same order."""
        entries = [self._entry(o) for o in self._outcomes(candidates)]
        times = [e[0] for e in entries]
        breakdowns = [e[1] for e in entries]
        errors = [e[2] for e in entries]
        return make_predictions(candidates, times, breakdowns, errors)

    @staticmethod
    def _volumes_entry(outcome: Outcome) -> LaunchVolumes | None:
        if outcome.prediction is None:
            return None
        inputs = outcome.prediction.inputs
        return LaunchVolumes(float(inputs.dram.total_bytes),
                             float(inputs.l2_l1.sectors_bytes * inputs.blocks))

    def volumes(self, candidates: Sequence[Candidate]) -> list[LaunchVolumes | None]:
        """The whole launch's data volumes of each candidate, as the limiters read them
        (capacity and reuse misses applied); None where the address model cannot read
        a candidate.  Many candidates are shared out as in :meth:`predict_candidates`."""
        return [self._volumes_entry(o) for o in self._outcomes(candidates)]

    def explain_terms(self, breakdown: Breakdown) -> Account:
        """The limiter's time is the prediction: the maximum over the limiters, each
        limiter a side of that overlap."""
        limits = [t for t in breakdown.terms if t.kind is TermKind.LIMIT_S]
        if not limits:
            raise ModelError("this prediction carries no limiter times to explain")
        sides = tuple(OverlapSide(t.name, t.value, (TermShare(
            t.name, t.value, LIMITER_CATEGORY.get(t.name, Category.OTHER)),))
            for t in limits)
        winner = max(range(len(sides)), key=lambda i: sides[i].seconds)
        return Account(sides[winner].terms, sides[winner].seconds,
                       (Overlap("max", sides, winner, sides[winner].seconds),),
                       limiter=sides[winner].label, notes=tuple(breakdown.notes))

    def predict(self, data: pd.DataFrame) -> np.ndarray:
        return self.predict_candidates(_candidates(data)).seconds

    def report_data(self) -> dict:
        d = self.device_model
        rows = [{"property": k, "label": k.replace("_", " "), "value": getattr(d, k).value,
                 "source": getattr(d, k).source} for k in
                ("compute_units", "l1_bytes", "l2_bytes", "line_bytes", "sector_bytes",
                 "l1_banks", "l1_bank_bytes")]
        rows += [{"property": f"bandwidth_{k}_GBps", "label": f"{k} bandwidth (GB/s)",
                  "value": f.value, "source": f.source} for k, f in d.bandwidth_GBps.items()]
        for name, f in d.miss_functions.items():
            rows += [{"property": f"{name}_{p}", "label": f"{name} miss function {p}",
                      "value": getattr(f, p), "source": f.source} for p in "abc"]
        table = pd.DataFrame(rows)
        table["ci_low"] = table["ci_high"] = np.nan
        return {"parameters": table, "fit": dict(self.fit_stats), "unexercised": []}

    def to_json(self) -> dict:
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "family": FAMILY,
                "device_model": self.device_model.to_json(), "options": dict(self.options),
                "fit": dict(self.fit_stats), "device": self.device,
                "provenance": dict(self.provenance)}


#: Candidates below this many are predicted in this process: forking costs more.
_PARALLEL_FROM = 16
_FORKED: tuple = ()


def _forked_entry(i: int):
    entry, candidates = _FORKED
    return i, entry(candidates[i])


def _structure_key(candidate: Candidate) -> tuple:
    space = candidate.space
    if space is None or getattr(space, "template", None) is None:
        return (1, "")
    return (0, space.name, repr(space.structure_of(candidate.point)))


def _in_parallel(model: FittedRoofline, candidates: list[Candidate], entry) -> list:
    """``entry`` of every candidate, on every core where there are many (fork: a
    worker inherits the candidates, whose spaces hold functions that do not
    pickle)."""
    global _FORKED
    import multiprocessing

    from workbench.models.candidate_features import rank_jobs

    jobs = min(rank_jobs(), len(candidates))
    if jobs < 2 or len(candidates) < _PARALLEL_FROM:
        return [entry(c) for c in candidates]
    order = sorted(range(len(candidates)), key=lambda i: _structure_key(candidates[i]))
    out: list = [None] * len(candidates)
    _FORKED = (entry, candidates)
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for i, entry in pool.imap_unordered(
                    _forked_entry, order, chunksize=max(1, len(order) // (4 * jobs))):
                out[i] = entry
    finally:
        _FORKED = ()
    return out


class RooflineModel:
    """Model family 'roofline' (Ernst et al.: data volumes through L1, L2 and DRAM)."""

    name = FAMILY
    paper = PAPER
    needs = frozenset({Need.ADDRESSES, Need.DEVICE_DESCRIPTION})
    home = "workbench.models.roofline"

    def describe(self) -> str:
        return ("Extended roofline (Ernst et al.): the kernel's compulsory data volumes "
                "between L1, L2 and DRAM are estimated from its address expressions (L1 "
                "bank-conflict cycles, L2->L1 sectors, DRAM traffic per wave of concurrent "
                "blocks with L2 reuse distances) and turned into times by the device "
                "description's bandwidths; the largest limiter is the prediction. Needs no "
                "run-time measurement; capacity-miss functions are fitted to profiled "
                "volumes. Memory-bound kernels only: the FLOP limiter needs a peak rate.")

    def ready(self, *, device_model: DeviceModel | str | None = None, **options
              ) -> FittedRoofline:
        return FittedRoofline(_device(device_model), _options(options))

    def fit(self, data: pd.DataFrame, *, device_model: DeviceModel | str | None = None,
            provenance: Mapping | None = None, **options) -> FittedRoofline:
        """Fit the device description's miss functions to measured volumes (module
        docstring); estimates are made with the description's miss functions removed."""
        from workbench.measure.provenance import library_versions, utc_now_iso

        device = _device(device_model)
        lacking = [c for c in ("l2_load_bytes", "dram_read_bytes") if c not in data.columns]
        if lacking:
            raise ModelError("fitting the roofline needs measured volumes: column(s) "
                             f"{', '.join(lacking)} (bytes per configuration)")
        opts = _options(options)
        compulsory = replace(device, miss_functions={})
        observations = []
        for c, l2, dram in zip(_candidates(data), data["l2_load_bytes"],
                               data["dram_read_bytes"]):
            inputs = estimate_inputs(c.build(), c.params_dict, compulsory,
                                     **{k: v for k, v in opts.items()
                                        if k in ("blocks_per_sm", "reuse", "method")})
            observations.append(VolumeObservation(inputs, float(l2), float(dram)))
        fitted = fit_miss_functions(observations, compulsory)
        stats = {"n_configurations": len(observations),
                 "miss_functions": {k: v.to_json() for k, v in fitted.items()}}
        prov = {"library_versions": library_versions(), "created": utc_now_iso(),
                **(provenance or {})}
        return FittedRoofline(replace(device, miss_functions=fitted), opts, stats, prov)

    def load(self, document: Mapping) -> FittedRoofline:
        if document.get("schema") != SCHEMA or document.get("family") != FAMILY:
            raise ModelError("not a roofline model file")
        version = document.get("schema_version", 0)
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise ModelError(f"model file has schema version {version!r}; this workbench "
                             f"reads up to {SCHEMA_VERSION}: upgrade the workbench")
        try:
            device = DeviceModel.from_json(document["device_model"])
        except (KeyError, TypeError, ValueError) as err:
            raise ModelError(f"roofline model file has no valid device description: "
                             f"{err}") from None
        return FittedRoofline(device, _options(document.get("options") or {}),
                              dict(document.get("fit") or {}),
                              dict(document.get("provenance") or {}))
