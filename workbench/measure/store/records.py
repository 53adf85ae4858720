"""The frozen value types of the store: what one row and one campaign are.

Nothing here touches SQLite. :class:`ConfigKey` and :class:`Measurement` validate
and normalise on construction, so that whatever a caller holds is exactly what a
later read returns, and a bad value fails before a campaign writes anything. The
helpers at the bottom (canonical JSON, raw-time packing) are the encodings the
writer stores and the queries decode; they are shared within this package only.
"""

from __future__ import annotations

import enum
import json
import math
import operator
import re
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from workbench.errors import StoreError
from workbench.measure import provenance
from workbench.measure.provenance import DeviceIdentity

__all__ = ["DISCARD_FIRST", "TIMED_RUNS", "Campaign", "ConfigKey", "Measurement",
           "RankingCost", "Status"]

#: Measurement protocol: timed runs per configuration, and how many of the first
#: ones are discarded (warm-up: caches, clocks, lazy driver work). The minimum of
#: the rest is kept; all of them are stored.
TIMED_RUNS = 30
DISCARD_FIRST = 4


class Status(enum.Enum):
    """Outcome of one configuration. Only ``OK`` rows carry a time."""

    OK = "ok"
    BUILD_FAILED = "build_failed"
    LAUNCH_FAILED = "launch_failed"
    WRONG_RESULT = "wrong_result"

    @classmethod
    def parse(cls, value: Status | str) -> Status:
        if isinstance(value, Status):
            return value
        try:
            return cls(str(value))
        except ValueError:
            known = ", ".join(s.value for s in cls)
            raise StoreError(f"unknown measurement status {value!r} (known: {known})") \
                from None


def canonical_json(value: object, what: str) -> str:
    """Deterministic JSON: equal values give equal text, so text can be compared."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} must be JSON-serialisable: {exc}") from None


def as_int(value: object, what: str) -> int:
    # operator.index accepts numpy integers but refuses floats such as 16.0, which
    # would otherwise silently turn into a different configuration key.
    if isinstance(value, bool):
        raise StoreError(f"{what} must be an integer, not {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise StoreError(f"{what} must be an integer, not {value!r}") from None


def _format_group_size(size: tuple[int, ...]) -> str:
    return "x".join(str(s) for s in size)


@dataclass(frozen=True)
class ConfigKey:
    """What identifies one configuration on one device: the unit a campaign measures.

    ``params`` is kept sorted so that the same parameters given in any order are the
    same key; :attr:`canonical` is the text stored under a UNIQUE constraint.
    """

    kernel: str
    variant: str
    dtype: str
    params: tuple[tuple[str, int], ...]
    group_size: tuple[int, ...]
    device_key: str

    def __post_init__(self) -> None:
        for name in ("kernel", "variant", "device_key"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise StoreError(f"configuration {name} must be a non-empty string, "
                                 f"not {value!r}")
        # Accept a DType-like enum or a numpy dtype, store its plain name.
        dtype = getattr(self.dtype, "value", self.dtype)
        dtype = str(dtype)
        if not dtype:
            raise StoreError("configuration dtype must not be empty")
        object.__setattr__(self, "dtype", dtype)

        raw_params: Iterable[Any] = (self.params.items() if isinstance(self.params, Mapping)
                                     else self.params)
        params: dict[str, int] = {}
        for item in raw_params:
            try:
                name, value = item
            except (TypeError, ValueError):
                raise StoreError(f"parameter {item!r} is not a (name, value) pair") from None
            if not isinstance(name, str) or not name:
                raise StoreError(f"parameter name must be a non-empty string, not {name!r}")
            if name in params:
                raise StoreError(f"parameter {name!r} given twice")
            params[name] = as_int(value, f"parameter {name!r}")
        object.__setattr__(self, "params", tuple(sorted(params.items())))

        size: Any = self.group_size
        if isinstance(size, str):
            if not re.fullmatch(r"\d+(x\d+)*", size.strip().lower()):
                raise StoreError(f"malformed group size {size!r}: expected e.g. '16x16'")
            size = [int(part) for part in size.strip().lower().split("x")]
        if isinstance(size, int):
            size = (size,)
        group_size = tuple(as_int(s, "group size") for s in size)
        if not group_size or any(s <= 0 for s in group_size):
            raise StoreError(f"group size {self.group_size!r} must be positive integers")
        object.__setattr__(self, "group_size", group_size)

    @classmethod
    def make(cls, kernel: str, variant: str, dtype: object, params: Mapping[str, int],
             group_size: tuple[int, ...] | str, device: DeviceIdentity | str) -> ConfigKey:
        """Build a key from a parameter dict and a device (or its key)."""
        device_key = device.key if isinstance(device, DeviceIdentity) else device
        return cls(kernel, variant, dtype, tuple(params.items()),  # type: ignore[arg-type]
                   group_size, device_key)  # type: ignore[arg-type]

    @property
    def params_dict(self) -> dict[str, int]:
        return dict(self.params)

    @property
    def group_size_text(self) -> str:
        """``(16, 16)`` -> ``"16x16"``."""
        return _format_group_size(self.group_size)

    @property
    def canonical(self) -> str:
        """Stable text form (canonical JSON); equal keys give equal text."""
        return canonical_json({
            "kernel": self.kernel, "variant": self.variant, "dtype": self.dtype,
            "params": [list(p) for p in self.params], "group_size": list(self.group_size),
            "device": self.device_key,
        }, "configuration key")

    @classmethod
    def from_canonical(cls, text: str) -> ConfigKey:
        """Inverse of :attr:`canonical`."""
        try:
            data = json.loads(text)
            return cls(data["kernel"], data["variant"], data["dtype"],
                       tuple((str(n), v) for n, v in data["params"]),
                       tuple(data["group_size"]), data["device"])
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"malformed stored configuration key {text!r}: {exc}") from None

    def __str__(self) -> str:
        params = ", ".join(f"{n}={v}" for n, v in self.params)
        return (f"{self.kernel}[{self.variant}, {self.dtype}, {self.group_size_text}]"
                f"({params}) on {self.device_key}")


def _frozen_json_mapping(value: Mapping[str, Any] | None, what: str) -> Mapping[str, Any]:
    # Round-trip through JSON now, so that what the caller holds is exactly what a
    # later read returns (tuples become lists, keys become strings) and so that an
    # unserialisable value fails at construction, not in the middle of a campaign.
    data = json.loads(canonical_json(dict(value or {}), what))
    return MappingProxyType(data)


@dataclass(frozen=True)
class Measurement:
    """One configuration's outcome, with everything needed to trust or redo it.

    ``time_s`` is the minimum of ``raw_times_s[discard_first:]`` for ``OK`` rows
    (checked, or filled in when given as ``None``) and ``None`` otherwise; a failed
    configuration may still keep the times it produced (e.g. a wrong result).
    ``campaign`` is the id from :meth:`MeasurementStore.start_campaign`, or ``None``
    for an ad-hoc measurement. Prefer the :meth:`ok` and :meth:`failed`
    constructors, which fill in provenance.
    """

    key: ConfigKey
    status: Status
    raw_times_s: tuple[float, ...]
    discard_first: int
    time_s: float | None
    log: str
    device: DeviceIdentity
    library_versions: Mapping[str, str] = field(
        default_factory=provenance.library_versions, hash=False)
    host: str = field(default_factory=provenance.host_name)
    timestamp: str = field(default_factory=provenance.utc_now_iso)
    campaign: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if not isinstance(self.key, ConfigKey):
            raise StoreError(f"measurement key must be a ConfigKey, not {self.key!r}")
        if not isinstance(self.device, DeviceIdentity):
            raise StoreError(f"measurement device must be a DeviceIdentity, "
                             f"not {self.device!r}")
        if self.key.device_key != self.device.key:
            raise StoreError(f"configuration key is for device {self.key.device_key!r} "
                             f"but the measurement was taken on {self.device.key!r}")
        status = Status.parse(self.status)
        set_(self, "status", status)
        try:
            raw = tuple(float(t) for t in self.raw_times_s)
        except (TypeError, ValueError):
            raise StoreError(f"raw times must be numbers: {self.raw_times_s!r}") from None
        set_(self, "raw_times_s", raw)
        discard = as_int(self.discard_first, "discard_first")
        if discard < 0:
            raise StoreError(f"discard_first must be >= 0, not {discard}")
        set_(self, "discard_first", discard)

        if status is Status.OK:
            kept = raw[discard:]
            if not kept:
                raise StoreError(f"{self.key}: {len(raw)} timed runs leave none after "
                                 f"discarding the first {discard}")
            if not all(math.isfinite(t) and t >= 0 for t in raw):
                raise StoreError(f"{self.key}: raw times must be finite and >= 0")
            best = min(kept)
            if self.time_s is None:
                set_(self, "time_s", best)
            elif float(self.time_s) != best:
                raise StoreError(f"{self.key}: time_s={self.time_s!r} is not the minimum "
                                 f"{best!r} of the kept runs")
            else:
                set_(self, "time_s", best)
        elif self.time_s is not None:
            raise StoreError(f"{self.key}: a {status.value} measurement has no time_s")

        if not isinstance(self.log, str):
            raise StoreError("measurement log must be a string")
        set_(self, "library_versions", MappingProxyType(
            {str(k): str(v) for k, v in dict(self.library_versions).items()}))
        set_(self, "extra", _frozen_json_mapping(self.extra, "measurement extra"))
        if self.campaign is not None:
            set_(self, "campaign", as_int(self.campaign, "campaign id"))

    @classmethod
    def ok(cls, key: ConfigKey, raw_times_s: Iterable[float], *, device: DeviceIdentity,
           discard_first: int = DISCARD_FIRST, campaign: int | None = None, log: str = "",
           extra: Mapping[str, Any] | None = None,
           library_versions: Mapping[str, str] | None = None,
           host: str | None = None, timestamp: str | None = None) -> Measurement:
        """A successful measurement; ``time_s`` is derived from the raw times."""
        return cls(key, Status.OK, tuple(raw_times_s), discard_first, None, log, device,
                   **_provenance_kwargs(library_versions, host, timestamp),
                   campaign=campaign, extra=extra or {})

    @classmethod
    def failed(cls, key: ConfigKey, status: Status, log: str, *, device: DeviceIdentity,
               raw_times_s: Iterable[float] = (), discard_first: int = DISCARD_FIRST,
               campaign: int | None = None, extra: Mapping[str, Any] | None = None,
               library_versions: Mapping[str, str] | None = None,
               host: str | None = None, timestamp: str | None = None) -> Measurement:
        """A configuration that failed to build, launch or verify, with its log."""
        if Status.parse(status) is Status.OK:
            raise StoreError("Measurement.failed needs a failure status, not OK")
        return cls(key, status, tuple(raw_times_s), discard_first, None, log, device,
                   **_provenance_kwargs(library_versions, host, timestamp),
                   campaign=campaign, extra=extra or {})


def _provenance_kwargs(library_versions: Mapping[str, str] | None, host: str | None,
                       timestamp: str | None) -> dict[str, Any]:
    return {
        "library_versions": (provenance.library_versions() if library_versions is None
                             else library_versions),
        "host": provenance.host_name() if host is None else host,
        "timestamp": provenance.utc_now_iso() if timestamp is None else timestamp,
    }


@dataclass(frozen=True)
class Campaign:
    """A named run over a set of configurations on one device."""

    id: int
    name: str
    device: DeviceIdentity
    settings: Mapping[str, Any] = field(hash=False)
    host: str
    started: str
    finished: str | None

    @property
    def is_finished(self) -> bool:
        return self.finished is not None


@dataclass(frozen=True)
class RankingCost:
    """What choosing a campaign's points cost before the first one was measured (a
    model's ranking of the space), on the host that ran it.

    ``wall_s``: elapsed seconds; ``cpu_s``: processor seconds of the process and of
    the child processes it waited for (parallel counting workers), so that
    ``cpu_s / wall_s`` is the cores the ranking kept busy; ``jobs``: the processes
    it was allowed; ``cpu_count``: the host's cores.
    """

    strategy: str
    points: int
    wall_s: float
    cpu_s: float
    jobs: int = 1
    cpu_count: int = 1
    host: str = field(default_factory=provenance.host_name)
    timestamp: str = field(default_factory=provenance.utc_now_iso)
    campaign: int | None = None

    def __post_init__(self):
        for name in ("wall_s", "cpu_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise StoreError(f"ranking cost {name} must be a finite number >= 0, "
                                 f"not {value!r}")
            object.__setattr__(self, name, float(value))
        for name in ("points", "jobs", "cpu_count"):
            value = as_int(getattr(self, name), f"ranking cost {name}")
            if value < (0 if name == "points" else 1):
                raise StoreError(f"ranking cost {name} must be positive, not {value}")
            object.__setattr__(self, name, value)
        if not isinstance(self.strategy, str) or not self.strategy:
            raise StoreError(f"ranking cost needs its strategy's name, not "
                             f"{self.strategy!r}")

    @property
    def cores_used(self) -> float:
        """Cores kept busy on average: processor seconds over elapsed seconds."""
        return self.cpu_s / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def share_of_host(self) -> float:
        """The processes allowed over the host's cores."""
        return self.jobs / self.cpu_count


def pack_times(times: tuple[float, ...]) -> bytes:
    # Little-endian float64, independent of the host: bit-exact on any machine.
    return struct.pack(f"<{len(times)}d", *times)


def unpack_times(blob: bytes) -> tuple[float, ...]:
    if len(blob) % 8:
        raise StoreError(f"stored raw times have {len(blob)} bytes, not a multiple of 8")
    return struct.unpack(f"<{len(blob) // 8}d", blob)

