"""--scheduler without a cluster: its validation, the worker checks, and an unreachable
scheduler, each a one-line error (no Dask worker is started here)."""

from __future__ import annotations

import socket
import time
from dataclasses import asdict

import pytest

from workbench.cli.main import main
from workbench.distributed import SchedulerSpec, check_versions, check_workers
from workbench.errors import (
    DistributedError,
    ParameterError,
    VersionMismatchError,
    WorkerDeviceError,
)
from workbench.measure.devices import DeviceInfo

VERSIONS = {"python": "3.11.2", "loopy": "2025.2", "pyopencl": "2026.1.4",
            "distributed": "2026.8.0"}


def device(name="GPU X", driver="1.0", index=0) -> DeviceInfo:
    return DeviceInfo(index=index, platform="Vendor CL", name=name, vendor="V",
                      driver_version=driver, device_type="GPU", compute_units=100,
                      global_mem_bytes=1 << 34, max_alloc_bytes=1 << 32,
                      local_mem_bytes=1 << 16, max_work_group_size=1024, subgroup_size=32)


def probe(role="device", dev=None, error=None, nthreads=1, versions=VERSIONS) -> dict:
    return {"role": role, "versions": dict(versions), "nthreads": nthreads,
            "device": asdict(dev or device()) if role == "device" and not error else None,
            "error": error}


@pytest.mark.parametrize("address", ["local-gpu", "tcp://host", "http://h:1", "tcp://:80"])
def test_a_scheduler_is_local_gpus_or_an_address(address):
    with pytest.raises(ParameterError, match="local-gpus or tcp://HOST:PORT"):
        SchedulerSpec(address)
    assert SchedulerSpec("tcp://10.0.0.1:8786").local is False
    assert SchedulerSpec("local-gpus").local
    with pytest.raises(ParameterError, match="workers-per-device"):
        SchedulerSpec("local-gpus", workers_per_device=0)
    with pytest.raises(ParameterError, match="a running one has its workers"):
        SchedulerSpec("tcp://10.0.0.1:8786", cpu_workers=4)


def test_workers_are_sorted_by_role_and_share_one_device():
    probes = {"tcp://a:1": probe(), "tcp://b:1": probe(dev=device(index=1)),
              "tcp://c:1": probe("cpu"), "tcp://d:1": probe("other")}
    workers = check_workers(probes, VERSIONS, "GPU", "tcp://s:1")
    assert workers.device_workers == ("tcp://a:1", "tcp://b:1")
    assert workers.cpu_workers == ("tcp://c:1",)
    assert workers.device.name == "GPU X"


def test_worker_checks_name_the_culprit_in_one_line():
    def fails(probes, match, error=DistributedError):
        with pytest.raises(error, match=match) as info:
            check_workers(probes, VERSIONS, "GPU", "tcp://s:1")
        assert "\n" not in str(info.value)

    fails({}, "has no workers")
    fails({"tcp://c:1": probe("cpu")}, "no worker .* has the resource device=1")
    fails({"tcp://a:1": probe(), "tcp://b:1": probe(error="no OpenCL device matches")},
          "worker tcp://b:1 has no OpenCL device matching 'GPU'", WorkerDeviceError)
    fails({"tcp://a:1": probe(), "tcp://b:1": probe(dev=device(driver="2.0"))},
          "different devices", WorkerDeviceError)
    fails({"tcp://a:1": probe(nthreads=4)}, "needs --nthreads 1")
    older = dict(VERSIONS, loopy="2024.1")
    fails({"tcp://a:1": probe(), "tcp://b:1": probe(versions=older)},
          "loopy 2025.2 on the client, 2024.1 on worker tcp://b:1", VersionMismatchError)


def test_version_check_counts_the_other_workers_that_differ():
    older = dict(VERSIONS, distributed="2025.1.0")
    with pytest.raises(VersionMismatchError, match=r"\(and 1 more workers\)"):
        check_versions(VERSIONS, {"a": older, "b": older, "c": VERSIONS})
    check_versions(VERSIONS, {"a": dict(VERSIONS)})


def test_an_unreachable_scheduler_is_one_line(capsys, tmp_path):
    with socket.socket() as s:   # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    began = time.perf_counter()
    assert main(["calibrate", "--quick", "--scheduler", f"tcp://127.0.0.1:{port}",
                 "--scheduler-timeout", "1", "--no-progress",
                 "--store", str(tmp_path / "s.sqlite")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("workbench: error: cannot reach the Dask scheduler at "
                          f"tcp://127.0.0.1:{port} within 1 s") and "\n" not in err
    assert time.perf_counter() - began < 10


def test_cli_refuses_what_a_cluster_does_not_run(capsys, tmp_path):
    assert main(["calibrate", "--families", "--scheduler", "local-gpus"]) == 2
    assert "--families and --twins-of run on one device" in capsys.readouterr().err
    assert main(["tune", "matmul", "--jobs", "4", "--scheduler", "local-gpus"]) == 2
    assert "leave out --replay and --jobs" in capsys.readouterr().err
    assert main(["calibrate", "--scheduler", "local", "--store",
                 str(tmp_path / "s.sqlite")]) == 2
    assert "local-gpus or tcp://HOST:PORT" in capsys.readouterr().err
