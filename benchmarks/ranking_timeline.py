"""Benchmark: where a ranking's wall time goes with a pool of counting processes.

For every space given (default: the ``examples/spaces`` and ``my_space``), forks and
warms the counting processes (as ``benchmarks/ranking.py --pool warm``), ranks every
point with the linear model and prints: the ranking's wall and this process's
processor milliseconds before the counting starts, during it and after it (the fits
of the last structure, every point evaluated from the fits, the floors); the points
sent to the pool and their round trips (from sending to the result's arrival, queueing
included: a point waits where more are sent than there are processes) as median and
maximum; and the per-variant figure.  Caches fresh, as ``ranking.py``.

A second line per space says what the workers saw (each point's start and end in its
worker, on the host's monotonic clock, which every process of it shares): the
seconds a point waited in the queue (sent to started) and took in its worker
(median), split into the points that were their worker's **first of the space**
(``cold``: the user's ``make_kernel`` and loopy's per-kernel work not done in that
process yet) and the rest (``warm``), the user's factory in each (``build``), the
``make_kernel`` calls made (memo misses) in the workers, and the workers' busy share
of the counting wall (``busy``: their summed seconds over ``jobs`` times it); the
counting's **rounds** (how often no point was running while the main process fitted:
the critical path's steps) and the longest time no point ran.  ``--points FILE``
writes every point's row (space, label, worker, sent, started, ended, arrived,
worker processor ms, build ms, cold, make_kernel miss).

Run: ``python benchmarks/ranking_timeline.py [--jobs N] [--spaces FILE.py:space,...]
[--points FILE]``.
"""

from __future__ import annotations

import argparse
import glob
import os
import platform
import tempfile
import time
import warnings
from pathlib import Path

#: a worker's records, one line a point, appended to ``<folder>/<pid>.txt``
_FOLDER = tempfile.mkdtemp(prefix="ranking-timeline-points-")
#: in a worker: the spaces it has counted a point of (its first point of one is cold)
_SEEN: set = set()


def _timed_count(c, refs, granularity, subgroup_size):
    """``point_counts.count_candidate`` with its worker's clock: one line per point."""
    from workbench.models import factory_memo
    from workbench.models.point_counts import count_candidate

    memo = factory_memo._SPACE_MEMOS.get(c.space)
    before = len(memo) if memo is not None else 0
    began, cpu = time.perf_counter(), time.process_time()
    _BUILD[0] = 0.0
    try:
        return count_candidate(c, refs, granularity, subgroup_size)
    finally:
        end, spent = time.perf_counter(), time.process_time() - cpu
        memo = factory_memo._SPACE_MEMOS.get(c.space)
        missed = (len(memo) if memo is not None else 0) > before
        cold = c.space.name not in _SEEN
        _SEEN.add(c.space.name)
        with open(os.path.join(_FOLDER, f"{os.getpid()}.txt"), "a") as out:
            out.write(f"{c.point.label}\t{os.getpid()}\t{began:.6f}\t{end:.6f}\t"
                      f"{1e3 * spent:.2f}\t{1e3 * _BUILD[0]:.2f}\t{int(cold)}\t"
                      f"{int(missed)}\n")


#: the user's factory's seconds in the current point (set by the wrapped factory)
_BUILD = [0.0]


def _read_points() -> dict:
    rows = {}
    for name in os.listdir(_FOLDER):
        path = os.path.join(_FOLDER, name)
        with open(path) as f:
            for line in f:
                label, pid, began, end, cpu, build, cold, missed = line.split("\t")
                rows[label] = (int(pid), float(began), float(end), float(cpu),
                               float(build), cold == "1", missed.strip() == "1")
        os.remove(path)
    return rows


def _rounds(intervals, start: float, stop: float) -> tuple[int, float]:
    """(times no point ran between ``start`` and ``stop``, the longest such gap)."""
    gaps, longest, covered = 0, 0.0, start
    for began, end in sorted(intervals):
        if began > covered:
            gaps += 1
            longest = max(longest, began - covered)
        covered = max(covered, end)
    if stop > covered:
        longest = max(longest, stop - covered)
    return gaps, longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--spaces", default=None)
    parser.add_argument("--points", metavar="FILE", default=None)
    parser.add_argument("--prefill", choices=("none", "build", "count"), default="none",
                        help="before the pool forks, build (the user's make_kernel "
                             "memo filled) or build and count the space's first point in "
                             "this process, untimed: what the workers then inherit")
    args = parser.parse_args()
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ranking-timeline-")
    if args.jobs:
        os.environ["WORKBENCH_RANK_JOBS"] = str(args.jobs)
    spaces = args.spaces.split(",") if args.spaces else [
        f"{f}:space" for f in [*sorted(glob.glob("examples/spaces/*.py")),
                               "examples/kernels/my_space.py"]]
    warnings.filterwarnings("ignore")
    import numpy as np

    import workbench.models.candidate_features as cf
    import workbench.models.counting_pool as counting_pool
    from workbench.models import load_model
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.ranking import rank_space

    model = load_model("sample_data/h100/weights-linear.json")
    sent: dict = {}
    trips: list = []
    arrived: dict = {}
    marks: dict = {}
    submit = counting_pool.CountingPool.submit

    def timed_submit(self, key, space, point, count, args, results):
        began = time.perf_counter()

        class Arrival:      # the result's queue, told when each result arrives
            def put(self, item):
                now = time.perf_counter()
                trips.append(now - began)
                arrived[point.label] = now
                results.put(item)
        sent[point.label] = began
        return submit(self, key, space, point, count, args, Arrival())

    streaming = cf.count_streaming

    def timed_streaming(*a, **k):
        marks["in"] = (time.perf_counter(), time.process_time())
        try:
            return streaming(*a, **k)
        finally:
            marks["out"] = (time.perf_counter(), time.process_time())

    counting_pool.CountingPool.submit = timed_submit
    cf.count_streaming = timed_streaming
    cf.count_candidate = _timed_count      # what the pool's tasks call (pickled by name)
    points_out = open(args.points, "w") if args.points else None
    if points_out is not None:
        points_out.write("space\tlabel\tworker\tsent_ms\tstarted_ms\tended_ms\tarrived_ms\t"
                         "worker_cpu_ms\tbuild_ms\tcold\tmake_kernel_miss\n")
    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", {cf.rank_jobs()} ranking processes (warm pool), load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'space':<22} {'points':>6} {'wall ms':>7} {'before':>11} {'counting':>11} "
          f"{'after':>11} {'sent':>4} {'trip med':>8} {'trip max':>8} {'ms/variant':>10}")
    print(f"{'':<22} {'':>6} {'':>7} {'wall/cpu ms':>11} {'wall/cpu ms':>11} "
          f"{'wall/cpu ms':>11}")
    for ref in spaces:
        os.environ["WORKBENCH_COUNT_CACHE"] = str(Path(tempfile.mkdtemp()) / "counts.sqlite")
        space = resolve_space(ref)
        cf.forget_counts(space)
        factory = space.kernel

        def timed_build(point, factory=factory):
            began = time.perf_counter()
            try:
                return factory(point)
            finally:
                _BUILD[0] += time.perf_counter() - began
        object.__setattr__(space, "kernel", timed_build)    # inherited by the workers
        prefill_s = 0.0
        if args.prefill != "none":
            from workbench.kernels.candidate import Candidate
            from workbench.models.factory_memo import memoized_make_kernel
            from workbench.models.point_counts import count_program
            from workbench.properties import Granularity

            began = time.perf_counter()
            first = Candidate.of_point(space, space.points()[0])
            with memoized_make_kernel(space):
                program = space.build(first.point)
            if args.prefill == "count":
                count_program(program, first.params_dict, [], Granularity.WORKITEM, None)
            prefill_s = time.perf_counter() - began
        pool = counting_pool.fork_counting_pool([space], warm=cf.warm_up)
        if pool is not None:
            pool.wait_ready()
        _read_points()       # the warm-ups count nothing through the wrapper; emptied
        sent.clear(), trips.clear(), marks.clear(), arrived.clear()
        wall, cpu = time.perf_counter(), time.process_time()
        rank_space(model, space)
        end = (time.perf_counter(), time.process_time())
        if pool is not None:
            pool.close()
        name = ref.rpartition("/")[2].replace(".py:space", "")
        n = len(space.points())
        into, out = marks.get("in", end), marks.get("out", end)
        phases = [(into[0] - wall, into[1] - cpu), (out[0] - into[0], out[1] - into[1]),
                  (end[0] - out[0], end[1] - out[1])]
        cells = " ".join(f"{1e3 * w:>5.0f}/{1e3 * c:<5.0f}" for w, c in phases)
        med = 1e3 * float(np.median(trips)) if trips else 0.0
        top = 1e3 * max(trips, default=0.0)
        print(f"{name:<22} {n:>6} {1e3 * (end[0] - wall):>7.0f} {cells} {len(sent):>4} "
              f"{med:>8.0f} {top:>8.0f} {1e3 * (end[0] - wall) / n:>10.2f}", flush=True)
        rows = _read_points()
        if not rows:
            continue
        jobs = pool.jobs if pool is not None else 1
        labels = [lab for lab in rows if lab in sent]
        waits = [rows[lab][1] - sent[lab] for lab in labels]
        took = {lab: rows[lab][2] - rows[lab][1] for lab in rows}
        cold = [took[lab] for lab in rows if rows[lab][5]]
        warm = [took[lab] for lab in rows if not rows[lab][5]]
        build_cold = [rows[lab][4] for lab in rows if rows[lab][5]]
        build_warm = [rows[lab][4] for lab in rows if not rows[lab][5]]
        span = out[0] - into[0]
        busy = sum(took.values()) / (jobs * span) if span > 0 else 0.0
        gaps, longest = _rounds([(rows[lab][1], rows[lab][2]) for lab in rows],
                                into[0], out[0])

        def ms(values) -> str:
            return f"{1e3 * float(np.median(values)):.0f}" if values else "-"

        def ms_plain(values) -> str:
            return f"{float(np.median(values)):.0f}" if values else "-"
        print(f"    workers: queue wait med {ms(waits)} max "
              f"{1e3 * max(waits, default=0.0):.0f} ms; in worker med cold {ms(cold)} "
              f"({len(cold)}) / warm {ms(warm)} ({len(warm)}) ms, build cold "
              f"{ms_plain(build_cold)} / warm {ms_plain(build_warm)} ms; make_kernel "
              f"misses {sum(r[6] for r in rows.values())}; worker sum "
              f"{1e3 * sum(took.values()):.0f} ms, cpu {sum(r[3] for r in rows.values()):.0f}"
              f" ms; busy {busy:.2f} of {jobs}; rounds {gaps}, longest idle "
              f"{1e3 * longest:.0f} ms; prefill {args.prefill} {1e3 * prefill_s:.0f} ms",
              flush=True)
        if points_out is not None:
            base = into[0]
            for lab in sorted(rows, key=lambda k: rows[k][1]):
                pid, began, ended, spent, build, was_cold, missed = rows[lab]
                points_out.write(
                    f"{name}\t{lab}\t{pid}\t{1e3 * (sent.get(lab, base) - base):.1f}\t"
                    f"{1e3 * (began - base):.1f}\t{1e3 * (ended - base):.1f}\t"
                    f"{1e3 * (arrived.get(lab, ended) - base):.1f}\t{spent:.1f}\t{build:.1f}\t"
                    f"{int(was_cold)}\t{int(missed)}\n")
            points_out.flush()


if __name__ == "__main__":
    main()
