"""Why a kernel takes the time predicted: one prediction explained.

:func:`explain` predicts one candidate through the one prediction entry
(:func:`workbench.models.prediction.predict`, so its total is exactly what
``workbench predict`` says) and asks the model for its account in seconds
(:class:`~workbench.models.contract.Explains`).  To that it adds:

* the physical floors (:mod:`workbench.models.floors`): where the floor lifted the
  prediction, the lift is a term of its own, so the terms still add up to it;
* the limiter: the floor's bound where it binds, the roofline's limiting level, or for
  a fitted model the category (global memory, arithmetic, ...) that costs the most;
* the kernel's place on the device's roofline: its floating-point operations, the
  distinct bytes it touches (its footprint), and the device's ceilings (measured
  bandwidths and queried peaks, :func:`device_ceilings`);
* with a store at hand, the measured time of the same configuration beside it.

Families without an account (the tiling model, the kNN ranker) are refused with one
line saying so.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate
from workbench.models.contract import Explains
from workbench.models.floors import FLOAT_KINDS, Floor
from workbench.models.prediction import Breakdown, predict
from workbench.models.terms import Category, Overlap, TermShare

#: families whose fitted models explain themselves (for the refusal's message)
EXPLAINED_FAMILIES = ("unified-linear", "expression", "roofline")

#: the terms must add up to the prediction within this (relative)
TOLERANCE = 0.01


# {{{ the device's roofline

class CeilingKind(enum.Enum):
    BANDWIDTH = "bandwidth"      # bytes/s
    COMPUTE = "compute"          # flop/s


@dataclass(frozen=True)
class Ceiling:
    name: str
    kind: CeilingKind
    value: float                 # bytes/s or flop/s
    source: str

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind.value, "value": self.value,
                "unit": "B/s" if self.kind is CeilingKind.BANDWIDTH else "flop/s",
                "source": self.source}


@dataclass(frozen=True)
class DeviceCeilings:
    """The ceilings of a device's roofline chart, each with its source."""

    device: str
    ceilings: tuple[Ceiling, ...] = ()
    notes: tuple[str, ...] = ()

    def of_kind(self, kind: CeilingKind) -> tuple[Ceiling, ...]:
        return tuple(c for c in self.ceilings if c.kind is kind)

    def to_json(self) -> dict:
        return {"device": self.device, "ceilings": [c.to_json() for c in self.ceilings],
                "notes": list(self.notes)}


def device_ceilings(device: str, description=None) -> DeviceCeilings:
    """The roofline ceilings of ``device`` (its OpenCL name): the measured bandwidths
    of a shipped ``bandwidth.json`` of that device (the newest measurement), else those
    of its device description; the description's peaks (DRAM, flop/s per precision).
    ``description`` (a :class:`~workbench.hardware.description.DeviceModel`) names the
    description to read; by default the shipped one of that name."""
    from workbench.hardware.description import SHIPPED, load_device_model

    if description is None:
        for name in SHIPPED:
            shipped = load_device_model(name)
            if shipped.name == device:
                description = shipped
                break
    ceilings: list[Ceiling] = []
    measured = _measured_bandwidths(device)
    levels = {c.name.split(" ")[0] for c in measured}
    ceilings += measured
    if description is not None:
        for level, figure in description.bandwidth_GBps.items():
            if level.upper() not in levels:
                ceilings.append(Ceiling(f"{level.upper()} ({figure.source})",
                                        CeilingKind.BANDWIDTH, figure.value * 1e9,
                                        f"device description {description.name}: "
                                        f"{figure.note or figure.source}"))
        floors = description.floors or {}
        peak = floors.get("dram_peak_GBps")
        if peak:
            ceilings.append(Ceiling("DRAM peak", CeilingKind.BANDWIDTH,
                                    float(peak["value"]) * 1e9,
                                    f"{peak.get('source', '')}: {peak.get('note', '')}"))
        for dtype, figure in floors.get("flop_peak_GFLOPs", {}).items():
            ceilings.append(Ceiling(f"{dtype} peak", CeilingKind.COMPUTE,
                                    float(figure["value"]) * 1e9,
                                    f"{figure.get('source', '')}: {figure.get('note', '')}"))
    notes = []
    if not any(c.kind is CeilingKind.BANDWIDTH for c in ceilings):
        notes.append(f"no measured bandwidth of {device or 'this device'} here (a "
                     "bandwidth.json beside its shipped store, or a device description)")
    if not any(c.kind is CeilingKind.COMPUTE for c in ceilings):
        notes.append(f"no peak flop rate of {device or 'this device'} here (a device "
                     "description's floors)")
    return DeviceCeilings(device, tuple(ceilings), tuple(notes))


def _measured_bandwidths(device: str) -> list[Ceiling]:
    from workbench.models.packaged import measured_bandwidth_documents

    if not device:
        return []
    for path, document in measured_bandwidth_documents(device, packaged=False):
        when = str(document.get("timestamp", ""))[:10]
        return [Ceiling(f"{r['level'].upper()} (measured)", CeilingKind.BANDWIDTH,
                        float(r["bandwidth_GBps"]) * 1e9,
                        f"{r['kernel']}, {path.parent.name}/{path.name} {when}")
                for r in document.get("results", [])
                if r.get("level") in ("dram", "l2", "l1") and r.get("bandwidth_GBps")]
    return []


@dataclass(frozen=True)
class RooflinePoint:
    """Where a kernel sits on a roofline: its operations and the bytes it touches."""

    flops: float
    bytes: float
    bytes_kind: str                      # what ``bytes`` counts

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes else math.nan

    def to_json(self, predicted_s: float, measured_s: float | None) -> dict:
        out = {"flops": self.flops, "bytes": self.bytes, "bytes_kind": self.bytes_kind,
               "intensity_flop_per_byte": _number(self.intensity),
               "predicted_flop_rate": _number(self.flops / predicted_s),
               "predicted_bandwidth_Bps": _number(self.bytes / predicted_s)}
        if measured_s:
            out["measured_flop_rate"] = _number(self.flops / measured_s)
            out["measured_bandwidth_Bps"] = _number(self.bytes / measured_s)
        return out


def roofline_point(candidate: Candidate) -> RooflinePoint | None:
    """The candidate's floating-point operations and distinct global bytes (its
    footprint; the whole arrays' bytes where the footprint cannot be counted)."""
    from workbench.models.candidate_features import (
        ARRAY_BYTES,
        FOOTPRINT_BYTES,
        ArrayBytesRef,
        FootprintRef,
        candidate_feature_values,
    )
    from workbench.models.expressions.features import StandardFeature
    from workbench.properties import parse_feature

    names = [f"f_op_{d}_{k}" for d in ("float32", "float64") for k in FLOAT_KINDS]
    refs = [StandardFeature(n, parse_feature(n)) for n in names]
    values, errors = candidate_feature_values([candidate],
                                              [*refs, FootprintRef(), ArrayBytesRef()])
    if errors[0] is not None:
        return None
    flops = float(sum(values[n][0] for n in names))
    touched = float(values[FOOTPRINT_BYTES][0])
    if np.isfinite(touched) and touched > 0:
        return RooflinePoint(flops, touched, "distinct global bytes touched (footprint)")
    return RooflinePoint(flops, float(values[ARRAY_BYTES][0]),
                         "bytes of the global arrays (footprint not countable)")

# }}}


# {{{ a measurement at hand

@dataclass(frozen=True)
class Measured:
    seconds: float
    store: str
    device: str


def find_measured(stores: Sequence[str | Path], candidate: Candidate, device: str
                  ) -> tuple[Measured | None, str | None]:
    """The candidate's successful measurement on ``device`` in ``stores`` (the newest),
    or a line saying what the stores hold of it instead."""
    from workbench.measure import MeasurementStore

    elsewhere = set()
    found = None
    for path in stores:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            for m in store.measurements(kernel=candidate.kernel_name):
                k = m.key
                if (k.variant, k.dtype, tuple(k.group_size), dict(k.params)) != (
                        candidate.variant, candidate.dtype, tuple(candidate.group_size),
                        candidate.params_dict):
                    continue
                if device and m.device.device != device:
                    elsewhere.add(m.device.device)
                    continue
                found = Measured(float(m.time_s), Path(path).name, m.device.device)
    if found is not None:
        return found, None
    names = ", ".join(Path(p).name for p in stores)
    if elsewhere:
        return None, (f"{names} holds this configuration measured on "
                      f"{', '.join(sorted(elsewhere))}, not on {device}")
    return None, f"{names} holds no successful measurement of this configuration"

# }}}


#: a term below this share of the prediction is summed with the others like it in a table
SMALL_SHARE = 0.001

@dataclass(frozen=True)
class Explanation:
    """One prediction explained (module docstring); :meth:`to_json` for ``--format
    json``: ``predicted_s``, ``limiter`` and ``terms`` (each ``name`` and ``seconds``)."""

    candidate: Candidate
    family: str
    device: str
    predicted_s: float
    model_s: float
    terms: tuple[TermShare, ...]
    overlaps: tuple[Overlap, ...]
    limiter: str
    limiter_says: str
    floor: Floor | None
    point: RooflinePoint | None
    ceilings: DeviceCeilings
    measured: Measured | None = None
    notes: tuple[str, ...] = ()
    #: what the prediction itself warns of (:mod:`workbench.models.parallelism`): a
    #: launch that uses few of the device's lanes, code outside what the model covers
    caveats: tuple = ()

    @property
    def terms_sum_s(self) -> float:
        return float(sum(t.seconds for t in self.terms))

    def largest_terms(self, small_share: float = SMALL_SHARE
                      ) -> tuple[tuple[TermShare, ...], int, float]:
        """The terms of at least ``small_share`` of the prediction, largest first, and
        how many smaller ones there are and what they add up to (what a table shows)."""
        total = self.predicted_s
        shown, small, small_s = [], 0, 0.0
        for t in sorted(self.terms, key=lambda t: -abs(t.seconds)):
            if total and abs(t.seconds) < small_share * total:
                small, small_s = small + 1, small_s + t.seconds
            else:
                shown.append(t)
        return tuple(shown), small, small_s

    @property
    def measured_error(self) -> float | None:
        if self.measured is None:
            return None
        return (self.predicted_s - self.measured.seconds) / self.measured.seconds

    def to_json(self) -> dict:
        c = self.candidate
        out = {"kernel": c.kernel_name, "variant": c.variant, "dtype": c.dtype,
               "group_size": "x".join(map(str, c.group_size)), "params": c.params_dict,
               "family": self.family, "device": self.device,
               "predicted_s": self.predicted_s, "model_s": self.model_s,
               "terms_sum_s": self.terms_sum_s, "limiter": self.limiter,
               "limiter_says": self.limiter_says,
               "terms": [t.to_json(self.predicted_s) for t in self.terms],
               "overlaps": [o.to_json() for o in self.overlaps],
               "floor": self.floor.to_json() if self.floor is not None else None,
               "roofline": {**(self.point.to_json(self.predicted_s,
                                                 self.measured.seconds if self.measured
                                                 else None)
                               if self.point is not None else {}),
                            **self.ceilings.to_json()},
               "measured_s": self.measured.seconds if self.measured else None,
               "notes": list(self.notes),
               "caveats": [c.to_json() for c in self.caveats]}
        if self.measured is not None:
            out["measured"] = {"seconds": self.measured.seconds, "store": self.measured.store,
                               "device": self.measured.device,
                               "relative_error": self.measured_error}
        return out


def model_device_name(model) -> str:
    described = getattr(model, "device_model", None)
    return getattr(described, "name", None) or dict(getattr(model, "device", {}) or {}).get(
        "device", "")


def explain(model, candidate: Candidate, *, stores: Sequence[str | Path] = (),
            description=None, **context) -> Explanation:
    """Explain the prediction of ``candidate`` by ``model`` (module docstring).

    ``stores``: stores to look for a measurement of the same configuration on the
    model's device; ``description``: a device description for the ceilings (default:
    the shipped one of the model's device); ``context`` goes to :func:`predict`.
    """
    if not isinstance(model, Explains):
        raise ModelError(f"the {model.family} model cannot explain its predictions in "
                         "seconds per term; models that can: "
                         + ", ".join(EXPLAINED_FAMILIES))
    result = predict(model, [candidate], **context)
    total = float(result.seconds[0])
    if result.unit != "s" or not np.isfinite(total):
        raise ModelError(f"the {model.family} model cannot predict "
                         f"{candidate.kernel_name}: {result.errors[0] or 'no prediction'}")
    account = model.explain_terms(result.breakdowns[0] or Breakdown())
    raw = float(result.raw_seconds[0]) if result.raw_seconds is not None else total
    floor = result.floors[0] if result.floors else None
    terms = list(account.terms)
    lifted = floor is not None and total > raw
    if lifted:
        terms.append(TermShare(f"lifted to the {floor.bound.value} floor", total - raw,
                               Category.FLOOR))
    notes = list(account.notes)
    added = float(sum(t.seconds for t in terms))
    if abs(added - total) > TOLERANCE * abs(total):
        notes.append(f"the terms add up to {added:.4g} s, not the predicted {total:.4g} s")
    limiter, says = _limiter(account.limiter, terms, total, floor, lifted, raw,
                             account.overlaps)
    device = model_device_name(model)
    if description is None:
        description = getattr(model, "device_model", None)
    measured = None
    if stores:
        measured, why = find_measured(stores, candidate, device)
        if why:
            notes.append(why)
    return Explanation(candidate, model.family, device, total, raw, tuple(terms),
                       account.overlaps, limiter, says, floor, roofline_point(candidate),
                       device_ceilings(device, description), measured, tuple(notes),
                       result.caveats[0] if result.caveats else ())


def _limiter(own: str | None, terms, total: float, floor: Floor | None, lifted: bool,
             raw: float, overlaps) -> tuple[str, str]:
    """The limiter and a sentence saying why."""
    if lifted:
        return (f"{floor.bound.value} floor",
                f"the model's {raw * 1e3:.4g} ms is below the physical floor "
                f"({floor.says()}), which is the prediction")
    near = ""
    if floor is not None and floor.seconds > 0:
        near = (f"; {total / floor.seconds:.3g}x the physical floor "
                f"({floor.bound.value}, {floor.seconds * 1e3:.4g} ms)")
    if own is not None:
        said = overlaps[0].says() if overlaps else own
        return own, f"the {own} limiter: {said}{near}"
    seconds: dict[Category, float] = {}
    for t in terms:
        if t.category is not Category.SMOOTHING:
            seconds[t.category] = seconds.get(t.category, 0.0) + t.seconds
    category, cost = max(seconds.items(), key=lambda cs: cs[1])
    share = cost / total if total else math.nan
    where = ""
    if overlaps:
        where = f"; overlap {overlaps[-1].says()}"
    return category.value, f"{share:.0%} of the time{where}{near}"


def _number(value):
    value = float(value)
    return value if math.isfinite(value) else None
