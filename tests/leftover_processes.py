"""Finding the processes a test session started, after the fact.

conftest.py marks the session: a variable in ``os.environ`` that every process
started from the tests inherits (subprocess, Jupyter servers and their kernels,
Playwright's browser), however deep and even once orphaned and adopted by init, which
a walk down the pytest process's children would miss. Linux only (``/proc``).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

MARK = "WORKBENCH_TEST_SESSION"
PROC = Path("/proc")


def supported() -> bool:
    return (PROC / "self" / "environ").exists()


def marked(value: str) -> list[int]:
    """Running processes, other than this one, whose environment has MARK=value."""
    needle = f"\0{MARK}={value}\0".encode()
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            env = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or another user's
            continue
        if needle in b"\0" + env.rstrip(b"\0") + b"\0" and running(int(entry.name)):
            found.append(int(entry.name))
    return found


def running(pid: int) -> bool:
    """Alive, not a zombie waiting for its parent (or init) to reap it."""
    try:  # "pid (name) S ...": the state follows the last ')'
        return (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def describe(pid: int) -> str:
    try:
        cmd = (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        cmd = "?"
    return f"{pid}: {cmd.strip()[:160]}"


def wait_gone(value: str, timeout_s: float) -> list[int]:
    """The marked processes still running after up to ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while (left := marked(value)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def kill(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
