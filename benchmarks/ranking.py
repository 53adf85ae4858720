"""Benchmark: the cost of ranking a whole tuning space with a model.

For every space given (catalog names at their shipped problem size, or a user's
``FILE.py:VAR``, e.g. a ``kernel(point)`` factory space) and every model given, ranks
all valid points from scratch and prints the seconds and milliseconds per variant,
property extraction included.  loopy's disk caches are pointed at a fresh folder
first and every space is loaded anew, so nothing extracted by an earlier run is
reused.  Goals (issue "your own kernel and your own space"): at most 1 ms per variant
on the catalog templates, at most 5 ms on a user's factory space, on 2 cores.

Run: ``.venv/bin/python benchmarks/ranking.py [--models linear,overlap,default,roofline]
[--spaces stencil2d,matmul,transpose,examples/kernels/my_space.py:space]``.
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
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from workbench.models.candidate_features import rank_jobs
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.ranking import rank_space

    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", {rank_jobs()} counting processes for factory spaces")
    print(f"{'space':<10} {'model':<9} {'points':>6} {'rank s':>7} {'ms/variant':>10} "
          f"{'unranked':>8}")
    for space_name in args.spaces.split(","):
        for model_name in args.models.split(","):
            space = resolve_space(space_name)   # fresh: counts are cached per space
            model = _model(model_name)
            began = time.perf_counter()
            ranking = rank_space(model, space)
            seconds = time.perf_counter() - began
            n = len(ranking.candidates)
            missing = int(np.sum(~np.isfinite(ranking.predicted_s)))
            print(f"{space_name.rpartition('/')[2]:<10} {model_name:<9} {n:>6} {seconds:>7.2f} "
                  f"{1e3 * seconds / n:>10.2f} {missing:>8}", flush=True)


if __name__ == "__main__":
    main()
