"""Pack the structure-ranking run logs into one archive, and write them back (issue #25).

The notes (``sample_data/h100/structure-ranking.md``, ``sample_data/h100/README.md``)
cite hundreds of small run logs as ``structure-ranking/.../NAME.txt.xz``.  Compressed one
by one they cost far more than their text shares: xz cannot see the repetition between
files.  ``pack`` moves every tracked ``*.txt.xz`` under ``structure-ranking/`` into one
archive, ``structure-ranking/run-logs.tar.xz``, each member stored decompressed under its
path relative to ``structure-ranking/`` with the ``.xz`` dropped (``rank8/x.txt``);
``unpack`` writes every member back as the cited ``.txt.xz`` file; ``list`` names them.

Only ``*.txt.xz`` files move: the ``.csv.xz``, ``.json.xz``, ``.sqlite.xz``, ``.tgz`` and
``.tar.xz`` files stay as they are (scripts and tests read some of them in place).

Run: ``python scripts/run_logs.py pack`` (then commit), ``python scripts/run_logs.py
unpack [--into DIR]``, ``python scripts/run_logs.py list``.
"""

from __future__ import annotations

import argparse
import io
import lzma
import os
import subprocess
import sys
import tarfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "sample_data" / "h100" / "structure-ranking"
ARCHIVE_NAME = "run-logs.tar.xz"
LOG_SUFFIX = ".txt.xz"
# xz -9e: the archive is written once and read rarely, so the slowest preset is worth it
PRESET = 9 | lzma.PRESET_EXTREME
# fixed member metadata, so that the same logs always give the same archive bytes
MTIME = 0
MODE = 0o644
MIN_DICTIONARY = 4096  # liblzma's smallest LZMA2 dictionary
# git rm takes the paths on its command line: batches keep it under the OS's limit
GIT_BATCH = 200


class RunLogsError(Exception):
    """A pack or unpack that cannot go on; the message says why and what to do."""


@dataclass(frozen=True)
class PackResult:
    archive: Path
    added: tuple[str, ...]       # members new to the archive
    duplicates: tuple[str, ...]  # logs already in the archive with the same text
    kept: int                    # members the archive held before
    archive_bytes: int           # 0 when no archive was written
    removed_bytes: int           # bytes of the .txt.xz files removed


@dataclass(frozen=True)
class UnpackResult:
    into: Path
    written: tuple[Path, ...]
    unchanged: tuple[Path, ...]  # already there with the same text


def archive_path(folder: Path) -> Path:
    return folder / ARCHIVE_NAME


def member_name(folder: Path, log: Path) -> str:
    """``folder/rank8/x.txt.xz`` -> ``rank8/x.txt``."""
    relative = log.relative_to(folder).as_posix()
    return relative[: -len(".xz")]


def tracked_logs(folder: Path) -> list[Path]:
    """The ``*.txt.xz`` files git tracks under ``folder`` that are present on disk."""
    listing = subprocess.run(["git", "-C", str(folder), "ls-files", "-z", "--", "."],
                             capture_output=True, check=False)
    if listing.returncode != 0:
        raise RunLogsError(f"git ls-files failed in {folder}: "
                           f"{listing.stderr.decode(errors='replace').strip()} "
                           "(outside a git checkout, pack with --no-git)")
    names = [os.fsdecode(name) for name in listing.stdout.split(b"\0") if name]
    logs = [folder / name for name in names if name.endswith(LOG_SUFFIX)]
    missing = [log for log in logs if not log.is_file()]
    if missing:
        raise RunLogsError(f"{len(missing)} tracked logs are missing from the working tree, "
                           f"e.g. {missing[0]}: restore them (git checkout) before packing")
    return sorted(logs)


def disk_logs(folder: Path) -> list[Path]:
    """Every ``*.txt.xz`` file under ``folder``, tracked or not."""
    return sorted(p for p in folder.rglob("*" + LOG_SUFFIX) if p.is_file())


def read_archive(archive: Path) -> dict[str, bytes]:
    """Member name -> text bytes; a clear error for an absent or damaged archive."""
    if not archive.is_file():
        raise RunLogsError(f"no archive at {archive}: nothing was packed there "
                           "(run `python scripts/run_logs.py pack` first)")
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(archive, mode="r:xz") as tar:
            for info in tar:
                check_member(archive, info)
                extracted = tar.extractfile(info)
                if extracted is None:
                    raise RunLogsError(f"{archive}: member {info.name} holds no data")
                members[info.name] = extracted.read()
    except (tarfile.TarError, lzma.LZMAError, EOFError) as error:
        raise RunLogsError(f"{archive} is damaged or not an xz-compressed tar ({error}); "
                           "restore it with `git checkout -- <archive>`") from error
    return members


def check_member(archive: Path, info: tarfile.TarInfo) -> None:
    """A member must be a plain ``*.txt`` file inside the folder (unpack writes it there)."""
    path = PurePosixPath(info.name)
    if not info.isfile():
        raise RunLogsError(f"{archive}: member {info.name} is not a plain file")
    if path.is_absolute() or ".." in path.parts or not info.name.endswith(".txt"):
        raise RunLogsError(f"{archive}: member {info.name} is not a relative NAME.txt path")


def write_archive(target: Path, members: Mapping[str, bytes]) -> None:
    """The members, sorted, with fixed metadata, as one xz -9e tar: same texts, same bytes."""
    with tarfile.open(target, mode="w:xz", preset=PRESET, format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(members):
            data = members[name]
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime, info.mode = MTIME, MODE
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))


def decompress(log: Path) -> bytes:
    try:
        return lzma.decompress(log.read_bytes())
    except lzma.LZMAError as error:
        raise RunLogsError(f"{log} is not a valid .xz file ({error}): nothing packed") from error


def pack(folder: Path = FOLDER, *, use_git: bool = True) -> PackResult:
    """Move the folder's ``*.txt.xz`` logs into its archive, keeping what it held.

    Every log's text is compared with its member in the archive as written, before any
    log is removed; with ``use_git`` the logs are the tracked ones, removed by ``git rm``,
    and the archive is staged.
    """
    archive = archive_path(folder)
    logs = tracked_logs(folder) if use_git else disk_logs(folder)
    old = read_archive(archive) if archive.exists() else {}
    texts = {member_name(folder, log): decompress(log) for log in logs}
    clashes = [name for name, text in texts.items() if name in old and old[name] != text]
    if clashes:
        raise RunLogsError(f"{len(clashes)} logs differ from the archive's member of the same "
                           f"name, e.g. {clashes[0]}: rename the new log or unpack and compare")
    added = tuple(sorted(name for name in texts if name not in old))
    duplicates = tuple(sorted(name for name in texts if name in old))
    if not logs:
        size = archive.stat().st_size if archive.exists() else 0
        return PackResult(archive, (), (), len(old), size, 0)
    if added:
        staging = archive.with_name(archive.name + ".new")
        try:
            write_archive(staging, {**old, **texts})
            verify(staging, {**old, **texts})
            os.replace(staging, archive)
        finally:
            staging.unlink(missing_ok=True)
    verify(archive, {**old, **texts})  # the file in place, whether rewritten or not
    removed_bytes = sum(log.stat().st_size for log in logs)
    if use_git:
        git_move(folder, logs, archive)
    else:
        for log in logs:
            log.unlink()
    return PackResult(archive, added, duplicates, len(old), archive.stat().st_size,
                      removed_bytes)


def verify(archive: Path, expected: Mapping[str, bytes]) -> None:
    """The archive holds exactly these members with exactly these texts."""
    found = read_archive(archive)
    wrong = sorted(name for name in expected if found.get(name) != expected[name])
    extra = sorted(set(found) - set(expected))
    if wrong or extra:
        raise RunLogsError(f"{archive} does not read back as written ({len(wrong)} members "
                           f"differ or are missing, {len(extra)} unexpected): no log removed")


def git_move(folder: Path, logs: Sequence[Path], archive: Path) -> None:
    for start in range(0, len(logs), GIT_BATCH):
        batch = [str(log) for log in logs[start:start + GIT_BATCH]]
        run_git(folder, ["rm", "-q", "--", *batch])
    run_git(folder, ["add", "--", str(archive)])


def run_git(folder: Path, arguments: list[str]) -> None:
    done = subprocess.run(["git", "-C", str(folder), *arguments],
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise RunLogsError(f"git {arguments[0]} failed: "
                           f"{done.stderr.decode(errors='replace').strip()}")


def unpack(folder: Path = FOLDER, into: Path | None = None) -> UnpackResult:
    """Write every member back as ``NAME.txt.xz`` under ``into`` (default: the folder).

    A file already there with the same text is left alone; one with another text stops
    the whole unpack before anything is written.
    """
    target = folder if into is None else into
    members = read_archive(archive_path(folder))
    written, unchanged, differing = [], [], []
    for name, text in sorted(members.items()):
        path = target / (name + ".xz")
        if path.exists():
            same = path.is_file() and lzma.decompress(path.read_bytes()) == text
            (unchanged if same else differing).append(path)
    if differing:
        raise RunLogsError(f"{len(differing)} files already exist with another text, e.g. "
                           f"{differing[0]}: move them away or unpack --into another folder")
    for name, text in sorted(members.items()):
        path = target / (name + ".xz")
        if path in unchanged:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(compress(text))
        written.append(path)
    return UnpackResult(target, tuple(written), tuple(unchanged))


def compress(text: bytes) -> bytes:
    """``xz -9e`` with the dictionary cut to the text's size: the same output size, but
    without -9's 64 MiB dictionary set up per file (50 s of memory zeroing for 995 logs)."""
    dictionary = max(MIN_DICTIONARY, len(text))
    filters = [{"id": lzma.FILTER_LZMA2, "preset": PRESET, "dict_size": dictionary}]
    return lzma.compress(text, format=lzma.FORMAT_XZ, filters=filters)


def list_members(folder: Path = FOLDER) -> list[str]:
    return sorted(read_archive(archive_path(folder)))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=FOLDER,
                        help="the folder holding the logs and run-logs.tar.xz "
                             "(default: sample_data/h100/structure-ranking)")
    commands = parser.add_subparsers(dest="command", required=True)
    packing = commands.add_parser("pack", help="move the *.txt.xz logs into the archive")
    packing.add_argument("--no-git", action="store_true",
                         help="pack every *.txt.xz on disk and delete it (no git rm)")
    unpacking = commands.add_parser("unpack", help="write the members back as .txt.xz files")
    unpacking.add_argument("--into", type=Path, default=None,
                           help="write under this folder instead of --folder")
    commands.add_parser("list", help="print the archive's members")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    folder = args.folder.resolve()
    try:
        if args.command == "pack":
            result = pack(folder, use_git=not args.no_git)
            if not result.added and not result.duplicates:
                print(f"no *.txt.xz logs under {folder}; archive: "
                      + (f"{result.kept} members" if result.archive_bytes else "none"))
                return 0
            print(f"packed {len(result.added)} new logs ({len(result.duplicates)} already "
                  f"there) into {result.archive}: {result.kept + len(result.added)} members, "
                  f"{result.archive_bytes:,} bytes; removed {result.removed_bytes:,} bytes "
                  "of .txt.xz files")
        elif args.command == "unpack":
            result = unpack(folder, args.into)
            print(f"wrote {len(result.written)} .txt.xz files under {result.into} "
                  f"({len(result.unchanged)} already there)")
        else:
            for name in list_members(folder):
                print(name)
    except RunLogsError as error:
        print(f"run_logs: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
