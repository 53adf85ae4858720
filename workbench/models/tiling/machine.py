"""The machine of the time model: hardware facts (Table 2) and measured parameters
(Tables 3 and 4).

:class:`TilingHardware` holds the elementary hardware parameters the paper takes
from vendor documents (``n_SM``, ``n_V``, ``M_SM``, ``R_SM``, ``MTB_SM``) plus the
per-group local-memory limit and the threads per SM; the H100's come from the CUDA
attributes the workbench queried (``sample_data/h100/device-facts.json``) except
``n_V`` (128 FP32 lanes per SM: NVIDIA's H100 whitepaper).

:class:`TilingCalibration` holds what microbenchmarks measure
(:mod:`workbench.kernels.timetiled.microbench`):

* ``L``: seconds per 4-byte word moved between global and local memory *by one SM*
  (a tile's transfer of ``m`` words costs ``m * L``).  The paper's Table 3 gives L
  in s/GB of the whole device, which with its own formulas would make a tile's
  transfer ``n_SM`` times too cheap; we keep the unit the formulas need;
* ``tau_sync``: one work-group barrier, seconds;
* ``T_sync``: one launch in a back-to-back sequence (the gap the driver pays per
  band), seconds;
* ``C_iter``: per stencil, seconds per update of one point by one vector lane.

``L`` and ``C_iter`` are those of the overlapped microbenchmarks.  A scheme calibrated
on its own microbenchmarks (the paper's hexagonal and hybrid tiles, issue 34) has its
own ``L`` and ``C_iter`` in ``schemes`` (:class:`SchemeConstants`, keyed by the scheme's
name); :meth:`TilingCalibration.constants` gives a scheme its own where it has them and
the overlapped ones otherwise, so files written before (no ``schemes``) load and price
as they did.

Nothing here is invented: a calibration is read from a file written by a run
(``sample_data/h100/tiling-calibration.json``) or passed in by the caller.
"""

from __future__ import annotations

import json
import lzma
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from workbench.errors import ModelError
from workbench.shipped_files import read_shipped_text, shipped_path

CALIBRATION_SCHEMA = "workbench.tiling_calibration"


@dataclass(frozen=True)
class TilingHardware:
    name: str
    n_SM: int                  # streaming multiprocessors (compute units)
    n_V: int                   # vector lanes per SM
    M_SM: int                  # local (shared) memory per SM, bytes
    M_group: int               # local memory one work group may use, bytes
    R_SM: int                  # 32-bit registers per SM
    MTB_SM: int                # resident work groups per SM, at most
    threads_SM: int            # resident threads per SM, at most
    max_group: int = 1024      # work items per group, at most
    source: str = ""

    def __post_init__(self):
        for name in ("n_SM", "n_V", "M_SM", "M_group", "R_SM", "MTB_SM", "threads_SM",
                     "max_group"):
            if int(getattr(self, name)) < 1:
                raise ModelError(f"hardware {self.name!r}: {name} must be positive")


#: The H100 SXM (80 GB HBM3) of the shipped measurements.
H100 = TilingHardware(
    "NVIDIA H100 80GB HBM3", n_SM=132, n_V=128, M_SM=233472, M_group=48 * 1024,
    R_SM=65536, MTB_SM=32, threads_SM=2048,
    source="CUDA attributes MultiProcessorCount, MaxSharedMemoryPerMultiprocessor, "
           "MaxRegistersPerMultiprocessor, MaxBlocksPerMultiprocessor, "
           "MaxThreadsPerMultiProcessor (sample_data/h100/device-facts.json); n_V: 128 "
           "FP32 lanes per SM (H100 whitepaper); M_group: OpenCL's 48 KiB per group")

HARDWARE = {"h100": H100}


def _check_positive(device: str, what: str, L: float, C_iter: Mapping[str, float]):
    if not float(L) > 0:
        raise ModelError(f"calibration of {device!r}{what}: L must be positive, got {L!r}")
    bad = {k: v for k, v in C_iter.items() if not float(v) > 0}
    if bad:
        raise ModelError(f"calibration of {device!r}{what}: C_iter must be positive "
                         f"({bad})")


@dataclass(frozen=True)
class SchemeConstants:
    """``L`` and ``C_iter`` per stencil measured on one scheme's own microbenchmarks
    (how: ``provenance``); ``row_latency``: the resident-latency extension's
    ``lambda``, seconds per row (0 for the paper's equations, which have none), or per
    load pass in its load-pass variant; ``pass_latency``: the two-term variant's
    second latency, seconds per load pass (its ``row_latency`` then per row);
    ``lane_pass``: the lane-pass form's compute latency, seconds per lane pass of one
    group; ``register_fit``: that form's registers per work item from the tile shape,
    the coefficients of :func:`.schemes.register_features` and the lowest and highest
    count of the microbenchmark builds it was fitted on (empty: none); ``lane_rows``,
    ``step_global``, ``step_launch``: the lane-rows form's gamma, g and g_0 (rounds
    5-6); ``latency_hidden`` (round 7, 1-D only): the groups one SM holds hide each
    other's waits, and stream their words at the overlapped tiles' ``L``
    (:func:`.schemes.resident_tile`); ``partial_rounds`` (round 8, 2-D): a launch's
    last, partial round of groups costs a tile at the groups per SM it leaves, not a
    full one (:func:`.schemes.round_costs`); ``warp_loads`` (round 9, 2-D): a
    load pass along the inner axis costs the share of its warps that have a word to
    load, so the two halo words past a sub-tile as wide as its lanes cost one warp's
    share of a pass, not a whole pass (:func:`.schemes.load_passes`); ``guarded_pass``
    (round 11, 2-D): how much dearer a compute pass is when the sub-tile's width is
    not a multiple of its lanes along the inner axis, so that every pass checks its
    lanes against the width (:func:`.schemes.lane_rows_terms`)."""

    L: float
    C_iter: Mapping[str, float]
    provenance: Mapping[str, object] = field(default_factory=dict)
    row_latency: float = 0.0
    pass_latency: float = 0.0
    lane_pass: float = 0.0
    register_fit: tuple[float, ...] = ()
    lane_rows: float = 0.0
    step_global: float = 0.0
    step_launch: float = 0.0
    latency_hidden: bool = False
    partial_rounds: bool = False
    warp_loads: bool = False
    guarded_pass: float = 0.0

    def to_json(self) -> dict:
        doc = {"L": self.L, "C_iter": dict(self.C_iter),
               "provenance": dict(self.provenance)}
        if self.row_latency:
            doc["row_latency"] = self.row_latency
        if self.pass_latency:
            doc["pass_latency"] = self.pass_latency
        if self.lane_pass:
            doc["lane_pass"] = self.lane_pass
        if self.register_fit:
            doc["register_fit"] = list(self.register_fit)
        if self.lane_rows:
            doc["lane_rows"] = self.lane_rows
        if self.step_global:
            doc["step_global"] = self.step_global
        if self.step_launch:
            doc["step_launch"] = self.step_launch
        if self.latency_hidden:
            doc["latency_hidden"] = True
        if self.partial_rounds:
            doc["partial_rounds"] = True
        if self.warp_loads:
            doc["warp_loads"] = True
        if self.guarded_pass:
            doc["guarded_pass"] = self.guarded_pass
        return doc

    @classmethod
    def from_json(cls, doc: Mapping) -> SchemeConstants:
        return cls(float(doc["L"]), {str(k): float(v) for k, v in dict(doc["C_iter"]).items()},
                   dict(doc.get("provenance") or {}), float(doc.get("row_latency", 0.0)),
                   float(doc.get("pass_latency", 0.0)), float(doc.get("lane_pass", 0.0)),
                   tuple(float(x) for x in doc.get("register_fit") or ()),
                   float(doc.get("lane_rows", 0.0)), float(doc.get("step_global", 0.0)),
                   float(doc.get("step_launch", 0.0)),
                   bool(doc.get("latency_hidden", False)),
                   bool(doc.get("partial_rounds", False)),
                   bool(doc.get("warp_loads", False)),
                   float(doc.get("guarded_pass", 0.0)))


@dataclass(frozen=True)
class TilingCalibration:
    """Measured parameters of one device (module docstring)."""

    device: str
    L: float
    tau_sync: float
    T_sync: float
    C_iter: Mapping[str, float]
    provenance: Mapping[str, object] = field(default_factory=dict)
    schemes: Mapping[str, SchemeConstants] = field(default_factory=dict)

    def __post_init__(self):
        for name in ("tau_sync", "T_sync"):
            if not float(getattr(self, name)) > 0:
                raise ModelError(f"calibration of {self.device!r}: {name} must be "
                                 f"positive, got {getattr(self, name)!r}")
        _check_positive(self.device, "", self.L, self.C_iter)
        for scheme, consts in self.schemes.items():
            _check_positive(self.device, f" ({scheme} scheme)", consts.L, consts.C_iter)
            for what, v in (("row", consts.row_latency), ("pass", consts.pass_latency),
                            ("lane pass", consts.lane_pass),
                            ("lane-rows", consts.lane_rows),
                            ("step global", consts.step_global),
                            ("step launch", consts.step_launch),
                            ("guarded pass", consts.guarded_pass)):
                if not float(v) >= 0:
                    raise ModelError(f"calibration of {self.device!r} ({scheme} scheme): "
                                     f"the {what} latency must be >= 0, got {v!r}")

    def constants(self, scheme: str | None = None) -> tuple[float, Mapping[str, float], str]:
        """``(L, C_iter per stencil, whose)`` of a scheme (its name): its own where
        measured (``whose`` is the scheme's name), else the overlapped ones
        (``whose`` is ``"overlapped"``)."""
        own = self.schemes.get(scheme) if scheme else None
        if own is None:
            return float(self.L), self.C_iter, "overlapped"
        return float(own.L), own.C_iter, str(scheme)

    def c_iter(self, stencil: str, scheme: str | None = None) -> float:
        _, table, whose = self.constants(scheme)
        try:
            return float(table[stencil])
        except KeyError:
            known = ", ".join(sorted(table)) or "none"
            own = "" if whose == "overlapped" else f"{whose} "
            raise ModelError(f"the calibration of {self.device!r} has no {own}C_iter "
                             f"for {stencil!r} (measured: {known})") from None

    def to_json(self) -> dict:
        doc = {"schema": CALIBRATION_SCHEMA, "device": self.device, "L": self.L,
               "tau_sync": self.tau_sync, "T_sync": self.T_sync,
               "C_iter": dict(self.C_iter), "provenance": dict(self.provenance)}
        if self.schemes:
            doc["schemes"] = {k: v.to_json() for k, v in sorted(self.schemes.items())}
        return doc

    @classmethod
    def from_json(cls, doc: Mapping) -> TilingCalibration:
        if not isinstance(doc, Mapping) or doc.get("schema") != CALIBRATION_SCHEMA:
            raise ModelError("not a tiling calibration (schema field)")
        try:
            return cls(str(doc["device"]), float(doc["L"]), float(doc["tau_sync"]),
                       float(doc["T_sync"]),
                       {str(k): float(v) for k, v in dict(doc["C_iter"]).items()},
                       dict(doc.get("provenance") or {}),
                       {str(k): SchemeConstants.from_json(v)
                        for k, v in dict(doc.get("schemes") or {}).items()})
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ModelError(f"malformed tiling calibration: {err}") from None


CALIBRATION_FILE = "tiling-calibration.json"


def shipped_calibration(device: str) -> TilingCalibration:
    """The calibration shipped for a device model (``sample_data/<device>/``, written
    by ``scripts/h100_timetiling.sh``)."""
    from workbench.measure.samples import sample_data_root

    root = sample_data_root()
    if root is None:
        raise ModelError("no shipped data here: pass a tiling calibration file")
    return load_calibration(Path(root) / device / CALIBRATION_FILE)


def calibration_file(path: str | Path) -> Path:
    """``path``, or its ``xz`` copy (``X.json.xz``) where only that exists: calibrations
    ship compressed to keep the tracked tree small (issue #25)."""
    return shipped_path(path)


def load_calibration(path: str | Path) -> TilingCalibration:
    try:
        return TilingCalibration.from_json(json.loads(read_shipped_text(path)))
    except FileNotFoundError:
        raise ModelError(f"no tiling calibration at {str(path)!r}: measure one "
                         "(scripts/h100_timetiling.sh on the H100, or the timetiling "
                         "measurement set) first") from None
    except (OSError, EOFError, lzma.LZMAError, json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ModelError(f"cannot read tiling calibration {str(path)!r}: {err}") from None


def save_calibration(calibration: TilingCalibration, path: str | Path) -> None:
    try:
        Path(path).write_text(json.dumps(calibration.to_json(), indent=2) + "\n")
    except OSError as err:
        raise ModelError(f"cannot write {str(path)!r}: {err}") from None
