"""Copy the fitted models the wheel carries from sample_data/ into the package.

sample_data/<device>/ is the measured record: stores, logs, fitted models, each with its
provenance, and the paths the docs and benchmarks cite.  The wheel does not carry it
(hundreds of megabytes), yet an installed workbench must predict without --weights.  So
the package holds copies of the few files that needs (workbench/models/data/): each
device's default-model.json, its fitted weights-*.json and its measured bandwidth.json.
The copies are never edited by hand; run this after refitting, and tests/test_package.py
fails while they differ:

  python scripts/sync_package_data.py           # copy (and drop stale copies)
  python scripts/sync_package_data.py --check   # exit 1 and name what differs
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DATA = ROOT / "sample_data"
PACKAGE_DATA = ROOT / "workbench" / "models" / "data"
DEVICES = ("h100", "h200")
#: bandwidth.json: the measured DRAM bandwidth a model's f_dram_stream_s divides by
PATTERNS = ("default-model.json", "weights*.json", "bandwidth.json")


def wanted() -> dict[Path, Path]:
    """Package copy -> its sample_data original, for every file the wheel carries."""
    pairs = {}
    for device in DEVICES:
        for pattern in PATTERNS:
            for original in sorted((SAMPLE_DATA / device).glob(pattern)):
                pairs[PACKAGE_DATA / device / original.name] = original
    return pairs


def differences() -> list[str]:
    """What is missing, different or stale in the package, one line each."""
    pairs = wanted()
    lines = [f"{copy.relative_to(ROOT)}: missing" for copy in pairs if not copy.is_file()]
    lines += [f"{copy.relative_to(ROOT)}: differs from {original.relative_to(ROOT)}"
              for copy, original in pairs.items()
              if copy.is_file() and not filecmp.cmp(copy, original, shallow=False)]
    present = set(PACKAGE_DATA.glob("*/*.json")) if PACKAGE_DATA.is_dir() else set()
    lines += [f"{stale.relative_to(ROOT)}: stale (no sample_data original)"
              for stale in sorted(present - set(pairs))]
    return lines


def sync() -> list[str]:
    pairs = wanted()
    for copy, original in pairs.items():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(original, copy)
    removed = []
    for stale in sorted(set(PACKAGE_DATA.glob("*/*.json")) - set(pairs)):
        stale.unlink()
        removed.append(str(stale.relative_to(ROOT)))
    return [f"copied {len(pairs)} files to {PACKAGE_DATA.relative_to(ROOT)}",
            *(f"removed {r}" for r in removed)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if the package copies differ")
    args = parser.parse_args(argv)
    if args.check:
        lines = differences()
        for line in lines:
            print(line)
        return 1 if lines else 0
    for line in sync():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
