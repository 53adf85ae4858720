"""The open connection that the writer and the queries share.

:class:`StoreConnection` owns one SQLite connection and what every part of the
store needs from it: the open/closed/read-only state, the translation of SQLite
errors into :class:`~workbench.errors.StoreError`, write transactions, and the
row lookups that both writing and reading use (a campaign by id, a device from a
row). It knows nothing about the table layout's history; that is
:mod:`~workbench.measure.store.schema`.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from workbench.errors import StoreError
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store.records import as_int

__all__ = ["StoreConnection", "transaction"]


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction. IMMEDIATE takes the write lock up front, so two
    writers queue on the busy timeout instead of failing mid-transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class StoreConnection:
    """One SQLite connection to a store file, and the plumbing around it."""

    def __init__(self, connection: sqlite3.Connection, path: Path, readonly: bool):
        """Internal: use :meth:`MeasurementStore.open`, which checks the file is a store."""
        self._conn: sqlite3.Connection | None = connection
        self._path = path
        self._readonly = readonly
        # Set by MeasurementStore.open once the file is checked (and migrated).
        self._schema_version = 0

    # ---------------------------------------------------------------- plumbing
    @property
    def path(self) -> Path:
        return self._path

    @property
    def readonly(self) -> bool:
        return self._readonly

    @property
    def schema_version(self) -> int:
        """Layout version of the open file: the current ``SCHEMA_VERSION``, or an
        older one when such a store was opened read-only (and so not migrated)."""
        return self._schema_version

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

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("read-only" if self._readonly else "open")
        return f"<{type(self).__name__} {str(self._path)!r} ({state})>"

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
        with transaction(self._connection) as conn:
            yield conn

    @contextlib.contextmanager
    def _write(self, doing: str) -> Iterator[sqlite3.Connection]:
        if self._readonly:
            raise StoreError(f"measurement store {self._path} is open read-only; "
                             f"cannot {doing}")
        with self._errors(doing), self._transaction() as conn:
            yield conn

    # ------------------------------------------------------------ shared rows
    @staticmethod
    def _device_from_row(row: sqlite3.Row) -> DeviceIdentity:
        return DeviceIdentity(platform=row["platform"], device=row["device"],
                              driver=row["driver"], vendor=row["vendor"])

    def _campaign_row(self, campaign_id: int) -> sqlite3.Row:
        row = self._connection.execute(
            "SELECT c.*, d.platform, d.device, d.driver, d.vendor FROM campaigns c "
            "JOIN devices d ON d.id = c.device_id WHERE c.id = ?",
            (as_int(campaign_id, "campaign id"),)).fetchone()
        if row is None:
            raise StoreError(f"measurement store {self._path} has no campaign "
                             f"{campaign_id!r}")
        return row
