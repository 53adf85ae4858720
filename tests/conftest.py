"""Fixtures shared by the test modules."""

import os
import secrets
import tempfile
from pathlib import Path

import pytest

import leftover_processes

# Set before any test runs, so that every process the tests start inherits it.
SESSION = f"{os.getpid()}-{secrets.token_hex(4)}"
os.environ[leftover_processes.MARK] = SESSION

# Processes the tests start (notebook kernels, the JupyterLab server, commands) import
# this checkout's package, even where the virtual environment's editable install points
# at another checkout (a git worktree sharing the venv).
_ROOT = str(Path(__file__).resolve().parents[1])
os.environ["PYTHONPATH"] = os.pathsep.join(
    [_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != _ROOT])


# Counts of factory spaces are kept on disk (workbench.models.count_cache): the tests
# start from an empty cache of their own, never the user's.
os.environ.setdefault("WORKBENCH_COUNT_CACHE", os.path.join(
    tempfile.mkdtemp(prefix="workbench-test-counts-"), "counts.sqlite"))


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_tests():
    """Fail the run if a process started by a test still runs at the end (a JupyterLab
    server once did, kernel and all), and stop it, so that it does not outlive us."""
    yield
    if not leftover_processes.supported():
        return
    # a kernel notices within a second that its server has gone: time to go too
    grace_s = float(os.environ.get("WORKBENCH_LEFTOVER_GRACE_S", "10"))
    left = leftover_processes.wait_gone(SESSION, timeout_s=grace_s)
    if left:
        described = [leftover_processes.describe(pid) for pid in left]
        leftover_processes.kill(left)
        pytest.fail("processes started by the tests were still running at the end "
                    "(now killed):\n" + "\n".join(described), pytrace=False)


@pytest.fixture(scope="session")
def queue():
    """A queue on the pocl CPU device (the tests' embedded default), or a skip."""
    cl = pytest.importorskip("pyopencl")
    try:
        platforms = cl.get_platforms()
    except cl.Error as err:
        pytest.skip(f"no OpenCL platform available ({err})")
    for platform in platforms:
        if "Portable Computing Language" in platform.name and platform.get_devices():
            return cl.CommandQueue(cl.Context([platform.get_devices()[0]]))
    pytest.skip("no pocl ('Portable Computing Language') OpenCL device found")
