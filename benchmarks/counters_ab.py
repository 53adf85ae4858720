"""Benchmark: the operation and access counters of two versions of
``workbench/properties/counting.py``, alternating on the same factory points.

For every space given (default: every ``examples/spaces/*.py``, blind sets included, since
a counting check must hold on every space, and ``examples/kernels/my_space.py``), the first two structures' first points and the
middle point are built and prepared afresh for each side (loopy memoizes on a kernel,
so neither side may find the other's work), and ``op_counts`` and ``access_counts``
are timed in processor milliseconds, the two sides in turns (old first on every other
point).  Every count's expression must be the same on both sides (exit 1 otherwise).
The old side is a file of an older checkout (``git archive COMMIT workbench | tar -x -C
OLD``, ``OLD`` any empty folder); the rest of the workbench is this one's.

Run: ``python benchmarks/counters_ab.py --old OLD/workbench/properties/counting.py``.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import platform
import sys
import time
import warnings


def _counted(module, space, point):
    from workbench.properties.features import Granularity

    began = time.process_time()
    pre = module.prepare(space.build(point))
    counting = time.process_time()
    runs: dict = {}
    ops = module.op_counts(pre, Granularity.WORKITEM, None, runs)
    access = module.access_counts(pre, Granularity.WORKITEM, None, runs)
    spent = time.process_time() - counting
    found = {key: value.expression() for key, value in [*ops.items(), *access.items()]}
    return spent, counting - began, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the older counting.py")
    parser.add_argument("--spaces", default=",".join(
        f"{f}:space" for f in [
            *sorted(glob.glob("examples/spaces/*.py")),
            "examples/kernels/my_space.py"]))
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import workbench.properties.counting as new
    from workbench.models.structure_counts import structural_knobs, structure_key
    from workbench.tuning.catalog import resolve_space

    spec = importlib.util.spec_from_file_location("old_counting", args.old)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    total = {"old": 0.0, "new": 0.0}
    built = 0.0
    points = differ = 0
    for ref in args.spaces.split(","):
        space = resolve_space(ref)
        every = space.points()
        knobs = structural_knobs(space)
        firsts: dict = {}
        for p in every:
            firsts.setdefault(structure_key(p, knobs), p)
        sample = list(dict.fromkeys([*list(firsts.values())[:2], every[len(every) // 2]]))
        spent = {"old": 0.0, "new": 0.0}
        for p in sample:
            found = {}
            for side in (("old", "new") if points % 2 == 0 else ("new", "old")):
                seconds, prepared, found[side] = _counted(
                    old if side == "old" else new, space, p)
                spent[side] += seconds
                built += prepared / 2
            differ += found["old"] != found["new"]
            points += 1
        for side in spent:
            total[side] += spent[side]
        name = ref.rpartition("/")[2].replace(".py:space", "")
        print(f"{name:<24} {len(sample)} points: counters old "
              f"{1e3 * spent['old'] / len(sample):6.1f} ms, new "
              f"{1e3 * spent['new'] / len(sample):6.1f} ms a point", flush=True)
    print(f"all {points} points: counters old {1e3 * total['old'] / points:.1f} ms, new "
          f"{1e3 * total['new'] / points:.1f} ms a point "
          f"({100 * (total['new'] / total['old'] - 1):+.0f} %); build and prepare "
          f"{1e3 * built / points:.1f} ms a point; points whose counts differ: {differ}; "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
