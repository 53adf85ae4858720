"""The repo2docker configuration (binder/) agrees with the rest of the repository.

With a binder/ folder, repo2docker ignores the root pyproject.toml, so binder/ must
install the package, the barvinok islpy and pocl by itself, and every notebook it or
the README links to must exist.
"""

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"


def _lines(path: Path) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in path.read_text().splitlines()
            if line.split("#", 1)[0].strip()]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _barvinok_pin(text: str) -> str:
    pins = re.findall(r"islpy-barvinok==([\w.]+)", text)
    assert len(set(pins)) == 1, f"expected one islpy-barvinok pin, found {pins}"
    return pins[0]


def test_apt_installs_pocl():
    assert "pocl-opencl-icd" in _lines(BINDER / "apt.txt")


def test_runtime_python_satisfies_the_package():
    (runtime,) = _lines(BINDER / "runtime.txt")
    m = re.fullmatch(r"python-(\d+)\.(\d+)", runtime)
    assert m, f"runtime.txt must read python-X.Y, not {runtime!r}"
    requires = SpecifierSet(_pyproject()["project"]["requires-python"])
    assert f"{m.group(1)}.{m.group(2)}" in requires


def test_no_other_python_environment_file():
    # one way to install: postBuild (requirements.txt or environment.yml would compete)
    for name in ("requirements.txt", "environment.yml", "setup.py", "Project.toml"):
        assert not (BINDER / name).exists(), f"binder/{name} would bypass postBuild"


def test_postbuild_installs_the_package_and_barvinok_islpy():
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable"
    text = post.read_text()
    assert text.startswith("#!/usr/bin/env bash")
    assert 'cd "$(dirname "$0")/.."' in text, "run from the repository root, wherever called"
    if shutil.which("bash"):
        subprocess.run(["bash", "-n", str(post)], check=True)
    assert re.search(r'pip install [^\n]*-e "?\.\[ui\]"?', text), "install the package with [ui]"
    reinstall = re.search(r"pip install [^\n]*--no-deps --force-reinstall "
                          r"\"?islpy-barvinok==[\w.]+\"?", text)
    assert reinstall, "reinstall islpy-barvinok without dependencies, over plain islpy"
    # ... after the package (which pulls plain islpy in)
    assert text.index("[ui]") < reinstall.start()
    # the same pin as the local set-up, and built from the islpy the package pins
    setup = (ROOT / "scripts" / "setup_env.sh").read_text()
    assert _barvinok_pin(text) == _barvinok_pin(setup)
    islpy = next(d for d in _pyproject()["project"]["dependencies"] if d.startswith("islpy"))
    assert _barvinok_pin(text).startswith(islpy.split("==")[1] + ".post")


def test_postbuild_server_config_is_valid_json():
    text = (BINDER / "postBuild").read_text()
    m = re.search(r"<<'JSON'\n(.*?)\nJSON\n", text, re.S)
    assert m, "postBuild writes the server config from a JSON here-document"
    config = json.loads(m.group(1))
    assert config["ServerApp"]["default_url"].startswith("/lab/tree/")


def test_ui_extra_has_what_the_binder_serves():
    ui = " ".join(_pyproject()["project"]["optional-dependencies"]["ui"])
    for name in ("jupyterlab", "ipywidgets", "anywidget", "ipykernel"):
        assert name in ui


def _notebook_links(text: str) -> list[str]:
    """Notebook paths in default URLs and Binder links (``lab/tree/<path>``)."""
    paths = []
    for url in re.findall(r"https?://mybinder\.org/\S+", text):
        query = parse_qs(urlparse(url.rstrip(")>")).query)
        for urlpath in query.get("urlpath", []):
            paths += re.findall(r"lab/tree/(\S+\.ipynb)", unquote(urlpath))
    paths += re.findall(r'"default_url":\s*"/lab/tree/([^"]+\.ipynb)"', text)
    return paths


def test_every_linked_notebook_exists():
    post = _notebook_links((BINDER / "postBuild").read_text())
    readme = _notebook_links((ROOT / "README.md").read_text())
    assert post == ["notebooks/tour.ipynb"], "postBuild opens the tour by default"
    assert "notebooks/tour.ipynb" in readme, "the README's Binder badge opens the tour"
    for path in set(post + readme + _notebook_links((BINDER / "README.md").read_text())):
        assert (ROOT / path).is_file(), f"{path} is linked but does not exist"
