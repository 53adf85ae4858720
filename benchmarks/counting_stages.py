"""Benchmark: where counting one factory point goes, stage by stage.

For every space given (default: every ``examples/spaces/*.py`` and
``examples/kernels/my_space.py``), builds a spread sample of its points (every
structure's first point among them; one point before, untimed) and times, per point, in processor
milliseconds: the user's factory (``build``), loopy's preprocessing and type
inference (``prepare``), the operation and access counters (``counts``), the local
barriers (``barriers``: one linearization, or none where loopy inserts none), the whole
of :func:`~workbench.properties.extract_properties` (``extract``: those three, the
expressions, the strided arrays' footprints; its parts are timed on a second fresh
build) and the footprint bytes the floors read (``footprint``); ``total`` is build,
extract and footprint.  A ranking counts only a structure's probes (``benchmarks/
ranking.py`` gives how many); this says what each costs and who spends it.

Run: ``python benchmarks/counting_stages.py [--spaces FILE.py:space,...] [--points 8]``.
"""

from __future__ import annotations

import argparse
import glob
import os
import platform
import time
import warnings

from workbench.properties.features import Granularity

STAGES = ("build", "extract", "prepare", "counts", "barriers", "footprint")
#: the stages a point's count is the sum of (prepare, counts and barriers are parts of
#: the extraction, timed apart on another fresh build of the point)
SUMMED = ("build", "extract", "footprint")


def _stages(space, point) -> dict[str, float]:
    from workbench.models.global_bytes import global_footprint_bytes
    from workbench.properties import extract_properties
    from workbench.properties.counting import (
        access_counts,
        local_barriers,
        op_counts,
        prepare,
    )

    out = {}

    def clock(name, work):
        began = time.process_time()
        result = work()
        out[name] = 1e3 * (time.process_time() - began)
        return result

    kernel = clock("build", lambda: space.build(point))
    whole = clock("extract", lambda: extract_properties(kernel))
    clock("footprint", lambda: global_footprint_bytes(whole, dict(space.problem)))
    again = space.build(point)
    pre = clock("prepare", lambda: prepare(again))
    runs: dict = {}
    clock("counts", lambda: (op_counts(pre, Granularity.WORKITEM, None, runs),
                             access_counts(pre, Granularity.WORKITEM, None, runs)))
    clock("barriers", lambda: local_barriers(pre))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spaces", default=",".join(
        f"{f}:space" for f in [*sorted(glob.glob("examples/spaces/*.py")),
                               "examples/kernels/my_space.py"]))
    parser.add_argument("--points", type=int, default=8, help="points per space")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from workbench.models.structure_counts import structural_knobs, structure_key
    from workbench.tuning.catalog import resolve_space

    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"processor ms per point (mean over the sample)\n{'space':<22} {'points':>6} "
          + " ".join(f"{s:>12}" for s in STAGES) + f" {'total':>8}")
    for ref in args.spaces.split(","):
        space = resolve_space(ref)
        points = space.points()
        step = max(1, len(points) // args.points)
        knobs = structural_knobs(space)
        firsts: dict = {}
        for p in points:
            firsts.setdefault(structure_key(p, knobs), p)
        sample = list(dict.fromkeys([*points[::step][:args.points], *firsts.values()]))
        _stages(space, points[-1])      # warm: the first point pays for imports
        rows = [_stages(space, p) for p in sample]
        means = {s: sum(r[s] for r in rows) / len(rows) for s in STAGES}
        name = ref.rpartition("/")[2].replace(".py:space", "")
        print(f"{name:<22} {len(rows):>6} " + " ".join(f"{means[s]:>12.1f}" for s in STAGES)
              + f" {sum(means[s] for s in SUMMED):>8.1f}", flush=True)
    print(f"load average at the end {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
