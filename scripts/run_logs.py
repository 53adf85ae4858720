"""Pack the structure-ranking run logs and replay tables into two archives, and write them
back (issue #25).

The notes (``sample_data/h100/structure-ranking.md``, ``sample_data/h100/README.md``)
cite hundreds of small files as ``structure-ranking/.../NAME.txt.xz`` (run logs) and
``structure-ranking/.../NAME.csv.xz`` (replay tables).  Compressed one by one they cost far
more than their text shares: xz cannot see the repetition between files.  Each kind has
its own archive in ``structure-ranking/``: ``pack`` moves every tracked file of the kind
into it, each member stored decompressed under its path relative to ``structure-ranking/``
with the ``.xz`` dropped; ``unpack`` writes every member back as the cited ``.xz`` file;
``list`` names them.

- logs: ``*.txt.xz`` into ``run-logs.tar.xz``, members ``rank8/x.txt``;
- tables: ``*.csv.xz`` into ``run-tables.tar.xz``, members ``rank8/x.csv``.

Only these two suffixes move: the ``.log.xz``, ``.json(l).xz``, ``.tsv.xz``, ``.sqlite.xz``,
``.tgz`` and ``.tar.xz`` files stay as they are.

Run: ``python scripts/run_logs.py pack`` (then commit), ``python scripts/run_logs.py
unpack [--into DIR]``, ``python scripts/run_logs.py list``; each does both kinds, or one
with ``--kind logs|tables``.
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
# xz -9e: the archive is written once and read rarely, so the slowest preset is worth it
PRESET = 9 | lzma.PRESET_EXTREME
# fixed member metadata, so that the same files always give the same archive bytes
MTIME = 0
MODE = 0o644
MIN_DICTIONARY = 4096            # liblzma's smallest LZMA2 dictionary
MAX_DICTIONARY = 64 * 1024 ** 2  # -9's own: a longer text is compressed as xz -9e would
# git rm takes the paths on its command line: batches keep it under the OS's limit
GIT_BATCH = 200


@dataclass(frozen=True)
class Kind:
    """One kind of packed file: which files move, and into which archive."""

    name: str      # as --kind spells it, and as messages count them: "3 tables"
    suffix: str    # of the files packed: ".txt.xz"
    archive: str   # the archive's file name in the folder

    @property
    def member_suffix(self) -> str:
        """``.txt.xz`` -> ``.txt``: members are stored decompressed."""
        return self.suffix[: -len(".xz")]


LOGS = Kind("logs", ".txt.xz", "run-logs.tar.xz")
TABLES = Kind("tables", ".csv.xz", "run-tables.tar.xz")
KINDS = (LOGS, TABLES)
ARCHIVE_NAME = LOGS.archive  # the first archive's name, as it has always been


class RunLogsError(Exception):
    """A pack or unpack that cannot go on; the message says why and what to do."""


@dataclass(frozen=True)
class PackResult:
    kind: Kind
    archive: Path
    added: tuple[str, ...]       # members new to the archive
    duplicates: tuple[str, ...]  # files already in the archive with the same text
    kept: int                    # members the archive held before
    archive_bytes: int           # 0 when no archive was written
    removed_bytes: int           # bytes of the .xz files removed


@dataclass(frozen=True)
class UnpackResult:
    kind: Kind
    into: Path
    written: tuple[Path, ...]
    unchanged: tuple[Path, ...]  # already there with the same text


def archive_path(folder: Path, kind: Kind = LOGS) -> Path:
    return folder / kind.archive


def member_name(folder: Path, path: Path) -> str:
    """``folder/rank8/x.txt.xz`` -> ``rank8/x.txt``."""
    relative = path.relative_to(folder).as_posix()
    return relative[: -len(".xz")]


def tracked_files(folder: Path, kind: Kind) -> list[Path]:
    """The kind's files git tracks under ``folder`` that are present on disk."""
    listing = subprocess.run(["git", "-C", str(folder), "ls-files", "-z", "--", "."],
                             capture_output=True, check=False)
    if listing.returncode != 0:
        raise RunLogsError(f"git ls-files failed in {folder}: "
                           f"{listing.stderr.decode(errors='replace').strip()} "
                           "(outside a git checkout, pack with --no-git)")
    names = [os.fsdecode(name) for name in listing.stdout.split(b"\0") if name]
    files = [folder / name for name in names if name.endswith(kind.suffix)]
    missing = [path for path in files if not path.is_file()]
    if missing:
        raise RunLogsError(f"{len(missing)} tracked {kind.name} are missing from the working "
                           f"tree, e.g. {missing[0]}: restore them (git checkout) before packing")
    return sorted(files)


def disk_files(folder: Path, kind: Kind) -> list[Path]:
    """Every file of the kind under ``folder``, tracked or not."""
    return sorted(p for p in folder.rglob("*" + kind.suffix) if p.is_file())


def read_archive(archive: Path, kind: Kind = LOGS) -> dict[str, bytes]:
    """Member name -> text bytes; a clear error for an absent or damaged archive."""
    if not archive.is_file():
        raise RunLogsError(f"no archive at {archive}: nothing was packed there "
                           f"(run `python scripts/run_logs.py pack --kind {kind.name}` first)")
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(archive, mode="r:xz") as tar:
            for info in tar:
                check_member(archive, info, kind)
                extracted = tar.extractfile(info)
                if extracted is None:
                    raise RunLogsError(f"{archive}: member {info.name} holds no data")
                members[info.name] = extracted.read()
    except (tarfile.TarError, lzma.LZMAError, EOFError) as error:
        raise RunLogsError(f"{archive} is damaged or not an xz-compressed tar ({error}); "
                           "restore it with `git checkout -- <archive>`") from error
    return members


def check_member(archive: Path, info: tarfile.TarInfo, kind: Kind) -> None:
    """A member must be a plain ``NAME.txt`` (``NAME.csv``) file inside the folder (unpack
    writes it there)."""
    path = PurePosixPath(info.name)
    if not info.isfile():
        raise RunLogsError(f"{archive}: member {info.name} is not a plain file")
    if path.is_absolute() or ".." in path.parts or not info.name.endswith(kind.member_suffix):
        raise RunLogsError(f"{archive}: member {info.name} is not a relative "
                           f"NAME{kind.member_suffix} path")


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


def decompress(path: Path) -> bytes:
    try:
        return lzma.decompress(path.read_bytes())
    except lzma.LZMAError as error:
        raise RunLogsError(f"{path} is not a valid .xz file ({error}): nothing packed") from error


def pack(folder: Path = FOLDER, *, kind: Kind = LOGS, use_git: bool = True) -> PackResult:
    """Move the folder's files of one kind into its archive, keeping what it held.

    Every file's decompressed text is compared with its member in the archive as written,
    before any file is removed; with ``use_git`` the files are the tracked ones, removed by
    ``git rm``, and the archive is staged.
    """
    archive = archive_path(folder, kind)
    files = tracked_files(folder, kind) if use_git else disk_files(folder, kind)
    old = read_archive(archive, kind) if archive.exists() else {}
    texts = {member_name(folder, path): decompress(path) for path in files}
    clashes = [name for name, text in texts.items() if name in old and old[name] != text]
    if clashes:
        raise RunLogsError(f"{len(clashes)} {kind.name} differ from the archive's member of "
                           f"the same name, e.g. {clashes[0]}: rename the new file or unpack "
                           "and compare")
    added = tuple(sorted(name for name in texts if name not in old))
    duplicates = tuple(sorted(name for name in texts if name in old))
    if not files:
        size = archive.stat().st_size if archive.exists() else 0
        return PackResult(kind, archive, (), (), len(old), size, 0)
    if added:
        staging = archive.with_name(archive.name + ".new")
        try:
            write_archive(staging, {**old, **texts})
            verify(staging, {**old, **texts}, kind)
            os.replace(staging, archive)
        finally:
            staging.unlink(missing_ok=True)
    verify(archive, {**old, **texts}, kind)  # the file in place, whether rewritten or not
    removed_bytes = sum(path.stat().st_size for path in files)
    if use_git:
        git_move(folder, files, archive)
    else:
        for path in files:
            path.unlink()
    return PackResult(kind, archive, added, duplicates, len(old), archive.stat().st_size,
                      removed_bytes)


def verify(archive: Path, expected: Mapping[str, bytes], kind: Kind) -> None:
    """The archive holds exactly these members with exactly these texts."""
    found = read_archive(archive, kind)
    wrong = sorted(name for name in expected if found.get(name) != expected[name])
    extra = sorted(set(found) - set(expected))
    if wrong or extra:
        raise RunLogsError(f"{archive} does not read back as written ({len(wrong)} members "
                           f"differ or are missing, {len(extra)} unexpected): "
                           f"no {kind.suffix} file removed")


def git_move(folder: Path, files: Sequence[Path], archive: Path) -> None:
    for start in range(0, len(files), GIT_BATCH):
        batch = [str(path) for path in files[start:start + GIT_BATCH]]
        run_git(folder, ["rm", "-q", "--", *batch])
    run_git(folder, ["add", "--", str(archive)])


def run_git(folder: Path, arguments: list[str]) -> None:
    done = subprocess.run(["git", "-C", str(folder), *arguments],
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise RunLogsError(f"git {arguments[0]} failed: "
                           f"{done.stderr.decode(errors='replace').strip()}")


def unpack(folder: Path = FOLDER, into: Path | None = None, *,
           kind: Kind = LOGS) -> UnpackResult:
    """Write every member of the kind's archive back as ``NAME.txt.xz`` (``NAME.csv.xz``)
    under ``into`` (default: the folder).

    A file already there with the same text is left alone; one with another text stops
    the whole unpack before anything is written.
    """
    target = folder if into is None else into
    members = read_archive(archive_path(folder, kind), kind)
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
    return UnpackResult(kind, target, tuple(written), tuple(unchanged))


def compress(text: bytes) -> bytes:
    """``xz -9e`` with the dictionary cut to the text's size: the same output size, but
    without -9's 64 MiB dictionary set up per file (50 s of memory zeroing for 995 logs)."""
    dictionary = min(MAX_DICTIONARY, max(MIN_DICTIONARY, len(text)))
    filters = [{"id": lzma.FILTER_LZMA2, "preset": PRESET, "dict_size": dictionary}]
    return lzma.compress(text, format=lzma.FORMAT_XZ, filters=filters)


def list_members(folder: Path = FOLDER, *, kind: Kind = LOGS) -> list[str]:
    return sorted(read_archive(archive_path(folder, kind), kind))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=FOLDER,
                        help="the folder holding the files and their archives "
                             "(default: sample_data/h100/structure-ranking)")
    # --kind after the command (`pack --kind tables`): each command takes it
    one_kind = argparse.ArgumentParser(add_help=False)
    one_kind.add_argument("--kind", choices=[kind.name for kind in KINDS], default=None,
                          help="only this kind: logs (*.txt.xz, run-logs.tar.xz) or tables "
                               "(*.csv.xz, run-tables.tar.xz); default both")
    commands = parser.add_subparsers(dest="command", required=True)
    packing = commands.add_parser("pack", parents=[one_kind],
                                  help="move the .xz files into their archives")
    packing.add_argument("--no-git", action="store_true",
                         help="pack every file of the kind on disk and delete it (no git rm)")
    unpacking = commands.add_parser("unpack", parents=[one_kind],
                                    help="write the members back as .xz files")
    unpacking.add_argument("--into", type=Path, default=None,
                           help="write under this folder instead of --folder")
    commands.add_parser("list", parents=[one_kind], help="print the archives' members")
    return parser.parse_args(argv)


def describe_pack(result: PackResult, folder: Path) -> str:
    kind = result.kind
    if not result.added and not result.duplicates:
        return (f"no *{kind.suffix} {kind.name} under {folder}; {kind.archive}: "
                + (f"{result.kept} members" if result.archive_bytes else "none"))
    return (f"packed {len(result.added)} new {kind.name} ({len(result.duplicates)} already "
            f"there) into {result.archive}: {result.kept + len(result.added)} members, "
            f"{result.archive_bytes:,} bytes; removed {result.removed_bytes:,} bytes "
            f"of {kind.suffix} files")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    folder = args.folder.resolve()
    kinds = KINDS if args.kind is None else tuple(k for k in KINDS if k.name == args.kind)
    try:
        # one kind after the other: a failure stops before the next kind is touched, and
        # the kinds already done are complete (each pack verifies before it removes)
        for kind in kinds:
            if args.command == "pack":
                print(describe_pack(pack(folder, kind=kind, use_git=not args.no_git), folder))
            elif args.command == "unpack":
                result = unpack(folder, args.into, kind=kind)
                print(f"wrote {len(result.written)} {kind.suffix} files under {result.into} "
                      f"({len(result.unchanged)} already there)")
            else:
                for name in list_members(folder, kind=kind):
                    print(name)
    except RunLogsError as error:
        print(f"run_logs: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
