"""Benchmark: where a factory space's ranking cost comes from, structure by structure.

For every space given (``benchmarks/ranking.py``'s groups: ``examples``, ``blind``,
``blind2`` to ``blind5``, or ``FILE.py:space``), ranks all points once with
one model in this process (no counting processes, no disk cache) and prints, per
structure (:mod:`workbench.models.structure_counts`): its points, the probes built and
counted for it (its own and, for a ``shared`` one, those that showed its counts equal
to an earlier structure's), the processor milliseconds those probes took, their mean,
the mean of the user's factory in them (``build``: the ``kernel(point)`` call, with its
``make_kernel`` memoized as in a ranking), and how it was counted.  The space's line
says the ranking's processor ms per variant, the factory's share of it, its probes
per variant and the ms a probe costs: a space whose structures hold few points pays
a whole set of probes for few variants.

``--profile FILE`` writes a cProfile listing of all the rankings (a processor-time
clock; the 80 costliest functions by cumulative time, then the 40 by their own time) to FILE.

Run: ``python benchmarks/structure_probes.py [--spaces examples,blind4] [--model linear-nn]
[--profile FILE]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
import warnings
from collections import defaultdict


def _rank_timed(model, space):
    """Rank ``space`` once; (processor s, the counting report, per structure's label
    the processor ms of each probe counted for it, and of the user's factory in each)."""
    import workbench.models.candidate_features as features

    probes: list[tuple[object, float]] = []
    builds: dict[object, float] = {}
    count = features.count_candidate
    factory = space.kernel

    def timed(c, *args):
        began = time.process_time()
        try:
            return count(c, *args)
        finally:
            probes.append((c.point, 1e3 * (time.process_time() - began)))

    def timed_build(point):
        began = time.process_time()
        try:
            return factory(point)
        finally:
            builds[point] = 1e3 * (time.process_time() - began)

    from workbench.tuning.ranking import rank_space

    features.count_candidate = timed      # one process: every probe passes here
    object.__setattr__(space, "kernel", timed_build)   # the user's factory, in the probe
    try:
        began = time.process_time()
        rank_space(model, space)
        seconds = time.process_time() - began
    finally:
        features.count_candidate = count
        object.__setattr__(space, "kernel", factory)
    report = features.counting_report(space)
    # a probe is its structure's, or a split structure's part's whose knobs it has
    spent: dict[str, list[float]] = defaultdict(list)
    built: dict[str, list[float]] = defaultdict(list)
    for point, ms in probes:
        owner = next((r for r in report if r.covers(point)), None)
        label = owner.label if owner is not None else point.label
        spent[label].append(ms)
        built[label].append(builds.get(point, 0.0))
    return seconds, report, spent, built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spaces", default="examples,blind,blind2,blind3,blind4,blind5")
    parser.add_argument("--model", default="linear-nn")
    parser.add_argument("--profile", metavar="FILE")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="structure-probes-")
    os.environ["WORKBENCH_COUNT_CACHE"] = "off"
    os.environ["WORKBENCH_RANK_JOBS"] = "1"
    from ranking import MODELS, expand_spaces

    from workbench.models import load_model
    from workbench.models.candidate_features import forget_counts
    from workbench.tuning.catalog import resolve_space

    model = load_model(MODELS[args.model])
    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", one process, model {args.model}, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'space / structure':<40} {'points':>6} {'probes':>6} {'probe ms':>9} "
          f"{'ms/probe':>8} {'build ms':>8} {'ms/variant':>10} {'build ms/variant':>16} "
          f"{'probes/variant':>14}  method")
    profiler = None
    if args.profile:
        import cProfile
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
    for ref in expand_spaces(args.spaces).split(","):
        space = resolve_space(ref)
        forget_counts(space)
        seconds, report, spent, built = _rank_timed(model, space)
        n = len(space.points())
        probes = sum(len(v) for v in spent.values())
        probe_ms = sum(sum(v) for v in spent.values())
        build_ms = sum(sum(v) for v in built.values())
        name = ref.rpartition("/")[2].replace(".py:space", "")
        print(f"{name:<40} {n:>6} {probes:>6} {probe_ms:>9.0f} "
              f"{probe_ms / max(probes, 1):>8.1f} {build_ms / max(probes, 1):>8.1f} "
              f"{1e3 * seconds / n:>10.2f} {build_ms / n:>16.2f} "
              f"{probes / n:>14.3f}  load {os.getloadavg()[0]:.1f}", flush=True)
        for r in report:
            times, builds = spent.get(r.label, []), built.get(r.label, [])
            print(f"    {r.label:<36} {r.points:>6} {len(times):>6} {sum(times):>9.0f} "
                  f"{sum(times) / max(len(times), 1):>8.1f} "
                  f"{sum(builds) / max(len(builds), 1):>8.1f} {'':>10} {'':>16} {'':>14}  "
                  f"{r.method.value}{': ' + r.reason[:90] if r.reason else ''}")
    print(f"load average at the end {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if profiler is not None:
        import pstats
        profiler.disable()
        with open(args.profile, "w") as out:
            stats = pstats.Stats(profiler, stream=out)
            stats.sort_stats("cumulative").print_stats(80)
            stats.sort_stats("tottime").print_stats(40)


if __name__ == "__main__":
    main()
