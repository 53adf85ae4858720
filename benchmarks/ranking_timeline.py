"""Benchmark: where a ranking's wall time goes with a pool of counting processes.

For every space given (default: the ``examples/spaces`` and ``my_space``), forks and
warms the counting processes (as ``benchmarks/ranking.py --pool warm``), ranks every
point with the linear model and prints: the ranking's wall and this process's
processor milliseconds before the counting starts, during it and after it (the fits
of the last structure, every point evaluated from the fits, the floors); the points
sent to the pool and their round trips (from sending to the result's arrival, queueing
included: a point waits where more are sent than there are processes) as median and
maximum; and the per-variant figure.  Caches fresh, as ``ranking.py``.

Run: ``python benchmarks/ranking_timeline.py [--jobs N] [--spaces FILE.py:space,...]``.
"""

from __future__ import annotations

import argparse
import glob
import os
import platform
import tempfile
import time
import warnings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--spaces", default=None)
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
    marks: dict = {}
    submit = counting_pool.CountingPool.submit

    def timed_submit(self, key, space, point, count, args, results):
        began = time.perf_counter()

        class Arrival:      # the result's queue, told when each result arrives
            def put(self, item):
                trips.append(time.perf_counter() - began)
                results.put(item)
        sent[key] = point
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
    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", {cf.rank_jobs()} ranking processes (warm pool), load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'space':<22} {'points':>6} {'wall ms':>7} {'before':>11} {'counting':>11} "
          f"{'after':>11} {'sent':>4} {'trip med':>8} {'trip max':>8} {'ms/variant':>10}")
    print(f"{'':<22} {'':>6} {'':>7} {'wall/cpu ms':>11} {'wall/cpu ms':>11} "
          f"{'wall/cpu ms':>11}")
    for ref in spaces:
        os.environ["WORKBENCH_COUNT_CACHE"] = tempfile.mktemp(suffix=".sqlite")
        space = resolve_space(ref)
        cf.forget_counts(space)
        pool = counting_pool.fork_counting_pool([space], warm=cf.warm_up)
        if pool is not None:
            pool.wait_ready()
        sent.clear(), trips.clear(), marks.clear()
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


if __name__ == "__main__":
    main()
