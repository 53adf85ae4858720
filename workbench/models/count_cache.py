"""An on-disk cache of the counts of factory-space points, so that a second session
on the same space counts nothing.

Each point's features are keyed by a *fingerprint* of what determines its kernel: the
source file of the space's ``kernel(point)`` factory (its whole text), the space's
name, parameters, problem sizes and dtype, the point's label and work-group shape, and
the versions of loopy, islpy, pymbolic and of the workbench's counting code (a hash of
its source).  A factory that reads something else (another file, an environment
variable) is not covered: ``WORKBENCH_COUNT_CACHE=off`` turns the cache off,
``WORKBENCH_COUNT_CACHE=/some/file.sqlite`` puts it elsewhere; its default is
``$XDG_CACHE_HOME/workbench/counts-v<schema>.sqlite``.

The same file keeps, per factory-space point, the values of the expression model's
*device features* (:mod:`workbench.models.device_features`: occupancy, FMA pairs,
local memory, ...), which a model would otherwise work out by building and analysing
every point's kernel again in each session.  They are keyed by the point's
fingerprint as the counts are, and also by the family (the function that computes
them), the device and :func:`device_code_digest` (the workbench's analysis code and the
device descriptions), with what else a family reads (a measured bandwidth) folded in by
the family (:func:`workbench.models.device_features.cache_context`).

It also keeps whole per-point results of a model family that works each point out
on its own (the roofline's limiter times and data volumes,
:mod:`workbench.models.roofline.result_cache`), for factory and templated spaces alike,
keyed by the space's fingerprint, the model's parameters and the same code digest.

One SQLite file with a schema version; writers hold a short immediate transaction, so
several processes may fill it at once (a write that meets a locked database waits,
and one that still fails is skipped: the cache is an optimisation).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import math
import os
import sqlite3
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path

from workbench.properties import Granularity

#: bump when what is stored, or how it is counted, changes meaning
SCHEMA_VERSION = 1


def cache_path() -> Path | None:
    setting = os.environ.get("WORKBENCH_COUNT_CACHE", "").strip()
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    if setting:
        return Path(setting)
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "workbench" / f"counts-v{SCHEMA_VERSION}.sqlite"


@functools.lru_cache(maxsize=1)
def _library_versions() -> str:
    parts = []
    for name in ("loopy", "islpy", "pymbolic"):
        try:
            parts.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{name}=?")
    counting = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for path in sorted([*(root / "properties").glob("*.py"),
                        root / "models" / "expressions" / "feature_values.py",
                        root / "models" / "expressions" / "features.py",
                        root / "models" / "candidate_features.py",
                        root / "models" / "point_counts.py",
                        root / "models" / "factory_memo.py",
                        root / "models" / "structure_counts.py",
                        root / "models" / "structure_fit.py",
                        root / "models" / "structure_lanes.py",
                        root / "models" / "structure_share.py",
                        root / "models" / "global_bytes.py"]):
        counting.update(path.read_bytes())
    parts.append(f"counting={counting.hexdigest()[:16]}")
    return ";".join(parts)


@functools.lru_cache(maxsize=64)
def _source_digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def space_fingerprint(space) -> str | None:
    """What a space's kernels depend on, hashed; None where the source of its factory
    (``kernel(point)``) or template (``template(structure)``) cannot be read (such a
    space is not cached)."""
    try:
        source = inspect.getsourcefile(space.kernel if space.kernel is not None
                                       else space.template)
    except TypeError:
        return None
    digest = _source_digest(source) if source else None
    if digest is None:
        return None
    what = repr((SCHEMA_VERSION, _library_versions(), digest, space.name,
                 tuple((k, tuple(v)) for k, v in space.tune_params.items()),
                 tuple(sorted(space.problem.items())), space.dtype))
    return hashlib.sha256(what.encode()).hexdigest()


def point_key(point, group_size) -> str:
    return f"{point.label}@{'x'.join(map(str, group_size))}"


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path, timeout=30, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
    con.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    con.execute("CREATE TABLE IF NOT EXISTS counts (fingerprint TEXT, point TEXT, "
                "grain TEXT, name TEXT, value REAL, "
                "PRIMARY KEY (fingerprint, point, grain, name))")
    con.execute("CREATE TABLE IF NOT EXISTS device_values (fingerprint TEXT, "
                "family TEXT, device TEXT, code TEXT, point TEXT, name TEXT, value REAL, "
                "PRIMARY KEY (fingerprint, family, device, code, point, name))")
    con.execute("CREATE TABLE IF NOT EXISTS errors (fingerprint TEXT, point TEXT, "
                "error TEXT, PRIMARY KEY (fingerprint, point))")
    con.execute("CREATE TABLE IF NOT EXISTS results (fingerprint TEXT, family TEXT, "
                "model TEXT, code TEXT, point TEXT, value BLOB, "
                "PRIMARY KEY (fingerprint, family, model, code, point))")
    return con


def _read(*queries: tuple[str, tuple]) -> list[list[tuple]] | None:
    """Each query's rows from the cache's file; None where there is no file or it fails
    (the cache is an optimisation: a failed read counts again)."""
    path = cache_path()
    if path is None or not path.exists():
        return None
    try:
        con = _connect(path)
        try:
            return [con.execute(sql, args).fetchall() for sql, args in queries]
        finally:
            con.close()
    except sqlite3.Error:
        return None


def _write(path: Path, *statements: tuple[str, Iterable]) -> None:
    """Each statement over its rows in one immediate transaction; a write that still
    meets a locked or broken file is skipped."""
    try:
        con = _connect(path)
        try:
            con.execute("BEGIN IMMEDIATE")
            for sql, rows in statements:
                con.executemany(sql, rows)
            con.execute("COMMIT")
        finally:
            con.close()
    except sqlite3.Error:
        return


def load(fingerprint: str) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, str]]:
    """Stored counts of one space: point -> grain -> name -> value, and errors."""
    found = _read(("SELECT point, grain, name, value FROM counts WHERE fingerprint = ?",
                   (fingerprint,)),
                  ("SELECT point, error FROM errors WHERE fingerprint = ?", (fingerprint,)))
    if found is None:
        return {}, {}
    rows, errs = found
    out: dict[str, dict[str, dict[str, float]]] = {}
    for point, grain, name, value in rows:
        out.setdefault(point, {}).setdefault(grain, {})[name] = \
            math.nan if value is None else float(value)
    return out, dict(errs)


def save(fingerprint: str, counts: Mapping[str, Mapping[str, Mapping[str, float]]],
         errors: Mapping[str, str] = {}, path: Path | None = None) -> None:
    """Store counts (``path``: the cache's file, default :func:`cache_path`)."""
    path = path or cache_path()
    if path is None or (not counts and not errors):
        return
    rows: Iterable = [(fingerprint, point, grain, name, None if math.isnan(v) else v)
                      for point, grains in counts.items()
                      for grain, values in grains.items()
                      for name, v in values.items()]
    _write(path, ("INSERT OR REPLACE INTO counts VALUES (?, ?, ?, ?, ?)", rows),
           ("INSERT OR REPLACE INTO errors VALUES (?, ?, ?)",
            [(fingerprint, p, e) for p, e in errors.items()]))


@functools.lru_cache(maxsize=1)
def device_code_digest() -> str:
    """A hash of what device-feature values are computed with, beyond the point and the
    device's name: every module of the workbench's models, properties, kernels and
    hardware (a family reads counts, builds, occupancy, rooflines, floors) and the
    shipped device descriptions.  Coarse on purpose: an edit anywhere there computes
    the values again rather than read back ones the old code made."""
    digest = hashlib.sha256(_library_versions().encode())
    root = Path(__file__).resolve().parents[1]
    files = [*(root / "models").rglob("*.py"), *(root / "properties").rglob("*.py"),
             *(root / "kernels").rglob("*.py"), *(root / "hardware").rglob("*.py"),
             *(root / "hardware" / "data").glob("*.json")]
    for path in sorted(files):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def load_device_values(fingerprint: str, family: str, device: str, code: str
                       ) -> dict[str, dict[str, float]]:
    """Stored device-feature values of one space's points: point -> name -> value."""
    found = _read(("SELECT point, name, value FROM device_values WHERE fingerprint = ? "
                   "AND family = ? AND device = ? AND code = ?",
                   (fingerprint, family, device, code)))
    if found is None:
        return {}
    out: dict[str, dict[str, float]] = {}
    for point, name, value in found[0]:
        out.setdefault(point, {})[name] = math.nan if value is None else float(value)
    return out


def save_device_values(fingerprint: str, family: str, device: str, code: str,
                       values: Mapping[str, Mapping[str, float]]) -> None:
    """Store device-feature values: point -> name -> value (NaN: no value)."""
    path = cache_path()
    if path is None or not values:
        return
    rows = [(fingerprint, family, device, code, point, name,
             None if math.isnan(v) else float(v))
            for point, named in values.items() for name, v in named.items()]
    _write(path, ("INSERT OR REPLACE INTO device_values VALUES (?, ?, ?, ?, ?, ?, ?)", rows))


def load_results(fingerprint: str, family: str, model: str, code: str) -> dict[str, bytes]:
    """A model family's stored per-point results of one space (point -> the bytes it
    was stored as), for one model (``model``: a digest of its parameters) and the code
    that made them (:func:`device_code_digest`)."""
    found = _read(("SELECT point, value FROM results WHERE fingerprint = ? AND family = ? "
                   "AND model = ? AND code = ?", (fingerprint, family, model, code)))
    return {} if found is None else dict(found[0])


def save_results(fingerprint: str, family: str, model: str, code: str,
                 values: Mapping[str, bytes]) -> None:
    """Store per-point results as bytes (:func:`load_results`)."""
    path = cache_path()
    if path is None or not values:
        return
    _write(path, ("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?)",
                  [(fingerprint, family, model, code, point, sqlite3.Binary(value))
                   for point, value in values.items()]))


def grain_name(key: tuple) -> str:
    """The stored name of a (granularity, sub-group size) key."""
    return f"{key[0].value}/{key[1]}"


def grain_key(grain: str) -> tuple:
    value, _, size = grain.partition("/")
    return (Granularity(value), None if size == "None" else int(size))


def flat_counts(found: Mapping[tuple, Mapping[str, float]]) -> dict[str, float]:
    """One point's counts per granularity as one map of "grain|feature" names (what a
    structure's fit takes)."""
    return {f"{grain_name(k)}|{name}": v for k, values in found.items()
            for name, v in values.items()}


def nested_counts(flat: Mapping[str, float]) -> dict[tuple, dict[str, float]]:
    out: dict[tuple, dict[str, float]] = {}
    for composite, v in flat.items():
        grain, _, name = composite.partition("|")
        out.setdefault(grain_key(grain), {})[name] = float(v)
    return out
