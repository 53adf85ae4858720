"""The tracked tree stays lean (issue #25): a clone must stay quick to fetch, so big
data ships compressed (``sample_data/*/X.sqlite.xz``, see sample_data/h100/README.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMIT_BYTES = 30_000_000


def tracked_files() -> list[Path]:
    """Every file git tracks in this checkout, or a skip outside one."""
    if shutil.which("git") is None:
        pytest.skip("no git here")
    listing = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"],
                             capture_output=True, check=False)
    if listing.returncode != 0:
        pytest.skip("not a git checkout (an sdist, an unpacked archive)")
    return [ROOT / os.fsdecode(name) for name in listing.stdout.split(b"\0") if name]


def test_the_tracked_tree_stays_under_30_mb():
    files = tracked_files()
    assert files, "git ls-files listed nothing"
    # a tracked file deleted in the working tree counts for nothing (as with du)
    sizes = {p: p.lstat().st_size for p in files if os.path.lexists(p)}
    total = sum(sizes.values())
    largest = sorted(sizes.items(), key=lambda item: -item[1])[:5]
    assert total < LIMIT_BYTES, (
        f"the tracked tree holds {total:,} bytes (limit {LIMIT_BYTES:,}); largest: "
        + ", ".join(f"{p.relative_to(ROOT)} {n:,}" for p, n in largest)
        + ". Ship big stores as X.sqlite.xz (xz -9 -k X.sqlite)")


def test_no_shipped_store_is_tracked_uncompressed():
    plain = [p.relative_to(ROOT) for p in tracked_files()
             if p.suffix == ".sqlite" and "sample_data" in p.relative_to(ROOT).parts]
    assert not plain, f"ship these as X.sqlite.xz (xz -9 -k X.sqlite): {plain}"
