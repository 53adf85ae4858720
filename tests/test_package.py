"""The workbench as an installed package: its data, its wheel, and islpy without barvinok.

A wheel carries no ``sample_data/``; the fitted models prediction needs are package data
(``workbench/models/data/``), copies made by scripts/sync_package_data.py that must stay
identical to their originals.  The wheel is built from a copy of the sources (so that
nothing stale under the checkout's ``build/`` slips in), installed into a throwaway
folder without its dependencies (this environment has them), and run from another one.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import islpy as isl
import pytest

from workbench.cli.main import main
from workbench.models.packaged import packaged_copy, packaged_devices, packaged_weights
from workbench.properties.counting import ISLPY_BARVINOK

ROOT = Path(__file__).resolve().parents[1]

TRIANGULAR = '''
import loopy as lp
import numpy as np

tri = lp.make_kernel(
    "{[i, j]: 0 <= i < n and 0 <= j <= i}", "s[i] = sum(j, a[i, j])",
    [lp.GlobalArg("a", np.float32, shape=("n", "n")),
     lp.GlobalArg("s", np.float32, shape="n"), ...],
    lang_version=(2018, 2), name="tri")
tri = lp.split_iname(tri, "i", 128, outer_tag="g.0", inner_tag="l.0")
'''


def _sync_script():
    spec = importlib.util.spec_from_file_location(
        "sync_package_data", ROOT / "scripts" / "sync_package_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_package_data_are_identical_copies_of_sample_data():
    sync = _sync_script()
    assert sync.differences() == [], \
        "run: python scripts/sync_package_data.py (the package copies differ)"
    assert "h100" in packaged_devices()
    pointer = json.loads((ROOT / "sample_data/h100/default-model.json").read_text())
    names = {p.name for p in packaged_weights("h100")}
    assert pointer["weights"] in names and "weights-linear-fp64.json" in names
    # a cited sample_data path finds the package's copy, wherever it is read from
    copy = packaged_copy("sample_data/h100/weights-linear.json")
    assert copy is not None and copy.read_bytes() == \
        (ROOT / "sample_data/h100/weights-linear.json").read_bytes()
    assert packaged_copy("sample_data/h100/no-such-model.json") is None


def test_the_barvinok_requirement_is_named_alike_everywhere():
    (version,) = re.findall(r'"islpy==([^"]+)"', (ROOT / "pyproject.toml").read_text())
    assert ISLPY_BARVINOK.startswith(f"islpy-barvinok=={version}.post")
    assert ISLPY_BARVINOK in (ROOT / "scripts" / "setup_env.sh").read_text()


def test_plain_islpy_is_one_line_naming_what_to_install(tmp_path, monkeypatch, capsys):
    """What a plain ``pip install`` gave: islpy without ``Set.card``.  loopy would
    over-count the triangle; the workbench refuses in one line instead."""
    (tmp_path / "tri.py").write_text(TRIANGULAR)
    monkeypatch.delattr(isl.Set, "card")
    spec = f"{tmp_path / 'tri.py'}:tri"
    for command in (["properties", spec, "--param", "n=1024"],
                    ["predict", spec, "--param", "n=1024"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith("workbench: error: exact counts need islpy built with "
                              "barvinok"), err
        assert f"pip install --no-deps --force-reinstall {ISLPY_BARVINOK}" in err


def _source_copy(dest: Path) -> Path:
    """What the wheel is built from: pyproject, README, licence and the package."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", *(p.name for p in ROOT.glob("LICEN[CS]E*"))):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "workbench", dest / "workbench",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def test_the_wheel_predicts_outside_the_checkout(tmp_path):
    """pip builds the wheel with this environment's setuptools (no download), installs
    it alone into a folder, and ``predict`` runs from a third one with only that
    folder on the path: the default model comes from the wheel's package data."""
    from importlib.metadata import version

    from packaging.version import Version

    assert Version(version("setuptools")) >= Version("77"), \
        "the wheel is built with this environment's setuptools, which must be >= 77 " \
        "(pyproject.toml's [test] extra): run make setup"
    source = _source_copy(tmp_path / "src")
    wheels, target, elsewhere = tmp_path / "wheels", tmp_path / "site", tmp_path / "cwd"
    elsewhere.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input",
           "--no-cache-dir"]
    built = subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w",
                            str(wheels), str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = wheels.glob("gpu_perf_workbench-*.whl")
    installed = subprocess.run([*pip, "install", "--no-deps", "--target", str(target),
                                str(wheel)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert (target / "workbench/models/data/h100/default-model.json").is_file()
    assert (target / "workbench/hardware/data/h100.json").is_file()

    env = {**os.environ, "PYTHONPATH": str(target)}
    script = ("import sys, workbench; print('IMPORTED', workbench.__file__); "
              "from workbench.cli.main import main; sys.exit(main(sys.argv[1:]))")
    ran = subprocess.run([sys.executable, "-c", script, "predict", "finite_diff",
                          "--param", "n=4096"], cwd=elsewhere, env=env,
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    imported = Path(re.search(r"^IMPORTED (.+)$", ran.stdout, re.M).group(1))
    assert imported.is_relative_to(target), imported   # the wheel's, not the checkout's
    assert "the shipped h100 default" in ran.stdout
    assert re.search(r"finite_diff \[default\] float32 n=4096, group \S+: predicted [0-9.]+ ms",
                     ran.stdout), ran.stdout
    # python -m workbench, as the README says, runs the same installed package
    module = subprocess.run([sys.executable, "-m", "workbench", "predict", "finite_diff",
                             "--param", "n=4096", "--format", "json"], cwd=elsewhere,
                            env=env, capture_output=True, text=True, timeout=300)
    assert module.returncode == 0, module.stderr[-3000:]
    assert json.loads(module.stdout)["predicted_s"] > 0
