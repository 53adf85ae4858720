"""Stores shipped xz-compressed: opened directly, read-only, through a cached copy."""

from __future__ import annotations

import lzma
import sqlite3
import threading
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.errors import StoreError
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store import (
    ConfigKey,
    Measurement,
    MeasurementStore,
    readable_file,
    resolve_store_path,
)
from workbench.measure.store import compressed as compressed_module

DEVICE = DeviceIdentity("Portable Computing Language", "cpu-haswell", "6.0", "pocl")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "workbench" / "stores"


@pytest.fixture
def shipped(tmp_path: Path) -> Path:
    """A store of two measurements, compressed as ``s.sqlite.xz`` with no ``s.sqlite``."""
    plain = tmp_path / "data" / "s.sqlite"
    with MeasurementStore.open(plain) as store:
        cid = store.start_campaign("c", DEVICE)
        for n in (1024, 2048):
            key = ConfigKey.make("axpy", "plain", "float32", {"n": n}, (256,), DEVICE)
            store.record(Measurement.ok(key, [1e-5] * 5, device=DEVICE, campaign=cid))
    packed = plain.with_name("s.sqlite.xz")
    packed.write_bytes(lzma.compress(plain.read_bytes(), preset=1))
    plain.unlink()
    return packed


def test_a_compressed_store_opens_read_only_from_the_cache(shipped, cache):
    with MeasurementStore.open(shipped, readonly=True) as store:
        assert len(store.measurements()) == 2
        assert store.readonly and store.path == shipped
    (copy,) = cache.glob("*.sqlite")
    assert len(copy.stem) == 64  # named by the sha256 of the .xz
    assert not shipped.with_suffix("").exists()  # nothing unpacked next to the .xz


def test_a_compressed_store_reads_the_same_rows_as_the_plain_one(tmp_path, cache):
    plain = tmp_path / "plain" / "s.sqlite"
    with MeasurementStore.open(plain) as store:
        first = store.start_campaign("first", DEVICE)
        second = store.start_campaign("second", DEVICE)
        for n, times in ((1024, [3e-5, 2e-5, 1e-5]), (2048, [4e-5, 5e-5, 6e-5])):
            key = ConfigKey.make("axpy", "plain", "float32", {"n": n}, (256,), DEVICE)
            store.record(Measurement.ok(key, times, device=DEVICE, campaign=first,
                                        discard_first=1, extra={"n": n}))
        bad = ConfigKey.make("axpy", "plain", "float64", {"n": 1024}, (256,), DEVICE)
        store.record(Measurement.failed(bad, "build_failed", "no fp64", device=DEVICE,
                                        campaign=second))
    packed = tmp_path / "shipped" / "s.sqlite.xz"
    packed.parent.mkdir()
    packed.write_bytes(lzma.compress(plain.read_bytes(), preset=1))

    def contents(path: Path):
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            return (store.measurements(status=None), store.campaigns(), store.devices())

    rows, campaigns, devices = contents(packed)
    assert len(rows) == 3 and {m.status.value for m in rows} == {"ok", "build_failed"}
    assert (rows, campaigns, devices) == contents(plain)
    assert contents(packed.with_suffix("")) == contents(plain)  # by its plain name too


def test_the_uncompressed_name_finds_the_compressed_file(shipped, cache):
    plain_name = shipped.with_suffix("")
    assert resolve_store_path(plain_name) == shipped
    assert resolve_store_path(shipped.with_name("other.sqlite")) is None
    with MeasurementStore.open(plain_name, create=False, readonly=True) as store:
        assert len(store.measurements()) == 2
    with sqlite3.connect(readable_file(plain_name)) as raw:
        assert raw.execute("SELECT count(*) FROM measurements").fetchone() == (2,)


@pytest.mark.parametrize("name", ["s.sqlite.xz", "s.sqlite"])
def test_writing_a_compressed_store_is_refused_with_the_way_out(shipped, cache, name):
    with pytest.raises(StoreError, match=r"compressed and opens only read-only: "
                                         r"unpack a writable copy with `workbench "
                                         r"store-unpack .*xz -dk.*write to another store"):
        MeasurementStore.open(shipped.with_name(name))
    assert not shipped.with_suffix("").exists()  # no empty store created beside it


def test_the_cached_copy_is_reused(shipped, cache, monkeypatch):
    calls = []
    decompress = compressed_module._decompress
    monkeypatch.setattr(compressed_module, "_decompress",
                        lambda *a: (calls.append(a), decompress(*a)))
    for _ in range(2):
        with MeasurementStore.open(shipped, readonly=True) as store:
            assert len(store.measurements()) == 2
    assert len(calls) == 1


def test_concurrent_first_opens_agree(shipped, cache):
    found, errors = [], []

    def open_it() -> None:
        try:
            found.append(compressed_module.cached_copy(shipped))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(found)) == 1
    assert [p.name for p in cache.iterdir()] == [found[0].name]  # no temporary left


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_corrupt_compressed_store_is_one_clear_error(shipped, cache, damage):
    data = shipped.read_bytes()
    shipped.write_bytes(b"not xz at all" if damage == "garbage" else data[: len(data) // 2])
    with pytest.raises(StoreError, match="cannot decompress measurement store .*not valid xz"):
        MeasurementStore.open(shipped, readonly=True)
    assert not cache.exists() or not any(cache.iterdir())  # no partial copy cached


def test_store_unpack_gives_a_writable_copy(shipped, cache, tmp_path, capsys):
    out = tmp_path / "mine.sqlite"
    assert main(["store-unpack", str(shipped.with_suffix("")), "-o", str(out)]) == 0
    assert "1 campaigns" in capsys.readouterr().out
    with MeasurementStore.open(out) as store:  # writable
        cid = store.start_campaign("more", DEVICE)
        key = ConfigKey.make("axpy", "plain", "float32", {"n": 4096}, (256,), DEVICE)
        store.record(Measurement.ok(key, [1e-5] * 5, device=DEVICE, campaign=cid))
        assert len(store.measurements()) == 3
    assert main(["store-unpack", str(shipped), "-o", str(out)]) == 2  # never overwrites
    assert "exists" in capsys.readouterr().err
