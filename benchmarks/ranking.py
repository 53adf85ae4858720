"""Benchmark: the cost of ranking a whole tuning space with a model.

For every space given (catalog names at their shipped problem size, or a user's
``FILE.py:VAR``, e.g. a ``kernel(point)`` factory space) and every model given, ranks
all valid points from scratch and prints the seconds and milliseconds per variant,
property extraction included.  loopy's disk caches are pointed at a fresh folder
first and every space is loaded anew, so nothing extracted by an earlier run is
reused.  Goals (issue "your own kernel and your own space"): at most 1 ms per variant
on the catalog templates, at most 5 ms on a user's factory space, on 2 cores.

``knn`` and ``xgb`` are the IR-feature strategies' rankings (trained on every other
program of the shipped sample files, as ``workbench tuning-report`` trains them).
Each line also gives the processor seconds (this process and the counting workers
it waited for) and the machine's load, since wall seconds on a shared machine say
little alone.  ``--first N`` ranks only a space's first N points (the roofline
takes minutes on a whole Lift rewrite space).

Run: ``.venv/bin/python benchmarks/ranking.py [--models linear,overlap,default,roofline,
knn,xgb] [--spaces stencil2d,matmul,transpose,examples/kernels/my_space.py:space]
[--param n=2048] [--first N] [--cache DIR]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings

import numpy as np

MODELS = {
    "linear": "sample_data/h100/weights-linear.json",
    "overlap": "sample_data/h100/weights-overlap.json",
    "default": "sample_data/h100/weights-overlap-fp64.json",
}


def _model(name: str):
    from workbench.models import get_family, load_model

    if name == "roofline":
        return get_family("roofline").ready(device_model="h100")
    return load_model(MODELS[name])


def _ranking(model_name: str, space, points):
    """(seconds the ranking reports, points ranked, points left unranked)."""
    from workbench.tuning.ranking import rank_space

    if model_name in ("knn", "xgb"):
        from workbench.tuning.ir_strategies import IRBoostedRanker, IRFeatureKNN
        from workbench.tuning.ir_training import shipped_sample_files

        cls = IRFeatureKNN if model_name == "knn" else IRBoostedRanker
        seconds = cls(training=shipped_sample_files()).start(space, points)
        return seconds, len(points), 0
    ranking = rank_space(_model(model_name), space, points)
    return (ranking.seconds, len(ranking.candidates),
            int(np.sum(~np.isfinite(ranking.predicted_s))))


def main() -> None:
    import tempfile
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", metavar="DIR",
                        help="keep loopy's and the workbench's caches here (a second "
                             "run with the same DIR is a second session; default: a "
                             "fresh folder, nothing reused)")
    parser.add_argument("--models", default="linear,overlap")
    parser.add_argument("--spaces", default="stencil2d,matmul,transpose")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="problem size of every space, e.g. n=2048")
    parser.add_argument("--first", type=int, help="rank only the first N points")
    args = parser.parse_args()
    os.environ["XDG_CACHE_HOME"] = args.cache or tempfile.mkdtemp(prefix="ranking-bench-")
    warnings.filterwarnings("ignore")
    from workbench.models.candidate_features import rank_jobs
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.costs import timed

    params = {k: int(v) for k, v in (p.split("=") for p in args.param)}
    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", {rank_jobs()} ranking processes, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'space':<24} {'model':<9} {'points':>6} {'rank s':>7} {'cpu s':>7} "
          f"{'ms/variant':>10} {'unranked':>8}")
    for space_name in args.spaces.split(","):
        for model_name in args.models.split(","):
            space = resolve_space(space_name, **params)   # fresh: counts are cached per space
            points = space.points()[:args.first] if args.first else space.points()
            (seconds, n, missing), spent = timed(
                lambda: _ranking(model_name, space, points))
            print(f"{space_name.rpartition('/')[2]:<24} {model_name:<9} {n:>6} "
                  f"{spent.wall_s:>7.2f} {spent.cpu_s:>7.2f} "
                  f"{1e3 * spent.wall_s / n:>10.2f} {missing:>8}", flush=True)


if __name__ == "__main__":
    main()
