"""The repository stands on its own: no tracked file names a path outside it, the front
page stays a front page, and every paper is cited with a DOI or URL (issue #35)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from test_tree_size import tracked_files

ROOT = Path(__file__).resolve().parents[1]
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()
#: What a clone does not have: the developers' shared folder and this machine's paths.
OUTSIDE = (b"../" + b"shared", b"/" + b"work/")   # spelt apart: this file is checked too
PAPER_KEYS = ("stevens-kloeckner-unified", "stevens-kloeckner-2019", "ernst-data-volumes",
              "prajapati-time-tiling", "lift-ir-features")


def test_no_tracked_file_names_a_path_outside_the_repository():
    offenders = []
    for path in tracked_files():
        name = path.relative_to(ROOT).as_posix()
        if name == THIS or not path.is_file():
            continue
        data = path.read_bytes()
        offenders += [f"{name}: {needle.decode()}" for needle in OUTSIDE if needle in data]
    assert offenders == [], "cite docs/papers.md, not a path outside the repository:\n" + \
        "\n".join(offenders)


def test_the_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) < 300, f"README.md has {len(lines)} lines; move results to docs/"
    text = "\n".join(lines)
    for page in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / page).is_file(), f"README links to {page}, which does not exist"


def test_every_paper_is_cited_with_a_doi_or_url():
    text = (ROOT / "docs" / "papers.md").read_text()
    sections = dict(re.findall(r"^## (\S+)\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL))
    assert set(PAPER_KEYS) <= set(sections), sorted(sections)
    for key in PAPER_KEYS:
        body = sections[key]
        assert re.search(r"^- \*\*(DOI|URL):\*\* (10\.\d{4,}/\S+|https://\S+)", body,
                         re.MULTILINE), f"{key}: no DOI or URL line"
        for field in ("Authors", "Title", "Venue", "Year"):
            assert f"- **{field}:**" in body, f"{key}: no {field}"


def test_the_citation_file_names_this_version_and_the_papers():
    yaml = pytest.importorskip("yaml")

    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert str(citation["version"]) == project["version"]
    assert citation["license"] == project["license"] == "MIT"
    assert len(citation["references"]) == len(PAPER_KEYS)
    assert all(re.fullmatch(r"10\.\d{4,}/\S+", str(r["doi"])) for r in citation["references"])


#: ``FILE.py:VARIABLE`` as the docs write a user's kernel or space (not the placeholder)
USER_REFERENCE = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.py):([A-Za-z_]\w*)")


def test_every_file_py_variable_in_the_docs_exists():
    """A newcomer copies the docs' commands: each ``FILE.py:VARIABLE`` they name is a
    file of the checkout that defines VARIABLE (docs/cli.md named ``my_kernels.py:axpy``,
    which is neither where the file is nor a kernel in it)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted(ROOT.glob("*/README.md")), *sorted(ROOT.glob("*/*/README.md"))]
    wrong = []
    for page in pages:
        for path, name in USER_REFERENCE.findall(page.read_text()):
            if re.search(r"(^|[_/])[A-Z]+\.py$", path):   # FILE.py, blind_X.py: placeholders
                continue
            source = ROOT / path
            where = f"{page.relative_to(ROOT)}: {path}:{name}"
            if not source.is_file():
                wrong.append(f"{where} (no such file)")
            elif not re.search(rf"^(def |class )?{name}\b", source.read_text(), re.M):
                wrong.append(f"{where} ({path} defines no {name})")
    assert wrong == [], "\n".join(wrong)
