"""Benchmark and check: a factory point built with and without the memo of its
``lp.make_kernel`` call (:mod:`workbench.models.factory_memo`), in turns on the same points.

For every space given (default: every ``examples/spaces/*.py`` and
``examples/kernels/my_space.py``), a spread sample of points (every structure's first
point among them) is built both ways, the two in turns (plain first on every other
point), and timed in processor milliseconds; the memo is the space's own, as in a ranking,
and its first build is timed too, as a ranking's first probe pays for it.  The two kernels
must be equal (loopy's ``==`` on the translation units: every instruction, argument,
domain, iname and option), or the script exits 1.

Run: ``python benchmarks/factory_memo_ab.py [--spaces FILE.py:space,...] [--points 8]``.
"""

from __future__ import annotations

import argparse
import glob
import os
import platform
import sys
import time
import warnings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spaces", default=",".join(
        f"{f}:space" for f in [*sorted(glob.glob("examples/spaces/*.py")),
                               "examples/kernels/my_space.py"]))
    parser.add_argument("--points", type=int, default=8, help="points per space")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from workbench.models import factory_memo
    from workbench.models.structure_counts import structural_knobs, structure_key
    from workbench.tuning.catalog import resolve_space

    def build(space, point, memo: bool):
        began = time.process_time()
        if memo:
            with factory_memo.memoized_make_kernel(space):
                kernel = space.build(point)
        else:
            kernel = space.build(point)
        return kernel, 1e3 * (time.process_time() - began)

    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"processor ms per build (mean over the sample)\n{'space':<24} {'points':>6} "
          f"{'plain':>8} {'memo':>8} {'saved':>7} {'distinct make_kernel':>20} "
          f"{'unequal':>7}")
    unequal_total = plain_total = memo_total = 0.0
    for ref in args.spaces.split(","):
        space = resolve_space(ref)
        points = space.points()
        step = max(1, len(points) // args.points)
        knobs = structural_knobs(space)
        firsts: dict = {}
        for p in points:
            firsts.setdefault(structure_key(p, knobs), p)
        sample = list(dict.fromkeys([*firsts.values(), *points[::step][:args.points]]))
        build(space, points[-1], memo=False)      # the first build pays for imports
        plain_ms = memo_ms = 0.0
        unequal = 0
        for i, p in enumerate(sample):
            if i % 2:
                memo_kernel, m = build(space, p, True)
                plain_kernel, t = build(space, p, False)
            else:
                plain_kernel, t = build(space, p, False)
                memo_kernel, m = build(space, p, True)
            plain_ms += t
            memo_ms += m
            unequal += memo_kernel != plain_kernel
        n = len(sample)
        name = ref.rpartition("/")[2].replace(".py:space", "")
        distinct = len(factory_memo._SPACE_MEMOS[space])
        print(f"{name:<24} {n:>6} {plain_ms / n:>8.2f} {memo_ms / n:>8.2f} "
              f"{(plain_ms - memo_ms) / n:>7.2f} {distinct:>20} {unequal:>7}", flush=True)
        unequal_total += unequal
        plain_total += plain_ms
        memo_total += memo_ms
    print(f"all builds: plain {plain_total / 1e3:.2f} s, memo {memo_total / 1e3:.2f} s "
          f"({100 * (memo_total / plain_total - 1):+.1f} %); {int(unequal_total)} kernels "
          f"unequal; load average at the end "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 1 if unequal_total else 0


if __name__ == "__main__":
    sys.exit(main())
