"""The end-of-session check of conftest.py finds what the tests leave running."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import leftover_processes
from conftest import SESSION

pytestmark = pytest.mark.skipif(not leftover_processes.supported(), reason="needs /proc")

SLEEP = [sys.executable, "-c", "import time; time.sleep(30)"]


def test_a_process_started_here_is_found_until_it_ends():
    proc = subprocess.Popen(SLEEP)
    try:
        assert proc.pid in leftover_processes.marked(SESSION)
    finally:
        proc.kill()
        proc.wait(5)
    assert proc.pid not in leftover_processes.marked(SESSION)


def test_an_orphan_is_found_too():
    # the shape of the old leak: the parent gone, its child adopted by init
    parent = subprocess.run(
        [sys.executable, "-c", "import subprocess; print(subprocess.Popen("
         f"{SLEEP!r}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid)"],
        capture_output=True, text=True, check=True, timeout=20)
    orphan = int(parent.stdout)
    try:
        assert orphan in leftover_processes.marked(SESSION)
    finally:
        leftover_processes.kill([orphan])
    deadline = time.monotonic() + 5
    while orphan in leftover_processes.marked(SESSION) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert orphan not in leftover_processes.marked(SESSION)


def test_unmarked_processes_are_not_ours():
    env = {k: v for k, v in os.environ.items() if k != leftover_processes.MARK}
    proc = subprocess.Popen(SLEEP, env=env)
    try:
        assert proc.pid not in leftover_processes.marked(SESSION)
    finally:
        proc.kill()
        proc.wait(5)


def test_a_leftover_fails_the_run_and_is_stopped(tmp_path):
    (tmp_path / "test_leak.py").write_text(
        "import subprocess\n"
        "def test_leaks():\n"
        f"    print('pid', subprocess.Popen({SLEEP!r}).pid, flush=True)\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent),
           "WORKBENCH_LEFTOVER_GRACE_S": "0.5"}
    # this conftest, as a plugin, in a pytest of its own: its session is marked anew
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "conftest",
                          "-p", "no:cacheprovider", str(tmp_path / "test_leak.py")],
                         capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    leaked = int(run.stdout.split("pid ", 1)[1].split()[0])
    try:
        assert run.returncode == 1, run.stdout
        assert "1 passed, 1 error" in run.stdout
        assert "were still running at the end (now killed)" in run.stdout
        assert f"{leaked}: " in run.stdout and "time.sleep(30)" in run.stdout
        assert not leftover_processes.running(leaked)
    finally:  # only if it is still that very process, never a pid reused meanwhile
        if leftover_processes.running(leaked) and \
                "time.sleep(30)" in leftover_processes.describe(leaked):
            leftover_processes.kill([leaked])
