"""Benchmark: a ranking's wall time alone and beside the host's share of measuring (issue
#33, ``structure-ranking.md`` section 28: does the replay clock charge the overlap as a
live run on this machine pays it?).

The replay clock (:mod:`workbench.tuning.early`) times the ranking alone and lets the
early points run beside it for free.  Live, the device's points are prepared on the same
host (the kernel built and its code generated, :func:`workbench.tuning.live.prepare_point`)
while the ranking counts.  One process per call, caches empty (the caller points
``XDG_CACHE_HOME`` at a fresh folder): ``MODE`` ``alone`` ranks the space;
``beside`` ranks it while a thread prepares the space's points one after another (the
worst case: no device time between them); ``busy`` ranks it while a thread keeps one core
busy *without* the interpreter lock (:func:`workbench.tuning.beside.busy_outside_lock`):
against ``beside``, what the lock costs on top of the cores (section 34).  Run:
``XDG_CACHE_HOME=$(mktemp -d) python benchmarks/ranking_beside_measuring.py SPACE TRIAL MODE``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> None:
    warnings.filterwarnings("ignore")
    from strategy_study import _model, warm_up
    from workbench.tuning import resolve_space
    from workbench.tuning.live import prepare_point
    from workbench.tuning.ranking import rank_space

    ref, trial, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    model = _model("linear-nn-residency")
    warm_up({"model": model})
    space = resolve_space(ref)
    points = space.points()
    stop, prepared = threading.Event(), [0]

    def prepare() -> None:
        while not stop.is_set():
            prepare_point(space, points[(37 * prepared[0] + 11 * trial) % len(points)])
            prepared[0] += 1

    def busy() -> None:
        from workbench.tuning.beside import busy_outside_lock

        while not stop.is_set():
            busy_outside_lock(0.05)

    work = {"beside": prepare, "busy": busy}.get(mode)
    worker = threading.Thread(target=work) if work is not None else None
    if worker is not None:
        worker.start()
    load = os.getloadavg()[0]
    began = time.perf_counter()
    rank_space(model, space, points)
    wall = time.perf_counter() - began
    stop.set()
    if worker is not None:
        worker.join()
    print(f"{space.name:24s} trial {trial} {mode:6s} ranking {wall:5.2f} s, points prepared "
          f"beside {prepared[0]:3d}, load {load:.2f}", flush=True)


if __name__ == "__main__":
    main()
