"""Campaigns and explorations on a Dask cluster of two device workers on pocl's CPU
device (and one CPU worker), reached as ``--scheduler tcp://...``: the client the one
writer of the store, a killed client resumed, a killed worker's task run again, and
the one-line errors of a worker without the device and of mismatched libraries."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.distributed import DEVICE_ENV
from workbench.errors import StoreError
from workbench.measure import MeasurementStore
from workbench.measure.store import Status

ROOT = Path(__file__).resolve().parents[1]
KERNELS = "arith,vector_scale_add"


# The cluster runs in a process of its own, which the fixture stops: multiprocessing's
# resource tracker, started with the first worker, then goes with it rather than
# outliving the tests.
CLUSTER = """
import sys
from workbench.distributed import SchedulerSpec
from workbench.distributed.cluster import local_gpus_cluster
cluster = local_gpus_cluster(SchedulerSpec("local-gpus", workers_per_device=2,
                                           cpu_workers=1, dashboard_address=":0"), None)
print(cluster.scheduler_address, flush=True)
sys.stdin.read()
cluster.close()
"""


@pytest.fixture(scope="module")
def cluster(queue):   # ``queue`` skips without pocl
    proc = subprocess.Popen([sys.executable, "-c", CLUSTER], cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        address = proc.stdout.readline().strip()
        assert address.startswith("tcp://"), "the test cluster did not start"
        yield address
    finally:
        proc.stdin.close()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def calibrate_args(address, store, *extra):
    return ["calibrate", "--quick", "--runs", "3", "--kernels", KERNELS, "--store",
            str(store), "--scheduler", address, *extra]


def stored(store: Path):
    with MeasurementStore.open(store, create=False, readonly=True) as s:
        rows = s.measurements(status=None)
        finished = {c.name: c.finished is not None for c in s.campaigns()}
    return rows, finished


def committed(store: Path) -> int:
    try:
        return len(stored(store)[0])
    except StoreError:   # not yet created, or being initialised by the client
        return 0


def test_a_killed_client_resumes_where_it_stopped(cluster, tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    client = subprocess.Popen([sys.executable, "-m", "workbench",
                               *calibrate_args(cluster, store, "--no-progress")],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and client.poll() is None:
            if committed(store) >= 4:
                break
            time.sleep(0.05)
        assert client.poll() is None, client.stderr.read().decode()[-2000:]
        client.send_signal(signal.SIGKILL)
    finally:
        client.kill()
        client.wait()
    before, finished = stored(store)
    assert finished == {"quick": False}
    assert main(calibrate_args(cluster, store)) == 0
    err = capsys.readouterr().err
    assert f"{len(before)} configurations already stored" in err
    assert "Dask dashboard: " in err and "2 device worker(s)" in err
    assert "cfg" in err   # the progress bar, as without a cluster
    after, finished = stored(store)
    assert finished == {"quick": True}
    keys = [m.key for m in after]
    assert len(keys) == len(set(keys)) > len(before)
    # what the killed client had committed is kept as it was, not measured again
    assert {m.key: m.timestamp for m in before}.items() <= \
        {m.key: m.timestamp for m in after}.items()
    # every configuration of the plan: the subset's variants, two cases each, the
    # overhead kernel's too, all measured
    assert {(m.key.kernel, m.key.variant) for m in after} >= {("arith", "pow"),
                                                             ("empty", "default")}
    assert len(after) == 2 * (1 + 5 + 3)
    assert all(m.status is Status.OK for m in after)


SLOW_SPACE = '''
import os, time
import loopy as lp
import numpy as np
from workbench.tuning.space import TuningSpace

MARKER = {marker!r}

def kernel(point):
    # the first device worker to build this point announces itself and hangs
    if point["group"] == 64 and os.environ.get({env!r}) and not os.path.exists(MARKER):
        with open(MARKER, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(60)
    knl = lp.make_kernel("{{[i]: 0 <= i < n}}", "y[i] = 2*x[i]",
                         [lp.GlobalArg("x", np.float32, shape="n"),
                          lp.GlobalArg("y", np.float32, shape="n"), ...],
                         lang_version=(2018, 2))
    knl = lp.fix_parameters(knl, n=1024)
    return lp.split_iname(knl, "i", point["group"], outer_tag="g.0", inner_tag="l.0")

space = TuningSpace(
    name="double", description="y = 2x", tune_params={{"group": (16, 32, 64, 128, 256)}},
    group_size=lambda p: (p["group"],), kernel=kernel,
    make_inputs=lambda rng: {{"x": rng.random(1024).astype(np.float32)}},
    reference=lambda inputs: {{"y": 2 * inputs["x"]}})
'''


def test_a_killed_workers_point_is_measured_once_by_another(cluster, tmp_path, capsys):
    marker = tmp_path / "hung-worker"
    path = tmp_path / "slow_space.py"
    path.write_text(SLOW_SPACE.format(marker=str(marker), env=DEVICE_ENV))
    store = tmp_path / "t.sqlite"
    outcome = {}
    tune = threading.Thread(target=lambda: outcome.setdefault("rc", main(
        ["tune", f"{path}:space", "--store", str(store), "--format", "json",
         "--scheduler", cluster])))
    tune.start()
    deadline = time.monotonic() + 60
    while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    pid = int(marker.read_text())
    os.kill(pid, signal.SIGKILL)
    tune.join(60)
    assert not tune.is_alive() and outcome["rc"] == 0
    assert '"evaluations": 5' in capsys.readouterr().out
    rows, finished = stored(store)
    assert finished == {"tune/double/exhaustive/seed0": True}
    labels = sorted(m.key.variant for m in rows)
    assert labels == sorted(f"group={g}" for g in (16, 32, 64, 128, 256))
    assert all(m.status is Status.OK for m in rows)
    assert sorted(m.extra["sequence"] for m in rows) == list(range(5))
    with pytest.raises(ProcessLookupError):   # the hung worker is gone for good
        os.kill(pid, 0)


def test_a_worker_without_the_device_is_one_line(cluster, tmp_path, capsys):
    assert main(calibrate_args(cluster, tmp_path / "s.sqlite", "--device", "NVIDIA")) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "has no OpenCL device matching 'NVIDIA'" in err
    assert not (tmp_path / "s.sqlite").exists()


def test_mismatched_versions_are_one_line(cluster, tmp_path, capsys, monkeypatch):
    from workbench.distributed import cluster as module

    real = module.library_stack
    monkeypatch.setattr(module, "library_stack", lambda: {**real(), "loopy": "2019.1"})
    assert main(calibrate_args(cluster, tmp_path / "s.sqlite")) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert "library versions differ: loopy 2019.1 on the client, " in err


def test_local_gpus_starts_and_stops_its_own_cluster(queue, tmp_path):
    # in a process of its own, like the fixture's cluster (see CLUSTER)
    store = tmp_path / "s.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "calibrate", "--quick", "--runs", "3",
         "--kernels", "vector_scale_add", "--store", str(store), "--no-progress",
         "--scheduler", "local-gpus", "--workers-per-device", "2", "--cpu-workers", "0"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "2 device worker(s) on " in done.stderr and "Dask dashboard: http" in done.stderr
    assert "8 measured, 0 already stored, 0 failed" in done.stdout
    rows, finished = stored(store)
    assert len({m.key for m in rows}) == len(rows) == 8 and finished == {"quick": True}


def test_a_worker_that_joins_late_is_checked_by_its_first_task(cluster):
    from distributed import Client

    from workbench.distributed import tasks, worker
    from workbench.errors import VersionMismatchError

    versions = dict(worker.library_stack(), pyopencl="2020.1")
    binding = worker.Binding(None, tuple(sorted(versions.items())))
    with Client(cluster, set_as_default=False) as client:
        task = client.submit(tasks.prepare_point, binding, "matmul", {"n": 64},
                             "tx=8,ty=8,wy=1,wx=1,tile=global", (),
                             resources={worker.CPU_RESOURCE: 1}, pure=False)
        with pytest.raises(VersionMismatchError, match="pyopencl 2020.1 on the client"):
            task.result(timeout=30)


def test_cpu_workers_build_the_campaigns_kernels_ahead(cluster, tmp_path, capsys):
    from distributed import Client

    def build_seconds(dask_scheduler):
        prefix = dask_scheduler.task_prefixes.get("build_ahead")
        return 0.0 if prefix is None else prefix.all_durations.get("compute", 0.0)

    with Client(cluster, set_as_default=False) as client:
        before = client.run_on_scheduler(build_seconds)
        store = tmp_path / "s.sqlite"
        assert main(calibrate_args(cluster, store, "--kernels", "vector_scale_add",
                                   "--no-progress")) == 0
        after = client.run_on_scheduler(build_seconds)
    assert "8 measured, 0 already stored, 0 failed" in capsys.readouterr().out
    # the one CPU worker generated and built code: the device workers read its caches
    assert after > before
    rows, finished = stored(store)
    assert len(rows) == 8 and all(m.status is Status.OK for m in rows)
