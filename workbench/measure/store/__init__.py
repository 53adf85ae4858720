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

The package, by concept (each module imports only those listed before it):

* :mod:`~workbench.measure.store.records`: the frozen value types
  (:class:`Status`, :class:`ConfigKey`, :class:`Measurement`, :class:`Campaign`),
  the measurement protocol's constants and the encodings rows are stored in;
* :mod:`~workbench.measure.store.connection`: the open connection, its write
  transactions and error translation, shared by reading and writing;
* :mod:`~workbench.measure.store.schema`: the table layout, the checks a file
  passes on open (application id, schema version) and the migrations that
  upgrade an older store;
* :mod:`~workbench.measure.store.writer`: starting, resuming and finishing
  campaigns, and recording measurements;
* :mod:`~workbench.measure.store.queries`: reading measurements, devices and
  campaigns back;
* :mod:`~workbench.measure.store.compressed`: stores shipped xz-compressed
  (``X.sqlite.xz``), read through a decompressed cache, and the name fallback
  (:func:`resolve_store_path`) that finds ``X.sqlite.xz`` for ``X.sqlite``;
* this module: :class:`MeasurementStore`, composed of the writer and the queries,
  and where the store lives (:func:`default_store_path`).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from workbench.errors import StoreError
from workbench.measure.store import schema
from workbench.measure.store.compressed import (
    cached_copy,
    is_compressed,
    readable_file,
    resolve_store_path,
    unpack,
    writable_copy_hint,
)
from workbench.measure.store.queries import StoreReader
from workbench.measure.store.records import (
    DISCARD_FIRST,
    TIMED_RUNS,
    Campaign,
    ConfigKey,
    Measurement,
    RankingCost,
    Status,
)
from workbench.measure.store.schema import APPLICATION_ID, SCHEMA_VERSION
from workbench.measure.store.writer import StoreWriter

__all__ = [
    "APPLICATION_ID", "DISCARD_FIRST", "SCHEMA_VERSION", "STORE_ENV_VAR", "TIMED_RUNS",
    "Campaign", "ConfigKey", "Measurement", "MeasurementStore", "RankingCost", "Status",
    "default_store_path", "readable_file", "resolve_store_path", "unpack",
]

#: Environment variable that overrides :func:`default_store_path`.
STORE_ENV_VAR = "WORKBENCH_STORE"


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


class MeasurementStore(StoreWriter, StoreReader):
    """An open measurement store. Use :meth:`open`, preferably as a context manager.

    One instance wraps one SQLite connection; use one per process (or thread).
    Several processes may open the same file: one campaign writing, any number of
    readers.
    """

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
        not a store, was written by a newer workbench, or has an older schema
        version with no migration to this one. An older store that can be migrated
        is, when opened for writing; opened read-only, it is read as it is.

        A store shipped compressed (``X.sqlite.xz``, or ``X.sqlite`` when only
        ``X.sqlite.xz`` exists) opens read-only from a decompressed copy in the
        user's cache (:mod:`~workbench.measure.store.compressed`); opening it for
        writing raises :class:`StoreError` saying how to unpack a writable copy.
        """
        store_path = Path(path).expanduser() if path is not None else default_store_path()
        if readonly:
            create = False
        file_path = store_path
        if not store_path.exists():
            file_path = resolve_store_path(store_path) or store_path
        if is_compressed(file_path):
            if not readonly:
                raise StoreError(f"measurement store {file_path} is compressed and opens "
                                 f"only read-only: {writable_copy_hint(file_path)}")
            file_path = cached_copy(file_path)
        schema.check_file(file_path, create=create)

        uri = file_path.resolve().as_uri() + ("?mode=ro" if readonly else "?mode=rwc")
        try:
            # isolation_level=None: no implicit transactions; the store issues
            # BEGIN IMMEDIATE / COMMIT itself so that each record is one transaction.
            conn = sqlite3.connect(uri, uri=True, timeout=timeout_s, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open measurement store {store_path}: {exc}") from None
        store = cls(conn, store_path, readonly)
        try:
            with store._errors("opening"):
                store._schema_version = schema.prepare(conn, store_path, create=create,
                                                       readonly=readonly)
        except BaseException:
            conn.close()
            raise
        return store

    def __enter__(self) -> MeasurementStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
