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
[--profile FILE] [--split]``; ``--split`` also prints, per space, the ms per variant of
a probe's parts (:class:`PartTimer`) and of the ranking outside its probes.
"""

from __future__ import annotations

import argparse
import contextlib
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


#: what ``--split`` times inside a probe: (module, function name, part's label); a
#: part inside another is timed by both (the table subtracts the inner ones)
SPLIT_PARTS = (
    ("workbench.models.factory_memo", "_make_kernel", "make_kernel"),
    ("workbench.properties.extract", "prepare", "preprocess"),
    ("workbench.properties.extract", "op_counts", "op counts"),
    ("workbench.properties.extract", "access_counts", "access counts"),
    ("workbench.properties.extract", "local_barriers", "barriers"),
    ("workbench.properties.extract", "global_footprints", "footprints"),
    ("workbench.models.point_counts", "extract_properties", "properties"),
    ("workbench.models.point_counts", "footprint_or_nan", "footprint bytes"),
    ("workbench.models.point_counts", "build_feature_values", "feature values"),
)


class PartTimer:
    """Processor seconds spent in each of :data:`SPLIT_PARTS` while inside (wrappers
    on the module attributes, put back on exit); ``make_kernel`` is the factory's call through its memo."""

    def __init__(self):
        self.seconds: dict[str, float] = defaultdict(float)
        self._saved: list = []

    def _wrap(self, module, name, label):
        import importlib

        mod = importlib.import_module(module)
        original = getattr(mod, name)
        seconds = self.seconds

        def timed(*args, **kwargs):
            began = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                seconds[label] += time.process_time() - began
        self._saved.append((mod, name, original))
        setattr(mod, name, timed)

    def __enter__(self):
        for module, name, label in SPLIT_PARTS:
            self._wrap(module, name, label)
        return self

    def __exit__(self, *exc):
        for mod, name, original in reversed(self._saved):
            setattr(mod, name, original)
        self._saved.clear()

    def row(self, total_s: float, probe_ms: float, build_ms: float, n: int) -> str:
        """ms per variant: the factory's transformations (the build less its
        ``make_kernel``), ``make_kernel``, preprocessing, the operation and access
        counters, barriers, footprints, the rest of the properties, the rest of a
        probe, and the ranking outside the probes (fits, model features, the rest)."""
        s = {k: 1e3 * v for k, v in self.seconds.items()}
        inner = sum(s.get(k, 0.0) for k in ("preprocess", "op counts", "access counts",
                                             "barriers", "footprints"))
        parts = {
            "transforms": build_ms - s.get("make_kernel", 0.0),
            "make_kernel": s.get("make_kernel", 0.0),
            "preprocess": s.get("preprocess", 0.0),
            "op counts": s.get("op counts", 0.0),
            "access counts": s.get("access counts", 0.0),
            "barriers": s.get("barriers", 0.0),
            "footprints": s.get("footprints", 0.0),
            "properties rest": s.get("properties", 0.0) - inner,
            "probe rest": probe_ms - build_ms - s.get("properties", 0.0),
            "outside probes": 1e3 * total_s - probe_ms,
        }
        return "  ".join(f"{k} {v / n:.2f}" for k, v in parts.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spaces", default="examples,blind,blind2,blind3,blind4,blind5")
    parser.add_argument("--model", default="linear-nn")
    parser.add_argument("--profile", metavar="FILE")
    parser.add_argument("--split", action="store_true",
                        help="also time a probe's parts (ms per variant)")
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
        timer = PartTimer() if args.split else contextlib.nullcontext()
        with timer:
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
        if args.split:
            print(f"    split, ms per variant: {timer.row(seconds, probe_ms, build_ms, n)}")
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
