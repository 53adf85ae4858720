"""Re-pack measurement stores (``.sqlite.xz``): SQLite VACUUM, then ``xz -9e``; every row of
every table compared before and after (identical required); a file is replaced only if smaller.

Run: ``python scripts/repack_stores.py $(git ls-files '*.sqlite.xz')``."""
import hashlib, lzma, os, shutil, sqlite3, subprocess, sys, tempfile
from pathlib import Path

def digest(path):
    c = sqlite3.connect(path)
    h = hashlib.sha256(); rows = 0
    for (name,) in c.execute("select name from sqlite_master where type='table' order by name"):
        h.update(name.encode())
        for row in c.execute(f'select * from "{name}" order by 1'):
            h.update(repr(row).encode()); rows += 1
    for (sql,) in c.execute("select sql from sqlite_master order by name"):
        h.update(repr(sql).encode())
    c.close()
    return h.hexdigest(), rows

total_before = total_after = 0
for f in sys.argv[1:]:
    f = Path(f)
    work = Path(tempfile.mkdtemp(dir="/tmp"))
    raw = work / "a.sqlite"
    with lzma.open(f) as src, open(raw, "wb") as dst:
        shutil.copyfileobj(src, dst)
    before = digest(raw)
    c = sqlite3.connect(raw); c.execute("VACUUM"); c.close()
    after = digest(raw)
    if before != after:
        print(f"{f}: rows differ after VACUUM, left alone"); continue
    packed = work / "a.sqlite.xz"
    subprocess.run(["xz", "-9e", "-T1", "-k", str(raw)], check=True)
    old, new = f.stat().st_size, packed.stat().st_size
    # the packed file must read back to the same rows
    back = work / "b.sqlite"
    with lzma.open(packed) as src, open(back, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert digest(back) == before
    total_before += old
    if new < old:
        shutil.copyfile(packed, f); total_after += new
        print(f"{f}: {old} -> {new} ({before[1]} rows identical)")
    else:
        total_after += old
        print(f"{f}: {old} kept ({new} re-packed)")
    shutil.rmtree(work)
print(f"total {total_before} -> {total_after} bytes ({total_before - total_after} saved)")
