"""Benchmark: a second session ranking a factory space, with the disk cache of counts
and device features (issue #33 item 2).

For every space and model given, ranks every point twice, each in a fresh Python
process (a session): "cold" with an empty cache file, "warm" with the file the cold
run left.  loopy's own disk caches live in a fresh folder per space and model, kept
between the two runs (as a user's are).  Each line: wall seconds of the ranking, this
process's processor seconds (one counting process, ``WORKBENCH_RANK_JOBS=1``, so all
the work is in it), milliseconds per variant, how many times the space's factory ran
(``TuningSpace.build`` calls: 0 is the goal of the warm run) and the load average.

The workbench imported is the one on ``PYTHONPATH`` (run it with another checkout's
path to compare).  Run: ``.venv/bin/python benchmarks/device_feature_cache.py
[--models default,linear-nn] [--spaces examples/kernels/my_space.py:space,...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings

MODELS = {
    "default": None,                     # the shipped default model (default-model.json)
    "linear-nn": "sample_data/h100/weights-linear-non-negative.json",
}
SPACES = ("examples/kernels/my_space.py:space,examples/spaces/triad.py:space,"
          "examples/spaces/rowsum.py:space,examples/spaces/transpose.py:space,"
          "examples/spaces/stencil2d_5pt.py:space")


def _session(model: str, ref: str) -> dict:
    """One ranking in this process: what the parent prints."""
    import runpy
    import time

    from workbench.models.candidate_features import flush_saves
    from workbench.tuning.ranking import rank_space

    warnings.simplefilter("ignore")
    path, _, name = ref.partition(":")
    namespace = runpy.run_path(path)
    space = namespace[name or "space"]
    if not hasattr(space, "points"):
        space = space()
    if MODELS[model] is None:
        from workbench.models.defaults import default_model
        fitted = default_model().model
    else:
        from workbench.models import load_model
        fitted = load_model(MODELS[model])
    # every point's kernel is built through TuningSpace.build (counting, analyses)
    from workbench.kernels.space import TuningSpace
    built = [0]
    build = TuningSpace.build

    def counting_build(self, point):
        built[0] += 1
        return build(self, point)
    TuningSpace.build = counting_build
    wall, cpu = time.perf_counter(), time.process_time()
    ranking = rank_space(fitted, space)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    flush_saves()
    n = len(ranking.candidates)
    return {"points": n, "wall_s": wall, "cpu_s": cpu, "ms_per_variant": 1e3 * wall / n,
            "builds": built[0], "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="default,linear-nn")
    parser.add_argument("--spaces", default=SPACES)
    parser.add_argument("--session", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.session:
        print(json.dumps(_session(*args.session)))
        return
    print(f"{'space':<40} {'model':<10} {'run':<5} {'points':>6} {'wall s':>7} "
          f"{'cpu s':>6} {'ms/var':>7} {'builds':>6} {'load':>5}")
    for ref in args.spaces.split(","):
        for model in args.models.split(","):
            with tempfile.TemporaryDirectory(prefix="wb-devcache-") as tmp:
                env = dict(os.environ, WORKBENCH_COUNT_CACHE=os.path.join(tmp, "c.sqlite"),
                           XDG_CACHE_HOME=tmp, WORKBENCH_RANK_JOBS="1")
                for run in ("cold", "warm"):
                    out = subprocess.run([sys.executable, __file__, "--session", model, ref],
                                         env=env, capture_output=True, text=True)
                    if out.returncode != 0:
                        print(f"{ref:<40} {model:<10} {run:<5} failed: "
                              f"{out.stderr.strip().splitlines()[-1:]}")
                        break
                    r = json.loads(out.stdout.strip().splitlines()[-1])
                    print(f"{ref.split('/')[-1]:<40} {model:<10} {run:<5} {r['points']:>6} "
                          f"{r['wall_s']:>7.2f} {r['cpu_s']:>6.2f} "
                          f"{r['ms_per_variant']:>7.1f} {r['builds']:>6} "
                          f"{r['load']:>5.2f}", flush=True)


if __name__ == "__main__":
    main()
