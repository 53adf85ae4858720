"""Benchmark: the cost of ranking a whole tuning space with a model.

For every space given (catalog names at their shipped problem size, or a user's
``FILE.py:VAR``, e.g. a ``kernel(point)`` factory space) and every model given, ranks
all valid points from scratch and prints the seconds and milliseconds per variant,
property extraction included.  loopy's disk caches are pointed at a fresh folder
first and every space is loaded anew, so nothing extracted by an earlier run is
reused.  Goals (issue "your own kernel and your own space"): at most 1 ms per variant
on the catalog templates, at most 5 ms on a user's factory space, on 2 cores.

A factory space is counted once per structure (``workbench.models.structure_counts``);
the last columns say how many structures were fitted symbolically, how many counted
point by point, and how many points were built and counted in all.  ``--spaces
examples`` stands for every ``examples/spaces/*.py`` and ``examples/kernels/my_space.py``;
``--jobs N`` sets the counting processes (``WORKBENCH_RANK_JOBS``; 1 for the one-process
figure of the goal).  "again" is a second ranking of the same space in a fresh
space object, with only the disk cache of counts kept (a second session).

Run: ``.venv/bin/python benchmarks/ranking.py [--models linear,overlap,default,roofline]
[--spaces stencil2d,matmul,transpose,examples/kernels/my_space.py:space] [--jobs 1]``.
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


def main() -> None:
    import tempfile
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ranking-bench-")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="linear,overlap")
    parser.add_argument("--spaces", default="stencil2d,matmul,transpose")
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    if args.jobs:
        os.environ["WORKBENCH_RANK_JOBS"] = str(args.jobs)
    if "examples" in args.spaces.split(","):
        import glob
        examples = ",".join(f"{f}:space" for f in [
            *sorted(glob.glob("examples/spaces/*.py")), "examples/kernels/my_space.py"])
        args.spaces = ",".join(examples if s == "examples" else s
                               for s in args.spaces.split(","))
    warnings.filterwarnings("ignore")
    from workbench.models.candidate_features import rank_jobs
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.ranking import rank_space

    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", {rank_jobs()} counting processes for factory spaces")
    print(f"{'space':<22} {'model':<9} {'points':>6} {'rank s':>7} {'ms/variant':>10} "
          f"{'unranked':>8} {'symbolic':>8} {'per-point':>9} {'counted':>7} "
          f"{'again ms/variant':>16}")
    for space_name in args.spaces.split(","):
        for model_name in args.models.split(","):
            # a fresh disk cache of counts per space and model: nothing carried over
            os.environ["WORKBENCH_COUNT_CACHE"] = tempfile.mktemp(suffix=".sqlite")
            space = resolve_space(space_name)   # fresh: counts are cached per space
            from workbench.models.candidate_features import forget_counts
            forget_counts(space)
            model = _model(model_name)
            began = time.perf_counter()
            ranking = rank_space(model, space)
            seconds = time.perf_counter() - began
            n = len(ranking.candidates)
            missing = int(np.sum(~np.isfinite(ranking.predicted_s)))
            counting = ranking.counting
            again = resolve_space(space_name)   # a second session: the disk cache only
            forget_counts(again)
            began = time.perf_counter()
            rank_space(model, again)
            second = time.perf_counter() - began
            symbolic = sum(r.method.value == "symbolic" for r in counting)
            per_point = sum(r.method.value == "per point" for r in counting)
            counted = sum(r.counted for r in counting)
            name = space_name.rpartition("/")[2].replace(".py:space", "")
            print(f"{name:<22} {model_name:<9} {n:>6} {seconds:>7.2f} "
                  f"{1e3 * seconds / n:>10.2f} {missing:>8} {symbolic:>8} {per_point:>9} "
                  f"{counted if counting else '-':>7} {1e3 * second / n:>16.2f}", flush=True)
            for r in counting:
                if r.method.value != "symbolic":
                    print(f"    {r.label}: {r.method.value}, {r.reason}")


if __name__ == "__main__":
    main()
