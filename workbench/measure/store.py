"""The durable measurement store: one SQLite file that outlives any campaign.

Measuring a kernel catalog on a GPU takes hours, and the process doing it can be
killed at any moment (a laptop lid, an out-of-memory killer, a user's Ctrl-\\).
The store is built so that such a kill costs at most the configuration in flight:

* every :meth:`MeasurementStore.record` is its own committed transaction, so a
  row is either fully there or not at all;
* the file runs in SQLite's WAL mode, which survives a SIGKILL of the writer at
  any instruction and lets readers (a notebook, a report) read while a campaign
  writes, without "database is locked";
* a campaign is named, and :meth:`MeasurementStore.start_campaign` hands back the
  same unfinished campaign after a kill, whose :meth:`~MeasurementStore.done_keys`
  tell the resumed loop what to skip.

Every row carries everything needed to trust or reproduce it: the configuration
(kernel, variant, dtype, parameters, work-group size), the device identity, the
library versions, the host, a timestamp and all raw times (bit-exact float64),
not only the kept minimum. Configurations that fail to build, launch or verify are
recorded too, with their log, so that a campaign can go on and the failure is not
silently lost.

The file declares itself with an SQLite application id and a schema version, so
that opening an unrelated file, or a store written by a newer workbench, fails
with a clear :class:`~workbench.errors.StoreError` instead of a corrupted read.
"""

from __future__ import annotations

import contextlib
import enum
import json
import math
import operator
import os
import re
import sqlite3
import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from workbench.errors import StoreError
from workbench.measure import provenance
from workbench.measure.provenance import DeviceIdentity

if TYPE_CHECKING:  # pandas is heavy; only to_dataframe needs it
    import pandas as pd

__all__ = [
    "APPLICATION_ID", "DISCARD_FIRST", "SCHEMA_VERSION", "STORE_ENV_VAR", "TIMED_RUNS",
    "Campaign", "ConfigKey", "Measurement", "MeasurementStore", "Status",
    "default_store_path",
]

#: Version of the table layout below. Bump it (and teach :meth:`MeasurementStore.open`
#: to migrate) whenever the layout changes; older workbenches then refuse the file.
SCHEMA_VERSION = 1

#: ``PRAGMA application_id`` of a store: the ASCII bytes ``GPWB``. It lets the store
#: tell its own files from any other SQLite database, whatever tables those hold.
APPLICATION_ID = int.from_bytes(b"GPWB", "big")

#: Environment variable that overrides :func:`default_store_path`.
STORE_ENV_VAR = "WORKBENCH_STORE"

#: Measurement protocol: timed runs per configuration, and how many of the first
#: ones are discarded (warm-up: caches, clocks, lazy driver work). The minimum of
#: the rest is kept; all of them are stored.
TIMED_RUNS = 30
DISCARD_FIRST = 4

_SQLITE_MAGIC = b"SQLite format 3\x00"

_DDL: tuple[str, ...] = (
    """CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE devices (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        platform TEXT NOT NULL,
        device TEXT NOT NULL,
        driver TEXT NOT NULL,
        vendor TEXT NOT NULL DEFAULT ''
    )""",
    """CREATE TABLE campaigns (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        device_id INTEGER NOT NULL REFERENCES devices(id),
        settings TEXT NOT NULL,
        host TEXT NOT NULL,
        started TEXT NOT NULL,
        finished TEXT
    )""",
    # At most one unfinished campaign per (name, device): that is the one a
    # restarted campaign resumes. Finished ones may share the name (re-runs).
    """CREATE UNIQUE INDEX campaigns_open_by_name
        ON campaigns(name, device_id) WHERE finished IS NULL""",
    # One row per configuration and campaign: a re-run in a new campaign is a new,
    # distinguishable row; within a campaign a configuration is measured once.
    """CREATE TABLE measurements (
        id INTEGER PRIMARY KEY,
        campaign_id INTEGER REFERENCES campaigns(id),
        config_key TEXT NOT NULL,
        kernel TEXT NOT NULL,
        variant TEXT NOT NULL,
        dtype TEXT NOT NULL,
        params TEXT NOT NULL,
        group_size TEXT NOT NULL,
        device_id INTEGER NOT NULL REFERENCES devices(id),
        status TEXT NOT NULL,
        raw_times BLOB NOT NULL,
        discard_first INTEGER NOT NULL,
        time_s REAL,
        log TEXT NOT NULL,
        library_versions TEXT NOT NULL,
        host TEXT NOT NULL,
        timestamp TEXT NOT NULL,
        extra TEXT NOT NULL,
        UNIQUE (campaign_id, config_key)
    )""",
    "CREATE INDEX measurements_by_kernel ON measurements(kernel, device_id, status)",
    "CREATE INDEX measurements_by_device ON measurements(device_id, status)",
)


def default_store_path() -> Path:
    """Where the store lives unless the user names a file.

    ``$WORKBENCH_STORE`` wins (one variable to point notebooks, CLI and campaigns
    at the same file); otherwise the XDG data directory, so that measurements
    survive clearing caches and do not litter the working directory.
    """
    override = os.environ.get(STORE_ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    # The XDG spec says relative values are invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "gpu-perf-workbench" / "measurements.sqlite"


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


def _canonical_json(value: object, what: str) -> str:
    """Deterministic JSON: equal values give equal text, so text can be compared."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} must be JSON-serialisable: {exc}") from None


def _as_int(value: object, what: str) -> int:
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
            params[name] = _as_int(value, f"parameter {name!r}")
        object.__setattr__(self, "params", tuple(sorted(params.items())))

        size: Any = self.group_size
        if isinstance(size, str):
            if not re.fullmatch(r"\d+(x\d+)*", size.strip().lower()):
                raise StoreError(f"malformed group size {size!r}: expected e.g. '16x16'")
            size = [int(part) for part in size.strip().lower().split("x")]
        if isinstance(size, int):
            size = (size,)
        group_size = tuple(_as_int(s, "group size") for s in size)
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
        return _canonical_json({
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
    data = json.loads(_canonical_json(dict(value or {}), what))
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
        discard = _as_int(self.discard_first, "discard_first")
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
            set_(self, "campaign", _as_int(self.campaign, "campaign id"))

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


def _pack_times(times: tuple[float, ...]) -> bytes:
    # Little-endian float64, independent of the host: bit-exact on any machine.
    return struct.pack(f"<{len(times)}d", *times)


def _unpack_times(blob: bytes) -> tuple[float, ...]:
    if len(blob) % 8:
        raise StoreError(f"stored raw times have {len(blob)} bytes, not a multiple of 8")
    return struct.unpack(f"<{len(blob) // 8}d", blob)


_MEASUREMENT_COLUMNS = (
    "campaign_id, config_key, kernel, variant, dtype, params, group_size, device_id, "
    "status, raw_times, discard_first, time_s, log, library_versions, host, timestamp, "
    "extra")


class MeasurementStore:
    """An open measurement store. Use :meth:`open`, preferably as a context manager.

    One instance wraps one SQLite connection; use one per process (or thread).
    Several processes may open the same file: one campaign writing, any number of
    readers.
    """

    def __init__(self, connection: sqlite3.Connection, path: Path, readonly: bool):
        """Internal: use :meth:`open`, which checks the file is a store."""
        self._conn: sqlite3.Connection | None = connection
        self._path = path
        self._readonly = readonly

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, create: bool = True,
             readonly: bool = False, timeout_s: float = 30.0) -> MeasurementStore:
        """Open (or, with ``create``, initialise) the store at ``path``.

        ``path=None`` means :func:`default_store_path`. ``readonly`` opens the file
        with SQLite's ``mode=ro`` so a reader can never modify or create it.
        ``timeout_s`` is how long to wait for another process's lock before giving
        up (in WAL mode only writers wait for each other, briefly).

        Raises :class:`StoreError` when the file is missing (and ``create`` is false
        or ``readonly``), is not an SQLite database, is an SQLite database that is
        not a store, or was written by a newer workbench.
        """
        store_path = Path(path).expanduser() if path is not None else default_store_path()
        if readonly:
            create = False
        try:
            if store_path.is_dir():
                raise StoreError(f"{store_path} is a directory, not a measurement store")
            size = store_path.stat().st_size if store_path.exists() else None
            if size is None:
                if not create:
                    raise StoreError(f"no measurement store at {store_path}")
                store_path.parent.mkdir(parents=True, exist_ok=True)
            elif size > 0:
                with open(store_path, "rb") as f:
                    header = f.read(len(_SQLITE_MAGIC))
                if header != _SQLITE_MAGIC:
                    raise StoreError(f"{store_path} is not a workbench measurement store: "
                                     "it is not an SQLite database")
            elif not create:
                raise StoreError(f"{store_path} is an empty file, not a measurement store")
        except OSError as exc:
            raise StoreError(f"cannot open measurement store {store_path}: {exc}") from None

        uri = store_path.resolve().as_uri() + ("?mode=ro" if readonly else "?mode=rwc")
        try:
            # isolation_level=None: no implicit transactions; the store issues
            # BEGIN IMMEDIATE / COMMIT itself so that each record is one transaction.
            conn = sqlite3.connect(uri, uri=True, timeout=timeout_s, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open measurement store {store_path}: {exc}") from None
        store = cls(conn, store_path, readonly)
        try:
            store._prepare(create)
        except BaseException:
            conn.close()
            raise
        return store

    def _prepare(self, create: bool) -> None:
        conn = self._connection
        with self._errors("opening"):
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys = ON")
            app_id, user_version, tables = self._identify()
            if app_id == 0 and user_version == 0 and not tables:
                if not create:
                    raise StoreError(f"{self._path} is an empty database, "
                                     "not a measurement store")
                self._initialise()
                app_id, user_version, tables = self._identify()
            if app_id != APPLICATION_ID:
                listing = ", ".join(sorted(tables)) or "none"
                raise StoreError(
                    f"{self._path} is not a workbench measurement store: it is an SQLite "
                    f"database of another application (application id {app_id}, "
                    f"tables: {listing})")
            self._check_version(user_version, tables)
            if not self._readonly:
                # WAL: a killed writer never corrupts the file, readers never block.
                # FULL: each committed record is also on disk before record() returns,
                # which costs one fsync per configuration -- nothing next to the
                # 30 timed runs -- and survives a power cut, not just a SIGKILL.
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"{self._path}: cannot switch to WAL mode "
                                     f"(journal mode is {mode!r})")
                conn.execute("PRAGMA synchronous = FULL")

    def _identify(self) -> tuple[int, int, set[str]]:
        conn = self._connection
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        user_version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%'")}
        return app_id, user_version, tables

    def _initialise(self) -> None:
        conn = self._connection
        # journal_mode cannot change inside a transaction; set it first so that the
        # very first write already goes through the WAL.
        conn.execute("PRAGMA journal_mode = WAL")
        with self._transaction():
            # Another process may have initialised the file while we looked at it.
            app_id, _, tables = self._identify()
            if app_id != 0 or tables:
                return
            for statement in _DDL:
                conn.execute(statement)
            conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
                ("schema_version", str(SCHEMA_VERSION)),
                ("application", "gpu-perf-workbench measurement store"),
                ("created", provenance.utc_now_iso()),
                ("created_by", provenance.library_versions().get("workbench", "unknown")),
            ])
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _check_version(self, user_version: int, tables: set[str]) -> None:
        if "meta" not in tables:
            raise StoreError(f"{self._path} is a damaged measurement store: "
                             "it has no meta table")
        row = self._connection.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        try:
            version = int(row[0]) if row is not None else user_version
        except ValueError:
            raise StoreError(f"{self._path} is a damaged measurement store: schema "
                             f"version {row[0]!r} is not a number") from None
        version = max(version, user_version)
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self._path} was written by a newer workbench (store schema version "
                f"{version}; this workbench reads up to version {SCHEMA_VERSION}). "
                "Upgrade gpu-perf-workbench to read it.")
        if version < SCHEMA_VERSION:
            raise StoreError(f"{self._path} has store schema version {version}, which "
                             f"this workbench cannot migrate to {SCHEMA_VERSION}")

    # ---------------------------------------------------------------- plumbing
    @property
    def path(self) -> Path:
        return self._path

    @property
    def readonly(self) -> bool:
        return self._readonly

    @property
    def closed(self) -> bool:
        return self._conn is None

    @property
    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"measurement store {self._path} is closed")
        return self._conn

    def close(self) -> None:
        """Close the connection; idempotent."""
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()

    def __enter__(self) -> MeasurementStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("read-only" if self._readonly else "open")
        return f"<MeasurementStore {str(self._path)!r} ({state})>"

    @contextlib.contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """Turn sqlite3 errors into StoreErrors that name the file."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"measurement store {self._path}: {doing} failed: "
                             f"{exc}") from exc

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. IMMEDIATE takes the write lock up front, so two
        writers queue on the busy timeout instead of failing mid-transaction."""
        conn = self._connection
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    @contextlib.contextmanager
    def _write(self, doing: str) -> Iterator[sqlite3.Connection]:
        if self._readonly:
            raise StoreError(f"measurement store {self._path} is open read-only; "
                             f"cannot {doing}")
        with self._errors(doing), self._transaction() as conn:
            yield conn

    @staticmethod
    def _device_id(conn: sqlite3.Connection, device: DeviceIdentity) -> int:
        conn.execute(
            "INSERT INTO devices (key, platform, device, driver, vendor) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET vendor = excluded.vendor "
            "WHERE devices.vendor = '' AND excluded.vendor != ''",
            (device.key, device.platform, device.device, device.driver, device.vendor))
        return int(conn.execute("SELECT id FROM devices WHERE key = ?",
                                (device.key,)).fetchone()[0])

    @staticmethod
    def _device_from_row(row: sqlite3.Row) -> DeviceIdentity:
        return DeviceIdentity(platform=row["platform"], device=row["device"],
                              driver=row["driver"], vendor=row["vendor"])

    def _campaign_row(self, campaign_id: int) -> sqlite3.Row:
        row = self._connection.execute(
            "SELECT c.*, d.platform, d.device, d.driver, d.vendor FROM campaigns c "
            "JOIN devices d ON d.id = c.device_id WHERE c.id = ?",
            (_as_int(campaign_id, "campaign id"),)).fetchone()
        if row is None:
            raise StoreError(f"measurement store {self._path} has no campaign "
                             f"{campaign_id!r}")
        return row

    # --------------------------------------------------------------- campaigns
    def start_campaign(self, name: str, device: DeviceIdentity,
                       settings: Mapping[str, Any] | None = None) -> int:
        """Start a campaign, or resume the unfinished one of that name on that device.

        Resuming is what makes a killed campaign restartable: the same id comes back
        and :meth:`done_keys` lists what is already recorded. Resuming with different
        settings is refused, because the rows would then mix two protocols.
        """
        if not isinstance(name, str) or not name.strip():
            raise StoreError(f"campaign name must be a non-empty string, not {name!r}")
        settings_json = _canonical_json(dict(settings or {}), "campaign settings")
        with self._write("start campaign") as conn:
            device_id = self._device_id(conn, device)
            row = conn.execute(
                "SELECT id, settings FROM campaigns "
                "WHERE name = ? AND device_id = ? AND finished IS NULL",
                (name, device_id)).fetchone()
            if row is not None:
                if json.loads(row["settings"]) != json.loads(settings_json):
                    raise StoreError(
                        f"campaign {name!r} on {device} is unfinished with different "
                        f"settings ({row['settings']} vs {settings_json}); finish it or "
                        "choose another name")
                return int(row["id"])
            cur = conn.execute(
                "INSERT INTO campaigns (name, device_id, settings, host, started) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, device_id, settings_json, provenance.host_name(),
                 provenance.utc_now_iso()))
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def finish_campaign(self, campaign_id: int) -> None:
        """Mark a campaign complete; a later campaign of that name starts afresh."""
        with self._write("finish campaign") as conn:
            self._campaign_row(campaign_id)
            conn.execute("UPDATE campaigns SET finished = ? WHERE id = ? AND finished IS NULL",
                         (provenance.utc_now_iso(), campaign_id))

    def campaign(self, campaign_id: int) -> Campaign:
        with self._errors("read campaign"):
            return self._campaign_from_row(self._campaign_row(campaign_id))

    def campaigns(self, device_key: str | None = None) -> list[Campaign]:
        """All campaigns, oldest first, optionally of one device."""
        sql = ("SELECT c.*, d.platform, d.device, d.driver, d.vendor FROM campaigns c "
               "JOIN devices d ON d.id = c.device_id")
        args: tuple[Any, ...] = ()
        if device_key is not None:
            sql += " WHERE d.key = ?"
            args = (device_key,)
        with self._errors("list campaigns"):
            rows = self._connection.execute(sql + " ORDER BY c.id", args).fetchall()
        return [self._campaign_from_row(r) for r in rows]

    def _campaign_from_row(self, row: sqlite3.Row) -> Campaign:
        return Campaign(id=int(row["id"]), name=row["name"],
                        device=self._device_from_row(row),
                        settings=MappingProxyType(json.loads(row["settings"])),
                        host=row["host"], started=row["started"], finished=row["finished"])

    def devices(self) -> list[DeviceIdentity]:
        """Every device that has a campaign or a measurement, in order of first use."""
        with self._errors("list devices"):
            rows = self._connection.execute(
                "SELECT platform, device, driver, vendor FROM devices ORDER BY id").fetchall()
        return [self._device_from_row(r) for r in rows]

    def done_keys(self, campaign_id: int) -> set[ConfigKey]:
        """Configurations already recorded in a campaign, whatever their status.

        Failed ones count as done: a configuration that did not build will not
        build on a resume either, and its log is already stored.
        """
        with self._errors("read campaign progress"):
            self._campaign_row(campaign_id)
            rows = self._connection.execute(
                "SELECT config_key FROM measurements WHERE campaign_id = ?",
                (campaign_id,)).fetchall()
        return {ConfigKey.from_canonical(r[0]) for r in rows}

    # ------------------------------------------------------------ measurements
    def record(self, measurement: Measurement, *, replace: bool = False) -> int:
        """Commit one measurement in its own transaction and return its row id.

        When this returns, the row is on disk: a kill afterwards cannot lose it, a
        kill before leaves no trace of it. Recording a configuration twice in one
        campaign is refused unless ``replace`` is true.
        """
        if not isinstance(measurement, Measurement):
            raise StoreError(f"can only record a Measurement, not {type(measurement)!r}")
        m = measurement
        key = m.key
        with self._write("record measurement") as conn:
            device_id = self._device_id(conn, m.device)
            if m.campaign is not None:
                row = self._campaign_row(m.campaign)
                if int(row["device_id"]) != device_id:
                    raise StoreError(
                        f"campaign {m.campaign} runs on "
                        f"{self._device_from_row(row).key!r}, not on {m.device.key!r}")
            verb = "INSERT OR REPLACE" if replace else "INSERT"
            try:
                cur = conn.execute(
                    f"{verb} INTO measurements ({_MEASUREMENT_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (m.campaign, key.canonical, key.kernel, key.variant, key.dtype,
                     _canonical_json(key.params_dict, "parameters"),
                     _canonical_json(list(key.group_size), "group size"), device_id,
                     m.status.value, _pack_times(m.raw_times_s), m.discard_first, m.time_s,
                     m.log, json.dumps(dict(m.library_versions), ensure_ascii=False),
                     m.host, m.timestamp, _canonical_json(dict(m.extra), "extra")))
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" not in str(exc):
                    raise
                raise StoreError(f"{key} is already recorded in campaign "
                                 f"{m.campaign}") from None
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def _select(self, device_key: str | None, kernel: str | None,
                status: Status | str | None, campaign: int | str | None) -> list[sqlite3.Row]:
        clauses: list[str] = []
        args: list[Any] = []
        if device_key is not None:
            clauses.append("d.key = ?")
            args.append(device_key)
        if kernel is not None:
            clauses.append("m.kernel = ?")
            args.append(kernel)
        if status is not None:
            clauses.append("m.status = ?")
            args.append(Status.parse(status).value)
        if isinstance(campaign, str):
            clauses.append("c.name = ?")
            args.append(campaign)
        elif campaign is not None:
            clauses.append("m.campaign_id = ?")
            args.append(_as_int(campaign, "campaign id"))
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._errors("read measurements"):
            return self._connection.execute(
                "SELECT m.*, d.platform, d.device, d.driver, d.vendor, "
                "c.name AS campaign_name FROM measurements m "
                "JOIN devices d ON d.id = m.device_id "
                f"LEFT JOIN campaigns c ON c.id = m.campaign_id{where} ORDER BY m.id",
                args).fetchall()

    @staticmethod
    def _measurement_from_row(row: sqlite3.Row) -> Measurement:
        try:
            return Measurement(
                key=ConfigKey.from_canonical(row["config_key"]),
                status=Status.parse(row["status"]),
                raw_times_s=_unpack_times(row["raw_times"]),
                discard_first=int(row["discard_first"]),
                time_s=row["time_s"],
                log=row["log"],
                device=MeasurementStore._device_from_row(row),
                library_versions=json.loads(row["library_versions"]),
                host=row["host"],
                timestamp=row["timestamp"],
                campaign=row["campaign_id"],
                extra=json.loads(row["extra"]),
            )
        except (ValueError, TypeError) as exc:
            raise StoreError(f"malformed stored measurement (row {row['id']}): "
                             f"{exc}") from None

    def measurements(self, device_key: str | None = None, kernel: str | None = None,
                     status: Status | str | None = Status.OK,
                     campaign: int | str | None = None) -> list[Measurement]:
        """Stored measurements in recording order.

        By default only successful ones (what a model fits); ``status=None`` gives
        every row. ``campaign`` is an id, or a name (all campaigns of that name).
        """
        return [self._measurement_from_row(r)
                for r in self._select(device_key, kernel, status, campaign)]

    def to_dataframe(self, device_key: str | None = None, kernel: str | None = None,
                     status: Status | str | None = Status.OK,
                     campaign: int | str | None = None) -> pd.DataFrame:
        """The same rows as :meth:`measurements`, one per measurement, for analysis.

        Each parameter gets its own ``param_<name>`` column (nullable integers,
        missing where a kernel lacks that parameter); ``group_size`` reads
        ``"16x16"`` and ``status`` holds the enum's value.
        """
        import pandas as pd

        rows = self._select(device_key, kernel, status, campaign)
        records: list[dict[str, Any]] = []
        param_names: set[str] = set()
        for row in rows:
            m = self._measurement_from_row(row)
            params = m.key.params_dict
            param_names.update(params)
            records.append({
                "id": int(row["id"]),
                "kernel": m.key.kernel, "variant": m.key.variant, "dtype": m.key.dtype,
                "group_size": m.key.group_size_text,
                **{f"param_{n}": v for n, v in params.items()},
                "time_s": m.time_s, "status": m.status.value,
                "n_runs": len(m.raw_times_s), "discard_first": m.discard_first,
                "raw_times_s": m.raw_times_s,
                "device": m.device.device, "platform": m.device.platform,
                "driver": m.device.driver, "vendor": m.device.vendor,
                "device_key": m.device.key, "host": m.host, "timestamp": m.timestamp,
                "campaign": m.campaign, "campaign_name": row["campaign_name"],
                "log": m.log, "library_versions": dict(m.library_versions),
                "extra": dict(m.extra),
            })
        param_columns = [f"param_{n}" for n in sorted(param_names)]
        columns = ["id", "kernel", "variant", "dtype", "group_size", *param_columns,
                   "time_s", "status", "n_runs", "discard_first", "raw_times_s", "device",
                   "platform", "driver", "vendor", "device_key", "host", "timestamp",
                   "campaign", "campaign_name", "log", "library_versions", "extra"]
        frame = pd.DataFrame.from_records(records, columns=columns)
        for col in param_columns:
            frame[col] = frame[col].astype("Int64")
        for col in ("id", "n_runs", "discard_first"):
            frame[col] = frame[col].astype("int64")
        frame["time_s"] = frame["time_s"].astype("float64")
        frame["campaign"] = frame["campaign"].astype("Int64")
        return frame
