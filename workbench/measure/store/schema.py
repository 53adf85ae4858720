"""The store's table layout, how a file proves it is a store, and migrations.

A store file declares itself twice: ``PRAGMA application_id`` (:data:`APPLICATION_ID`)
says "this is a workbench store", ``PRAGMA user_version`` and the ``meta`` table's
``schema_version`` say which layout it has. :func:`check_file` and :func:`prepare`
read both before anything else touches the file, so that an unrelated file is
never modified and a file from a newer workbench is never misread.

Migrations. :data:`MIGRATIONS` maps a version ``n`` to a function that upgrades an
open connection from layout ``n`` to ``n + 1``. A writable open of an older store
runs the missing steps in order, all in one IMMEDIATE transaction that also bumps
both version marks, so a kill mid-migration leaves the file at its old version and
two processes opening it at once migrate it once. A read-only open cannot upgrade
the file and does not: it reads the older layout as it is (the store's
``schema_version`` says which), which is why migrations should be additive and
the queries must keep reading every layout that a migration starts from. A
version with no unbroken chain of steps up to :data:`SCHEMA_VERSION` is refused,
read-only or not.

To change the layout: edit :data:`DDL` (new stores are created at the new layout
directly), bump :data:`SCHEMA_VERSION`, and register the step from the previous
version in :data:`MIGRATIONS`. A step runs with foreign keys on, inside the
transaction; ``PRAGMA foreign_keys`` cannot change there, so a table rebuild
uses ``PRAGMA defer_foreign_keys = ON`` instead.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from workbench.errors import StoreError
from workbench.measure import provenance
from workbench.measure.store.connection import transaction

__all__ = [
    "APPLICATION_ID", "DDL", "MIGRATIONS", "RANKING_COSTS_SINCE", "SCHEMA_VERSION",
    "Migration", "check_file",
    "identify", "initialise", "migrate", "prepare", "stored_version",
]

#: Version of the table layout below. Bump it whenever the layout changes, and
#: register the upgrade from the previous version in :data:`MIGRATIONS`; older
#: workbenches then refuse the file.
SCHEMA_VERSION = 2

#: ``PRAGMA application_id`` of a store: the ASCII bytes ``GPWB``. It lets the store
#: tell its own files from any other SQLite database, whatever tables those hold.
APPLICATION_ID = int.from_bytes(b"GPWB", "big")

#: Upgrades one open connection from layout ``n`` to ``n + 1``, inside the
#: migration's transaction. It must not commit, and need not touch the version
#: marks: :func:`migrate` sets them after each step.
Migration = Callable[[sqlite3.Connection], None]

#: Version 2 adds :data:`RANKING_COSTS_DDL`: what choosing the points of a tuning
#: campaign cost on the host that ran it.
RANKING_COSTS_DDL = """CREATE TABLE ranking_costs (
        campaign_id INTEGER PRIMARY KEY REFERENCES campaigns(id),
        strategy TEXT NOT NULL,
        points INTEGER NOT NULL,
        wall_s REAL NOT NULL,
        cpu_s REAL NOT NULL,
        jobs INTEGER NOT NULL,
        cpu_count INTEGER NOT NULL,
        host TEXT NOT NULL,
        timestamp TEXT NOT NULL
    )"""


def _add_ranking_costs(conn: sqlite3.Connection) -> None:
    conn.execute(RANKING_COSTS_DDL)


#: ``MIGRATIONS[n]`` upgrades a store from schema version ``n`` to ``n + 1``.
MIGRATIONS: dict[int, Migration] = {1: _add_ranking_costs}

#: The first schema version that has the ``ranking_costs`` table.
RANKING_COSTS_SINCE = 2

_SQLITE_MAGIC = b"SQLite format 3\x00"

#: Statements that create a store at layout :data:`SCHEMA_VERSION`.
DDL: tuple[str, ...] = (
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
    RANKING_COSTS_DDL,
)


def check_file(path: Path, *, create: bool) -> None:
    """Refuse, before SQLite opens it, a path that cannot be a store.

    Without ``create`` the file must exist; with it, the parent directory is made.
    Anything that exists must be empty or start with SQLite's magic header, so that
    SQLite never gets to touch, say, a text file.
    """
    try:
        if path.is_dir():
            raise StoreError(f"{path} is a directory, not a measurement store")
        size = path.stat().st_size if path.exists() else None
        if size is None:
            if not create:
                raise StoreError(f"no measurement store at {path}")
            path.parent.mkdir(parents=True, exist_ok=True)
        elif size > 0:
            with open(path, "rb") as f:
                header = f.read(len(_SQLITE_MAGIC))
            if header != _SQLITE_MAGIC:
                raise StoreError(f"{path} is not a workbench measurement store: "
                                 "it is not an SQLite database")
        elif not create:
            raise StoreError(f"{path} is an empty file, not a measurement store")
    except OSError as exc:
        raise StoreError(f"cannot open measurement store {path}: {exc}") from None


def prepare(conn: sqlite3.Connection, path: Path, *, create: bool, readonly: bool) -> int:
    """Make sure ``conn`` is a store this workbench can use; return its schema version.

    An empty database is initialised when ``create`` allows; an older store is
    migrated unless ``readonly``. SQLite errors propagate for the caller to name
    the file; everything else that is wrong raises :class:`StoreError`.
    """
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    app_id, user_version, tables = identify(conn)
    if app_id == 0 and user_version == 0 and not tables:
        if not create:
            raise StoreError(f"{path} is an empty database, not a measurement store")
        initialise(conn)
        app_id, user_version, tables = identify(conn)
    if app_id != APPLICATION_ID:
        listing = ", ".join(sorted(tables)) or "none"
        raise StoreError(
            f"{path} is not a workbench measurement store: it is an SQLite "
            f"database of another application (application id {app_id}, "
            f"tables: {listing})")
    version = stored_version(conn, path, user_version, tables)
    if version < SCHEMA_VERSION:
        _check_migratable(path, version)
    if not readonly:
        # WAL: a killed writer never corrupts the file, readers never block.
        # FULL: each committed record is also on disk before record() returns,
        # which costs one fsync per configuration -- nothing next to the
        # 30 timed runs -- and survives a power cut, not just a SIGKILL.
        # Both come before a migration, which is then as durable as a record.
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"{path}: cannot switch to WAL mode "
                             f"(journal mode is {mode!r})")
        conn.execute("PRAGMA synchronous = FULL")
        if version < SCHEMA_VERSION:
            version = migrate(conn, path)
    return version


def identify(conn: sqlite3.Connection) -> tuple[int, int, set[str]]:
    """``(application id, user_version, table names)`` of the open database."""
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    user_version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    tables = {row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' "
        "AND name NOT LIKE 'sqlite_%'")}
    return app_id, user_version, tables


def initialise(conn: sqlite3.Connection) -> None:
    """Create the current layout in an empty database."""
    # journal_mode cannot change inside a transaction; set it first so that the
    # very first write already goes through the WAL.
    conn.execute("PRAGMA journal_mode = WAL")
    with transaction(conn):
        # Another process may have initialised the file while we looked at it.
        app_id, _, tables = identify(conn)
        if app_id != 0 or tables:
            return
        for statement in DDL:
            conn.execute(statement)
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
            ("schema_version", str(SCHEMA_VERSION)),
            ("application", "gpu-perf-workbench measurement store"),
            ("created", provenance.utc_now_iso()),
            ("created_by", _workbench_version()),
        ])
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def stored_version(conn: sqlite3.Connection, path: Path, user_version: int,
                   tables: set[str]) -> int:
    """The store's schema version; refuses a damaged store or one from a newer workbench.

    The higher of the two marks counts, so that a newer workbench that bumped only
    one of them is still recognised as newer.
    """
    if "meta" not in tables:
        raise StoreError(f"{path} is a damaged measurement store: "
                         "it has no meta table")
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    try:
        version = int(row[0]) if row is not None else user_version
    except ValueError:
        raise StoreError(f"{path} is a damaged measurement store: schema "
                         f"version {row[0]!r} is not a number") from None
    version = max(version, user_version)
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} was written by a newer workbench (store schema version "
            f"{version}; this workbench reads up to version {SCHEMA_VERSION}). "
            "Upgrade gpu-perf-workbench to read it.")
    return version


def migrate(conn: sqlite3.Connection, path: Path) -> int:
    """Upgrade the store on ``conn`` to :data:`SCHEMA_VERSION`; return that version.

    All steps and both version marks go in one transaction: either the file ends
    at the current version or, after any failure or kill, it stays as it was.
    """
    with transaction(conn):
        # Read again under the write lock: another process may have migrated the
        # file while this one waited for it.
        _, user_version, tables = identify(conn)
        version = stored_version(conn, path, user_version, tables)
        _check_migratable(path, version)
        for step in range(version, SCHEMA_VERSION):
            try:
                MIGRATIONS[step](conn)
            except sqlite3.Error as exc:
                raise StoreError(f"measurement store {path}: migrating from schema "
                                 f"version {step} to {step + 1} failed: {exc}") from exc
            _set_version(conn, step + 1)
    return SCHEMA_VERSION


def _check_migratable(path: Path, version: int) -> None:
    # A version without an unbroken chain of steps is one this workbench never
    # knew (or a damaged mark); reading it with today's queries would be a guess.
    if any(step not in MIGRATIONS for step in range(version, SCHEMA_VERSION)):
        raise StoreError(f"{path} has store schema version {version}, which "
                         f"this workbench cannot migrate to {SCHEMA_VERSION}")


def _set_version(conn: sqlite3.Connection, version: int) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
                 "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(version),))
    # Which workbench upgraded the file, and when: the provenance of the layout.
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                 (f"migrated_to_{version}",
                  f"{provenance.utc_now_iso()} by workbench {_workbench_version()}"))
    conn.execute(f"PRAGMA user_version = {int(version)}")


def _workbench_version() -> str:
    return provenance.library_versions().get("workbench", "unknown")
