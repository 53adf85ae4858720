"""Benchmark: the cost of ranking a whole tuning space with a model.

For every space given (catalog names at their shipped problem size, or a user's
``FILE.py:VAR``, e.g. a ``kernel(point)`` factory space) and every model given, ranks
all valid points from scratch and prints the seconds and milliseconds per variant,
property extraction included.  loopy's disk caches are pointed at a fresh folder
first and every space is loaded anew, so nothing extracted by an earlier run is
reused.  Goals (issue "your own kernel and your own space"): at most 1 ms per variant
on the catalog templates, at most 5 ms on a user's factory space, on 2 cores.

A factory space is counted once per structure (``workbench.models.structure_counts``);
the last columns say how many structures were fitted symbolically, how many took an
earlier structure's counts (``shared``: :mod:`workbench.models.structure_share`), how
many were counted point by point, and how many points were built and counted in all.  ``--spaces
examples`` stands for every ``examples/spaces/*.py`` but the blind ones (``blind_*``,
``blind2_*``, ``blind3_*``, ``blind4_*``, ``blind5_*``, ``blind6_*``, ``blind7_*``,
``blind8_*``, ``blind9_*``, ``blind10_*``, ``blind11_*``, ``blind12_*``, ``blind13_*``,
``blind14_*``, ``blind15_*``, ``blind16_*``, ``blind17_*``, ``blind18_*``, ``blind19_*``: kept out of all design, ``examples/spaces/README.md``) and ``examples/kernels/my_space.py``; ``blind``,
``blind2`` to ``blind19`` stand for their set's files, which a ranking of
its own must name (after the method is fixed);
``--jobs N`` sets the counting processes (``WORKBENCH_RANK_JOBS``; 1 for the one-process
figure of the goal).  "again" is a second ranking of the same space in a fresh
space object, with only the disk cache of counts kept (a second session).

With more than one process, the counting processes are forked and warmed up (each
builds and counts a small kernel) once the space is loaded, before the ranking is
timed, as ``workbench tune`` forks them before it opens the device (``--pool
warm``): "pool s" is that start, outside "rank s"; "+pool ms/variant" counts it in.
``--pool cold`` forks them inside the ranking (no warm-up): the cost of a ranking
with nothing started ahead.  "cpu s" is this process's processor time and its
counting workers' during the ranking (a warm pool's warm-up not included).

``knn`` and ``xgb`` are the IR-feature strategies' rankings (trained on every other
program of the shipped sample files, as ``workbench tuning-report`` trains them).
Each line also gives the processor seconds (this process and the counting workers
it waited for) and the machine's load, since wall seconds on a shared machine say
little alone.  ``--first N`` ranks only a space's first N points (the roofline
takes minutes on a whole Lift rewrite space).

Run: ``.venv/bin/python benchmarks/ranking.py [--models linear,linear-nn,overlap,default,roofline,
knn,xgb] [--spaces stencil2d,matmul,transpose,examples,blind2,examples/kernels/my_space.py:space]
[--jobs 1] [--param n=2048] [--first N] [--cache DIR]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import time
import warnings

import numpy as np

MODELS = {
    "linear": "sample_data/h100/weights-linear.json",
    # the replays' model (#33, strategy_study.py's linear-nn): its barrier weight is zero
    "linear-nn": "sample_data/h100/weights-linear-non-negative.json",
    "overlap": "sample_data/h100/weights-overlap.json",
    "default": "sample_data/h100/weights-overlap-fp64.json",
    # the shipped default model since #34 (default-model.json): sectors and op chains
    "chains38": "sample_data/h100/weights-linear-fp64-sectors-chains38.json",
    # linear-nn with the residency penalty, reordered by trees learned on the 95 measured
    # spaces (workbench.models.space_order, structure-ranking.md section 77)
    "space-order": "sample_data/h100/space-order.json.xz",
    # the same, fitted to rank each space's points, top first (section 81)
    "space-order-ranked": "sample_data/h100/space-order-ranked.json.xz",
}


def _model(name: str):
    from workbench.models import get_family, load_model

    if name == "roofline":
        return get_family("roofline").ready(device_model="h100")
    return load_model(MODELS[name])


def _ranking(model_name: str, space, points):
    """(seconds the ranking reports, points ranked, points left unranked, how each
    structure was counted)."""
    from workbench.tuning.ranking import rank_space

    if model_name in ("knn", "xgb"):
        from workbench.tuning.ir_strategies import IRBoostedRanker, IRFeatureKNN
        from workbench.tuning.ir_training import shipped_sample_files

        cls = IRFeatureKNN if model_name == "knn" else IRBoostedRanker
        seconds = cls(training=shipped_sample_files()).start(space, points)
        return seconds, len(points), 0, ()
    ranking = rank_space(_model(model_name), space, points)
    return (ranking.seconds, len(ranking.candidates),
            int(np.sum(~np.isfinite(ranking.predicted_s))), ranking.counting)


def expand_spaces(spaces: str) -> str:
    """``--spaces`` with its groups written out as ``FILE.py:space``: ``examples`` (the
    design and held-out files and ``examples/kernels/my_space.py``, never a blind one),
    ``blind`` (``blind_*``), ``blind2`` (``blind2_*``), ``blind3`` (``blind3_*``),
    ``blind4`` (``blind4_*``), ``blind5`` (``blind5_*``), ``blind6`` (``blind6_*``),
    ``blind7`` (``blind7_*``), ``blind8`` (``blind8_*``), ``blind9`` (``blind9_*``),
    ``blind10`` (``blind10_*``), ``blind11`` (``blind11_*``), ``blind12`` (``blind12_*``),
    ``blind13`` (``blind13_*``), ``blind14`` (``blind14_*``), ``blind15`` (``blind15_*``)
    ``blind16`` (``blind16_*``), ``blind17`` (``blind17_*``), ``blind18`` (``blind18_*``)
    and ``blind19`` (``blind19_*``;
    the underscore keeps them apart from a would-be ``blind1``)."""
    import glob

    files = sorted(glob.glob("examples/spaces/*.py"))
    groups = {
        "examples": [*(f for f in files if not os.path.basename(f).startswith("blind")),
                     "examples/kernels/my_space.py"],
        **{kept_out: [f for f in files if os.path.basename(f).startswith(f"{kept_out}_")]
           for kept_out in ("blind", "blind2", "blind3", "blind4", "blind5", "blind6",
                            "blind7", "blind8", "blind9", "blind10", "blind11",
                            "blind12", "blind13", "blind14", "blind15",
                            "blind16", "blind17", "blind18", "blind19")}}
    return ",".join(",".join(f"{f}:space" for f in groups[s]) if s in groups else s
                    for s in spaces.split(","))


def main() -> None:
    import tempfile
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="linear,overlap")
    parser.add_argument("--spaces", default="stencil2d,matmul,transpose")
    parser.add_argument("--cache", metavar="DIR",
                        help="keep loopy's and the workbench's caches here (a second "
                             "run with the same DIR is a second session; default: a "
                             "fresh folder, nothing reused)")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="problem size of every space, e.g. n=2048")
    parser.add_argument("--first", type=int, help="rank only the first N points")
    parser.add_argument("--pool", choices=("warm", "cold"), default="warm",
                        help="counting processes forked and warmed before the timed "
                             "ranking (warm, default) or inside it (cold)")
    args = parser.parse_args()
    os.environ["XDG_CACHE_HOME"] = args.cache or tempfile.mkdtemp(prefix="ranking-bench-")
    if args.jobs:
        os.environ["WORKBENCH_RANK_JOBS"] = str(args.jobs)
    args.spaces = expand_spaces(args.spaces)
    warnings.filterwarnings("ignore")
    from workbench.models.candidate_features import (
        flush_saves, forget_counts, rank_jobs, warm_up)
    from workbench.models.counting_pool import fork_counting_pool, wait_closed
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.costs import cpu_seconds, timed

    params = {k: int(v) for k, v in (p.split("=") for p in args.param)}
    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", {rank_jobs()} ranking processes "
          f"({args.pool + ' pool' if rank_jobs() > 1 else 'this one, no pool'}), "
          f"load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'space':<24} {'model':<9} {'points':>6} {'pool s':>6} {'rank s':>7} "
          f"{'cpu s':>7} {'ms/variant':>10} {'+pool ms/variant':>16} {'unranked':>8} "
          f"{'symbolic':>8} {'shared':>6} {'per-point':>9} {'counted':>7} {'again ms/variant':>16} "
          f"{'load':>5}")
    for space_name in args.spaces.split(","):
        for model_name in args.models.split(","):
            # a fresh disk cache of counts per space and model: nothing carried over
            os.environ["WORKBENCH_COUNT_CACHE"] = tempfile.mktemp(suffix=".sqlite")
            space = resolve_space(space_name, **params)   # fresh: counts are cached per space
            forget_counts(space)
            points = space.points()[:args.first] if args.first else space.points()
            pool = fork_counting_pool([space], warm=warm_up) if args.pool == "warm" \
                else None
            pool_s = pool.wait_ready() if pool is not None else 0.0
            workers = pool.workers_cpu_s() if pool is not None else 0.0
            cpu = cpu_seconds()
            (_, n, missing, counting), spent = timed(
                lambda: _ranking(model_name, space, points))
            if pool is not None:
                spent = dataclasses.replace(
                    spent, cpu_s=spent.cpu_s + pool.workers_cpu_s() - workers)
                pool.close()
            else:      # its workers reaped (closed in a thread), their time counted
                wait_closed()
                spent = dataclasses.replace(spent, cpu_s=cpu_seconds() - cpu)
            flush_saves()          # a second session finds every count on disk
            again = resolve_space(space_name, **params)   # a second session: disk cache only
            forget_counts(again)
            again_points = again.points()[:args.first] if args.first else again.points()
            _, second = timed(lambda: _ranking(model_name, again, again_points))
            symbolic = sum(r.method.value == "symbolic" for r in counting)
            per_point = sum(r.method.value == "per point" for r in counting)
            shared = sum(r.method.value == "shared" for r in counting)
            counted = sum(r.counted for r in counting)
            name = space_name.rpartition("/")[2].replace(".py:space", "")
            print(f"{name:<24} {model_name:<9} {n:>6} {pool_s:>6.2f} {spent.wall_s:>7.2f} "
                  f"{spent.cpu_s:>7.2f} {1e3 * spent.wall_s / n:>10.2f} "
                  f"{1e3 * (spent.wall_s + pool_s) / n:>16.2f} {missing:>8} "
                  f"{symbolic:>8} {shared:>6} {per_point:>9} {counted if counting else '-':>7} "
                  f"{1e3 * second.wall_s / n:>16.2f} {os.getloadavg()[0]:>5.1f}",
                  flush=True)
            for r in counting:
                if r.method.value not in ("symbolic", "shared"):
                    print(f"    {r.label}: {r.method.value}, {r.reason}")


if __name__ == "__main__":
    main()
