"""scripts/run_logs.py packs the structure-ranking run logs into one archive (issue #25):
packing and unpacking give the texts back, a second pack keeps the first's logs, a bad
archive is a clear error, and every log the notes cite is still shipped somewhere."""

from __future__ import annotations

import importlib.util
import lzma
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "sample_data" / "h100" / "structure-ranking"


def load_script():
    path = ROOT / "scripts" / "run_logs.py"
    spec = importlib.util.spec_from_file_location("run_logs", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


run_logs = load_script()

TEXTS = {
    "top-run.txt": b"a run at the top\n" * 20,
    "rank8/x.txt": b"rank8 x: 1.25 ms\n",
    "rank8/deep/y-stderr.txt": b"",  # an empty stderr log is still a log
}


def write_logs(folder: Path, texts: dict[str, bytes]) -> None:
    for name, text in texts.items():
        path = folder / (name + ".xz")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(lzma.compress(text))


def read_logs(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix()[:-3]: lzma.decompress(p.read_bytes())
            for p in folder.rglob("*.txt.xz")}


def test_pack_then_unpack_gives_back_the_same_texts(tmp_path):
    write_logs(tmp_path, TEXTS)
    # neither a table nor another archive is a run log: both stay where they are
    (tmp_path / "rank8" / "x.csv.xz").write_bytes(lzma.compress(b"a,b\n1,2\n"))
    (tmp_path / "rank8" / "stores.tar.xz").write_bytes(b"not touched")
    result = run_logs.pack(tmp_path, use_git=False)
    assert result.added == tuple(sorted(TEXTS)) and result.kept == 0
    assert not list(tmp_path.rglob("*.txt.xz")), "the packed logs must be gone"
    assert (tmp_path / "rank8" / "x.csv.xz").exists()
    assert (tmp_path / "rank8" / "stores.tar.xz").read_bytes() == b"not touched"
    assert run_logs.list_members(tmp_path) == sorted(TEXTS)

    unpacked = run_logs.unpack(tmp_path)
    assert len(unpacked.written) == len(TEXTS)
    assert read_logs(tmp_path) == TEXTS
    # a second unpack finds every file in place with its text and writes nothing
    again = run_logs.unpack(tmp_path)
    assert again.written == () and len(again.unchanged) == len(TEXTS)


def test_unpack_into_another_folder(tmp_path):
    logs, elsewhere = tmp_path / "logs", tmp_path / "elsewhere"
    write_logs(logs, TEXTS)
    run_logs.pack(logs, use_git=False)
    run_logs.unpack(logs, into=elsewhere)
    assert read_logs(elsewhere) == TEXTS
    assert not list(logs.rglob("*.txt.xz"))


def test_a_second_pack_adds_new_logs_and_keeps_the_old(tmp_path):
    write_logs(tmp_path, TEXTS)
    run_logs.pack(tmp_path, use_git=False)
    write_logs(tmp_path, {"rank9/new.txt": b"a later run\n"})
    result = run_logs.pack(tmp_path, use_git=False)
    assert result.added == ("rank9/new.txt",) and result.kept == len(TEXTS)
    run_logs.unpack(tmp_path)
    assert read_logs(tmp_path) == {**TEXTS, "rank9/new.txt": b"a later run\n"}


def test_the_same_logs_give_the_same_archive_bytes(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    write_logs(first, TEXTS)
    # written in another order, at another time: the archive must not show it
    write_logs(second, dict(reversed(TEXTS.items())))
    run_logs.pack(first, use_git=False)
    run_logs.pack(second, use_git=False)
    assert (first / run_logs.ARCHIVE_NAME).read_bytes() == \
        (second / run_logs.ARCHIVE_NAME).read_bytes()


def test_a_log_that_clashes_with_a_member_is_refused_and_kept(tmp_path):
    write_logs(tmp_path, TEXTS)
    run_logs.pack(tmp_path, use_git=False)
    write_logs(tmp_path, {"rank8/x.txt": b"another text\n"})
    with pytest.raises(run_logs.RunLogsError, match="differ from the archive"):
        run_logs.pack(tmp_path, use_git=False)
    assert (tmp_path / "rank8" / "x.txt.xz").exists()
    # and unpack will not overwrite it either
    with pytest.raises(run_logs.RunLogsError, match="another text"):
        run_logs.unpack(tmp_path)


def test_an_absent_archive_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(run_logs.RunLogsError, match="no archive at"):
        run_logs.unpack(tmp_path)
    assert run_logs.main(["--folder", str(tmp_path), "list"]) == 2
    assert "no archive at" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_archive_is_a_clear_error_and_no_log_is_lost(tmp_path, damage, capsys):
    write_logs(tmp_path, TEXTS)
    run_logs.pack(tmp_path, use_git=False)
    archive = tmp_path / run_logs.ARCHIVE_NAME
    packed = archive.read_bytes()
    archive.write_bytes(b"not an archive" if damage == "garbage" else packed[: len(packed) // 2])
    with pytest.raises(run_logs.RunLogsError, match="damaged"):
        run_logs.unpack(tmp_path)
    write_logs(tmp_path, {"rank9/new.txt": b"a later run\n"})
    assert run_logs.main(["--folder", str(tmp_path), "pack", "--no-git"]) == 2
    assert "damaged" in capsys.readouterr().err
    assert (tmp_path / "rank9" / "new.txt.xz").exists()


def test_pack_in_git_removes_the_tracked_logs_and_stages_the_archive(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("no git here")

    def git(*arguments):
        return subprocess.run(["git", "-C", str(tmp_path), *arguments], check=True,
                              capture_output=True, text=True).stdout

    git("init", "-q")
    write_logs(tmp_path, TEXTS)
    git("add", ".")
    git("-c", "user.name=test", "-c", "user.email=test@example.invalid",
        "commit", "-q", "-m", "logs")
    write_logs(tmp_path, {"untracked.txt": b"not in git\n"})  # git mode leaves it alone
    result = run_logs.pack(tmp_path)
    assert result.added == tuple(sorted(TEXTS))
    assert git("ls-files").split() == [run_logs.ARCHIVE_NAME]
    assert (tmp_path / "untracked.txt.xz").exists()


# --- the shipped data: every cited log is a tracked file or a member of the archive ---

CITING = [ROOT / "sample_data" / "h100" / "structure-ranking.md",
          ROOT / "sample_data" / "h100" / "README.md",
          *sorted((ROOT / "docs").glob("*.md"))]
CITATION = re.compile(r"structure-ranking/[A-Za-z0-9_./{},*+-]+")
#: citations of logs that were never shipped, each with its reason. Empty: at d8a5a3e, before
#: the logs were packed, every one of the 65 cited logs resolved to a tracked file.
DANGLING: dict[str, str] = {}


def expand_braces(text: str) -> list[str]:
    """``a{1,2}.{txt,csv}`` -> a1.txt, a1.csv, a2.txt, a2.csv (as the notes write sets)."""
    match = re.search(r"\{([^{}]*)\}", text)
    if match is None:
        return [text]
    return [name for choice in match.group(1).split(",")
            for name in expand_braces(text[:match.start()] + choice + text[match.end():])]


def cited_logs(text: str) -> set[str]:
    """The run logs cited as structure-ranking/...NAME.txt(.xz), as .txt.xz paths.

    The notes write a log as ``X.txt`` or ``X.txt.xz`` (their head says ``X.txt`` is
    ``X.txt.xz``), alone or in a brace set with its table (``X.{txt,csv}``)."""
    logs = set()
    for token in CITATION.findall(text):
        for name in expand_braces(token.rstrip(".,")):
            name = name.rstrip(".,")
            if name.endswith(".txt"):
                name += ".xz"
            if name.endswith(".txt.xz"):
                logs.add(name)
    return logs


def test_the_citation_collector_reads_the_notes_forms():
    text = ("see `structure-ranking/a/b{1,2}.{txt,csv}` and structure-ranking/c.txt.xz, "
            "`structure-ranking/d/*.txt.xz`, `structure-ranking/e.{txt,csv}.xz` and "
            "`structure-ranking/f.csv.xz`.")
    assert cited_logs(text) == {
        "structure-ranking/a/b1.txt.xz", "structure-ranking/a/b2.txt.xz",
        "structure-ranking/c.txt.xz", "structure-ranking/d/*.txt.xz",
        "structure-ranking/e.txt.xz"}


def shipped_names() -> set[str]:
    """Paths relative to sample_data/h100: tracked files (or, outside git, files on disk)
    under structure-ranking/ and the archive's members as the .txt.xz they stand for."""
    listing = None
    if shutil.which("git"):
        listing = subprocess.run(["git", "-C", str(SHIPPED), "ls-files", "-z", "--", "."],
                                 capture_output=True, check=False)
    if listing is not None and listing.returncode == 0:
        files = {name.decode() for name in listing.stdout.split(b"\0") if name}
    else:  # an sdist or an unpacked archive: what is on disk is what ships
        files = {p.relative_to(SHIPPED).as_posix() for p in SHIPPED.rglob("*") if p.is_file()}
    names = {"structure-ranking/" + name for name in files}
    if (SHIPPED / run_logs.ARCHIVE_NAME).exists():
        names |= {f"structure-ranking/{member}.xz" for member in run_logs.list_members(SHIPPED)}
    return names


def resolves(citation: str, names: set[str]) -> bool:
    if "*" not in citation:
        return citation in names
    pattern = re.compile("[^/]*".join(map(re.escape, citation.split("*"))))
    return any(pattern.fullmatch(name) for name in names)


def test_every_cited_log_is_shipped():
    cited = {}
    for page in CITING:
        for log in cited_logs(page.read_text(encoding="utf-8")):
            cited.setdefault(log, page.relative_to(ROOT).as_posix())
    # the notes cite 65 logs this way (d8a5a3e): a small harvest means the regex broke
    assert len(cited) >= 50, f"only {len(cited)} cited logs found"
    names = shipped_names()
    missing = {log: page for log, page in cited.items()
               if not resolves(log, names) and log not in DANGLING}
    assert not missing, f"cited but neither tracked nor in {run_logs.ARCHIVE_NAME}: {missing}"
    stale = [log for log in DANGLING if resolves(log, names)]
    assert not stale, f"these now resolve: drop them from DANGLING: {stale}"
