"""Record, on a host of many cores, what ``model-hedge-handover``'s two rankings cost
there (issue #33, ``structure-ranking.md`` section 46).

For each space given, as a live ``workbench tune --strategy model-hedge-handover`` would
on this host: a fresh disk cache of counts, the space loaded anew, the counting
processes forked and warmed first (``benchmarks/ranking.py``'s warm pool, as ``tune``
forks them before it opens the device), then, timed from one start, the cheap model's
streamed ranking (``linear-nn`` with the residency penalty,
:func:`~workbench.tuning.stream.rank_streamed`: each structure's arrival) and right
after it, in the same thread, the better model's whole ranking (the shipped default,
``chains38``, with the residency penalty: :func:`~workbench.tuning.handover.better_model`).
Prints per space the wall and processor seconds (this process and the counting
workers) of both, and this process's own processor seconds (``main``: its serial part), and writes a JSON record (``--out``) that
``benchmarks/strategy_study.py --host-record`` charges a replay with
(:class:`~workbench.tuning.handover.HostRecord`): the arrivals, both models'
predictions per point, and when the better order was ready.

Run: ``python benchmarks/handover_record.py --spaces FILE.py:space,... --out REC.json
[--jobs 16] [--refuse blind19]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spaces", required=True, help="FILE.py:VAR,...")
    parser.add_argument("--out", required=True, help="the JSON record")
    parser.add_argument("--jobs", type=int, default=None, help="counting processes")
    parser.add_argument("--refuse", default="blind19",
                        help="refuse a space file of this set (REFUSE_*: a blind set not "
                             "reported yet)")
    args = parser.parse_args()
    refs = args.spaces.split(",")
    for ref in refs:
        if Path(ref.split(":")[0]).name.startswith(f"{args.refuse}_"):
            parser.error(f"{ref}: the {args.refuse} set is not reported yet")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="handover-record-")
    if args.jobs:
        os.environ["WORKBENCH_RANK_JOBS"] = str(args.jobs)
    warnings.filterwarnings("ignore")
    from strategy_study import _model, warm_up

    from workbench.models.candidate_features import flush_saves, forget_counts, rank_jobs
    from workbench.models.counting_pool import fork_counting_pool
    from workbench.models.point_counts import warm_up as warm_worker
    from workbench.tuning import resolve_space
    from workbench.tuning.costs import cpu_seconds
    from workbench.tuning.handover import better_model
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.stream import rank_streamed

    cheap, better = _model("linear-nn-residency"), better_model()
    warm_up({"cheap": cheap, "better": better})   # one-time imports: no space's cost
    header = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "host": platform.node(), "cores": os.cpu_count(), "jobs": rank_jobs(),
              "python": platform.python_version(), "command": " ".join(sys.argv),
              "load_start": os.getloadavg()}
    print(f"# handover record: {header['date']}, host {header['host']}, {header['cores']} "
          f"cores, {header['jobs']} counting processes, load "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'space':<26} {'pts':>4} {'waves':>5} {'pool s':>6} {'cheap s':>7} "
          f"{'cheap cpu':>9} {'main':>5} {'better s':>8} {'better cpu':>10} {'main':>5} "
          f"{'ready s':>7} {'load':>5}",
          flush=True)
    spaces = {}
    for ref in refs:
        os.environ["WORKBENCH_COUNT_CACHE"] = str(Path(tempfile.mkdtemp()) / "counts.sqlite")
        space = resolve_space(ref)
        forget_counts(space)
        points = space.points()
        pool = fork_counting_pool([space], warm=warm_worker)
        pool_s = pool.wait_ready()
        workers, cpu, main = pool.workers_cpu_s(), cpu_seconds(), time.process_time()
        began = time.perf_counter()
        streamed = rank_streamed(cheap, space, points)
        cheap_s = time.perf_counter() - began
        cheap_cpu = cpu_seconds() - cpu + pool.workers_cpu_s() - workers
        # this process's own share (its fits, evaluation, sending): the serial part
        cheap_main = time.process_time() - main
        workers, cpu, main = pool.workers_cpu_s(), cpu_seconds(), time.process_time()
        second = rank_space(better, space, points)
        ready_s = time.perf_counter() - began
        better_cpu = cpu_seconds() - cpu + pool.workers_cpu_s() - workers
        better_main = time.process_time() - main
        pool.close()
        flush_saves()
        load = os.getloadavg()[0]
        name = Path(ref.split(":")[0]).stem
        waves = len({a.done_s for a in streamed.arrivals})
        print(f"{name:<26} {len(points):>4} {waves:>5} {pool_s:>6.2f} {cheap_s:>7.2f} "
              f"{cheap_cpu:>9.2f} {cheap_main:>5.2f} {ready_s - cheap_s:>8.2f} {better_cpu:>10.2f} "
              f"{better_main:>5.2f} "
              f"{ready_s:>7.2f} {load:>5.1f}", flush=True)
        spaces[space.name] = {
            "file": ref, "points": len(points), "pool_s": pool_s,
            "cheap_s": cheap_s, "cheap_cpu_s": cheap_cpu, "cheap_main_cpu_s": cheap_main,
            "better_s": ready_s - cheap_s, "better_cpu_s": better_cpu,
            "better_main_cpu_s": better_main, "ready_s": ready_s,
            "load": load,
            "arrivals": [{"labels": list(a.labels), "done_s": a.done_s}
                         for a in streamed.arrivals],
            "cheap": {c.point.label: float(t) for c, t in
                      zip(streamed.whole.candidates, streamed.whole.predicted_s)},
            "better": {c.point.label: float(t) for c, t in
                       zip(second.candidates, second.predicted_s)},
            "better_counting": [f"{r.label}: {r.method.value}" for r in second.counting]}
        # written after every space: a run cut short keeps what it measured
        Path(args.out).write_text(json.dumps({**header, "load_end": os.getloadavg(),
                                              "spaces": spaces}))
    print(f"load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
