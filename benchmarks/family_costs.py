"""Benchmark: what each device-feature family costs in a model's cold ranking of a
factory space (issue #33, ``structure-ranking.md`` section 54).

Wraps every family's ``values(candidates, device)`` (before the families register) with
a processor-time clock, ranks each space cold (fresh count cache, loopy's caches in a
fresh folder), and prints per space: the ranking's processor ms per variant, and per
family the points it computed and its processor ms per variant of the space.  The
counting workers' time is the ranking's, not any family's.

Run: ``python benchmarks/family_costs.py --model chains38 --spaces FILE.py:space,...``
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

#: family -> [processor seconds, points computed] in the current ranking
SPENT: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])


def _install_clock() -> None:
    """Register every device-feature family again with its values timed (the package's
    import has registered them already; a name registered again is read from the new
    function)."""
    import workbench.models  # noqa: F401  (registers the families)
    from workbench.models import device_features

    for family in device_features.device_families():
        values = family.values

        def clocked(candidates, device, values=values):
            start = time.process_time()
            try:
                return values(candidates, device)
            finally:
                entry = SPENT[values.__module__.rsplit(".", 1)[-1] + "." + values.__name__]
                entry[0] += time.process_time() - start
                entry[1] += len(candidates)
        device_features.provide_device_features(family.features,
                                                functools.wraps(values)(clocked))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="chains38")
    parser.add_argument("--spaces", required=True)
    args = parser.parse_args()
    if any(Path(ref.split(":")[0]).name.startswith("blind19_")
           for ref in args.spaces.split(",")):
        parser.error("the blind19 set is not reported yet")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="family-costs-")
    warnings.filterwarnings("ignore")
    _install_clock()
    from model_orders_all import model_named

    from workbench.models.candidate_features import forget_counts
    from workbench.tuning import resolve_space
    from workbench.tuning.costs import timed
    from workbench.tuning.ranking import rank_space

    print(f"# family costs, model {args.model}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {os.getloadavg()}")
    model = model_named(args.model)
    for ref in args.spaces.split(","):
        os.environ["WORKBENCH_COUNT_CACHE"] = tempfile.mktemp(suffix=".sqlite")
        space = resolve_space(ref)
        forget_counts(space)
        SPENT.clear()
        ranking, spent = timed(lambda: rank_space(model, space))
        n = len(ranking.candidates)
        print(f"{Path(ref.split(':')[0]).stem:<26} {n:>4} pts  ranking {spent.cpu_s / n * 1e3:7.1f}"
              f" cpu ms/pt  load {os.getloadavg()[0]:.1f}")
        for family, (seconds, points) in sorted(SPENT.items(), key=lambda kv: -kv[1][0]):
            print(f"    {family:<45} {points:>5} pts computed {seconds / n * 1e3:7.2f} ms/pt")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
