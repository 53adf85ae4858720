"""Tests of the durable measurement store (workbench.measure.store).

The crash and concurrency tests use real subprocesses: a SIGKILL and a second
process holding the file are exactly the situations the store is built for, and
they cannot be simulated faithfully inside one interpreter.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.errors import StoreError, WorkbenchError
from workbench.measure.provenance import DeviceIdentity, library_versions, utc_now_iso
from workbench.measure.store import (
    APPLICATION_ID, SCHEMA_VERSION, ConfigKey, Measurement, MeasurementStore, Status,
    default_store_path, readable_file, resolve_store_path, schema,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
DEVICE = DeviceIdentity("Portable Computing Language", "cpu-haswell", "6.0", "pocl")
OTHER_DEVICE = DeviceIdentity("NVIDIA CUDA", "NVIDIA H100", "550.54", "NVIDIA")

# A campaign in a child process: records configurations i = 0..n-1 of a fake kernel,
# skipping those already done, and prints the number of committed rows after each
# commit (so the parent knows what must survive a kill).
WRITER = r"""
import sys, time
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store import ConfigKey, Measurement, MeasurementStore
path, name, n, pause = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
device = DeviceIdentity("Portable Computing Language", "cpu-haswell", "6.0", "pocl")
with MeasurementStore.open(path) as store:
    cid = store.start_campaign(name, device, {"timed_runs": 30})
    done = store.done_keys(cid)
    print(f"campaign {cid} done {len(done)}", flush=True)
    count = len(done)
    for i in range(n):
        key = ConfigKey.make("axpy", "plain", "float32", {"n": 1024 * (i + 1)}, (64,), device)
        if key in done:
            continue
        times = [1e-6 * (i + 1) + 1e-9 * j for j in range(30)]
        store.record(Measurement.ok(key, times, device=device, campaign=cid))
        count += 1
        print(count, flush=True)
        time.sleep(pause)
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _start_writer(path: Path, name: str, n: int, pause: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), name, str(n), str(pause)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())


def _key(n: int = 1024, variant: str = "plain", device: DeviceIdentity = DEVICE) -> ConfigKey:
    return ConfigKey.make("axpy", variant, "float32", {"n": n, "m": 3}, (16, 16), device)


def _ok(key: ConfigKey | None = None, campaign: int | None = None,
        device: DeviceIdentity = DEVICE) -> Measurement:
    times = [2.5e-5 - 1e-7 * i for i in range(30)]
    return Measurement.ok(key or _key(device=device), times, device=device,
                          campaign=campaign)


# ------------------------------------------------------------------ provenance
def test_device_identity_key_and_dict_round_trip() -> None:
    padded = DeviceIdentity(" Portable Computing Language ", "cpu-haswell\x00", "6.0 ", "pocl")
    assert padded == DEVICE
    assert DEVICE.key == "Portable Computing Language|cpu-haswell|6.0"
    assert DeviceIdentity.from_dict(DEVICE.to_dict()) == DEVICE
    assert DeviceIdentity.from_dict({"platform": "p", "device": "d", "driver": "1"}).vendor == ""
    with pytest.raises(StoreError, match="driver"):
        DeviceIdentity.from_dict({"platform": "p", "device": "d"})


def test_library_versions_covers_the_stack() -> None:
    versions = library_versions()
    for name in ("python", "numpy", "loopy", "islpy", "islpy_barvinok", "pyopencl",
                 "pymbolic", "scipy", "pandas", "workbench"):
        assert isinstance(versions[name], str) and versions[name]
    assert versions["islpy_barvinok"] in {"yes", "no", "unknown"}
    versions["numpy"] = "tampered"  # a copy: the cache must not change
    assert library_versions()["numpy"] != "tampered"
    assert utc_now_iso().endswith("+00:00")


# ------------------------------------------------------------------- records
def test_config_key_is_canonical() -> None:
    a = ConfigKey.make("k", "v", "float32", {"n": 8, "m": 4}, (16, 16), DEVICE)
    b = ConfigKey.make("k", "v", "float32", {"m": 4, "n": 8}, "16x16", DEVICE.key)
    assert a == b and hash(a) == hash(b) and a.canonical == b.canonical
    assert a.params == (("m", 4), ("n", 8))
    assert ConfigKey.from_canonical(a.canonical) == a
    assert a.group_size_text == "16x16"
    assert a != ConfigKey.make("k", "v", "float32", {"m": 4, "n": 9}, (16, 16), DEVICE)
    with pytest.raises(StoreError):
        ConfigKey.make("k", "v", "float32", {"n": 8.5}, (16,), DEVICE)  # type: ignore[dict-item]
    with pytest.raises(StoreError):
        ConfigKey.make("k", "v", "float32", {"n": 8}, (0,), DEVICE)


def test_measurement_keeps_the_minimum_after_discarding() -> None:
    times = [1e-9] * 4 + [5.0, 3.0, 4.0]  # the discarded warm-up runs are the fastest
    m = Measurement.ok(_key(), times, device=DEVICE)
    assert m.time_s == 3.0 and m.discard_first == 4 and m.raw_times_s == tuple(times)
    assert isinstance(m.status, Status)
    with pytest.raises(StoreError, match="minimum"):
        Measurement(_key(), Status.OK, tuple(times), 4, 4.0, "", DEVICE)
    with pytest.raises(StoreError, match="none after"):
        Measurement.ok(_key(), [1.0] * 4, device=DEVICE)
    with pytest.raises(StoreError, match="no time_s"):
        Measurement(_key(), Status.BUILD_FAILED, (), 4, 1.0, "log", DEVICE)
    with pytest.raises(StoreError, match="device"):
        Measurement.ok(_key(device=OTHER_DEVICE), times, device=DEVICE)


# ----------------------------------------------------------------- round trip
def test_round_trip_is_exact(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "store.sqlite"  # parent directories are created
    awkward = (0.1 + 0.2, 5e-324, 1e-300, 2.0 ** -40, 1 / 3, 7.123456789012345e-6) * 5
    key = ConfigKey.make("matmul", "tiled", "float64", {"n": 512, "k": 64}, (16, 8), DEVICE)
    with MeasurementStore.open(path) as store:
        cid = store.start_campaign("rt", DEVICE, {"timed_runs": 30, "discard": 4})
        ok = Measurement.ok(key, awkward, device=DEVICE, campaign=cid, log="warn: x",
                            extra={"flops": 1.5e9, "nested": {"a": [1, 2]}})
        bad = Measurement.failed(_key(), Status.LAUNCH_FAILED, "CL_OUT_OF_RESOURCES",
                                 device=DEVICE, campaign=cid)
        store.record(ok)
        store.record(bad)
    with MeasurementStore.open(path, readonly=True) as store:
        (back,) = store.measurements()
        everything = store.measurements(status=None)
        campaign = store.campaign(cid)
    assert back == ok
    assert everything == [ok, bad]
    assert struct.pack("<30d", *back.raw_times_s) == struct.pack("<30d", *awkward)
    assert back.time_s == min(awkward[4:])
    assert back.library_versions == ok.library_versions and back.host == ok.host
    assert dict(campaign.settings) == {"timed_runs": 30, "discard": 4}
    assert campaign.device == DEVICE and not campaign.is_finished


def test_dataframe_has_one_row_per_measurement(tmp_path: Path) -> None:
    with MeasurementStore.open(tmp_path / "s.sqlite") as store:
        cid = store.start_campaign("df", DEVICE)
        store.record(_ok(_key(1024), cid))
        store.record(_ok(ConfigKey.make("copy", "v", "float32", {"n": 8}, (256,), DEVICE), cid))
        store.record(Measurement.failed(_key(2048), Status.BUILD_FAILED, "boom",
                                        device=DEVICE, campaign=cid))
        frame = store.to_dataframe()
        everything = store.to_dataframe(status=None)
        empty = store.to_dataframe(kernel="nonexistent")
    assert len(frame) == 2 and len(everything) == 3 and len(empty) == 0
    assert list(frame["kernel"]) == ["axpy", "copy"]
    assert list(frame["group_size"]) == ["16x16", "256"]
    assert list(frame["param_n"]) == [1024, 8]
    assert frame["param_m"].isna().tolist() == [False, True]
    assert set(frame["status"]) == {"ok"} and set(frame["driver"]) == {"6.0"}
    assert frame["time_s"].notna().all()
    assert {"kernel", "group_size", "time_s", "status", "driver"} <= set(empty.columns)


# ------------------------------------------------------------ opening, schema
def test_new_store_is_wal_and_declares_itself(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    MeasurementStore.open(path).close()
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert raw.execute("SELECT value FROM meta WHERE key = 'schema_version'"
                           ).fetchone()[0] == str(SCHEMA_VERSION)
    finally:
        raw.close()


@pytest.mark.parametrize("where", ["meta", "user_version", "both"])
def test_newer_schema_is_refused(tmp_path: Path, where: str) -> None:
    path = tmp_path / "s.sqlite"
    with MeasurementStore.open(path) as store:
        store.record(_ok())
    raw = sqlite3.connect(path, isolation_level=None)
    if where in ("meta", "both"):
        raw.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                    (str(SCHEMA_VERSION + 1),))
    if where in ("user_version", "both"):
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    for readonly in (False, True):
        with pytest.raises(StoreError, match="newer workbench") as info:
            MeasurementStore.open(path, readonly=readonly)
        assert str(path) in str(info.value) and "Upgrade" in str(info.value)


def test_text_file_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("measurements, honestly\n" * 10)
    with pytest.raises(StoreError, match="not an SQLite database") as info:
        MeasurementStore.open(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, WorkbenchError)
    assert path.read_text().startswith("measurements")  # untouched


def test_unrelated_sqlite_database_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    raw.commit()
    raw.close()
    for readonly in (False, True):
        with pytest.raises(StoreError, match="not a workbench measurement store") as info:
            MeasurementStore.open(path, readonly=readonly)
        assert "customers" in str(info.value) and str(path) in str(info.value)
    raw = sqlite3.connect(path)  # and it was not modified
    assert raw.execute("PRAGMA application_id").fetchone()[0] == 0
    raw.close()


def test_missing_and_empty_files(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite"
    for kwargs in ({"readonly": True}, {"create": False}):
        with pytest.raises(StoreError, match="no measurement store"):
            MeasurementStore.open(missing, **kwargs)
    assert not missing.exists()
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with pytest.raises(StoreError, match="empty"):
        MeasurementStore.open(empty, readonly=True)
    with MeasurementStore.open(empty) as store:  # an empty file is initialised
        assert store.measurements() == []
    with pytest.raises(StoreError, match="directory"):
        MeasurementStore.open(tmp_path)


def test_default_store_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("WORKBENCH_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_store_path() == tmp_path / "xdg" / "gpu-perf-workbench" / "measurements.sqlite"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_store_path() == (tmp_path / "home" / ".local" / "share"
                                    / "gpu-perf-workbench" / "measurements.sqlite")
    monkeypatch.setenv("WORKBENCH_STORE", str(tmp_path / "mine.sqlite"))
    assert default_store_path() == tmp_path / "mine.sqlite"
    with MeasurementStore.open() as store:
        assert store.path == tmp_path / "mine.sqlite"
    assert (tmp_path / "mine.sqlite").exists()


def test_read_only_store_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    MeasurementStore.open(path).close()
    with MeasurementStore.open(path, readonly=True) as store:
        with pytest.raises(StoreError, match="read-only"):
            store.record(_ok())
        with pytest.raises(StoreError, match="read-only"):
            store.start_campaign("x", DEVICE)
    with pytest.raises(StoreError, match="closed"):
        store.measurements()


# ----------------------------------------------------------------- migrations
SHIPPED_STORE = REPO_ROOT / "sample_data" / "h100" / "measurements.sqlite"


def _versions(path: Path) -> tuple[int, str]:
    raw = sqlite3.connect(path)
    try:
        return (raw.execute("PRAGMA user_version").fetchone()[0],
                raw.execute("SELECT value FROM meta WHERE key = 'schema_version'"
                            ).fetchone()[0])
    finally:
        raw.close()


@pytest.fixture(params=["fresh", "shipped"])
def old_store(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A temporary copy of a store at today's version, to migrate to a pretend next one."""
    copy = tmp_path / "copy.sqlite"
    if request.param == "shipped":
        if resolve_store_path(SHIPPED_STORE) is None:
            pytest.skip("no shipped H100 store")
        shutil.copyfile(readable_file(SHIPPED_STORE), copy)  # shipped compressed
        with MeasurementStore.open(copy):   # shipped at an older version: upgrade it
            pass
    else:
        source = tmp_path / "source.sqlite"
        with MeasurementStore.open(source) as store:
            cid = store.start_campaign("c", DEVICE)
            store.record(_ok(campaign=cid))
            store.record(_ok(_key(8)))
        shutil.copyfile(source, copy)  # closing checkpointed the WAL into the file
    assert _versions(copy) == (SCHEMA_VERSION, str(SCHEMA_VERSION))
    return copy


def _pretend_next_versions(monkeypatch: pytest.MonkeyPatch, calls: list[int],
                           steps: int = 2) -> int:
    """Make the workbench `steps` versions newer, each step adding one column."""
    def step(version: int) -> schema.Migration:
        def upgrade(conn: sqlite3.Connection) -> None:
            assert conn.in_transaction  # the caller's transaction, not its own
            calls.append(version)
            conn.execute(f"ALTER TABLE measurements ADD COLUMN note_{version} TEXT "
                         "NOT NULL DEFAULT ''")
        return upgrade
    target = SCHEMA_VERSION + steps
    monkeypatch.setattr(schema, "SCHEMA_VERSION", target)
    monkeypatch.setattr(schema, "MIGRATIONS",
                        {v: step(v) for v in range(SCHEMA_VERSION, target)})
    return target


def test_writable_open_migrates_once_and_bumps_the_version(
        old_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with MeasurementStore.open(old_store, readonly=True) as store:
        before = store.measurements(status=None)
    raw = sqlite3.connect(old_store)
    already = {row[0] for row in raw.execute(   # the shipped store's own upgrades
        "SELECT key FROM meta WHERE key LIKE 'migrated_to_%'")}
    raw.close()
    calls: list[int] = []
    target = _pretend_next_versions(monkeypatch, calls)

    with MeasurementStore.open(old_store) as store:
        assert store.schema_version == target
        assert store.measurements(status=None) == before  # the rows survive
    assert calls == list(range(SCHEMA_VERSION, target))  # each step once, in order
    assert _versions(old_store) == (target, str(target))
    raw = sqlite3.connect(old_store)
    columns = {row[1] for row in raw.execute("PRAGMA table_info(measurements)")}
    migrated = {row[0] for row in raw.execute(
        "SELECT key FROM meta WHERE key LIKE 'migrated_to_%'")}
    raw.close()
    assert {f"note_{v}" for v in range(SCHEMA_VERSION, target)} <= columns
    assert migrated - already == {f"migrated_to_{v}"
                                  for v in range(SCHEMA_VERSION + 1, target + 1)}

    with MeasurementStore.open(old_store) as store:  # already current: nothing runs
        assert store.schema_version == target
    assert len(calls) == target - SCHEMA_VERSION


def test_read_only_open_reads_an_older_store_without_migrating(
        old_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with MeasurementStore.open(old_store, readonly=True) as store:
        before = store.measurements(status=None)
    calls: list[int] = []
    _pretend_next_versions(monkeypatch, calls)
    with MeasurementStore.open(old_store, readonly=True) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.measurements(status=None) == before
        assert len(store.to_dataframe(status=None)) == len(before)
    assert calls == []
    assert _versions(old_store) == (SCHEMA_VERSION, str(SCHEMA_VERSION))


@pytest.mark.parametrize("failure", [sqlite3.OperationalError, RuntimeError])
def test_failed_migration_leaves_the_store_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: type[Exception]) -> None:
    path = tmp_path / "s.sqlite"
    with MeasurementStore.open(path) as store:
        store.record(_ok())
    calls: list[int] = []
    _pretend_next_versions(monkeypatch, calls)
    second = schema.MIGRATIONS[SCHEMA_VERSION + 1]

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x INTEGER)")
        raise failure("step two broke")
    monkeypatch.setitem(schema.MIGRATIONS, SCHEMA_VERSION + 1, broken)

    expected = StoreError if failure is sqlite3.OperationalError else failure
    with pytest.raises(expected, match="step two broke") as info:
        MeasurementStore.open(path)
    if expected is StoreError:
        assert "migrating from schema version" in str(info.value)
        assert str(path) in str(info.value)
    assert calls == [SCHEMA_VERSION]  # the first step ran, and was rolled back with the rest
    assert _versions(path) == (SCHEMA_VERSION, str(SCHEMA_VERSION))
    raw = sqlite3.connect(path)
    columns = {row[1] for row in raw.execute("PRAGMA table_info(measurements)")}
    tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    raw.close()
    assert f"note_{SCHEMA_VERSION}" not in columns and "half_done" not in tables

    monkeypatch.setitem(schema.MIGRATIONS, SCHEMA_VERSION + 1, second)  # fixed: both run
    with MeasurementStore.open(path) as store:
        assert len(store.measurements()) == 1
    assert calls == [SCHEMA_VERSION, SCHEMA_VERSION, SCHEMA_VERSION + 1]
    assert _versions(path) == (SCHEMA_VERSION + 2, str(SCHEMA_VERSION + 2))


def test_older_store_without_a_migration_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.sqlite"
    MeasurementStore.open(path).close()
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 2)
    monkeypatch.setattr(schema, "MIGRATIONS", {SCHEMA_VERSION + 1: lambda conn: None})
    for readonly in (False, True):
        with pytest.raises(StoreError, match="cannot migrate") as info:
            MeasurementStore.open(path, readonly=readonly)
        assert str(path) in str(info.value)
    assert _versions(path) == (SCHEMA_VERSION, str(SCHEMA_VERSION))


def test_new_store_is_created_at_the_current_version_without_migrating(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    target = _pretend_next_versions(monkeypatch, calls)
    with MeasurementStore.open(tmp_path / "new.sqlite") as store:
        assert store.schema_version == target
    assert calls == []


# ------------------------------------------------------------------ campaigns
def test_campaigns_resume_and_rerun(tmp_path: Path) -> None:
    with MeasurementStore.open(tmp_path / "s.sqlite") as store:
        first = store.start_campaign("sweep", DEVICE, {"timed_runs": 30})
        assert store.start_campaign("sweep", DEVICE, {"timed_runs": 30}) == first
        with pytest.raises(StoreError, match="different settings"):
            store.start_campaign("sweep", DEVICE, {"timed_runs": 10})
        elsewhere = store.start_campaign("sweep", OTHER_DEVICE, {"timed_runs": 30})
        assert elsewhere != first

        store.record(_ok(campaign=first))
        with pytest.raises(StoreError, match="already recorded"):
            store.record(_ok(campaign=first))
        store.record(_ok(campaign=first), replace=True)
        with pytest.raises(StoreError, match="runs on"):
            store.record(_ok(campaign=elsewhere))
        assert store.done_keys(first) == {_key()}
        assert store.done_keys(elsewhere) == set()

        store.finish_campaign(first)
        assert store.campaign(first).is_finished
        rerun = store.start_campaign("sweep", DEVICE, {"timed_runs": 30})
        assert rerun not in (first, elsewhere)
        store.record(_ok(campaign=rerun))  # a re-run is a distinct row
        assert len(store.measurements(device_key=DEVICE.key)) == 2
        assert len(store.measurements(campaign="sweep")) == 2
        assert len(store.measurements(campaign=rerun)) == 1
        assert [c.id for c in store.campaigns(DEVICE.key)] == [first, rerun]
        assert store.devices() == [DEVICE, OTHER_DEVICE]
        with pytest.raises(StoreError, match="no campaign"):
            store.done_keys(999)


def test_failed_configurations_are_recorded_but_not_returned_by_default(
        tmp_path: Path) -> None:
    with MeasurementStore.open(tmp_path / "s.sqlite") as store:
        cid = store.start_campaign("fail", DEVICE)
        store.record(_ok(_key(1), cid))
        store.record(Measurement.failed(
            _key(2), Status.BUILD_FAILED, "error: use of undeclared identifier 'x'",
            device=DEVICE, campaign=cid))
        store.record(Measurement.failed(
            _key(3), Status.WRONG_RESULT, "max abs error 0.5", device=DEVICE, campaign=cid,
            raw_times_s=[1e-5] * 30))
        store.record(_ok(_key(4), cid))  # the campaign went on
        ok = store.measurements()
        failed = store.measurements(status=Status.BUILD_FAILED)
        wrong = store.measurements(status="wrong_result")
        assert [m.key.params_dict["n"] for m in ok] == [1, 4]
        assert all(m.status is Status.OK and m.time_s is not None for m in ok)
        (f,) = failed
        assert f.log == "error: use of undeclared identifier 'x'" and f.time_s is None
        assert wrong[0].raw_times_s == (1e-5,) * 30 and wrong[0].time_s is None
        assert len(store.done_keys(cid)) == 4  # failures are not retried on resume
        with pytest.raises(StoreError, match="unknown measurement status"):
            store.measurements(status="exploded")


# ---------------------------------------------------------- crash, concurrency
def test_sigkill_loses_at_most_the_configuration_in_flight(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    total = 120
    campaign_ids: set[int] = set()
    # Kill twice at different moments: once while it sleeps between records, once
    # while it records as fast as it can (so most likely inside a transaction).
    for pause, kill_after in ((0.01, 10), (0.0, 40)):
        proc = _start_writer(path, "killed", total, pause)
        assert proc.stdout is not None
        header = proc.stdout.readline()
        assert header.startswith("campaign"), proc.stderr.read() if proc.stderr else ""
        campaign_ids.add(int(header.split()[1]))
        printed = int(header.split()[3])
        while printed < kill_after:
            line = proc.stdout.readline()
            assert line, f"writer ended early: {proc.stderr.read() if proc.stderr else ''}"
            printed = int(line)
        os.kill(proc.pid, signal.SIGKILL)
        # Read through proc.stdout, not communicate(): lines that readline() has
        # already buffered would otherwise be missed.
        rest = proc.stdout.read()
        assert proc.wait(timeout=10) == -signal.SIGKILL
        if proc.stderr is not None:
            proc.stderr.close()
        printed = max([printed, *(int(x) for x in rest.split())])

        with MeasurementStore.open(path) as store:  # opens fine after the kill
            cid = store.start_campaign("killed", DEVICE, {"timed_runs": 30})
            campaign_ids.add(cid)
            rows = store.measurements(campaign=cid, status=None)
            assert printed <= len(rows) <= printed + 1
            assert len(store.done_keys(cid)) == len(rows)
            assert not store.campaign(cid).is_finished
        raw = sqlite3.connect(path)
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        raw.close()
    assert len(campaign_ids) == 1  # every restart resumed the same campaign

    proc = _start_writer(path, "killed", total, 0.0)  # resume to the end
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    lines = out.split()
    assert int(lines[1]) in campaign_ids and int(lines[-1]) == total
    with MeasurementStore.open(path, readonly=True) as store:
        rows = store.measurements(campaign="killed")
    ns = sorted(m.key.params_dict["n"] for m in rows)
    assert ns == [1024 * (i + 1) for i in range(total)]  # each exactly once


def test_reader_reads_while_a_campaign_writes(tmp_path: Path) -> None:
    pytest.importorskip("pandas")  # imported up front: its first import is slow
    path = tmp_path / "s.sqlite"
    total = 100
    proc = _start_writer(path, "busy", total, 0.01)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("campaign")
    seen: list[int] = []
    errors: list[BaseException] = []
    with MeasurementStore.open(path, readonly=True, timeout_s=2.0) as reader:
        while proc.poll() is None:
            try:
                seen.append(len(reader.measurements(campaign="busy")))
                if len(seen) % 10 == 0:
                    reader.to_dataframe(kernel="axpy")
                    with MeasurementStore.open(path, readonly=True, timeout_s=2.0) as other:
                        other.done_keys(other.campaigns()[0].id)
            except StoreError as exc:  # e.g. "database is locked"
                errors.append(exc)
        out, err = proc.communicate(timeout=30)
        final = len(reader.measurements(campaign="busy"))
    assert proc.returncode == 0, err
    assert not errors, errors[:3]
    assert final == total
    assert seen == sorted(seen)  # never goes backwards
    assert any(0 < n < total for n in seen), f"reader never overlapped the writer: {seen}"


def test_readers_are_not_blocked_by_an_open_write_transaction(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with MeasurementStore.open(path) as store:
        store.record(_ok(_key(1)))
    # Another process in the middle of a write transaction (EXCLUSIVE would lock
    # readers out in SQLite's rollback-journal mode; in WAL it must not).
    holder = sqlite3.connect(path, isolation_level=None, timeout=0)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO meta (key, value) VALUES ('uncommitted', 'x')")
    try:
        start = time.monotonic()
        with MeasurementStore.open(path, readonly=True, timeout_s=1.0) as reader:
            assert len(reader.measurements()) == 1
        with MeasurementStore.open(path, timeout_s=0.2) as writer:
            assert len(writer.measurements()) == 1
            assert time.monotonic() - start < 10.0  # generous: only "not blocked for the busy timeout"
            with pytest.raises(StoreError, match="locked"):
                writer.record(_ok(_key(2)))  # writers wait, then fail clearly
            holder.execute("ROLLBACK")
            writer.record(_ok(_key(2)))
            assert len(writer.measurements()) == 2
    finally:
        holder.close()
