"""Part 3 of scripts/h200_campaign.sh: the throughput summary, the Dask dashboard check
and the killed-worker check, each on the stores and logs that part leaves in OUTDIR.

  python3 scripts/h200_throughput.py summary OUTDIR     # throughput.csv, ratios, goals
  python3 scripts/h200_throughput.py dashboard OUTDIR   # the dashboard answers HTTP 200
  python3 scripts/h200_throughput.py kill OUTDIR        # SIGKILL workers mid-campaign

DEVICE (environment, default NVIDIA) names the device, as --device does; KILL_ARGS
replaces the killed campaign's arguments (a dry run on a CPU device uses a few
kernels), KILL_AT ("30,90") the rows stored before each kill.
"""

from __future__ import annotations

import csv
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

DEVICE = os.environ.get("DEVICE", "NVIDIA")
SCHEDULER = re.compile(r"Dask scheduler (tcp://\S+?):? ")


def _rows(store: Path, status=None):
    from workbench.measure import MeasurementStore

    with MeasurementStore.open(store, create=False, readonly=True) as s:
        return s.measurements(status=status), list(s.campaigns())


def summary(out: Path) -> None:
    walls = {}
    for line in (out / "throughput.log").read_text().splitlines():
        m = re.match(r"(\S+) exit (\d+) wall ([\d.]+) s", line)
        if m:
            walls[m.group(1)] = (int(m.group(2)), float(m.group(3)))
    table = []
    for label, (rc, wall) in walls.items():
        store = out / f"throughput-{label}.sqlite"
        if not store.exists():
            continue
        rows, campaigns = _rows(store)
        finished = all(c.finished is not None for c in campaigns)
        table.append({"run": label, "exit": rc, "finished": finished, "wall_s": wall,
                      "rows": len(rows), "per_s": len(rows) / wall})
    with open(out / "throughput.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, ["run", "exit", "finished", "wall_s", "rows", "per_s"])
        writer.writeheader()
        writer.writerows(table)
    print("run                 exit finished  wall (s)  rows  rows/s")
    for r in table:
        print(f"{r['run']:18s}  {r['exit']:4d} {str(r['finished']):8s} {r['wall_s']:9.1f} "
              f"{r['rows']:5d} {r['per_s']:7.2f}")
    rate = {r["run"]: r["per_s"] for r in table if r["exit"] == 0}
    for kind in ("campaign", "tune"):
        serial, jobs, dask = (rate.get(f"{kind}-{m}") for m in ("serial", "jobs", "dask"))
        if serial and jobs:
            print(f"{kind}: --jobs speed-up over serial {jobs / serial:.2f}x")
        if serial and dask:
            print(f"{kind}: Dask speed-up over serial {dask / serial:.2f}x "
                  f"(goal >= 1.5x: {'met' if dask / serial >= 1.5 else 'not met'})")
        if jobs and dask:
            print(f"{kind}: Dask / --jobs throughput {dask / jobs:.2f} "
                  f"(goal: no slower: {'met' if dask >= jobs else 'not met'})")


def dashboard(out: Path) -> None:
    import urllib.request

    from workbench.distributed import SchedulerSpec, open_session

    with open_session(SchedulerSpec("local-gpus", cpu_workers=1), DEVICE) as session:
        link = session.dashboard_link
        print(f"dashboard: {session.dashboard_text()}")
        if link is None:
            print("dashboard: not served")
            return
        with urllib.request.urlopen(link, timeout=20) as page:
            body = page.read()
        print(f"dashboard: GET {link} -> HTTP {page.status}, {len(body)} bytes"
              f"{' (bokeh page)' if b'bokeh' in body.lower() else ''}")


def _workers(address: str) -> tuple[list[int], list[int]]:
    """(device workers, CPU workers) of the scheduler at ``address``, as process ids
    (a worker's device binding is set inside it: its resources tell them apart)."""
    from distributed import Client

    with Client(address, timeout=10, set_as_default=False) as client:
        pids = client.run(os.getpid)
        info = client.scheduler_info()["workers"]
    device = [pids[a] for a, w in info.items() if a in pids and w["resources"].get("device")]
    cpu = [pids[a] for a, w in info.items() if a in pids and w["resources"].get("cpu")]
    return device, cpu


def kill(out: Path) -> None:
    store = out / "killed-worker.sqlite"
    args = shlex.split(os.environ.get("KILL_ARGS", "--set 2019 --dtypes float32"))
    client = subprocess.Popen(
        [sys.executable, "-m", "workbench", "calibrate", "--device", DEVICE, *args,
         "--name", "h200-killed-workers", "--store", str(store), "--no-progress",
         "--scheduler", "local-gpus"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(client.stdout), daemon=True)
    reader.start()
    killed = []
    # KILL_AT: rows stored before the device worker, then a CPU worker, is killed
    at = [int(x) for x in os.environ.get("KILL_AT", "30,90").split(",")]
    marks = [(at[0], "device"), (at[1], "cpu")]
    deadline = time.monotonic() + 400
    while client.poll() is None and marks and time.monotonic() < deadline:
        time.sleep(0.3)
        try:
            done = len(_rows(store, status=None)[0]) if store.exists() else 0
        except Exception:  # noqa: BLE001 - the client is creating the store
            continue
        address = next((m.group(1) for m in map(SCHEDULER.search, list(lines)) if m),
                       None)
        if done >= marks[0][0] and address:
            device, cpu = _workers(address)
            victims = device if marks[0][1] == "device" else cpu
            if victims:
                os.kill(victims[0], signal.SIGKILL)
                killed.append(f"{marks[0][1]} worker {victims[0]} after {done} rows")
            marks.pop(0)
    client.wait(timeout=max(10, deadline - time.monotonic()))
    reader.join(10)
    print("".join(lines[-3:]), end="")
    print("killed:", "; ".join(killed) or "none (the campaign ended first)")
    rows, campaigns = _rows(store)
    all_rows, _ = _rows(store, status=None)
    serial_store = out / "throughput-campaign-serial.sqlite"
    ident = lambda m: (m.key.kernel, m.key.variant, m.key.dtype,  # noqa: E731
                       m.key.group_size, m.extra.get("t"))
    keys = [ident(m) for m in all_rows]
    print(f"client exit {client.returncode}; campaign finished: "
          f"{all(c.finished is not None for c in campaigns)}; {len(all_rows)} rows, "
          f"{len(rows)} ok, {len(keys) - len(set(keys))} duplicates")
    if serial_store.exists():
        serial = {ident(m) for m in _rows(serial_store, status=None)[0]}
        lost = serial - set(keys)
        print(f"rows lost against the serial run of the same set: {len(lost)} "
              f"(serial {len(serial)}, here {len(set(keys))})")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    {"summary": summary, "dashboard": dashboard, "kill": kill}[sys.argv[1]](Path(sys.argv[2]))
