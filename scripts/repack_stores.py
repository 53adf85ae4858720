"""Re-pack measurement stores (``.sqlite.xz``): SQLite ``VACUUM``, then ``xz -9e``.

Every row of every table (and the schema) is compared before and after the ``VACUUM``
and after reading the packed file back: a store whose rows differ is left alone, and a
store is replaced only if the packed file is smaller.  Every table of the measurement
store has an ``INTEGER PRIMARY KEY`` (or none: ``WITHOUT ROWID``), which ``VACUUM``
keeps, so ids and references survive.

Run: ``python scripts/repack_stores.py $(git ls-files '*.sqlite.xz')``.
"""

from __future__ import annotations

import hashlib
import lzma
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path


def digest(path: Path) -> tuple[str, int]:
    """A hash of every table's rows in primary-key order and of the schema; the rows."""
    connection = sqlite3.connect(path)
    hashed, rows = hashlib.sha256(), 0
    tables = connection.execute(
        "select name from sqlite_master where type='table' order by name").fetchall()
    for (name,) in tables:
        hashed.update(name.encode())
        for row in connection.execute(f'select * from "{name}" order by 1'):
            hashed.update(repr(row).encode())
            rows += 1
    for (sql,) in connection.execute("select sql from sqlite_master order by name"):
        hashed.update(repr(sql).encode())
    connection.close()
    return hashed.hexdigest(), rows


def unpack(packed: Path, to: Path) -> None:
    with lzma.open(packed) as source, open(to, "wb") as target:
        shutil.copyfileobj(source, target)


def repack(store: Path) -> tuple[int, int, str]:
    """(bytes before, bytes after, what happened) for one ``.sqlite.xz``."""
    with tempfile.TemporaryDirectory() as folder:
        raw = Path(folder) / "store.sqlite"
        unpack(store, raw)
        before = digest(raw)
        connection = sqlite3.connect(raw)
        connection.execute("VACUUM")
        connection.close()
        if digest(raw) != before:
            return store.stat().st_size, store.stat().st_size, "rows differ after VACUUM: left alone"
        subprocess.run(["xz", "-9e", "-T1", "-k", str(raw)], check=True)
        packed = raw.with_name(raw.name + ".xz")
        back = Path(folder) / "back.sqlite"
        unpack(packed, back)
        if digest(back) != before:
            return store.stat().st_size, store.stat().st_size, "packed rows differ: left alone"
        old, new = store.stat().st_size, packed.stat().st_size
        if new >= old:
            return old, old, f"kept ({new} re-packed)"
        shutil.copyfile(packed, store)
        return old, new, f"{before[1]} rows identical"


def main() -> None:
    stores = [Path(a) for a in sys.argv[1:]]
    if not stores:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    total_before = total_after = 0
    for store in stores:
        old, new, what = repack(store)
        total_before, total_after = total_before + old, total_after + new
        print(f"{store}: {old} -> {new} ({what})", flush=True)
    print(f"total {total_before} -> {total_after} bytes ({total_before - total_after} saved)")


if __name__ == "__main__":
    main()
